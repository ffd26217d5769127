/**
 * TaskPolicies normalisation (flex spec §5.3, §5.10): planner policies
 * (topology, selection, optimisation, directives) and runtime policies
 * (trigger → one canonical action). Conditions are compiled through
 * @af/expr; `goto`, legacy action names (`hitl_pause` → `hitl`) and node
 * navigation (`selector.relation`, `onEmpty`) are refused with migration
 * hints. Top-level legacy markers (`variantCount`, `persona`, …) are kept as
 * planner directives — `variantCount` / `branchVariants` become
 * `planner.topology.variantCount` — and reported as notes.
 */
import { z } from 'zod';
import type { PlanIssue } from '../issues/plan-issue.js';
import { nearestName } from '../issues/nearest-name.js';
import { normalizeConditionEnvelope, type ConditionEnvelope } from './condition-envelope.js';
import { issuesOf } from './zod-keys.js';

const names = z.array(z.string().trim().min(1).max(200)).max(100);

export const PlannerPolicySchema = z.strictObject({
  topology: z
    .strictObject({
      variantCount: z.number().int().min(1).max(20).optional(),
      maxDepth: z.number().int().min(1).max(100).optional(),
      requiredKinds: names.optional(),
      forbiddenKinds: names.optional(),
    })
    .optional(),
  selection: z.strictObject({ require: names.optional(), forbid: names.optional(), prefer: names.optional(), avoid: names.optional() }).optional(),
  optimisation: z
    .strictObject({
      objective: z.enum(['speed', 'quality', 'diversity', 'token_efficiency']).optional(),
      maxTokens: z.number().int().positive().optional(),
    })
    .optional(),
  directives: z.record(z.string(), z.unknown()).optional(),
});

export interface NormalizedPlannerPolicy {
  topology: { variantCount?: number; maxDepth?: number; requiredKinds: string[]; forbiddenKinds: string[] };
  selection: { require: string[]; forbid: string[]; prefer: string[]; avoid: string[] };
  optimisation: { objective?: 'speed' | 'quality' | 'diversity' | 'token_efficiency'; maxTokens?: number };
  directives: Record<string, unknown>;
}

export type PolicyAction =
  | { type: 'replan'; rationale?: string }
  | { type: 'hitl'; rationale?: string; approveAction?: PolicyAction; rejectAction?: PolicyAction }
  | { type: 'fail'; message?: string }
  | { type: 'pause'; reason?: string }
  | { type: 'emit'; event: string; payload?: Record<string, unknown> };

export interface NodeSelector {
  nodeId?: string;
  kind?: string;
  capabilityId?: string;
}

export type PolicyTrigger =
  | { kind: 'onStart' }
  | { kind: 'onNodeComplete' | 'onValidationFail'; selector?: NodeSelector; condition?: ConditionEnvelope }
  | { kind: 'onTimeout'; ms: number }
  | { kind: 'onMetricBelow'; metric: string; threshold: number }
  | { kind: 'manual' };

export interface RuntimePolicy {
  id: string;
  enabled: boolean;
  trigger: PolicyTrigger;
  action: PolicyAction;
}

export interface NormalizedTaskPolicies {
  planner: NormalizedPlannerPolicy;
  runtime: RuntimePolicy[];
}

/** Something accepted but worth telling the caller (a migrated legacy key). */
export interface PolicyNote {
  code: 'legacy_policy_key' | 'condition_warning';
  field: string;
  message: string;
}

export type PoliciesParse = { ok: true; policies: NormalizedTaskPolicies; notes: PolicyNote[] } | { ok: false; issues: PlanIssue[] };

export const ACTION_TYPES = ['replan', 'hitl', 'fail', 'pause', 'emit'] as const;
export const TRIGGER_KINDS = ['onStart', 'onNodeComplete', 'onValidationFail', 'onTimeout', 'onMetricBelow', 'manual'] as const;

/** Legacy action verbs → the canonical one (§5.3 "rejects unknown action names with migration hints"). */
const LEGACY_ACTIONS: Record<string, string> = {
  hitl_pause: 'hitl',
  hitl_request: 'hitl',
  request_hitl: 'hitl',
  fail_run: 'fail',
  pause_run: 'pause',
  emit_event: 'emit',
  request_replan: 'replan',
  replan_request: 'replan',
};

