/**
 * Registry state as data (flex spec §5.6.1, §9.1): a capability's latest
 * registration plus its instances, each with its own heartbeat. An instance
 * is stale once `heartbeat.timeoutSeconds` (default 3 × interval) passed
 * without a heartbeat; a capability is active while any instance is fresh,
 * so the planner falls back to other producers automatically.
 */
import { heartbeatTimeoutSeconds, type CapabilityRegistration } from '@af/plan';
import type { CapabilityView } from '../planning/types.js';

export interface InstanceRecord {
  instanceId: string;
  scopes: string[];
  endpoint?: string;
  /** Seconds without a heartbeat before the instance is stale; undefined = never. */
  heartbeatTimeoutSeconds?: number;
  status: 'active' | 'inactive';
  registeredAt: Date;
  lastSeenAt: Date;
}

export interface CapabilityRecord {
  registration: CapabilityRegistration;
  registeredAt: Date;
  updatedAt: Date;
  instances: InstanceRecord[];
}

/** Is the instance serving at `now`? */
export function instanceActive(i: InstanceRecord, now: Date): boolean {
  if (i.status !== 'active') return false;
  if (i.heartbeatTimeoutSeconds === undefined) return true;
  return now.getTime() - i.lastSeenAt.getTime() <= i.heartbeatTimeoutSeconds * 1000;
}

/** The instance row a registration creates or refreshes. */
export function instanceFromRegistration(reg: CapabilityRegistration, now: Date, previous?: InstanceRecord): InstanceRecord {
  const timeout = heartbeatTimeoutSeconds(reg);
  return {
    instanceId: reg.instanceId,
    scopes: reg.scopes,
    ...(reg.endpoint ? { endpoint: reg.endpoint } : {}),
    ...(timeout !== undefined ? { heartbeatTimeoutSeconds: timeout } : {}),
    status: 'active',
    registeredAt: previous?.registeredAt ?? now,
    lastSeenAt: now,
  };
}

export function capabilityStatus(r: CapabilityRecord, now: Date): 'active' | 'inactive' {
  return r.instances.some((i) => instanceActive(i, now)) ? 'active' : 'inactive';
}

/** What planning sees of a record at `now`. */
export function toCapabilityView(r: CapabilityRecord, now: Date): CapabilityView {
  const reg = r.registration;
  const active = r.instances.filter((i) => instanceActive(i, now));
  return {
    capabilityId: reg.capabilityId,
    agentType: reg.agentType,
    displayName: reg.displayName,
    summary: reg.summary,
    version: reg.version,
    inputFacets: reg.inputContract,
    outputFacets: reg.outputContract,
    ...(reg.cost ? { cost: reg.cost } : {}),
    preferredModels: reg.preferredModels ?? [],
    scopes: [...new Set(active.flatMap((i) => i.scopes))],
    status: active.length ? 'active' : 'inactive',
    ...(reg.inputTraits ? { inputTraits: reg.inputTraits } : {}),
    ...(reg.instructionTemplates ? { instructionTemplates: reg.instructionTemplates } : {}),
    metadata: reg.metadata ?? {},
  };
}

/**
 * The instance to dispatch to: fresh ones first, those serving `scope` before
 * others, then the most recently seen.
 */
export function pickInstance(r: CapabilityRecord, now: Date, scope?: string): InstanceRecord | undefined {
  return r.instances
    .filter((i) => instanceActive(i, now))
    .sort((a, b) => Number(scope !== undefined && b.scopes.includes(scope)) - Number(scope !== undefined && a.scopes.includes(scope)) || b.lastSeenAt.getTime() - a.lastSeenAt.getTime() || (a.instanceId < b.instanceId ? -1 : 1))[0];
}
