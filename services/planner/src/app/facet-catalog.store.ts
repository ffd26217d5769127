/**
 * The facet catalog as every replica sees it: loaded from `flex_facets`,
 * kept in memory for FLEX_CAPABILITY_CACHE_TTL_MS, reloaded at once when a
 * `facets_updated` event arrives. Facets belong to an owner (a user, a team,
 * the shared catalog); a principal's catalog is its own facets, its teams',
 * then the shared ones, one per name. Upserts change the caller's own facets
 * only, are validated (field paths `facets[i].…`) and refused when a
 * registered capability that sees the facet would no longer fit it.
 */
import { FacetCatalog, FacetCatalogError, FacetContractCompiler, facetAllows, parseFacet, type Facet, type PlanIssue } from '@af/plan';
import { AppError, type Queryable, type ServiceKit } from '@af/service-kit';
import { capabilityMessage } from '../infra/capability-events.js';
import type { CapabilityRepository } from '../infra/capability.repository.js';
import type { FacetRepository, StoredFacet } from '../infra/facet.repository.js';
import { OPERATOR_USER_ID, readableOwners, resolveByOwner, SHARED, writeOwner, type OwnershipDecision, type Principal } from '../domain/registry/ownership.js';

export interface CatalogSnapshot {
  catalog: FacetCatalog;
  compiler: FacetContractCompiler;
  collections: Map<string, string>;
  /** The owner key each facet of the catalog came from. */
  owners: Map<string, string>;
}

const MAX_FACETS_PER_CALL = 500;
/** Distinct audiences whose catalogs are kept compiled between reloads. */
const MAX_CACHED_VIEWS = 500;

export function violations(issues: PlanIssue[]) {
  return issues.map((i) => ({ field: i.field, reason: i.message.startsWith(`${i.field}: `) ? i.message.slice(i.field.length + 2) : i.message, code: i.code, ...(i.suggestedFix ? { suggestedFix: i.suggestedFix } : {}) }));
}

export function invalid(issues: PlanIssue[]): AppError {
  const first = issues[0]!;
  return new AppError('INVALID_ARGUMENT', `${first.message}${issues.length > 1 ? ` (+${issues.length - 1} more)` : ''}`, { violations: violations(issues) });
}

/** An ownership decision that went against the caller, as an AppError naming the field. */
export function ownershipError(d: Extract<OwnershipDecision, { ok: false }>): AppError {
  return new AppError(d.code, `${d.field}: ${d.reason}`, { violations: [{ field: d.field, reason: d.reason }] });
}

export interface FacetOwnership {
  visibility?: string;
  teamId?: string;
}

export class FacetCatalogStore {
  private current?: { rows: StoredFacet[]; loadedAt: number; views: Map<string, CatalogSnapshot> };
  private loading?: Promise<StoredFacet[]>;

