/**
 * Capability registry use cases (flex spec §5.6.1, §9.1, §11): register
 * (validated against the facet catalog, upserted, contracts compiled),
 * heartbeat, deregister, get, list — and the in-memory registry every replica
 * plans from: loaded from PostgreSQL, served for FLEX_CAPABILITY_CACHE_TTL_MS,
 * refreshed immediately by `af.capability.>` events from any replica.
 * Stale instances are swept to `inactive` (one replica claims each row).
 * Registrations belong to an owner; every read and write is the principal's.
 */
import { FacetCatalogError, heartbeatTimeoutSeconds, parseCapabilityRegistration } from '@af/plan';
import { CAPABILITY_EGRESS, endpointRefusal, type EgressPolicy } from '@af/egress';
import { AppError, type Queryable, type ServiceKit } from '@af/service-kit';
import { assignmentDefaultsIssues } from '../domain/registry/assignment-defaults.js';
import { capabilityStatus, toCapabilityView } from '../domain/registry/capability-record.js';
import type { CapabilityView } from '../domain/planning/types.js';
import { capabilityMessage, type CapabilityEvent } from '../infra/capability-events.js';
import type { CapabilityRepository, StoredCapability } from '../infra/capability.repository.js';
import { facetSourcesFor, readableOwners, resolveByOwner, resolveOne, writableOwners, writeOwner, type OwnershipRequest, type Principal } from '../domain/registry/ownership.js';
import { invalid, ownershipError, type FacetCatalogStore } from './facet-catalog.store.js';

export interface ListFilter {
  includeInactive?: boolean;
  catalogTag?: string;
  produces?: string;
}

export interface RegistryMetrics {
  onChange?(event: string): void;
}

function requireUser(p: Principal): void {
  if (!p.userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
}

function requireId(field: string, value: string): void {
  if (!value) throw AppError.invalid(field, 'is required');
  if (value.length > 200) throw AppError.invalid(field, 'must be at most 200 characters');
}

/** Splits the ownership fields (`visibility`, `teamId`) off a registration payload; the rest is the registration. */
function ownershipOf(raw: unknown): { ownership: OwnershipRequest; registration: unknown } {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ownership: {}, registration: raw };
  const { visibility, teamId, ...registration } = raw as Record<string, unknown>;
  return { ownership: { visibility, teamId }, registration };
}

const byId = (a: StoredCapability, b: StoredCapability) => (a.registration.capabilityId < b.registration.capabilityId ? -1 : a.registration.capabilityId > b.registration.capabilityId ? 1 : 0);

/**
 * Capability ids resolve per owner (domain/registry/ownership.ts): every read
 * takes the principal and sees only its own registrations, its teams' and the
 * shared catalog's — for an id held by several of them, the best one.
 */
export class CapabilityRegistry {
  /** capabilityId → owner key → record. */
  private records = new Map<string, Map<string, StoredCapability>>();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading?: Promise<void>;

  constructor(
    private readonly kit: ServiceKit,
    private readonly repo: CapabilityRepository,
    private readonly facets: FacetCatalogStore,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly metrics: RegistryMetrics = {},
    /** CAPABILITY_EGRESS_ALLOW: endpoints must be TCP, and literal addresses ones it allows (hostnames are checked when dialled). */
    private readonly endpointPolicy: EgressPolicy = { kind: CAPABILITY_EGRESS, entries: [] },
  ) {}

