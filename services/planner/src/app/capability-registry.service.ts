/**
 * Capability registry use cases (flex spec §5.6.1, §9.1, §11): register
 * (validated against the facet catalog, upserted, contracts compiled),
 * heartbeat, deregister, get, list — and the in-memory registry every replica
 * plans from: loaded from PostgreSQL, served for FLEX_CAPABILITY_CACHE_TTL_MS,
 * refreshed immediately by `af.capability.>` events from any replica.
 * Stale instances are swept to `inactive` (one replica claims each row).
 */
import { FacetCatalogError, heartbeatTimeoutSeconds, parseCapabilityRegistration } from '@af/plan';
import { CAPABILITY_EGRESS, endpointRefusal, type EgressPolicy } from '@af/egress';
import { AppError, type ServiceKit } from '@af/service-kit';
import { assignmentDefaultsIssues } from '../domain/registry/assignment-defaults.js';
import { capabilityStatus, toCapabilityView } from '../domain/registry/capability-record.js';
import type { CapabilityView } from '../domain/planning/types.js';
import { capabilityMessage, type CapabilityEvent } from '../infra/capability-events.js';
import type { CapabilityRepository, StoredCapability } from '../infra/capability.repository.js';
import { invalid, type FacetCatalogStore } from './facet-catalog.store.js';

export interface ListFilter {
  includeInactive?: boolean;
  catalogTag?: string;
  produces?: string;
}

export interface RegistryMetrics {
  onChange?(event: string): void;
}

function requireUser(userId: string): void {
  if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
}

function requireId(field: string, value: string): void {
  if (!value) throw AppError.invalid(field, 'is required');
  if (value.length > 200) throw AppError.invalid(field, 'must be at most 200 characters');
}

export class CapabilityRegistry {
  private records = new Map<string, StoredCapability>();
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

