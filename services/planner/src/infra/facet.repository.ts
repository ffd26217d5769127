/** SQL of the facet catalog (table `flex_facets`, one row per owner and name). */
import { facetToDefinition, parseFacet, type Facet } from '@af/plan';
import { sqlRows, type Queryable } from '@af/service-kit';

export interface StoredFacet {
  facet: Facet;
  /** Owner key (`user:<id>`, `team:<id>`, `shared`): names resolve per owner. */
  owner: string;
  collection?: string;
}

export class FacetRepository {
  constructor(private readonly db: Queryable) {}

  /** Every facet of every owner, oldest first (catalog order). */
  async loadAll(q: Queryable = this.db): Promise<StoredFacet[]> {
    const rows = await sqlRows(q, 'SELECT owner, definition, collection FROM flex_facets ORDER BY created_at, name, owner');
    return rows.map((r) => {
      const p = parseFacet(r.definition);
      // Stored definitions were parsed on the way in; a failure here means the row was edited by hand.
      if (!p.ok) throw new Error(`flex_facets row is not a valid facet: ${p.issues.map((i) => i.message).join('; ')}`);
      return { facet: p.facet, owner: r.owner as string, ...(r.collection ? { collection: r.collection as string } : {}) };
    });
  }

  async upsert(q: Queryable, owner: string, facets: readonly Facet[], collection: string | undefined): Promise<void> {
    for (const f of facets) {
      await sqlRows(
        q,
        `INSERT INTO flex_facets (owner, name, version, direction, definition, catalog_tags, collection) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (owner, name) DO UPDATE SET version = EXCLUDED.version, direction = EXCLUDED.direction, definition = EXCLUDED.definition,
           catalog_tags = EXCLUDED.catalog_tags, collection = EXCLUDED.collection, updated_at = now()`,
        [owner, f.name, f.version, f.direction, JSON.stringify(facetToDefinition(f)), f.catalogTags, collection ?? null],
      );
    }
  }
}