  /**
   * Registers (or refreshes) a capability of the caller, of a team of the
   * caller (`teamId`), or of the shared catalog (the operator). Its facets
   * must be ones every reader of the capability sees: its owner's or shared.
   */
  async register(principal: Principal, raw: unknown): Promise<{ capability: StoredCapability; created: boolean }> {
    requireUser(principal);
    const { ownership, registration } = ownershipOf(raw);
    const decided = writeOwner(principal, ownership);
    if (!decided.ok) throw ownershipError(decided);
    const owner = decided.owner;
    const { catalog, compiler } = await this.facets.snapshotOf(facetSourcesFor(owner));
    const parsed = parseCapabilityRegistration(registration, catalog);
    if (!parsed.ok) throw invalid(parsed.issues);
    const reg = parsed.registration;
    const refusal = reg.endpoint ? endpointRefusal(this.endpointPolicy, reg.endpoint, { owner: principal.userId, id: reg.capabilityId }) : undefined;
    if (refusal) throw AppError.invalid('endpoint', refusal, 'endpoint_refused');
    const assignment = assignmentDefaultsIssues(reg);
    if (assignment.length) throw invalid(assignment);
    let inputSchema;
    let outputSchema;
    try {
      inputSchema = compiler.compileContracts(reg.inputContract, { direction: 'input', field: 'inputContract' }).schema;
      outputSchema = compiler.compileContracts(reg.outputContract, { direction: 'output', field: 'outputContract' }).schema;
    } catch (e) {
      if (e instanceof FacetCatalogError) throw invalid(e.issues);
      throw e;
    }
    const at = new Date(this.now()).toISOString();
    const created = await this.kit.transaction(async (m, emit) => {
      const r = await this.repo.upsert(m, { registration: reg, owner, ownerUserId: principal.userId, inputSchema, outputSchema }, heartbeatTimeoutSeconds(reg));
      emit(capabilityMessage(this.kit.subjects, { kind: 'capability', event: 'registered', owner, capabilityId: reg.capabilityId, instanceIds: [reg.instanceId], at }));
      return r.created;
    });
    this.metrics.onChange?.('registered');
    this.kit.log.info({ capabilityId: reg.capabilityId, owner, instanceId: reg.instanceId, created, agentType: reg.agentType }, 'capability registered');
    return { capability: await this.refresh(owner, reg.capabilityId), created };
  }

  async heartbeat(principal: Principal, capabilityId: string, instanceId = 'default'): Promise<StoredCapability> {
    requireUser(principal);
    requireId('capability_id', capabilityId);
    const at = new Date(this.now()).toISOString();
    const owner = await this.kit.transaction(async (m, emit) => {
      const owner = await this.lockWritable(m, principal, capabilityId);
      const seen = await this.repo.heartbeat(m, owner, capabilityId, instanceId);
      if (!seen) throw new AppError('NOT_FOUND', `capability ${capabilityId} has no instance '${instanceId}': register it first`);
      emit(capabilityMessage(this.kit.subjects, { kind: 'capability', event: 'heartbeat', owner, capabilityId, instanceId, lastSeenAt: seen.lastSeenAt.toISOString(), at }));
      return owner;
    });
    this.metrics.onChange?.('heartbeat');
    return this.refresh(owner, capabilityId);
  }

  async deregister(principal: Principal, capabilityId: string, instanceId?: string): Promise<StoredCapability> {
    requireUser(principal);
    requireId('capability_id', capabilityId);
    const at = new Date(this.now()).toISOString();
    const owner = await this.kit.transaction(async (m, emit) => {
      const owner = await this.lockWritable(m, principal, capabilityId);
      const removed = await this.repo.deregister(m, owner, capabilityId, instanceId);
      if (instanceId !== undefined && removed.length === 0) throw new AppError('NOT_FOUND', `capability ${capabilityId} has no instance '${instanceId}'`);
      emit(capabilityMessage(this.kit.subjects, { kind: 'capability', event: 'deregistered', owner, capabilityId, instanceIds: removed, at }));
      return owner;
    });
    this.metrics.onChange?.('deregistered');
    this.kit.log.info({ capabilityId, owner, instanceId: instanceId ?? '*' }, 'capability deregistered');
    return this.refresh(owner, capabilityId);
  }

  /** The capability `capabilityId` as the principal resolves it; NOT_FOUND when it can see none. */
  async get(principal: Principal, capabilityId: string): Promise<StoredCapability> {
    requireUser(principal);
    requireId('capability_id', capabilityId);
    await this.ensureFresh();
    const hit = resolveOne(this.records.get(capabilityId), readableOwners(principal));
    if (!hit) throw AppError.notFound('capability', capabilityId);
    return hit.item;
  }

  async list(principal: Principal, filter: ListFilter = {}): Promise<StoredCapability[]> {
    const now = new Date(this.now());
    return (await this.visible(principal))
      .filter((r) => filter.includeInactive || capabilityStatus(r, now) === 'active')
      .filter((r) => !filter.catalogTag || r.catalogTags.includes(filter.catalogTag))
      .filter((r) => !filter.produces || r.registration.outputContract.includes(filter.produces));
  }

  /** What planning for the principal sees: every capability it may use (inactive ones marked so) at this moment. */
  async views(principal: Principal): Promise<CapabilityView[]> {
    const now = new Date(this.now());
    return (await this.visible(principal)).map((r) => toCapabilityView(r, now));
  }

