/**
 * The run's OutputContract and goal conditions (flex-agents-server-spec.md
 * §5.1, §5.2, §5.9.1, §10.0.1). Both arrive with StartRun.
 *
 * - `output_contract`: `{ schema: <JSON Schema>, mode?: 'json_schema', hints?, constraints? }`.
 *   On completion the run's final output — every node's output under its
 *   output key, as GetRun shows it — is validated with Ajv; a violation emits
 *   `validation_error` `{ scope: 'output_contract', errors: [...] }` and fails
 *   the run. (`constraints` are accepted and kept for the planner; the runtime
 *   does not evaluate them.)
 * - `goal_condition`: `[{ facet, path?, condition: { dsl? | jsonLogic? } }]`.
 *   `facet` names an output key, `path` is a JSON-pointer-style path inside it
 *   (`/variants[0]`, `/asset/status`), and the condition is evaluated with the
 *   value there as its variables. AND semantics; the results are published as
 *   `goal_condition_results` on `complete`. An unmet goal does not fail the
 *   run (there is no replan to hand it to yet) — it is reported.
 */
import { compileCondition, resolvePath, type PathSegment, type Scope } from '@af/expr';
import { compileOutputSchema, validateOutput, type JsonSchema } from '@af/llm';

export interface OutputContract {
  schema: Record<string, unknown>;
  mode?: string;
  hints?: Record<string, unknown>;
  constraints?: unknown[];
}

export interface GoalCondition {
  facet: string;
  path: string;
  condition: { dsl?: string; jsonLogic?: unknown; canonicalDsl?: string };
}

export interface GoalConditionResult {
  facet: string;
  path: string;
  expression: string;
  satisfied: boolean;
  error?: string;
}

export interface ContractViolation {
  field: string;
  reason: string;
}