  constructor(
    private readonly kit: ServiceKit,
    private readonly facets: FacetRepository,
    private readonly capabilities: CapabilityRepository,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The catalog the principal plans with: its own facets, its teams', the shared catalog (in that precedence), from memory while fresh. */
  async snapshot(principal: Principal): Promise<CatalogSnapshot> {
    return this.snapshotOf(readableOwners(principal));
  }

  /** The catalog made of the facets of `owners` (best first, one facet per name). */
  async snapshotOf(owners: readonly string[]): Promise<CatalogSnapshot> {
    if (!this.current || this.now() - this.current.loadedAt > this.ttlMs) await this.reload();
    const current = this.current!;
    const key = owners.join('\n');
    let view = current.views.get(key);
    if (!view) {
      view = toSnapshot(resolveByOwner(current.rows, owners, (r) => r.facet.name, (r) => r.owner));
      if (current.views.size >= MAX_CACHED_VIEWS) current.views.clear();
      current.views.set(key, view);
    }
    return view;
  }

  /** Reloads from the database (concurrent callers share one load). */
  async reload(): Promise<StoredFacet[]> {
    this.loading ??= (async () => {
      try {
        const started = this.now();
        const rows = await this.facets.loadAll();
        this.current = { rows, loadedAt: started, views: new Map() };
        return rows;
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /** Drops the cached catalog (a `facets_updated` event). */
  invalidate(): void {
    this.current = undefined;
  }

  /**
   * Creates or replaces facets of ONE owner: the caller's own, a team of the
   * caller's (`teamId`), or the shared catalog (operator only). A name of the
   * shared catalog cannot be defined by anyone else (it would change what the
   * name means for that owner's plans without the operator's review).
   */
  async upsert(principal: Principal, raw: readonly unknown[], collection: string | undefined, ownership: FacetOwnership = {}): Promise<{ facets: StoredFacet[]; revision: string }> {
    if (!principal.userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
    const decided = writeOwner(principal, ownership);
    if (!decided.ok) throw ownershipError(decided);
    const owner = decided.owner;
    if (raw.length === 0) throw AppError.invalid('facets', 'must hold at least one facet definition');
    if (raw.length > MAX_FACETS_PER_CALL) throw AppError.invalid('facets', `at most ${MAX_FACETS_PER_CALL} facets per call`);
    if (collection !== undefined && !/^[A-Za-z0-9_.-]{1,200}$/.test(collection)) throw AppError.invalid('collection', 'must be 1-200 letters, digits, _ . -');
    const parsed: Facet[] = [];
    const issues: PlanIssue[] = [];
    const seen = new Set<string>();
    raw.forEach((r, i) => {
      const p = parseFacet(r, `facets[${i}]`);
      if (!p.ok) return issues.push(...p.issues);
      if (seen.has(p.facet.name)) return issues.push({ code: 'duplicate_facet', field: `facets[${i}].name`, message: `facets[${i}].name: facet '${p.facet.name}' is listed twice` });
      seen.add(p.facet.name);
      parsed.push(p.facet);
    });
    if (issues.length) throw invalid(issues);

    await this.kit.transaction(async (m, emit) => {
      // Serialise catalog changes so the checks below see the final state.
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['planner:flex_facets']);
      const existing = await this.facets.loadAll(m);
      if (owner !== SHARED) {
        const shared = new Set(existing.filter((s) => s.owner === SHARED).map((s) => s.facet.name));
        const taken = parsed.map((f, i) => ({ f, i })).filter(({ f }) => shared.has(f.name));
        if (taken.length) {
          const reason = (name: string) => `facet '${name}' belongs to the shared catalog: only operators (${OPERATOR_USER_ID}) change the shared catalog; choose another name`;
          throw new AppError('PERMISSION_DENIED', `facets[${taken[0]!.i}].name: ${reason(taken[0]!.f.name)}`, {
            violations: taken.map(({ f, i }) => ({ field: `facets[${i}].name`, reason: reason(f.name), code: 'shared_facet' })),
          });
        }
      }
      const conflicts = await this.breakingChanges(m, owner, parsed, existing);
      if (conflicts.length) {
        throw new AppError('FAILED_PRECONDITION', `${conflicts[0]!.message}${conflicts.length > 1 ? ` (+${conflicts.length - 1} more)` : ''}`, { violations: violations(conflicts) });
      }
      await this.facets.upsert(m, owner, parsed, collection);
      emit(capabilityMessage(this.kit.subjects, { kind: 'catalog', event: 'facets_updated', owner, facets: parsed.map((f) => f.name), at: new Date(this.now()).toISOString() }));
    });
    await this.reload();
    const mine = await this.snapshotOf([owner]);
    return { facets: parsed.map((f) => ({ facet: mine.catalog.get(f.name)!, owner, ...(collection ? { collection } : {}) })), revision: (await this.snapshot(principal)).catalog.revision };
  }

  /**
   * Registered capabilities a changed facet would break (direction no longer
   * allowed) — only those that see this owner's facet: a capability uses the
   * facets of its own owner, then the shared catalog's.
   */
  private async breakingChanges(q: Queryable, owner: string, changed: Facet[], existing: StoredFacet[]): Promise<PlanIssue[]> {
    const byName = new Map(changed.map((f, i) => [f.name, { f, i }]));
    const ownNames = new Set(existing.map((s) => `${s.owner}\n${s.facet.name}`));
    const sees = (capabilityOwner: string, name: string) => capabilityOwner === owner || (owner === SHARED && !ownNames.has(`${capabilityOwner}\n${name}`));
    const out: PlanIssue[] = [];
    for (const c of await this.capabilities.loadAll(q)) {
      const reg = c.registration;
      const check = (list: string[], use: 'input' | 'output') =>
        list.forEach((n) => {
          const hit = byName.get(n);
          if (!hit || facetAllows(hit.f, use) || !sees(c.owner, n)) return;
          out.push({ code: 'direction_mismatch', field: `facets[${hit.i}].metadata.direction`, message: `facets[${hit.i}].metadata.direction: '${hit.f.direction}' would break capability ${reg.capabilityId}, which ${use === 'input' ? 'consumes' : 'produces'} ${n}` });
        });
      check(reg.inputContract, 'input');
      check(reg.outputContract, 'output');
    }
    return out;
  }
}

function toSnapshot(rows: StoredFacet[]): CatalogSnapshot {
  try {
    const catalog = new FacetCatalog(rows.map((r) => r.facet));
    return {
      catalog,
      compiler: new FacetContractCompiler(catalog),
      collections: new Map(rows.filter((r) => r.collection).map((r) => [r.facet.name, r.collection!])),
      owners: new Map(rows.map((r) => [r.facet.name, r.owner])),
    };
  } catch (e) {
    if (e instanceof FacetCatalogError) throw new AppError('INTERNAL', `stored facet catalog is inconsistent: ${e.message}`);
    throw e;
  }
}
