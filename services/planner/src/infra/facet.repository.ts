/** SQL of the facet catalog (table `flex_facets`). */
import { facetToDefinition, parseFacet, type Facet } from '@af/plan';
import { sqlRows, type Queryable } from '@af/service-kit';

export interface StoredFacet {
  facet: Facet;
  collection?: string;
}

export class FacetRepository {
  constructor(private readonly db: Queryable) {}

  /** Every facet, oldest first (catalog order). */
  async loadAll(q: Queryable = this.db): Promise<StoredFacet[]> {
    const rows = await sqlRows(q, 'SELECT definition, collection FROM flex_facets ORDER BY created_at, name');
    return rows.map((r) => {
      const p = parseFacet(r.definition);
      // Stored definitions were parsed on the way in; a failure here means the row was edited by hand.
      if (!p.ok) throw new Error(`flex_facets row is not a valid facet: ${p.issues.map((i) => i.message).join('; ')}`);
      return { facet: p.facet, ...(r.collection ? { collection: r.collection as string } : {}) };
    });
  }

  async upsert(q: Queryable, facets: readonly Facet[], collection: string | undefined): Promise<void> {
    for (const f of facets) {
      await sqlRows(
        q,
        `INSERT INTO flex_facets (name, version, direction, definition, catalog_tags, collection) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version, direction = EXCLUDED.direction, definition = EXCLUDED.definition,
           catalog_tags = EXCLUDED.catalog_tags, collection = EXCLUDED.collection, updated_at = now()`,
        [f.name, f.version, f.direction, JSON.stringify(facetToDefinition(f)), f.catalogTags, collection ?? null],
      );
    }
  }
}
