/**
 * Runtime policies (flex-agents-server-spec.md §5.3 RuntimePolicy, §5.10
 * "Policy Simplification"): guardrails that watch a run and ask for an
 * action when their trigger matches. Policies never re-route nodes — `goto`
 * is gone; a flow change is a replan.
 *
 * This file is the shape and its validation (StartRun): every problem is a
 * violation naming the field path (`policies[0].action.type`), and legacy
 * names get a migration hint. Evaluation is in policy-evaluation.ts.
 */
import { compileCondition, parsePath, type CompiledCondition } from '@af/expr';
import { nearestName, NODE_KINDS, type PlanGraph, type PlanNode } from '@af/plan';

export type PolicyAction =
  | { type: 'replan'; rationale?: string }
  | { type: 'hitl'; rationale?: string; approveAction?: PolicyAction; rejectAction?: PolicyAction }
  | { type: 'fail'; message?: string }
  | { type: 'pause'; reason?: string }
  | { type: 'emit'; event: string; payload?: Record<string, unknown> };

export type PolicyActionType = PolicyAction['type'];

export interface NodeSelector {
  nodeId?: string;
  kind?: string;
  capabilityId?: string;
}

/** The Condition DSL envelope (normalized: `jsonLogic` wins when both are given). */
export interface PolicyCondition {
  jsonLogic?: unknown;
  dsl?: string;
  canonicalDsl?: string;
}

export type PolicyTrigger =
  | { kind: 'onStart' }
  | { kind: 'onNodeComplete'; selector?: NodeSelector; condition?: PolicyCondition }
  | { kind: 'onValidationFail'; selector?: NodeSelector; condition?: PolicyCondition }
  | { kind: 'onTimeout'; ms: number }
  | { kind: 'onMetricBelow'; metric: string; threshold: number }
  | { kind: 'manual' };

export type PolicyTriggerKind = PolicyTrigger['kind'];

export interface RuntimePolicy {
  id: string;
  enabled: boolean;
  trigger: PolicyTrigger;
  action: PolicyAction;
}

export interface PolicyViolation {
  field: string;
  reason: string;
  code: string;
  suggestedFix?: string;
}

export const TRIGGER_KINDS: readonly PolicyTriggerKind[] = ['onStart', 'onNodeComplete', 'onValidationFail', 'onTimeout', 'onMetricBelow', 'manual'];
export const ACTION_TYPES: readonly PolicyActionType[] = ['replan', 'hitl', 'fail', 'pause', 'emit'];

/** Legacy action names (dispatcher verbs, removed flow control) → what to use instead. */
const LEGACY_ACTIONS: Record<string, { use?: PolicyActionType; hint: string }> = {
  goto: { hint: "goto was removed (flex spec §5.10): policies never re-route nodes; use {type: 'replan'} to change the flow" },
  hitl_pause: { use: 'hitl', hint: "hitl_pause was renamed: use {type: 'hitl'}" },
  hitl_request: { use: 'hitl', hint: "use {type: 'hitl'}" },
  fail_run: { use: 'fail', hint: "fail_run was renamed: use {type: 'fail'}" },
  pause_run: { use: 'pause', hint: "pause_run was renamed: use {type: 'pause'}" },
  emit_event: { use: 'emit', hint: "emit_event was renamed: use {type: 'emit'}" },
  replan_run: { use: 'replan', hint: "replan_run was renamed: use {type: 'replan'}" },
  request_replan: { use: 'replan', hint: "use {type: 'replan'}" },
};

/** Frame types the engine emits itself: an `emit` action cannot impersonate them. */
export const RESERVED_FRAMES = new Set([
  'start',
  'plan_requested',
  'plan_rejected',
  'plan_generated',
  'plan_updated',
  'node_start',
  'node_complete',
  'node_error',
  'policy_triggered',
  'hitl_request',
  'validation_error',
  'complete',
  'log',
  'subflow_started',
  'rollback_started',
  'node_rolled_back',
  'rollback_complete',
]);

