/**
 * zod issues → PlanIssues whose `field` is a document path
 * (`steps[1].inputs.query`), so schema errors name the field like every other
 * error of this package.
 */
import type { z } from 'zod';
import { nearestName } from './nearest-name.js';
import type { PlanIssue } from './plan-issue.js';

/** `['steps', 1, 'inputs']` → `steps[1].inputs`, prefixed by `base` when given. */
export function formatFieldPath(path: ReadonlyArray<PropertyKey>, base = ''): string {
  let out = base;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Converts every zod issue; unknown keys become `unknown_field` with the nearest allowed key as fix. */
export function zodIssuesToPlanIssues(error: z.ZodError, base = '', allowedKeysAt?: (path: ReadonlyArray<PropertyKey>) => string[] | undefined): PlanIssue[] {
  const out: PlanIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = formatFieldPath([...issue.path, key], base);
        const allowed = allowedKeysAt?.(issue.path) ?? [];
        const fix = nearestName(key, allowed);
        const p: PlanIssue = { code: 'unknown_field', field, message: `${field}: unknown field '${key}'${fix ? ` (did you mean '${fix}'?)` : ''}` };
        if (fix) p.suggestedFix = fix;
        out.push(p);
      }
      continue;
    }
    if (issue.code === 'invalid_union' && 'errors' in issue && Array.isArray(issue.errors) && issue.errors.length > 0) {
      // Report the branch that got furthest instead of "Invalid input".
      const branches = issue.errors as z.core.$ZodIssue[][];
      const best = branches.reduce((a, b) => (b.length < a.length ? b : a));
      for (const inner of best) {
        const field = formatFieldPath([...issue.path, ...inner.path], base);
        out.push({ code: 'invalid_field', field, message: `${field || '(document)'}: ${inner.message}` });
      }
      continue;
    }
    const field = formatFieldPath(issue.path, base);
    if (issue.code === 'invalid_value' && 'values' in issue && Array.isArray(issue.values) && typeof issue.input === 'string') {
      // An enum: name the allowed values and the one that was probably meant (`aproval` → `approval`).
      const values = (issue.values as unknown[]).filter((v): v is string => typeof v === 'string');
      const fix = nearestName(issue.input, values);
      const p: PlanIssue = {
        code: 'invalid_field',
        field,
        message: `${field || '(document)'}: '${issue.input}' is not one of ${values.join(', ')}${fix ? ` (did you mean '${fix}'?)` : ''}`,
      };
      if (fix) p.suggestedFix = fix;
      out.push(p);
      continue;
    }
    out.push({ code: 'invalid_field', field, message: `${field || '(document)'}: ${issue.message}` });
  }
  return out;
}
