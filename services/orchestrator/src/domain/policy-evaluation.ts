/**
 * When a runtime policy fires, and what it records. Pure: the engine gives
 * the facts (outputs, the node that completed, run statistics), persists the
 * firing and applies the action.
 *
 * Each firing has a key, unique within the run, so a policy fires once per
 * subject however often the run is resumed: the policy id for run-level
 * triggers (`onStart`, `onTimeout`, `onMetricBelow`, `onValidationFail`),
 * `<policy>@<node instance>` for `onNodeComplete`, `<policy>@manual:<n>` for
 * manual triggers, and `<key>/approve` | `<key>/reject` for a hitl gate's
 * follow-up action.
 */
import { parsePath, resolvePath } from '@af/expr';
import { compilePolicyCondition, type PolicyAction, type PolicyCondition, type PolicyTrigger, type RuntimePolicy } from './runtime-policy.js';

/** Counts a metric or condition can read as `run.*`. */
export interface RunStats {
  completed: number;
  failed: number;
  skipped: number;
  elapsedMs: number;
  planVersion: number;
}

/** What a policy condition or metric sees. */
export interface PolicyFacts {
  /** Top-level node outputs by output key. */
  outputs: Record<string, unknown>;
  inputs: Record<string, unknown>;
  run: RunStats;
  /** onNodeComplete: the node instance that completed, and its output. */
  node?: { id: string; nodeId: string; kind: string; action?: string; capabilityId?: string; outputKey: string };
  output?: unknown;
  /** onValidationFail: the output contract's errors. */
  errors?: unknown[];
}

/**
 * The variables: each output under its key, `inputs`, `run`, and for node
 * triggers `node` and `output` — plus every output as a facet
 * (`metadata.runContextSnapshot.facets.<key>.value`), which the Condition
 * DSL's `facets.<key>.<field>` alias reads (seed §5.3 example).
 */
export function policyVars(facts: PolicyFacts): Record<string, unknown> {
  const facets: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(facts.outputs)) facets[key] = { value };
  if (facts.node) facets[facts.node.outputKey] = { value: facts.output };
  return {
    ...facts.outputs,
    inputs: facts.inputs,
    input: facts.inputs,
    run: facts.run,
    ...(facts.node ? { node: facts.node, output: facts.output } : {}),
    ...(facts.errors ? { errors: facts.errors } : {}),
    metadata: { runContextSnapshot: { facets } },
  };
}

export type Evaluation = { fire: boolean; error?: string };

/** Whether `condition` holds (no condition: it does); an evaluation error does not fire and is reported. */
export function conditionHolds(condition: PolicyCondition | undefined, vars: Record<string, unknown>): Evaluation {
  if (!condition) return { fire: true };
  try {
    return { fire: compilePolicyCondition(condition)({ vars }) };
  } catch (err) {
    return { fire: false, error: (err as Error).message };
  }
}

/** An onNodeComplete (or onValidationFail) policy's selector matches the node (by base id for map iteration instances). */
export function selectorMatches(trigger: Extract<PolicyTrigger, { kind: 'onNodeComplete' | 'onValidationFail' }>, node: Pick<NonNullable<PolicyFacts['node']>, 'nodeId' | 'kind' | 'capabilityId'>): boolean {
  const s = trigger.selector;
  if (!s) return true;
  if (s.nodeId !== undefined && s.nodeId !== node.nodeId) return false;
  if (s.kind !== undefined && s.kind !== node.kind) return false;
  if (s.capabilityId !== undefined && s.capabilityId !== node.capabilityId) return false;
  return true;
}

/**
 * An onValidationFail policy with a selector looks at the output contract's
 * errors about what the selected top-level nodes produced: an error is about
 * the node whose output key is the first segment of its JSON pointer (the
 * final output is keyed by output key). Errors about the output as a whole
 * (pointer `/`) concern no node.
 */
export function validationSubjects<E extends { path?: unknown }>(
  trigger: Extract<PolicyTrigger, { kind: 'onValidationFail' }>,
  errors: readonly E[],
  nodes: readonly { id: string; kind: string; capabilityId?: string | undefined; outputKey?: string | undefined }[],
): { nodeIds: string[]; errors: E[] } {
  const byKey = new Map(nodes.map((n) => [n.outputKey ?? n.id, n]));
  const nodeIds = new Set<string>();
  const matched: E[] = [];
  for (const e of errors) {
    const first = typeof e.path === 'string' ? e.path.split('/')[1] : undefined;
    const node = first ? byKey.get(first.replace(/~1/g, '/').replace(/~0/g, '~')) : undefined;
    if (!node || !selectorMatches(trigger, { nodeId: node.id, kind: node.kind, ...(node.capabilityId ? { capabilityId: node.capabilityId } : {}) })) continue;
    nodeIds.add(node.id);
    matched.push(e);
  }
  return { nodeIds: [...nodeIds], errors: matched };
}

/** An onMetricBelow policy's metric, when it reads as a finite number. */
export function metricValue(metric: string, vars: Record<string, unknown>): number | undefined {
  try {
    const parsed = parsePath(metric);
    const { found, value } = resolvePath(vars, [{ kind: 'prop', name: parsed.root }, ...parsed.path]);
    if (!found) return undefined;
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/** The onMetricBelow policy fires: its metric is a number below the threshold. */
export function metricBelow(trigger: Extract<PolicyTrigger, { kind: 'onMetricBelow' }>, vars: Record<string, unknown>): { fire: boolean; value?: number } {
  const value = metricValue(trigger.metric, vars);
  return value !== undefined && value < trigger.threshold ? { fire: true, value } : { fire: false };
}

/** The earliest deadline of an enabled onTimeout policy that has not fired, if any. */
export function nextPolicyDeadline(policies: readonly RuntimePolicy[], createdAt: Date, fired: (key: string) => boolean): Date | null {
  let next: number | null = null;
  for (const p of policies) {
    if (!p.enabled || p.trigger.kind !== 'onTimeout' || fired(p.id)) continue;
    const at = createdAt.getTime() + p.trigger.ms;
    if (next === null || at < next) next = at;
  }
  return next === null ? null : new Date(next);
}

export function firingKey(policyId: string, subject?: string): string {
  return subject ? `${policyId}@${subject}` : policyId;
}

export function followUpKey(key: string, decision: 'approve' | 'reject'): string {
  return `${key}/${decision}`;
}

/** The waiting entry of a hitl gate: `policy:<firing key>` (plan ids cannot contain ':'). */
export function gateId(key: string): string {
  return `policy:${key}`;
}

export function isGateId(id: string): boolean {
  return id.startsWith('policy:');
}

export function keyOfGate(id: string): string {
  return id.slice('policy:'.length);
}

/** The `policy_triggered` frame (seed §10.0.1: canonical actionDetails with nested follow-ups). */
export function triggeredPayload(
  policy: { id: string; trigger: PolicyTrigger },
  key: string,
  action: PolicyAction,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    policyId: policy.id,
    key,
    trigger: policy.trigger.kind,
    triggerDetails: policy.trigger,
    action: action.type,
    actionDetails: action,
    ...extra,
  };
}

/** Halting actions stop new nodes until the engine applies them at a safe point (no node in flight). */
export function isHalting(action: PolicyAction): boolean {
  return action.type === 'fail' || action.type === 'pause' || action.type === 'replan';
}