export interface OutputValidationError {
  /** JSON pointer into the final output (`/report/title`). */
  path: string;
  keyword: string;
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the shape of an output contract and that its schema compiles. */
export function parseOutputContract(raw: unknown, field = 'output_contract'): { contract: OutputContract } | { violations: ContractViolation[] } {
  if (!isObject(raw)) return { violations: [{ field, reason: 'must be an object with a JSON Schema under `schema`' }] };
  const violations: ContractViolation[] = [];
  if (!isObject(raw.schema)) violations.push({ field: `${field}.schema`, reason: 'is required: the JSON Schema the final output must satisfy' });
  if (raw.mode !== undefined && raw.mode !== 'json_schema') violations.push({ field: `${field}.mode`, reason: `must be json_schema, got ${JSON.stringify(raw.mode)}` });
  if (raw.hints !== undefined && !isObject(raw.hints)) violations.push({ field: `${field}.hints`, reason: 'must be an object' });
  if (raw.constraints !== undefined && !Array.isArray(raw.constraints)) violations.push({ field: `${field}.constraints`, reason: 'must be an array' });
  const unknown = Object.keys(raw).filter((k) => !['schema', 'mode', 'hints', 'constraints'].includes(k));
  for (const k of unknown) violations.push({ field: `${field}.${k}`, reason: 'is not a field of an output contract (schema, mode, hints, constraints)' });
  if (isObject(raw.schema)) {
    try {
      compileOutputSchema(raw.schema as JsonSchema);
    } catch (err) {
      violations.push({ field: `${field}.schema`, reason: (err as Error).message });
    }
  }
  return violations.length ? { violations } : { contract: raw as unknown as OutputContract };
}

/** Checks every goal condition: a facet, a parsable path and a condition that compiles. */
export function parseGoalConditions(raw: unknown, field = 'goal_condition'): { goals: GoalCondition[] } | { violations: ContractViolation[] } {
  if (!Array.isArray(raw)) return { violations: [{ field, reason: 'must be an array of { facet, path, condition }' }] };
  const violations: ContractViolation[] = [];
  const goals: GoalCondition[] = [];
  raw.forEach((entry, i) => {
    const at = `${field}[${i}]`;
    if (!isObject(entry)) {
      violations.push({ field: at, reason: 'must be an object { facet, path, condition }' });
      return;
    }
    if (typeof entry.facet !== 'string' || entry.facet === '') violations.push({ field: `${at}.facet`, reason: 'is required: the output key the condition looks at' });
    const path = entry.path ?? '';
    if (typeof path !== 'string') violations.push({ field: `${at}.path`, reason: 'must be a JSON-pointer-style path such as /variants[0]' });
    else {
      try {
        pointerSegments(path);
      } catch (err) {
        violations.push({ field: `${at}.path`, reason: (err as Error).message });
      }
    }
    const cond = entry.condition;
    if (!isObject(cond) || (typeof cond.dsl !== 'string' && cond.jsonLogic === undefined)) {
      violations.push({ field: `${at}.condition`, reason: 'must be { dsl } or { jsonLogic } (the Condition DSL envelope)' });
    } else {
      try {
        compileGoal(cond);
      } catch (err) {
        violations.push({ field: `${at}.condition.${cond.jsonLogic !== undefined ? 'jsonLogic' : 'dsl'}`, reason: (err as Error).message });
      }
    }
    goals.push({ facet: String(entry.facet), path: typeof path === 'string' ? path : '', condition: (cond ?? {}) as GoalCondition['condition'] });
  });
  return violations.length ? { violations } : { goals };
}

/** Validates the final output against the contract's schema. */
export function checkOutput(contract: OutputContract, output: unknown): OutputValidationError[] {
  const result = validateOutput(contract.schema as JsonSchema, output);
  if (result.ok) return [];
  return result.violations.map((v) => ({ path: v.pointer || '/', keyword: v.keyword, message: v.message }));
}

/** Evaluates every goal condition against the final output (keyed by output key). */
export function evaluateGoals(goals: readonly GoalCondition[], output: Record<string, unknown>): GoalConditionResult[] {
  return goals.map((goal) => {
    const expression = goal.condition.canonicalDsl ?? goal.condition.dsl ?? JSON.stringify(goal.condition.jsonLogic);
    const base = { facet: goal.facet, path: goal.path, expression };
    if (!Object.prototype.hasOwnProperty.call(output, goal.facet)) {
      return { ...base, satisfied: false, error: `the run has no output '${goal.facet}'` };
    }
    try {
      const segments = pointerSegments(goal.path);
      const { found, value } = resolvePath(output[goal.facet], segments);
      if (!found) return { ...base, satisfied: false, error: `'${goal.facet}' has nothing at ${goal.path}` };
      const scope: Scope = { vars: isObject(value) ? value : { value } };
      return { ...base, satisfied: compileGoal(goal.condition)(scope) };
    } catch (err) {
      return { ...base, satisfied: false, error: (err as Error).message };
    }
  });
}

function compileGoal(cond: Record<string, unknown>): (scope: Scope) => boolean {
  if (cond.jsonLogic !== undefined) return compileCondition(cond.jsonLogic as never, { dialect: 'jsonlogic' });
  return compileCondition(cond.dsl as string, { dialect: 'dsl', aliases: [] });
}

/** `/variants[0]/title` → path segments (JSON pointer segments, each may carry `[n]` indexes; `~0`/`~1` escapes). */
export function pointerSegments(pointer: string): PathSegment[] {
  if (pointer === '' || pointer === '/') return [];
  if (!pointer.startsWith('/')) throw new Error(`must start with '/', got '${pointer}'`);
  const out: PathSegment[] = [];
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(seg)) {
      out.push({ kind: 'index', index: Number(seg) });
      continue;
    }
    const m = /^([^[\]]*)((?:\[-?\d+\])*)$/.exec(seg);
    if (!m) throw new Error(`segment '${seg}' is not a name optionally followed by [index]`);
    if (m[1]) out.push({ kind: 'prop', name: m[1] });
    for (const idx of (m[2] ?? '').match(/-?\d+/g) ?? []) out.push({ kind: 'index', index: Number(idx) });
  }
  return out;
}
