/**
 * A run's `inputs` checked against the plan's input declarations before the
 * run starts: required inputs given, values of the declared type (and among
 * the declared `enum` values), and — for plans compiled from a playbook,
 * whose declarations are the whole contract — no input the playbook does not
 * declare. Plans from other front-ends (planner, workflow_steps, master
 * plans) declare what they saw, not a contract, so only `required` applies.
 */
import type { PlanGraph } from '../ir.js';
import { nearestName } from '../issues/nearest-name.js';

/** One refused input; `field` is `inputs.<name>` (or `inputs.<name>[k]` for a list element). */
export interface RunInputIssue {
  field: string;
  reason: string;
  /** `missing_required` | `invalid_type` | `invalid_enum` | `unknown_input`. */
  code: string;
  suggestedFix?: string;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  entity_name: 'a string (an entity name)',
  number: 'a number',
  date: 'a date (ISO 8601, e.g. 2024-01-31)',
  list: 'a list',
};

/** Whether `value` is of a playbook input type (`string`, `number`, `date`, `entity_name`, `list`). */
export function inputValueMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'list':
      return Array.isArray(value);
    case 'date':
      return (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value))) || value instanceof Date;
    default:
      return typeof value === 'string';
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `a ${typeof value}`;
}

/** Every problem of `inputs` for `plan`, in declaration order, unknown inputs last. */
export function checkRunInputs(plan: Pick<PlanGraph, 'inputs' | 'provenance'>, inputs: Readonly<Record<string, unknown>>): RunInputIssue[] {
  const issues: RunInputIssue[] = [];
  const contract = plan.provenance?.frontEnd === 'playbook';
  for (const decl of plan.inputs) {
    const field = `inputs.${decl.name}`;
    const value = Object.prototype.hasOwnProperty.call(inputs, decl.name) ? inputs[decl.name] : undefined;
    if (value === undefined || value === null) {
      if (decl.required && decl.default === undefined) issues.push({ field, reason: `is required (${TYPE_WORDS[decl.type] ?? decl.type})`, code: 'missing_required' });
      continue;
    }
    if (!contract) continue;
    if (!inputValueMatches(decl.type, value)) {
      issues.push({ field, reason: `must be ${TYPE_WORDS[decl.type] ?? decl.type}, not ${describe(value)}`, code: 'invalid_type' });
      continue;
    }
    if (decl.enum === undefined) continue;
    const allowed = decl.enum;
    const check = (v: unknown, at: string): void => {
      if (allowed.some((a) => a === v)) return;
      const issue: RunInputIssue = { field: at, reason: `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}, not ${JSON.stringify(v)}`, code: 'invalid_enum' };
      const fix = typeof v === 'string' ? nearestName(v, allowed.filter((a): a is string => typeof a === 'string')) : undefined;
      if (fix) issue.suggestedFix = fix;
      issues.push(issue);
    };
    if (Array.isArray(value)) value.forEach((v, k) => check(v, `${field}[${k}]`));
    else check(value, field);
  }
  if (contract) {
    const declared = plan.inputs.map((d) => d.name);
    for (const name of Object.keys(inputs)) {
      if (declared.includes(name)) continue;
      const fix = nearestName(name, declared);
      const issue: RunInputIssue = {
        field: `inputs.${name}`,
        reason: `is not an input of this playbook (${declared.length ? `its inputs: ${declared.join(', ')}` : 'it declares no inputs'})${fix ? `; did you mean '${fix}'?` : ''}`,
        code: 'unknown_input',
      };
      if (fix) issue.suggestedFix = fix;
      issues.push(issue);
    }
  }
  return issues;
}
