/**
 * The JSON front-ends beside playbook YAML: `workflow_steps` (compiled) and a
 * raw PlanGraph (parsed and structurally validated). Pure: no I/O. Every
 * problem is an INVALID_ARGUMENT violation naming its field path in the
 * caller's document.
 */
import { compileWorkflowSteps, nearestName, PlanGraphSchema, PlanInputSchema, PlanNodeSchema, validatePlan, type CompileResult, type PlanGraph, type PlanIssue } from '@af/plan';
import { AppError } from '@af/service-kit';

const MAX_JSON_BYTES = 1024 * 1024;

/** `workflow_steps` JSON text (an array, or an object holding `workflow_steps`) → a validated PlanGraph. */
export function compileWorkflowJson(json: string): { plan: PlanGraph; results: CompileResult['results'] } {
  const doc = parseJson(json, 'workflow_steps');
  const result = compileWorkflowSteps(doc);
  if (!result.ok) throw issuesError(result.errors);
  return { plan: result.plan, results: result.results };
}

/** A PlanGraph as JSON text (the IR's shape) → the parsed plan; problems are named `plan.<path>` (a cycle names its nodes). */
export function validatePlanJson(json: string): PlanGraph {
  const doc = parseJson(json, 'plan');
  // The IR's schema drops keys it does not know; from a person, `depends_on` for `dependsOn` is a mistake to name.
  const unknown = unknownPlanKeys(doc);
  const issues = unknown.length > 0 ? unknown : validatePlan(doc);
  if (issues.length > 0) throw issuesError(issues, 'plan');
  return PlanGraphSchema.parse(doc);
}

/** Plan issues as one INVALID_ARGUMENT; `prefix` roots the field paths (`plan` → `plan.nodes[2].dependsOn`). */
export function issuesError(issues: readonly PlanIssue[], prefix = ''): AppError {
  const field = (f: string) => (!prefix ? f : !f ? prefix : f.startsWith('[') ? `${prefix}${f}` : `${prefix}.${f}`);
  const first = issues[0]!;
  const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : '';
  const message = first.message.startsWith(first.field) ? first.message.replace(first.field, field(first.field)) : `${field(first.field)}: ${first.message}`;
  return new AppError('INVALID_ARGUMENT', `${message}${more}`, {
    violations: issues.map((i) => ({
      field: field(i.field),
      reason: i.message,
      code: i.code,
      ...(i.suggestedFix ? { suggestedFix: i.suggestedFix } : {}),
    })),
  });
}

const PLAN_KEYS = Object.keys(PlanGraphSchema.shape);
const NODE_KEYS = Object.keys(PlanNodeSchema.shape);
const INPUT_KEYS = Object.keys(PlanInputSchema.shape);
const BODY_KEYS = ['nodes', 'itemsFrom', 'maxIterations', 'concurrency', 'continueOnError'];

/** Keys of the plan, its inputs, nodes and map bodies that the IR does not have, with the nearest known key. */
export function unknownPlanKeys(doc: unknown): PlanIssue[] {
  const out: PlanIssue[] = [];
  const check = (value: unknown, allowed: string[], path: string) => {
    if (!isObject(value)) return;
    for (const key of Object.keys(value)) {
      if (allowed.includes(key)) continue;
      const fix = nearestName(key, allowed) ?? nearestName(key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()), allowed);
      const field = path ? `${path}.${key}` : key;
      out.push({ code: 'unknown_field', field, message: `unknown field '${key}'${fix ? ` (did you mean '${fix}'?)` : ''}`, ...(fix ? { suggestedFix: fix } : {}) });
    }
  };
  const nodes = (list: unknown, path: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((n, i) => {
      check(n, NODE_KEYS, `${path}[${i}]`);
      if (isObject(n) && isObject(n.body)) {
        check(n.body, BODY_KEYS, `${path}[${i}].body`);
        nodes(n.body.nodes, `${path}[${i}].body.nodes`);
      }
    });
  };
  check(doc, PLAN_KEYS, '');
  if (isObject(doc)) {
    if (Array.isArray(doc.inputs)) doc.inputs.forEach((input, i) => check(input, INPUT_KEYS, `inputs[${i}]`));
    nodes(doc.nodes, 'nodes');
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(json: string, field: string): unknown {
  if (!json || !json.trim()) throw AppError.invalid(field, 'is required');
  if (Buffer.byteLength(json) > MAX_JSON_BYTES) throw AppError.invalid(field, `is larger than ${MAX_JSON_BYTES} bytes`);
  try {
    return JSON.parse(json);
  } catch (e) {
    throw AppError.invalid(field, `is not valid JSON: ${(e as Error).message}`);
  }
}
