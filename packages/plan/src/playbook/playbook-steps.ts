/**
 * Flattens a parsed playbook's steps (parallel sub-steps become siblings) and
 * checks the fields that belong to each step_type, so that later passes can
 * rely on a consistent step model.
 */
import type { ActionContract } from '../contracts/action-contract.js';
import type { ActionIORegistry } from '../contracts/action-registry.js';
import { nearestName } from '../issues/nearest-name.js';
import type { StepIssue } from '../issues/plan-issue.js';
import type { PlaybookStep, PlaybookSubStep } from './playbook.schema.js';

export interface FlatStep {
  step: PlaybookSubStep;
  name: string;
  /** What references use: `output_key`, defaulting to the name. */
  outputKey: string;
  stepType: 'tool' | 'llm_task' | 'approval';
  /** `steps[2]` or `steps[2].parallel_steps[1]`. */
  source: string;
  /** Position in the flattened list (document order). */
  order: number;
  /** Index of the top-level step; parallel siblings share it. */
  unit: number;
  /** Name of the enclosing parallel step, for sub-steps. */
  group?: string;
  /** A parallel step itself: it groups sub-steps and produces no node. */
  isGroup: boolean;
  contract?: ActionContract;
  sideEffect: boolean;
  /** Structural problems found while flattening. */
  errors: StepIssue[];
}

const APPROVAL_ONLY = ['preview_from', 'preview_limit', 'prompt', 'timeout_minutes', 'on_reject', 'allow_team_decisions', 'team_ids'] as const;
const NOT_FOR_APPROVAL = ['inputs', 'params', 'output_key', 'action', 'connector', 'endpoint', 'operations', 'output_schema', 'timeout_seconds', 'retry_count'] as const;
const GROUP_ALLOWED = new Set(['name', 'description', 'step_type', 'action', 'parallel_steps', 'condition', 'on_error', 'timeout_seconds', 'retry_count']);

function misplaced(step: PlaybookSubStep, keys: readonly string[], why: string, errors: StepIssue[]): void {
  for (const key of keys) {
    if ((step as Record<string, unknown>)[key] !== undefined) errors.push({ code: 'invalid_field', field: key, message: `'${key}' ${why}` });
  }
}

/**
 * `allow_team_decisions` and `team_ids` only mean something together: either
 * alone would silently leave the decision with the owner, which is exactly
 * what the author did not intend.
 */
function checkTeamDecisions(step: PlaybookSubStep, errors: StepIssue[]): void {
  if (step.allow_team_decisions === true && step.team_ids === undefined) {
    errors.push({ code: 'missing_required', field: 'team_ids', message: 'allow_team_decisions: true needs team_ids (the teams whose members may decide)' });
  }
  if (step.team_ids !== undefined && step.allow_team_decisions !== true) {
    errors.push({
      code: 'invalid_field',
      field: 'allow_team_decisions',
      message: `team_ids has no effect unless allow_team_decisions is true (it is ${step.allow_team_decisions === undefined ? 'not set' : 'false'})`,
    });
  }
}

function checkStepFields(step: PlaybookSubStep, stepType: FlatStep['stepType'], registry: ActionIORegistry, errors: StepIssue[]): ActionContract | undefined {
  if (stepType === 'approval') {
    misplaced(step, NOT_FOR_APPROVAL, 'does not apply to approval steps (they gate the flow and have no inputs or outputs)', errors);
    if (step.prompt === undefined) errors.push({ code: 'missing_required', field: 'prompt', message: 'an approval step needs a prompt (the question to ask the user)' });
    checkTeamDecisions(step, errors);
    return undefined;
  }
  misplaced(step, APPROVAL_ONLY, 'only applies to approval steps', errors);
  if (step.action === undefined) {
    errors.push({ code: 'missing_required', field: 'action', message: `a ${stepType} step needs an action` });
    return undefined;
  }
  const contract = registry.get(step.action);
  const expected = stepType === 'tool' ? 'tool' : 'llm_task';
  if (!contract || contract.stepType !== expected) {
    const candidates = registry.list().filter((c) => c.stepType === expected).map((c) => c.name);
    const fix = nearestName(step.action, candidates);
    const other = contract ? ` ('${step.action}' is a ${contract.stepType} action)` : '';
    const issue: StepIssue = { code: 'unresolved_reference', field: 'action', message: `unknown ${stepType} action '${step.action}'${other}${fix ? ` (did you mean '${fix}'?)` : ''}` };
    if (fix) issue.suggestedFix = fix;
    errors.push(issue);
    return undefined;
  }
  if (stepType === 'llm_task') misplaced(step, ['connector', 'endpoint', 'operations'], 'only applies to tool steps', errors);
  if (step.action !== 'call_connector') misplaced(step, ['connector', 'endpoint'], "only applies to 'call_connector' steps", errors);
  if (step.action !== 'transform_data') misplaced(step, ['operations'], "only applies to 'transform_data' steps", errors);
  if (stepType === 'tool' && step.output_schema !== undefined && step.action !== 'call_connector') {
    errors.push({ code: 'invalid_field', field: 'output_schema', message: `a tool step's output shape comes from the '${step.action}' contract; output_schema only applies to llm_task steps` });
  }
  return contract;
}