  statusOf(r: StoredCapability): 'active' | 'inactive' {
    return capabilityStatus(r, new Date(this.now()));
  }

  /** Marks stale instances inactive and announces them; returns how many. */
  async sweep(): Promise<number> {
    const at = new Date(this.now()).toISOString();
    const stale = await this.kit.transaction(async (m, emit) => {
      const rows = await this.repo.sweepStale(m);
      for (const s of rows) emit(capabilityMessage(this.kit.subjects, { kind: 'capability', event: 'inactive', owner: s.owner, capabilityId: s.capabilityId, instanceId: s.instanceId, lastSeenAt: s.lastSeenAt.toISOString(), at }));
      return rows;
    });
    for (const s of stale) {
      this.kit.log.info({ capabilityId: s.capabilityId, owner: s.owner, instanceId: s.instanceId, lastSeenAt: s.lastSeenAt }, 'capability instance stale: marked inactive');
      this.metrics.onChange?.('inactive');
      this.applyInstance(s.owner, s.capabilityId, s.instanceId, { status: 'inactive' });
    }
    return stale.length;
  }

  /** Applies an event from any replica to the in-memory registry. */
  async apply(e: CapabilityEvent): Promise<void> {
    if (e.kind === 'catalog') return;
    // An event that does not say whose capability it is: reload everything on the next read.
    if (e.owner === undefined) return this.invalidate();
    if (e.event === 'heartbeat') {
      if (!this.applyInstance(e.owner, e.capabilityId, e.instanceId, { status: 'active', lastSeenAt: new Date(e.lastSeenAt) })) await this.refresh(e.owner, e.capabilityId);
      return;
    }
    if (e.event === 'inactive') {
      this.applyInstance(e.owner, e.capabilityId, e.instanceId, { status: 'inactive' });
      return;
    }
    await this.refresh(e.owner, e.capabilityId);
  }

  /** Forgets the in-memory registry (next read reloads). */
  invalidate(): void {
    this.loadedAt = Number.NEGATIVE_INFINITY;
  }

  private async visible(principal: Principal): Promise<StoredCapability[]> {
    requireUser(principal);
    await this.ensureFresh();
    const owners = readableOwners(principal);
    const all = [...this.records.values()].flatMap((m) => [...m.values()]);
    return resolveByOwner(all, owners, (r) => r.registration.capabilityId, (r) => r.owner).sort(byId);
  }

  /** The owner whose `capabilityId` the principal changes (own, then teams'; the operator: shared), row locked; NOT_FOUND when none. */
  private async lockWritable(m: Queryable, principal: Principal, capabilityId: string): Promise<string> {
    const writable = writableOwners(principal);
    const held = new Set(await this.repo.lockOwners(m, capabilityId, writable));
    const owner = writable.find((o) => held.has(o));
    if (owner === undefined) throw AppError.notFound('capability', capabilityId);
    return owner;
  }

  private applyInstance(owner: string, capabilityId: string, instanceId: string, patch: { status: 'active' | 'inactive'; lastSeenAt?: Date }): boolean {
    const r = this.records.get(capabilityId)?.get(owner);
    const i = r?.instances.find((x) => x.instanceId === instanceId);
    if (!i) return false;
    i.status = patch.status;
    if (patch.lastSeenAt && patch.lastSeenAt > i.lastSeenAt) i.lastSeenAt = patch.lastSeenAt;
    return true;
  }

  private async refresh(owner: string, capabilityId: string): Promise<StoredCapability> {
    const r = await this.repo.load(owner, capabilityId);
    const owners = this.records.get(capabilityId);
    if (!r) {
      owners?.delete(owner);
      if (owners && owners.size === 0) this.records.delete(capabilityId);
      throw AppError.notFound('capability', capabilityId);
    }
    if (owners) owners.set(owner, r);
    else this.records.set(capabilityId, new Map([[owner, r]]));
    return r;
  }

  private async ensureFresh(): Promise<void> {
    if (this.now() - this.loadedAt <= this.ttlMs) return;
    this.loading ??= (async () => {
      try {
        const started = this.now();
        const all = await this.repo.loadAll();
        const records = new Map<string, Map<string, StoredCapability>>();
        for (const r of all) {
          const id = r.registration.capabilityId;
          if (!records.has(id)) records.set(id, new Map());
          records.get(id)!.set(r.owner, r);
        }
        this.records = records;
        this.loadedAt = started;
      } finally {
        this.loading = undefined;
      }
    })();
    await this.loading;
  }
}
