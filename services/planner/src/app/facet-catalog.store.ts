/**
 * The facet catalog as every replica sees it: loaded from `flex_facets`,
 * kept in memory for FLEX_CAPABILITY_CACHE_TTL_MS, reloaded at once when a
 * `facets_updated` event arrives. Upserts are validated (field paths
 * `facets[i].…`) and refused when a registered capability would no longer
 * fit its facets.
 */
import { FacetCatalog, FacetCatalogError, FacetContractCompiler, facetAllows, parseFacet, type Facet, type PlanIssue } from '@af/plan';
import { AppError, type Queryable, type ServiceKit } from '@af/service-kit';
import { capabilityMessage } from '../infra/capability-events.js';
import type { CapabilityRepository } from '../infra/capability.repository.js';
import type { FacetRepository, StoredFacet } from '../infra/facet.repository.js';

export interface CatalogSnapshot {
  catalog: FacetCatalog;
  compiler: FacetContractCompiler;
  collections: Map<string, string>;
}

const MAX_FACETS_PER_CALL = 500;

export function violations(issues: PlanIssue[]) {
  return issues.map((i) => ({ field: i.field, reason: i.message.startsWith(`${i.field}: `) ? i.message.slice(i.field.length + 2) : i.message, code: i.code, ...(i.suggestedFix ? { suggestedFix: i.suggestedFix } : {}) }));
}

export function invalid(issues: PlanIssue[]): AppError {
  const first = issues[0]!;
  return new AppError('INVALID_ARGUMENT', `${first.message}${issues.length > 1 ? ` (+${issues.length - 1} more)` : ''}`, { violations: violations(issues) });
}

export class FacetCatalogStore {
  private current?: { snapshot: CatalogSnapshot; loadedAt: number };
  private loading?: Promise<CatalogSnapshot>;

  constructor(
    private readonly kit: ServiceKit,
    private readonly facets: FacetRepository,
    private readonly capabilities: CapabilityRepository,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The catalog, from memory while fresh. */
  async snapshot(): Promise<CatalogSnapshot> {
    if (this.current && this.now() - this.current.loadedAt <= this.ttlMs) return this.current.snapshot;
    return this.reload();
  }

  /** Reloads from the database (concurrent callers share one load). */
  async reload(): Promise<CatalogSnapshot> {
    this.loading ??= (async () => {
      try {
        const started = this.now();
        const rows = await this.facets.loadAll();
        const snapshot = toSnapshot(rows);
        this.current = { snapshot, loadedAt: started };
        return snapshot;
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

  async upsert(userId: string, raw: readonly unknown[], collection: string | undefined): Promise<{ facets: StoredFacet[]; revision: string }> {
    if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
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
      // Serialise catalog changes so the compatibility check below sees the final state.
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['planner:flex_facets']);
      const existing = await this.facets.loadAll(m);
      const merged = new Map(existing.map((s) => [s.facet.name, s.facet]));
      for (const f of parsed) merged.set(f.name, f);
      const conflicts = await this.breakingChanges(m, parsed, merged);
      if (conflicts.length) {
        throw new AppError('FAILED_PRECONDITION', `${conflicts[0]!.message}${conflicts.length > 1 ? ` (+${conflicts.length - 1} more)` : ''}`, { violations: violations(conflicts) });
      }
      await this.facets.upsert(m, parsed, collection);
      emit(capabilityMessage(this.kit.subjects, { kind: 'catalog', event: 'facets_updated', facets: parsed.map((f) => f.name), at: new Date(this.now()).toISOString() }));
    });
    const snapshot = await this.reload();
    return { facets: parsed.map((f) => ({ facet: snapshot.catalog.get(f.name)!, ...(collection ? { collection } : {}) })), revision: snapshot.catalog.revision };
  }

  /** Registered capabilities a changed facet would break (direction no longer allowed). */
  private async breakingChanges(q: Queryable, changed: Facet[], merged: Map<string, Facet>): Promise<PlanIssue[]> {
    const names = new Set(changed.map((f) => f.name));
    const out: PlanIssue[] = [];
    for (const c of await this.capabilities.loadAll(q)) {
      const reg = c.registration;
      const check = (list: string[], use: 'input' | 'output') =>
        list.forEach((n) => {
          const f = merged.get(n);
          if (!names.has(n) || !f || facetAllows(f, use)) return;
          const i = changed.findIndex((x) => x.name === n);
          out.push({ code: 'direction_mismatch', field: `facets[${i}].metadata.direction`, message: `facets[${i}].metadata.direction: '${f.direction}' would break capability ${reg.capabilityId}, which ${use === 'input' ? 'consumes' : 'produces'} ${n}` });
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
    return { catalog, compiler: new FacetContractCompiler(catalog), collections: new Map(rows.filter((r) => r.collection).map((r) => [r.facet.name, r.collection!])) };
  } catch (e) {
    if (e instanceof FacetCatalogError) throw new AppError('INTERNAL', `stored facet catalog is inconsistent: ${e.message}`);
    throw e;
  }
}