function flatStep(step: PlaybookSubStep, source: string, order: number, unit: number, registry: ActionIORegistry, group?: string): FlatStep {
  const errors: StepIssue[] = [];
  const stepType = step.step_type ?? 'tool';
  if (step.step_type === undefined) {
    errors.push({ code: 'missing_required', field: 'step_type', message: "step_type is required: 'tool', 'llm_task' or 'approval'" });
  }
  const contract = checkStepFields(step, stepType, registry, errors);
  const flat: FlatStep = {
    step,
    name: step.name,
    outputKey: step.output_key ?? step.name,
    stepType,
    source,
    order,
    unit,
    isGroup: false,
    sideEffect: stepType === 'approval' || contract?.sideEffect === true,
    errors,
  };
  if (contract) flat.contract = contract;
  if (group !== undefined) flat.group = group;
  return flat;
}

/** Flattened steps in document order: a parallel step is followed by its sub-steps. */
export function flattenSteps(steps: readonly PlaybookStep[], registry: ActionIORegistry): FlatStep[] {
  const out: FlatStep[] = [];
  steps.forEach((step, unit) => {
    const source = `steps[${unit}]`;
    if (step.parallel_steps === undefined && step.action !== 'parallel') {
      out.push(flatStep(step, source, out.length, unit, registry));
      return;
    }
    const errors: StepIssue[] = [];
    if (step.action !== undefined && step.action !== 'parallel') {
      errors.push({ code: 'invalid_field', field: 'action', message: `a step with parallel_steps must have action 'parallel' (or none), not '${step.action}'` });
    }
    if (step.step_type !== undefined && step.step_type !== 'tool') {
      errors.push({ code: 'invalid_field', field: 'step_type', message: "a parallel step is a 'tool' step" });
    }
    if (step.parallel_steps === undefined) {
      errors.push({ code: 'missing_required', field: 'parallel_steps', message: "action 'parallel' needs parallel_steps" });
    }
    for (const key of Object.keys(step)) {
      if (!GROUP_ALLOWED.has(key) && (step as Record<string, unknown>)[key] !== undefined) {
        errors.push({ code: 'invalid_field', field: key, message: `'${key}' does not apply to a parallel step; set it on its sub-steps` });
      }
    }
    out.push({ step, name: step.name, outputKey: step.name, stepType: 'tool', source, order: out.length, unit, isGroup: true, sideEffect: false, errors });
    step.parallel_steps?.forEach((sub, j) => {
      // The group's condition and error settings are defaults for its sub-steps.
      const merged: PlaybookSubStep = {
        ...sub,
        ...(step.condition !== undefined ? { condition: sub.condition ? `(${step.condition}) AND (${sub.condition})` : step.condition } : {}),
        ...(sub.on_error === undefined && step.on_error !== undefined ? { on_error: step.on_error } : {}),
        ...(sub.timeout_seconds === undefined && step.timeout_seconds !== undefined ? { timeout_seconds: step.timeout_seconds } : {}),
        ...(sub.retry_count === undefined && step.retry_count !== undefined ? { retry_count: step.retry_count } : {}),
      };
      out.push(flatStep(merged, `${source}.parallel_steps[${j}]`, out.length, unit, registry, step.name));
    });
  });
  return out;
}