const POLICY_ID = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;
/** Frame types become a NATS subject token: lowercase, no dots or wildcards. */
const EVENT_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const MAX_POLICIES = 50;
const MAX_FOLLOW_UP_DEPTH = 3;
const MAX_TIMEOUT_MS = 366 * 24 * 3600_000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks and normalizes the run's runtime policies against its plan (selector
 * node ids must exist). Disabled policies are kept (and never fire).
 */
export function parseRuntimePolicies(raw: unknown, plan: Pick<PlanGraph, 'nodes'>, field = 'policies'): { policies: RuntimePolicy[] } | { violations: PolicyViolation[] } {
  if (raw === undefined || raw === null) return { policies: [] };
  if (!Array.isArray(raw)) return { violations: [{ field, reason: 'must be an array of {id, trigger, action}', code: 'invalid_policy' }] };
  const out: PolicyViolation[] = [];
  if (raw.length > MAX_POLICIES) out.push({ field, reason: `at most ${MAX_POLICIES} policies per run, got ${raw.length}`, code: 'invalid_policy' });
  const nodeIds = allNodeIds(plan.nodes);
  const topIds = new Set(plan.nodes.map((n) => n.id));
  const seen = new Set<string>();
  const policies: RuntimePolicy[] = [];
  raw.slice(0, MAX_POLICIES).forEach((entry, i) => {
    const at = `${field}[${i}]`;
    const bad = (f: string, reason: string, extra: Partial<PolicyViolation> = {}) => out.push({ field: f, reason, code: 'invalid_policy', ...extra });
    if (!isObject(entry)) return bad(at, 'must be an object {id, enabled?, trigger, action}');
    unknownKeys(entry, ['id', 'enabled', 'trigger', 'action'], at, bad);
    const id = entry.id;
    if (typeof id !== 'string' || !POLICY_ID.test(id)) bad(`${at}.id`, 'is required: 1-64 characters, a letter or _ first, then letters, digits, _ . -');
    else if (seen.has(id)) bad(`${at}.id`, `'${id}' is used by another policy`);
    else seen.add(id);
    if (entry.enabled !== undefined && typeof entry.enabled !== 'boolean') bad(`${at}.enabled`, 'must be true or false');
    const trigger = parseTrigger(entry.trigger, `${at}.trigger`, nodeIds, topIds, bad);
    const action = parseAction(entry.action, `${at}.action`, 0, bad);
    if (trigger && action && typeof id === 'string') policies.push({ id, enabled: entry.enabled !== false, trigger, action });
  });
  return out.length ? { violations: out } : { policies };
}

type Bad = (field: string, reason: string, extra?: Partial<PolicyViolation>) => void;