  async register(userId: string, raw: unknown): Promise<{ capability: StoredCapability; created: boolean }> {
    requireUser(userId);
    const { catalog, compiler } = await this.facets.snapshot();
    const parsed = parseCapabilityRegistration(raw, catalog);
    if (!parsed.ok) throw invalid(parsed.issues);
    const reg = parsed.registration;
    const refusal = reg.endpoint ? endpointRefusal(this.endpointPolicy, reg.endpoint, { owner: userId, id: reg.capabilityId }) : undefined;
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
      await this.assertOwner(await this.repo.lockOwner(m, reg.capabilityId), userId, reg.capabilityId);
      const r = await this.repo.upsert(m, { registration: reg, ownerUserId: userId, inputSchema, outputSchema }, heartbeatTimeoutSeconds(reg));
      emit(capabilityMessage(this.kit.subjects, { kind: 'capability', event: 'registered', capabilityId: reg.capabilityId, instanceIds: [reg.instanceId], at }));
      return r.created;
    });
    this.metrics.onChange?.('registered');
    this.kit.log.info({ capabilityId: reg.capabilityId, instanceId: reg.instanceId, created, agentType: reg.agentType }, 'capability registered');
    return { capability: await this.refresh(reg.capabilityId), created };
  }

  async heartbeat(userId: string, capabilityId: string, instanceId = 'default'): Promise<StoredCapability> {
    requireUser(userId);
    requireId('capability_id', capabilityId);
    const at = new Date(this.now()).toISOString();
    await this.kit.transaction(async (m, emit) => {
      const owner = await this.repo.lockOwner(m, capabilityId);
      if (owner === undefined) throw AppError.notFound('capability', capabilityId);
      await this.assertOwner(owner, userId, capabilityId);
      const seen = await this.repo.heartbeat(m, capabilityId, instanceId);
      if (!seen) throw new AppError('NOT_FOUND', `capability ${capabilityId} has no instance '${instanceId}': register it first`);
      emit(capabilityMessage(this.kit.subjects, { kind: 'capability', event: 'heartbeat', capabilityId, instanceId, lastSeenAt: seen.lastSeenAt.toISOString(), at }));
    });
    this.metrics.onChange?.('heartbeat');
    return this.refresh(capabilityId);
  }

  async deregister(userId: string, capabilityId: string, instanceId?: string): Promise<StoredCapability> {
    requireUser(userId);
    requireId('capability_id', capabilityId);
    const at = new Date(this.now()).toISOString();
    await this.kit.transaction(async (m, emit) => {
      const owner = await this.repo.lockOwner(m, capabilityId);
      if (owner === undefined) throw AppError.notFound('capability', capabilityId);
      await this.assertOwner(owner, userId, capabilityId);
      const removed = await this.repo.deregister(m, capabilityId, instanceId);
      if (instanceId !== undefined && removed.length === 0) throw new AppError('NOT_FOUND', `capability ${capabilityId} has no instance '${instanceId}'`);
      emit(capabilityMessage(this.kit.subjects, { kind: 'capability', event: 'deregistered', capabilityId, instanceIds: removed, at }));
    });
    this.metrics.onChange?.('deregistered');
    this.kit.log.info({ capabilityId, instanceId: instanceId ?? '*' }, 'capability deregistered');
    return this.refresh(capabilityId);
  }

  async get(capabilityId: string): Promise<StoredCapability> {
    requireId('capability_id', capabilityId);
    await this.ensureFresh();
    const r = this.records.get(capabilityId);
    if (!r) throw AppError.notFound('capability', capabilityId);
    return r;
  }

  async list(filter: ListFilter = {}): Promise<StoredCapability[]> {
    await this.ensureFresh();
    const now = new Date(this.now());
    return [...this.records.values()]
      .filter((r) => filter.includeInactive || capabilityStatus(r, now) === 'active')
      .filter((r) => !filter.catalogTag || r.catalogTags.includes(filter.catalogTag))
      .filter((r) => !filter.produces || r.registration.outputContract.includes(filter.produces))
      .sort((a, b) => (a.registration.capabilityId < b.registration.capabilityId ? -1 : 1));
  }

  /** What planning sees: every capability (inactive ones marked so) at this moment. */
  async views(): Promise<CapabilityView[]> {
    await this.ensureFresh();
    const now = new Date(this.now());
    return [...this.records.values()].sort((a, b) => (a.registration.capabilityId < b.registration.capabilityId ? -1 : 1)).map((r) => toCapabilityView(r, now));
  }

  statusOf(r: StoredCapability): 'active' | 'inactive' {
    return capabilityStatus(r, new Date(this.now()));
  }

  /** Marks stale instances inactive and announces them; returns how many. */
  async sweep(): Promise<number> {
    const at = new Date(this.now()).toISOString();
    const stale = await this.kit.transaction(async (m, emit) => {
      const rows = await this.repo.sweepStale(m);
      for (const s of rows) emit(capabilityMessage(this.kit.subjects, { kind: 'capability', event: 'inactive', capabilityId: s.capabilityId, instanceId: s.instanceId, lastSeenAt: s.lastSeenAt.toISOString(), at }));
      return rows;
    });
    for (const s of stale) {
      this.kit.log.info({ capabilityId: s.capabilityId, instanceId: s.instanceId, lastSeenAt: s.lastSeenAt }, 'capability instance stale: marked inactive');
      this.metrics.onChange?.('inactive');
      this.applyInstance(s.capabilityId, s.instanceId, { status: 'inactive' });
    }
    return stale.length;
  }

  /** Applies an event from any replica to the in-memory registry. */
  async apply(e: CapabilityEvent): Promise<void> {
    if (e.kind === 'catalog') return;
    if (e.event === 'heartbeat') {
      if (!this.applyInstance(e.capabilityId, e.instanceId, { status: 'active', lastSeenAt: new Date(e.lastSeenAt) })) await this.refresh(e.capabilityId);
      return;
    }
    if (e.event === 'inactive') {
      this.applyInstance(e.capabilityId, e.instanceId, { status: 'inactive' });
      return;
    }
    await this.refresh(e.capabilityId);
  }

  /** Forgets the in-memory registry (next read reloads). */
  invalidate(): void {
    this.loadedAt = Number.NEGATIVE_INFINITY;
  }

  private applyInstance(capabilityId: string, instanceId: string, patch: { status: 'active' | 'inactive'; lastSeenAt?: Date }): boolean {
    const r = this.records.get(capabilityId);
    const i = r?.instances.find((x) => x.instanceId === instanceId);
    if (!i) return false;
    i.status = patch.status;
    if (patch.lastSeenAt && patch.lastSeenAt > i.lastSeenAt) i.lastSeenAt = patch.lastSeenAt;
    return true;
  }

  private async refresh(capabilityId: string): Promise<StoredCapability> {
    const r = await this.repo.load(capabilityId);
    if (!r) {
      this.records.delete(capabilityId);
      throw AppError.notFound('capability', capabilityId);
    }
    this.records.set(capabilityId, r);
    return r;
  }

  private async ensureFresh(): Promise<void> {
    if (this.now() - this.loadedAt <= this.ttlMs) return;
    this.loading ??= (async () => {
      try {
        const started = this.now();
        const all = await this.repo.loadAll();
        this.records = new Map(all.map((r) => [r.registration.capabilityId, r]));
        this.loadedAt = started;
      } finally {
        this.loading = undefined;
      }
    })();
    await this.loading;
  }

  private async assertOwner(owner: string | undefined, userId: string, capabilityId: string): Promise<void> {
    if (owner !== undefined && owner !== userId) throw new AppError('PERMISSION_DENIED', `capability ${capabilityId} is registered by another principal`);
  }
}