const PLANNER_KEYS = new Set(['planner', 'runtime']);
/** Legacy top-level keys that mean the planner's variant count. */
const VARIANT_KEYS = ['variantCount', 'branchVariants'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function emptyPlanner(): NormalizedPlannerPolicy {
  return { topology: { requiredKinds: [], forbiddenKinds: [] }, selection: { require: [], forbid: [], prefer: [], avoid: [] }, optimisation: {}, directives: {} };
}

/** Normalises `TaskEnvelope.policies`; `base` is its field path (default `policies`). Never throws for bad input. */
export function normalizeTaskPolicies(raw: unknown, base = 'policies'): PoliciesParse {
  if (raw === undefined || raw === null) return { ok: true, policies: { planner: emptyPlanner(), runtime: [] }, notes: [] };
  if (!isRecord(raw)) return { ok: false, issues: [{ code: 'invalid_field', field: base, message: `${base}: must be an object with planner and/or runtime` }] };
  const issues: PlanIssue[] = [];
  const notes: PolicyNote[] = [];
  const planner = emptyPlanner();

  if (raw.planner !== undefined) {
    const parsed = PlannerPolicySchema.safeParse(raw.planner);
    if (!parsed.success) issues.push(...issuesOf(PlannerPolicySchema, parsed.error, `${base}.planner`));
    else {
      const p = parsed.data;
      planner.topology = { ...p.topology, requiredKinds: p.topology?.requiredKinds ?? [], forbiddenKinds: p.topology?.forbiddenKinds ?? [] };
      planner.selection = { require: p.selection?.require ?? [], forbid: p.selection?.forbid ?? [], prefer: p.selection?.prefer ?? [], avoid: p.selection?.avoid ?? [] };
      planner.optimisation = { ...p.optimisation };
      planner.directives = { ...p.directives };
      const both = planner.selection.require.filter((c) => planner.selection.forbid.includes(c));
      for (const c of both) issues.push({ code: 'policy_conflict', field: `${base}.planner.selection`, message: `${base}.planner.selection: '${c}' is both required and forbidden` });
    }
  }

  for (const [key, value] of Object.entries(raw)) {
    if (PLANNER_KEYS.has(key)) continue;
    const field = `${base}.${key}`;
    if (VARIANT_KEYS.includes(key)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 20) {
        issues.push({ code: 'invalid_field', field, message: `${field}: must be an integer from 1 to 20` });
      } else if (planner.topology.variantCount !== undefined && planner.topology.variantCount !== value) {
        issues.push({ code: 'policy_conflict', field, message: `${field}: ${value} contradicts ${base}.planner.topology.variantCount = ${planner.topology.variantCount}` });
      } else {
        planner.topology.variantCount = value;
        notes.push({ code: 'legacy_policy_key', field, message: `${field} is a legacy key; read as ${base}.planner.topology.variantCount` });
      }
      continue;
    }
    planner.directives[key] = value;
    notes.push({ code: 'legacy_policy_key', field, message: `${field} is not a policy key; kept as planner directive '${key}'` });
  }

  const runtime: RuntimePolicy[] = [];
  if (raw.runtime !== undefined) {
    if (!Array.isArray(raw.runtime)) issues.push({ code: 'invalid_field', field: `${base}.runtime`, message: `${base}.runtime: must be an array of runtime policies` });
    else {
      const ids = new Set<string>();
      raw.runtime.forEach((p, i) => {
        const field = `${base}.runtime[${i}]`;
        const r = normalizeRuntimePolicy(p, field, notes);
        if (!r.ok) return issues.push(...r.issues);
        if (ids.has(r.policy.id)) return issues.push({ code: 'duplicate_id', field: `${field}.id`, message: `${field}.id: policy id '${r.policy.id}' is used twice` });
        ids.add(r.policy.id);
        runtime.push(r.policy);
      });
    }
  }
  return issues.length ? { ok: false, issues } : { ok: true, policies: { planner, runtime }, notes };
}

/** The normalised policy keys (for `plan_requested.payload.policyKeys`). */
export function policyKeys(p: NormalizedTaskPolicies): string[] {
  const keys: string[] = [];
  const t = p.planner.topology;
  if (t.variantCount !== undefined) keys.push('planner.topology.variantCount');
  if (t.maxDepth !== undefined) keys.push('planner.topology.maxDepth');
  if (t.requiredKinds.length) keys.push('planner.topology.requiredKinds');
  if (t.forbiddenKinds.length) keys.push('planner.topology.forbiddenKinds');
  for (const k of ['require', 'forbid', 'prefer', 'avoid'] as const) if (p.planner.selection[k].length) keys.push(`planner.selection.${k}`);
  if (p.planner.optimisation.objective) keys.push('planner.optimisation.objective');
  if (p.planner.optimisation.maxTokens !== undefined) keys.push('planner.optimisation.maxTokens');
  for (const k of Object.keys(p.planner.directives)) keys.push(`planner.directives.${k}`);
  for (const r of p.runtime) keys.push(`runtime.${r.id}`);
  return keys;
}

type Parse<T> = { ok: true; policy: T } | { ok: false; issues: PlanIssue[] };

