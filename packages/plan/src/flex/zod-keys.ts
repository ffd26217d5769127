/**
 * "Did you mean …?" for unknown keys: the keys a zod schema allows at a path,
 * found by walking the schema (objects, arrays, records, optional / default /
 * nullable / pipe wrappers, unions by first match). Used with
 * `zodIssuesToPlanIssues` so `optimization` suggests `optimisation`.
 */
import type { z } from 'zod';
import { zodIssuesToPlanIssues } from '../issues/zod-issues.js';
import type { PlanIssue } from '../issues/plan-issue.js';

type Def = { type: string; shape?: Record<string, z.ZodType>; innerType?: z.ZodType; element?: z.ZodType; valueType?: z.ZodType; options?: z.ZodType[]; in?: z.ZodType; out?: z.ZodType };

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

function unwrap(s: z.ZodType): z.ZodType {
  let cur = s;
  for (let i = 0; i < 20; i++) {
    const d = defOf(cur);
    if ((d.type === 'optional' || d.type === 'default' || d.type === 'nullable' || d.type === 'prefault' || d.type === 'catch' || d.type === 'readonly') && d.innerType) cur = d.innerType;
    else if (d.type === 'pipe' && d.in) cur = d.in;
    else break;
  }
  return cur;
}

/** Keys allowed by `schema` at `path`, or undefined when the path leaves object territory. */
export function zodKeysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] | undefined {
  let cur: z.ZodType | undefined = unwrap(schema);
  for (const key of path) {
    if (!cur) return undefined;
    const d = defOf(cur);
    if (d.type === 'object' && d.shape) cur = d.shape[String(key)];
    else if (d.type === 'array' && d.element) cur = d.element;
    else if (d.type === 'record' && d.valueType) cur = d.valueType;
    else if (d.type === 'union' && d.options) cur = d.options.find((o) => zodKeysAt(o, []) !== undefined);
    else return undefined;
    cur = cur ? unwrap(cur) : undefined;
  }
  if (!cur) return undefined;
  const d = defOf(cur);
  if (d.type === 'object' && d.shape) return Object.keys(d.shape);
  if (d.type === 'union' && d.options) return d.options.flatMap((o) => zodKeysAt(o, []) ?? []);
  return undefined;
}

/** zod issues → PlanIssues under `base`, unknown keys with the nearest allowed key. */
export function issuesOf(schema: z.ZodType, error: z.ZodError, base: string): PlanIssue[] {
  return zodIssuesToPlanIssues(error, base, (path) => zodKeysAt(schema, path));
}
