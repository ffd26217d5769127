/**
 * Loads a catalog folder into a running planner over gRPC: the facets
 * (UpsertFacets, tagged with the collection) then every capability
 * (RegisterCapability — the same validation path as any agent), all owned
 * by `owner`: the user's own, a team's, or (as the operator) the shared catalog.
 */
import type { planner } from '@af/contracts';
import { parseFacet, type Facet } from '@af/plan';
import { call } from '@af/service-kit';
import { readCatalogFolder } from '../infra/catalog-folder.js';

export interface LoadResult {
  collection: string;
  facets: string[];
  capabilities: Array<{ capabilityId: string; created: boolean }>;
  catalogRevision: string;
}

/** Whose catalog the folder becomes: a user's (default), a team of theirs, or the shared one (the operator). */
export interface CatalogOwner {
  userId: string;
  teamId?: string;
  shared?: boolean;
}

export async function loadCatalog(dir: string, client: planner.CapabilityRegistryServiceClient, owner: CatalogOwner): Promise<LoadResult> {
  const principal = { userId: owner.userId, teamIds: owner.teamId ? [owner.teamId] : [] };
  const visibility = owner.shared ? 'shared' : owner.teamId ? 'team' : '';
  const ownership = { ...(visibility ? { visibility } : {}), ...(owner.teamId ? { teamId: owner.teamId } : {}) };
  const existing = await call(client.listFacets({ principal, catalogTag: '' }));
  const known: Facet[] = existing.facets.flatMap((f) => {
    const p = parseFacet(f.definition);
    return p.ok ? [p.facet] : [];
  });
  const folder = readCatalogFolder(dir, known);
  const upserted = await call(
    client.upsertFacets({ principal, facets: folder.facetDefinitions.map((f) => f.raw), collection: folder.name, idempotencyKey: `catalog:${folder.name}:facets`, visibility, teamId: owner.teamId ?? '' }),
  );
  const capabilities: LoadResult['capabilities'] = [];
  for (const r of folder.registrations) {
    const res = await call(client.registerCapability({ principal, registration: { ...(r.raw as Record<string, unknown>), ...ownership }, idempotencyKey: `catalog:${folder.name}:${r.registration.capabilityId}` }));
    capabilities.push({ capabilityId: r.registration.capabilityId, created: res.created });
  }
  return { collection: folder.name, facets: upserted.facets.map((f) => f.name), capabilities, catalogRevision: upserted.catalogRevision };
}