function parseTrigger(raw: unknown, at: string, nodeIds: ReadonlySet<string>, topIds: ReadonlySet<string>, bad: Bad): PolicyTrigger | undefined {
  if (!isObject(raw)) {
    bad(at, `must be an object {kind, …}; kind is one of ${TRIGGER_KINDS.join(', ')}`);
    return undefined;
  }
  const kind = raw.kind;
  if (typeof kind !== 'string' || !(TRIGGER_KINDS as readonly string[]).includes(kind)) {
    const near = typeof kind === 'string' ? nearestName(kind, TRIGGER_KINDS) : undefined;
    bad(`${at}.kind`, `must be one of ${TRIGGER_KINDS.join(', ')}, got ${JSON.stringify(kind)}`, near ? { suggestedFix: near } : {});
    return undefined;
  }
  const before = { n: 0 };
  const track: Bad = (f, r, e) => {
    before.n++;
    bad(f, r, e);
  };
  switch (kind) {
    case 'onStart':
    case 'manual':
      unknownKeys(raw, ['kind'], at, track);
      return before.n ? undefined : { kind };
    case 'onNodeComplete': {
      unknownKeys(raw, ['kind', 'selector', 'condition'], at, track);
      const selector = raw.selector === undefined ? undefined : parseSelector(raw.selector, `${at}.selector`, nodeIds, track);
      const condition = raw.condition === undefined ? undefined : parseCondition(raw.condition, `${at}.condition`, track);
      return before.n ? undefined : { kind, ...(selector ? { selector } : {}), ...(condition ? { condition } : {}) };
    }
    case 'onValidationFail': {
      // A selector narrows the output contract's errors to those about the selected nodes' outputs (policy-evaluation.ts validationSubjects).
      unknownKeys(raw, ['kind', 'selector', 'condition'], at, track);
      const selector = raw.selector === undefined ? undefined : parseSelector(raw.selector, `${at}.selector`, nodeIds, track);
      if (selector?.nodeId !== undefined && !topIds.has(selector.nodeId)) {
        track(`${at}.selector.nodeId`, `${selector.nodeId} is inside a map body: the output contract checks the final output, which holds top-level nodes' outputs`);
      }
      const condition = raw.condition === undefined ? undefined : parseCondition(raw.condition, `${at}.condition`, track);
      return before.n ? undefined : { kind, ...(selector ? { selector } : {}), ...(condition ? { condition } : {}) };
    }
    case 'onTimeout': {
      unknownKeys(raw, ['kind', 'ms'], at, track);
      if (typeof raw.ms !== 'number' || !Number.isInteger(raw.ms) || raw.ms < 1 || raw.ms > MAX_TIMEOUT_MS) {
        track(`${at}.ms`, `is required: the run's age in milliseconds (1..${MAX_TIMEOUT_MS}) after which the policy fires`);
      }
      return before.n ? undefined : { kind, ms: raw.ms as number };
    }
    case 'onMetricBelow': {
      unknownKeys(raw, ['kind', 'metric', 'threshold'], at, track);
      if (typeof raw.metric !== 'string' || raw.metric.trim() === '') {
        track(`${at}.metric`, 'is required: a path to a number, e.g. qa.score (a node output by its output key) or run.completed');
      } else {
        try {
          parsePath(raw.metric);
        } catch (err) {
          track(`${at}.metric`, `is not a path: ${(err as Error).message}`);
        }
      }
      if (typeof raw.threshold !== 'number' || !Number.isFinite(raw.threshold)) track(`${at}.threshold`, 'is required: a number');
      return before.n ? undefined : { kind, metric: raw.metric as string, threshold: raw.threshold as number };
    }
  }
  return undefined;
}

function parseSelector(raw: unknown, at: string, nodeIds: ReadonlySet<string>, bad: Bad): NodeSelector | undefined {
  if (!isObject(raw)) {
    bad(at, 'must be an object {nodeId?, kind?, capabilityId?}');
    return undefined;
  }
  if (raw.relation !== undefined) {
    bad(`${at}.relation`, 'selector.relation (previous/next navigation) was removed (flex spec §5.10): select by nodeId, kind or capabilityId', { code: 'deprecated_selector' });
  }
  unknownKeys(raw, ['nodeId', 'kind', 'capabilityId', 'relation'], at, bad);
  const selector: NodeSelector = {};
  if (raw.nodeId !== undefined) {
    if (typeof raw.nodeId !== 'string' || !nodeIds.has(raw.nodeId)) {
      const near = typeof raw.nodeId === 'string' ? nearestName(raw.nodeId, nodeIds) : undefined;
      bad(`${at}.nodeId`, `the plan has no node ${JSON.stringify(raw.nodeId)}`, near ? { suggestedFix: near } : {});
    } else selector.nodeId = raw.nodeId;
  }
  if (raw.kind !== undefined) {
    if (typeof raw.kind !== 'string' || !(NODE_KINDS as readonly string[]).includes(raw.kind)) bad(`${at}.kind`, `must be a node kind (${NODE_KINDS.join(', ')}), got ${JSON.stringify(raw.kind)}`);
    else selector.kind = raw.kind;
  }
  if (raw.capabilityId !== undefined) {
    if (typeof raw.capabilityId !== 'string' || raw.capabilityId === '') bad(`${at}.capabilityId`, 'must be a non-empty string');
    else selector.capabilityId = raw.capabilityId;
  }
  return selector;
}

