/**
 * Where a `capability` node goes (flex spec §5.6, §5.7 "Execution Runtime"):
 * the capabilities it may run on — its own, then the alternates it lists —
 * and, for each, the registered instances that can take the call, best
 * first. Also the checks of the node's compiled contracts (JSON Schema via
 * Ajv) that name each failing field by its JSON pointer. Pure.
 */
import type { PlanNode } from '@af/plan';
import { validateOutput, type JsonSchema } from '@af/llm';

/** The registry's view of one capability (planner GetCapability), as dispatch needs it. */
export interface CapabilitySnapshot {
  capabilityId: string;
  /** ai | human */
  agentType: string;
  instances: InstanceSnapshot[];
  /** Contracts the registry compiled from the capability's facets (empty object = none). */
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

export interface InstanceSnapshot {
  instanceId: string;
  scopes: string[];
  /** gRPC address of the agent (`host:port`); empty when registered without one. */
  endpoint: string;
  /** active | inactive */
  status: string;
  /** ISO time of the last registration or heartbeat. */
  lastSeenAt: string;
}

/** A capability the node may run on, and the field of the node that names it (for messages). */
export interface Candidate {
  capabilityId: string;
  field: string;
}

export interface DispatchTarget {
  capabilityId: string;
  field: string;
  instance: InstanceSnapshot;
  capability: CapabilitySnapshot;
}

/** Why a candidate cannot take the call (`not_registered`, `no_active_instance`, …). */
export interface Unavailable {
  capabilityId: string;
  field: string;
  code: 'not_registered' | 'human_capability' | 'no_endpoint' | 'no_active_instance' | 'no_instance_in_scope';
  reason: string;
  /** Might serve later without anyone changing the plan (an agent that stopped heartbeating). */
  transient: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '') : []);

/**
 * The node's capability (`capabilityId`, else `params.capability_id`), then
 * its alternates (`params.alternates`, else `params.flex.alternates`), without
 * repeats. Empty when the node names none.
 */
export function dispatchCandidates(node: PlanNode, params: Record<string, unknown>): Candidate[] {
  const out: Candidate[] = [];
  const add = (capabilityId: string, field: string) => {
    if (!out.some((c) => c.capabilityId === capabilityId)) out.push({ capabilityId, field });
  };
  if (node.capabilityId) add(node.capabilityId, 'capabilityId');
  else if (typeof params.capability_id === 'string' && params.capability_id) add(params.capability_id, 'params.capability_id');
  const own = strings(params.alternates);
  const flex = isObject(params.flex) ? strings(params.flex.alternates) : [];
  const [list, base] = own.length ? [own, 'params.alternates'] : [flex, 'params.flex.alternates'];
  list.forEach((id, i) => add(id, `${base}[${i}]`));
  return out;
}

/** The scope the node asks instances for (`params.scope`, else the envelope's `params.flex.scope`), and whether only such instances may serve. */
export function dispatchScope(params: Record<string, unknown>): { scope?: string; required: boolean } {
  const flex = isObject(params.flex) ? params.flex : {};
  const raw = typeof params.scope === 'string' && params.scope ? params.scope : typeof flex.scope === 'string' && flex.scope ? flex.scope : undefined;
  const mode = params.scope_mode ?? flex.scopeMode;
  return { ...(raw ? { scope: raw } : {}), required: raw !== undefined && mode === 'require' };
}

/**
 * The instances of a capability that may take a call, best first: active
 * ones with an endpoint; those serving `scope` before the others (only those
 * when `required`); then the most recently seen; then by id (stable).
 */
export function rankInstances(c: CapabilitySnapshot, scope: { scope?: string; required: boolean }): InstanceSnapshot[] {
  const inScope = (i: InstanceSnapshot) => scope.scope !== undefined && i.scopes.includes(scope.scope);
  const seen = (i: InstanceSnapshot) => {
    const t = Date.parse(i.lastSeenAt);
    return Number.isFinite(t) ? t : 0;
  };
  return c.instances
    .filter((i) => i.status === 'active' && i.endpoint !== '' && (!scope.required || inScope(i)))
    .sort((a, b) => Number(inScope(b)) - Number(inScope(a)) || seen(b) - seen(a) || (a.instanceId < b.instanceId ? -1 : a.instanceId > b.instanceId ? 1 : 0));
}