function unknownKeys(obj: Record<string, unknown>, allowed: readonly string[], field: string, issues: PlanIssue[], hints: Record<string, string> = {}): void {
  for (const key of Object.keys(obj)) {
    if (allowed.includes(key)) continue;
    if (hints[key]) {
      issues.push({ code: 'removed_field', field: `${field}.${key}`, message: `${field}.${key}: ${hints[key]}` });
      continue;
    }
    const fix = nearestName(key, allowed);
    issues.push({ code: 'unknown_field', field: `${field}.${key}`, message: `${field}.${key}: unknown field '${key}'${fix ? ` (did you mean '${fix}'?)` : ''}`, ...(fix ? { suggestedFix: fix } : {}) });
  }
}

const optString = (obj: Record<string, unknown>, key: string, field: string, issues: PlanIssue[]): string | undefined => {
  const v = obj[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > 2000) {
    issues.push({ code: 'invalid_field', field: `${field}.${key}`, message: `${field}.${key}: must be a string of at most 2000 characters` });
    return undefined;
  }
  return v;
};

function normalizeRuntimePolicy(raw: unknown, field: string, notes: PolicyNote[]): Parse<RuntimePolicy> {
  if (!isRecord(raw)) return { ok: false, issues: [{ code: 'invalid_field', field, message: `${field}: must be an object {id, trigger, action}` }] };
  const issues: PlanIssue[] = [];
  unknownKeys(raw, ['id', 'enabled', 'trigger', 'action'], field, issues);
  if (typeof raw.id !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/.test(raw.id)) {
    issues.push({ code: 'invalid_field', field: `${field}.id`, message: `${field}.id: is required: an identifier (letters, digits, _ . -)` });
  }
  if (raw.enabled !== undefined && typeof raw.enabled !== 'boolean') issues.push({ code: 'invalid_field', field: `${field}.enabled`, message: `${field}.enabled: must be a boolean` });
  const trigger = normalizeTrigger(raw.trigger, `${field}.trigger`, issues, notes);
  const action = normalizeAction(raw.action, `${field}.action`, issues, 0);
  if (issues.length || !trigger || !action) return { ok: false, issues };
  return { ok: true, policy: { id: raw.id as string, enabled: (raw.enabled as boolean | undefined) ?? true, trigger, action } };
}

