/**
 * A catalog folder (e.g. catalogs/flex-marketing): `catalog.json` names the
 * collection, its tags and the sub-folders of facet and capability JSON
 * files. Everything is validated here, before anything is sent: facets
 * against the facet schema, capabilities against those facets (plus the
 * catalog the registry already holds), each problem naming file and field.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FacetCatalog, parseCapabilityRegistration, parseFacet, type CapabilityRegistration, type Facet } from '@af/plan';
import { z } from 'zod';

const ManifestSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]{1,200}$/, 'must be 1-200 letters, digits, _ . -'),
  description: z.string().max(2000).optional(),
  catalogTags: z.array(z.string().min(1).max(100)).max(50).default([]),
  facets: z.string().min(1).default('facets'),
  capabilities: z.string().min(1).default('capabilities'),
});

export interface CatalogFolder {
  name: string;
  catalogTags: string[];
  /** Facet definitions as written (sent as is). */
  facetDefinitions: Array<{ file: string; raw: Record<string, unknown>; facet: Facet }>;
  registrations: Array<{ file: string; raw: Record<string, unknown>; registration: CapabilityRegistration }>;
}

export class CatalogFolderError extends Error {
  constructor(readonly problems: string[]) {
    super(`catalog is invalid:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'CatalogFolderError';
  }
}

function readJson(path: string, root: string, problems: string[]): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    problems.push(`${relative(root, path)}: must hold one JSON object`);
  } catch (e) {
    problems.push(`${relative(root, path)}: ${(e as Error).message}`);
  }
  return undefined;
}

function jsonFiles(dir: string, root: string, problems: string[]): string[] {
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f));
  } catch (e) {
    problems.push(`${relative(root, dir) || '.'}: ${(e as Error).message}`);
    return [];
  }
}

/**
 * Reads and validates a catalog folder. `known` are facets the registry
 * already has (capabilities may use them too).
 * @throws CatalogFolderError listing every problem as `file: field: reason`
 */
export function readCatalogFolder(dir: string, known: readonly Facet[] = []): CatalogFolder {
  const problems: string[] = [];
  const manifestRaw = readJson(join(dir, 'catalog.json'), dir, problems);
  if (!manifestRaw) throw new CatalogFolderError(problems);
  const manifest = ManifestSchema.safeParse(manifestRaw);
  if (!manifest.success) throw new CatalogFolderError(manifest.error.issues.map((i) => `catalog.json: ${i.path.join('.') || '(root)'}: ${i.message}`));
  const m = manifest.data;

  const facetDefinitions: CatalogFolder['facetDefinitions'] = [];
  for (const path of jsonFiles(join(dir, m.facets), dir, problems)) {
    const raw = readJson(path, dir, problems);
    if (!raw) continue;
    const p = parseFacet(raw);
    if (!p.ok) problems.push(...p.issues.map((i) => `${relative(dir, path)}: ${i.message}`));
    else facetDefinitions.push({ file: relative(dir, path), raw, facet: p.facet });
  }
  const names = new Set<string>();
  for (const f of facetDefinitions) {
    if (names.has(f.facet.name)) problems.push(`${f.file}: name: facet '${f.facet.name}' is defined twice in the catalog`);
    names.add(f.facet.name);
  }
  const merged = new Map(known.map((f) => [f.name, f]));
  for (const f of facetDefinitions) merged.set(f.facet.name, f.facet);
  const catalog = new FacetCatalog(merged.values());

  const registrations: CatalogFolder['registrations'] = [];
  for (const path of jsonFiles(join(dir, m.capabilities), dir, problems)) {
    const raw = readJson(path, dir, problems);
    if (!raw) continue;
    // Catalog entries belong to the collection unless they say otherwise.
    const meta = raw.metadata && typeof raw.metadata === 'object' && !Array.isArray(raw.metadata) ? (raw.metadata as Record<string, unknown>) : {};
    const tagged = { ...raw, metadata: { ...meta, collection: meta.collection ?? m.name, catalogTags: meta.catalogTags ?? m.catalogTags } };
    const p = parseCapabilityRegistration(tagged, catalog);
    if (!p.ok) problems.push(...p.issues.map((i) => `${relative(dir, path)}: ${i.message}`));
    else registrations.push({ file: relative(dir, path), raw: tagged, registration: p.registration });
  }
  const ids = new Set<string>();
  for (const r of registrations) {
    const key = `${r.registration.capabilityId}/${r.registration.instanceId}`;
    if (ids.has(key)) problems.push(`${r.file}: capabilityId: '${r.registration.capabilityId}' (instance ${r.registration.instanceId}) is registered twice`);
    ids.add(key);
  }
  if (problems.length) throw new CatalogFolderError(problems);
  return { name: m.name, catalogTags: m.catalogTags, facetDefinitions, registrations };
}