/** Why a registered (or unregistered) candidate has no instance to call; undefined when it has one. */
export function unavailability(candidate: Candidate, c: CapabilitySnapshot | undefined, scope: { scope?: string; required: boolean }): Unavailable | undefined {
  const base = { capabilityId: candidate.capabilityId, field: candidate.field };
  if (!c) {
    return {
      ...base,
      code: 'not_registered',
      reason: `capability '${candidate.capabilityId}' is not registered for the run's owner (its own, its teams' or the shared catalog) in the capability registry`,
      transient: false,
    };
  }
  if (c.agentType === 'human') {
    return { ...base, code: 'human_capability', reason: `capability '${candidate.capabilityId}' is a human capability (it runs as a human node through the approval service)`, transient: false };
  }
  if (rankInstances(c, scope).length) return undefined;
  const withEndpoint = c.instances.filter((i) => i.endpoint !== '');
  if (!withEndpoint.length) {
    const what = c.instances.length ? `its ${c.instances.length} instance(s) registered no endpoint` : 'it has no instances';
    return { ...base, code: 'no_endpoint', reason: `capability '${candidate.capabilityId}' cannot be called: ${what} (register with an \`endpoint\` host:port serving CapabilityAgentService)`, transient: false };
  }
  const active = withEndpoint.filter((i) => i.status === 'active');
  if (!active.length) {
    const last = withEndpoint.map((i) => i.lastSeenAt).sort().at(-1);
    return {
      ...base,
      code: 'no_active_instance',
      reason: `capability '${candidate.capabilityId}' has no active instance (${withEndpoint.length} inactive${last ? `, last seen ${last}` : ''})`,
      transient: true,
    };
  }
  return {
    ...base,
    code: 'no_instance_in_scope',
    reason: `capability '${candidate.capabilityId}' has no active instance serving scope '${scope.scope}' (scope_mode require)`,
    transient: true,
  };
}

/** One failing field of a contract check: `field` is `inputs` / `output` followed by the JSON pointer. */
export interface ContractViolation {
  field: string;
  /** JSON pointer inside the checked value (`/post_copy`); empty for the value itself. */
  pointer: string;
  keyword: string;
  reason: string;
  code: 'validation_error';
}

/**
 * Checks `value` against a compiled contract; `[]` when it holds (or when
 * there is no schema). Throws only when the schema itself does not compile.
 */
export function contractViolations(schema: Record<string, unknown> | undefined, value: unknown, what: 'inputs' | 'output'): ContractViolation[] {
  if (!schema || !Object.keys(schema).length) return [];
  const result = validateOutput(schema as JsonSchema, value);
  if (result.ok) return [];
  return result.violations.map((v) => ({ field: `${what}${v.pointer}`, pointer: v.pointer, keyword: v.keyword, reason: v.message, code: 'validation_error' as const }));
}

/** The instruction the agent gets: `params.instruction`, else `params.flex.instruction`, else the node's description. */
export function nodeInstruction(node: PlanNode, params: Record<string, unknown>): string {
  if (typeof params.instruction === 'string' && params.instruction.trim()) return params.instruction;
  const flex = isObject(params.flex) ? params.flex : {};
  if (typeof flex.instruction === 'string' && flex.instruction.trim()) return flex.instruction;
  return node.description ?? '';
}

/** The node's facets as the planner annotated them (`params.flex.inputFacets` / `outputFacets`). */
export function nodeFacets(params: Record<string, unknown>): { input: string[]; output: string[] } {
  const flex = isObject(params.flex) ? params.flex : {};
  return { input: strings(flex.inputFacets ?? params.input_facets), output: strings(flex.outputFacets ?? params.output_facets) };
}