function normalizeSelector(raw: unknown, field: string, issues: PlanIssue[]): NodeSelector | undefined {
  if (raw === undefined) return undefined;
  if (!isRecord(raw)) {
    issues.push({ code: 'invalid_field', field, message: `${field}: must be an object {nodeId?, kind?, capabilityId?}` });
    return undefined;
  }
  unknownKeys(raw, ['nodeId', 'kind', 'capabilityId'], field, issues, {
    relation: 'NodeSelector.relation (previous/next navigation) was removed (§5.10): select nodes by nodeId, kind or capabilityId',
  });
  const out: NodeSelector = {};
  for (const k of ['nodeId', 'kind', 'capabilityId'] as const) {
    const v = optString(raw, k, field, issues);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function normalizeTrigger(raw: unknown, field: string, issues: PlanIssue[], notes: PolicyNote[]): PolicyTrigger | undefined {
  if (!isRecord(raw) || typeof raw.kind !== 'string') {
    issues.push({ code: 'invalid_field', field: `${field}.kind`, message: `${field}.kind: is required: one of ${TRIGGER_KINDS.join(', ')}` });
    return undefined;
  }
  const kind = raw.kind;
  switch (kind) {
    case 'onStart':
    case 'manual':
      unknownKeys(raw, ['kind'], field, issues);
      return { kind };
    case 'onNodeComplete':
    case 'onValidationFail': {
      unknownKeys(raw, ['kind', 'selector', 'condition'], field, issues);
      const selector = normalizeSelector(raw.selector, `${field}.selector`, issues);
      let condition: ConditionEnvelope | undefined;
      if (raw.condition !== undefined) {
        const c = normalizeConditionEnvelope(raw.condition, `${field}.condition`);
        if (!c.ok) issues.push(...c.issues);
        else {
          condition = c.condition;
          for (const w of c.condition.warnings) notes.push({ code: 'condition_warning', field: `${field}.condition`, message: `${field}.condition: ${w.message}` });
        }
      }
      return { kind, ...(selector ? { selector } : {}), ...(condition ? { condition } : {}) };
    }
    case 'onTimeout': {
      unknownKeys(raw, ['kind', 'ms'], field, issues);
      if (typeof raw.ms !== 'number' || !Number.isInteger(raw.ms) || raw.ms < 1) {
        issues.push({ code: 'invalid_field', field: `${field}.ms`, message: `${field}.ms: is required: a positive integer (milliseconds)` });
        return undefined;
      }
      return { kind, ms: raw.ms };
    }
    case 'onMetricBelow': {
      unknownKeys(raw, ['kind', 'metric', 'threshold'], field, issues);
      const ok = typeof raw.metric === 'string' && raw.metric.length > 0 && typeof raw.threshold === 'number' && Number.isFinite(raw.threshold);
      if (!ok) {
        issues.push({ code: 'invalid_field', field, message: `${field}: onMetricBelow needs metric (string) and threshold (number)` });
        return undefined;
      }
      return { kind, metric: raw.metric as string, threshold: raw.threshold as number };
    }
    default: {
      const fix = nearestName(kind, TRIGGER_KINDS);
      issues.push({ code: 'invalid_field', field: `${field}.kind`, message: `${field}.kind: unknown trigger '${kind}'${fix ? ` (did you mean '${fix}'?)` : ''}; one of ${TRIGGER_KINDS.join(', ')}`, ...(fix ? { suggestedFix: fix } : {}) });
      return undefined;
    }
  }
}

function normalizeAction(raw: unknown, field: string, issues: PlanIssue[], depth: number): PolicyAction | undefined {
  if (depth > 5) {
    issues.push({ code: 'invalid_field', field, message: `${field}: hitl follow-up actions nest too deeply (at most 5)` });
    return undefined;
  }
  if (!isRecord(raw) || typeof raw.type !== 'string') {
    issues.push({ code: 'invalid_field', field: `${field}.type`, message: `${field}.type: is required: one of ${ACTION_TYPES.join(', ')}` });
    return undefined;
  }
  const type = raw.type;
  if (type === 'goto' || type.startsWith('goto.')) {
    issues.push({
      code: 'removed_action',
      field: `${field}.type`,
      message: `${field}.type: '${type}' was removed (§5.10): policies may not re-route the plan; use {"type": "replan"} so the planner produces a new graph`,
      suggestedFix: 'replan',
    });
    return undefined;
  }
  if (LEGACY_ACTIONS[type]) {
    issues.push({ code: 'legacy_action', field: `${field}.type`, message: `${field}.type: '${type}' is a legacy name; use '${LEGACY_ACTIONS[type]}'`, suggestedFix: LEGACY_ACTIONS[type] });
    return undefined;
  }
  const removed = { onEmpty: 'onEmpty was removed with goto (§5.10)', next: 'next was removed with goto (§5.10)', maxAttempts: 'maxAttempts belonged to goto, which was removed (§5.10)' };
  switch (type) {
    case 'replan': {
      unknownKeys(raw, ['type', 'rationale'], field, issues, removed);
      const rationale = optString(raw, 'rationale', field, issues);
      return { type, ...(rationale !== undefined ? { rationale } : {}) };
    }
    case 'fail': {
      unknownKeys(raw, ['type', 'message'], field, issues, removed);
      const message = optString(raw, 'message', field, issues);
      return { type, ...(message !== undefined ? { message } : {}) };
    }
    case 'pause': {
      unknownKeys(raw, ['type', 'reason'], field, issues, removed);
      const reason = optString(raw, 'reason', field, issues);
      return { type, ...(reason !== undefined ? { reason } : {}) };
    }
    case 'emit': {
      unknownKeys(raw, ['type', 'event', 'payload'], field, issues, removed);
      if (typeof raw.event !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/.test(raw.event)) {
        issues.push({ code: 'invalid_field', field: `${field}.event`, message: `${field}.event: is required: an event name (letters, digits, _ . -)` });
        return undefined;
      }
      if (raw.payload !== undefined && !isRecord(raw.payload)) {
        issues.push({ code: 'invalid_field', field: `${field}.payload`, message: `${field}.payload: must be an object` });
        return undefined;
      }
      return { type, event: raw.event, ...(raw.payload !== undefined ? { payload: raw.payload as Record<string, unknown> } : {}) };
    }
    case 'hitl': {
      unknownKeys(raw, ['type', 'rationale', 'approveAction', 'rejectAction'], field, issues, removed);
      const rationale = optString(raw, 'rationale', field, issues);
      const approve = raw.approveAction === undefined ? undefined : normalizeAction(raw.approveAction, `${field}.approveAction`, issues, depth + 1);
      const reject = raw.rejectAction === undefined ? undefined : normalizeAction(raw.rejectAction, `${field}.rejectAction`, issues, depth + 1);
      return { type, ...(rationale !== undefined ? { rationale } : {}), ...(approve ? { approveAction: approve } : {}), ...(reject ? { rejectAction: reject } : {}) };
    }
    default: {
      const fix = nearestName(type, ACTION_TYPES);
      issues.push({ code: 'invalid_field', field: `${field}.type`, message: `${field}.type: unknown action '${type}'${fix ? ` (did you mean '${fix}'?)` : ''}; one of ${ACTION_TYPES.join(', ')}`, ...(fix ? { suggestedFix: fix } : {}) });
      return undefined;
    }
  }
}
