/**
 * A playbook that fails its schema is still link-checked, on a repaired copy,
 * so one validation round reports schema errors and reference errors
 * together. The repair applies what the schema issues suggest (a misspelt key
 * renamed to the key it was meant to be, a misspelt enum value corrected) and
 * drops every other field that failed, so later passes see what the author
 * most likely meant. Errors that only restate a schema error (a dropped
 * `action` reported again as missing) are filtered out by the caller with
 * `overlapsSchemaIssue`.
 */
import type { PlanIssue } from '../issues/plan-issue.js';
import { PlaybookSchema, type Playbook } from './playbook.schema.js';
import { parseFieldPath } from './yaml-source.js';

/** Name given to a step whose own name failed; its link results are not reported. */
export const PLACEHOLDER_STEP_PREFIX = '__invalid_step_';

type Path = Array<string | number>;
type Container = Record<string | number, unknown>;

function parentOf(root: unknown, path: Path): Container | undefined {
  let v: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Container)[key];
  }
  return v !== null && typeof v === 'object' ? (v as Container) : undefined;
}

/** Where a step-level repair applies: the step object's path and the key inside it. */
function stepKey(path: Path): { stepPath: Path; key: string | undefined } | undefined {
  if (path[0] !== 'steps' || typeof path[1] !== 'number') return undefined;
  if (path[2] === 'parallel_steps' && typeof path[3] === 'number') {
    return { stepPath: path.slice(0, 4), key: typeof path[4] === 'string' ? path[4] : undefined };
  }
  return { stepPath: path.slice(0, 2), key: typeof path[2] === 'string' ? path[2] : undefined };
}

/**
 * The repaired playbook, or undefined when the document is too broken to
 * check further (no usable `steps` list, a step that is not a mapping).
 */
export function salvagePlaybook(value: Record<string, unknown>, issues: readonly PlanIssue[]): Playbook | undefined {
  const copy = structuredClone(value) as Container;
  const dropInputs = new Set<number>();
  for (const issue of issues) {
    const path = parseFieldPath(issue.field);
    if (path.length === 0) return undefined;
    const parent = parentOf(copy, path);
    const last = path[path.length - 1]!;
    if (!parent) return undefined;
    if (issue.code === 'unknown_field') {
      // `ouput_key: x` → `output_key: x` when the intended key is free; else just dropped.
      if (issue.suggestedFix !== undefined && parent[issue.suggestedFix] === undefined) parent[issue.suggestedFix] = parent[last];
      delete parent[last];
      continue;
    }
    if (issue.suggestedFix !== undefined) {
      parent[last] = issue.suggestedFix; // an enum value's nearest allowed value
      continue;
    }
    const step = stepKey(path);
    if (step) {
      const target = parentOf(copy, [...step.stepPath, '']);
      if (!target || step.key === undefined) return undefined;
      if (step.key === 'name') {
        const [, i, , j] = step.stepPath;
        target.name = `${PLACEHOLDER_STEP_PREFIX}${i}${j !== undefined ? `_${j}` : ''}`;
      } else if (step.key !== 'parallel_steps' || step.stepPath.length === 2) {
        delete target[step.key];
      }
      continue;
    }
    const top = path[0]!;
    if (top === 'steps') return undefined;
    if (top === 'id') copy.id = 'playbook';
    else if (top === 'name') copy.name = 'playbook';
    else if (top === 'inputs' && typeof path[1] === 'number' && typeof path[2] === 'string' && path[2] !== 'name') {
      const input = parentOf(copy, [...path.slice(0, 2), '']);
      if (input) delete input[path[2]];
    } else if (top === 'inputs' && typeof path[1] === 'number') dropInputs.add(path[1]);
    else delete copy[top];
  }
  if (dropInputs.size > 0 && Array.isArray(copy.inputs)) copy.inputs = copy.inputs.filter((_, k) => !dropInputs.has(k));
  const parsed = PlaybookSchema.safeParse(copy);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Whether `issue` (found on the repaired copy) is about a field a schema
 * issue already reported — the same field, one inside it, or its parent
 * within the same step — or about a step whose name was replaced.
 */
export function overlapsSchemaIssue(issue: PlanIssue, schemaFields: readonly string[]): boolean {
  if (issue.step?.startsWith(PLACEHOLDER_STEP_PREFIX)) return true;
  return schemaFields.some((f) => f === issue.field || f.startsWith(`${issue.field}.`) || f.startsWith(`${issue.field}[`) || issue.field.startsWith(`${f}.`) || issue.field.startsWith(`${f}[`));
}