/**
 * A condition: the DSL envelope `{dsl?, canonicalDsl?, jsonLogic?}`, DSL text,
 * or a plain JSON-Logic object (seed §5.3 "Legacy JSON-only policies").
 */
export function normalizePolicyCondition(raw: unknown): PolicyCondition | string {
  if (typeof raw === 'string') return raw.trim() ? { dsl: raw } : 'must not be empty';
  if (!isObject(raw)) return 'must be Condition DSL text, a {dsl | jsonLogic} envelope, or a JSON-Logic object';
  const envelope = ['dsl', 'jsonLogic', 'canonicalDsl', 'warnings', 'variables'];
  if (raw.dsl !== undefined || raw.jsonLogic !== undefined) {
    const extra = Object.keys(raw).filter((k) => !envelope.includes(k));
    if (extra.length) return `has unknown field(s) ${extra.join(', ')} beside the envelope's dsl / jsonLogic`;
    if (raw.jsonLogic !== undefined) return { jsonLogic: raw.jsonLogic, ...(typeof raw.dsl === 'string' ? { dsl: raw.dsl } : {}), ...(typeof raw.canonicalDsl === 'string' ? { canonicalDsl: raw.canonicalDsl } : {}) };
    if (typeof raw.dsl !== 'string' || !raw.dsl.trim()) return 'dsl must be non-empty Condition DSL text';
    return { dsl: raw.dsl, ...(typeof raw.canonicalDsl === 'string' ? { canonicalDsl: raw.canonicalDsl } : {}) };
  }
  return { jsonLogic: raw };
}

const compiled = new WeakMap<PolicyCondition, CompiledCondition>();

/** The condition as a closure (compiled once per condition object); throws on a malformed one. */
export function compilePolicyCondition(condition: PolicyCondition): CompiledCondition {
  let fn = compiled.get(condition);
  if (!fn) {
    // The DSL's default aliases map `facets.X.y` to `metadata.runContextSnapshot.facets.X.value.y` (seed §5.3).
    fn = condition.jsonLogic !== undefined ? compileCondition(condition.jsonLogic as never, { dialect: 'jsonlogic' }) : compileCondition(condition.dsl!, { dialect: 'dsl' });
    compiled.set(condition, fn);
  }
  return fn;
}

function parseCondition(raw: unknown, at: string, bad: Bad): PolicyCondition | undefined {
  const cond = normalizePolicyCondition(raw);
  if (typeof cond === 'string') {
    bad(at, cond);
    return undefined;
  }
  try {
    compilePolicyCondition(cond);
  } catch (err) {
    const sub = isObject(raw) && raw.jsonLogic !== undefined ? '.jsonLogic' : isObject(raw) && raw.dsl !== undefined ? '.dsl' : '';
    bad(`${at}${sub}`, (err as Error).message);
    return undefined;
  }
  return cond;
}

function parseAction(raw: unknown, at: string, depth: number, bad: Bad): PolicyAction | undefined {
  if (!isObject(raw)) {
    bad(at, `must be an object {type, …}; type is one of ${ACTION_TYPES.join(', ')}`);
    return undefined;
  }
  const type = raw.type;
  if (typeof type === 'string' && LEGACY_ACTIONS[type]) {
    const legacy = LEGACY_ACTIONS[type]!;
    bad(`${at}.type`, `'${type}' is not supported: ${legacy.hint}`, { code: 'deprecated_action', ...(legacy.use ? { suggestedFix: legacy.use } : {}) });
    return undefined;
  }
  if (typeof type !== 'string' || !(ACTION_TYPES as readonly string[]).includes(type)) {
    const near = typeof type === 'string' ? nearestName(type, ACTION_TYPES) : undefined;
    bad(`${at}.type`, `must be one of ${ACTION_TYPES.join(', ')}, got ${JSON.stringify(type)}`, near ? { suggestedFix: near } : {});
    return undefined;
  }
  const errors = { n: 0 };
  const track: Bad = (f, r, e) => {
    errors.n++;
    bad(f, r, e);
  };
  if (raw.onEmpty !== undefined) track(`${at}.onEmpty`, 'onEmpty was removed with goto (flex spec §5.10)', { code: 'deprecated_action' });
  const text = (key: string): string | undefined => {
    if (raw[key] === undefined) return undefined;
    if (typeof raw[key] !== 'string' || (raw[key] as string).length > 2000) track(`${at}.${key}`, 'must be a string of at most 2000 characters');
    return raw[key] as string;
  };
  switch (type as PolicyActionType) {
    case 'replan': {
      unknownKeys(raw, ['type', 'rationale', 'onEmpty'], at, track);
      const rationale = text('rationale');
      return errors.n ? undefined : { type: 'replan', ...(rationale !== undefined ? { rationale } : {}) };
    }
    case 'fail': {
      unknownKeys(raw, ['type', 'message', 'onEmpty'], at, track);
      const message = text('message');
      return errors.n ? undefined : { type: 'fail', ...(message !== undefined ? { message } : {}) };
    }
    case 'pause': {
      unknownKeys(raw, ['type', 'reason', 'onEmpty'], at, track);
      const reason = text('reason');
      return errors.n ? undefined : { type: 'pause', ...(reason !== undefined ? { reason } : {}) };
    }
    case 'emit': {
      unknownKeys(raw, ['type', 'event', 'payload', 'onEmpty'], at, track);
      const event = raw.event;
      if (typeof event !== 'string' || !EVENT_NAME.test(event)) track(`${at}.event`, 'is required: the frame type, lowercase letters, digits, _ and - (a letter first, at most 64)');
      else if (RESERVED_FRAMES.has(event)) track(`${at}.event`, `'${event}' is a frame the engine emits itself; choose another name`);
      if (raw.payload !== undefined && !isObject(raw.payload)) track(`${at}.payload`, 'must be an object');
      return errors.n ? undefined : { type: 'emit', event: event as string, ...(raw.payload !== undefined ? { payload: raw.payload as Record<string, unknown> } : {}) };
    }
    case 'hitl': {
      unknownKeys(raw, ['type', 'rationale', 'approveAction', 'rejectAction', 'onEmpty'], at, track);
      const rationale = text('rationale');
      let approveAction: PolicyAction | undefined;
      let rejectAction: PolicyAction | undefined;
      for (const key of ['approveAction', 'rejectAction'] as const) {
        if (raw[key] === undefined) continue;
        if (depth + 1 > MAX_FOLLOW_UP_DEPTH) {
          track(`${at}.${key}`, `follow-up actions nest at most ${MAX_FOLLOW_UP_DEPTH} deep`);
          continue;
        }
        const follow = parseAction(raw[key], `${at}.${key}`, depth + 1, track);
        if (key === 'approveAction') approveAction = follow;
        else rejectAction = follow;
      }
      return errors.n
        ? undefined
        : { type: 'hitl', ...(rationale !== undefined ? { rationale } : {}), ...(approveAction ? { approveAction } : {}), ...(rejectAction ? { rejectAction } : {}) };
    }
  }
  return undefined;
}

function unknownKeys(obj: Record<string, unknown>, known: string[], at: string, bad: Bad): void {
  for (const key of Object.keys(obj)) if (!known.includes(key)) bad(`${at}.${key}`, `is not a field here (${known.filter((k) => k !== 'onEmpty' && k !== 'relation').join(', ')})`);
}

function allNodeIds(nodes: readonly PlanNode[], out = new Set<string>()): Set<string> {
  for (const n of nodes) {
    out.add(n.id);
    if (n.body) allNodeIds(n.body.nodes, out);
  }
  return out;
}
