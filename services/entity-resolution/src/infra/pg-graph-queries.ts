/** Reads of the PostgreSQL graph store: entity views (through roots), queues, log, discoveries, subgraphs. */
import { randomUUID } from 'node:crypto';
import { entityViews, type MemberRow } from '../app/entity-views.js';
import type { DataSource } from 'typeorm';
import type { DiscoveryRow, EntityView, GraphReads, LogRow, RelationshipView, ReviewRow } from '../app/ports.js';
import { jaroWinkler } from '../domain/similarity.js';
import { fold } from '../domain/text.js';
import { preparedRead } from './pg-prepared.js';

export type Row = Record<string, any>;
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : v ? String(v) : '');

/**
 * The rows an entity view is made of (viewsOf), for the entities under the roots `ids` (a
 * placeholder for a uuid[]) of `owner` (a placeholder): their members, then the members' aliases
 * (`a`) and external ids (`x`), each in the members' order. A CTE `vm` and the SELECT over it;
 * `also`: one more branch of that SELECT (same columns).
 */
export function viewRowsSql(owner: string, ids: string, also = ''): { cte: string; select: string } {
  return {
    cte: `vm AS (
       SELECT id, root_id, name, canonical_name, type, subtype, confidence, created_at, updated_at, normalised->>'source' AS source
       FROM entities WHERE owner = ${owner} AND root_id = ANY(${ids}::uuid[]))`,
    select: `SELECT 'm' AS part, id, root_id, name, canonical_name, type, subtype, confidence, created_at, updated_at, source, NULL AS kind FROM vm
       UNION ALL
       SELECT 'a', vm.id, vm.root_id, a.alias, NULL, NULL, NULL, NULL, vm.created_at, NULL, NULL, NULL
         FROM entity_aliases a JOIN vm ON vm.id = a.entity_id WHERE a.owner = ${owner}
       UNION ALL
       SELECT 'x', vm.id, vm.root_id, x.value, NULL, NULL, NULL, NULL, vm.created_at, NULL, NULL, x.kind
         FROM entity_external_ids x JOIN vm ON vm.id = x.entity_id WHERE x.owner = ${owner}${also ? `\n       UNION ALL ${also}` : ''}
       ORDER BY part, created_at, id`,
  };
}

/** The views of the roots `ids` (in that order; a root without rows is left out) from rows shaped as viewRowsSql's. */
export function viewsOf(rows: readonly Row[], ids: readonly string[]): EntityView[] {
  const members = new Map<string, MemberRow & { aliases: string[]; externalIds: Record<string, string> }>();
  for (const r of rows)
    if (r.part === 'm')
      members.set(r.id, {
        id: r.id,
        rootId: r.root_id,
        name: r.name,
        canonicalName: r.canonical_name,
        type: r.type,
        subtype: r.subtype,
        confidence: Number(r.confidence),
        createdAt: iso(r.created_at),
        updatedAt: iso(r.updated_at),
        source: r.source ?? '',
        aliases: [],
        externalIds: {},
      });
  for (const r of rows) {
    const m = members.get(r.id);
    if (r.part === 'a') m?.aliases.push(r.name);
    else if (r.part === 'x' && m && !m.externalIds[r.kind]) m.externalIds[r.kind] = r.name;
  }
  return entityViews([...members.values()], ids);
}

/** typeorm answers `UPDATE … RETURNING` with [rows, count] and `INSERT … RETURNING` with rows. */
export function firstRow(result: any): Row {
  return Array.isArray(result[0]) ? result[0][0] : result[0];
}

export function toReview(r: Row): ReviewRow {
  return {
    id: r.id,
    executionId: r.execution_id,
    sourceEntityId: r.source_entity_id,
    sourceEntityName: r.source_entity_name,
    sourceEntityType: r.source_entity_type,
    candidateEntityId: r.candidate_entity_id,
    candidateEntityName: r.candidate_entity_name,
    confidence: Number(r.confidence),
    matchDetails: r.match_details ?? {},
    context: r.context ?? {},
    status: r.status,
    reviewedAt: iso(r.reviewed_at),
    createdAt: iso(r.created_at),
  };
}

export function toLog(r: Row): LogRow {
  return {
    id: r.id,
    executionId: r.execution_id,
    action: r.action,
    sourceEntityId: r.source_entity_id ?? '',
    sourceEntityName: r.source_entity_name,
    sourceEntityType: r.source_entity_type,
    targetEntityId: r.target_entity_id ?? '',
    targetEntityName: r.target_entity_name,
    confidence: Number(r.confidence),
    matchMethod: r.match_method,
    matchDetails: r.match_details ?? {},
    isReversible: Boolean(r.is_reversible) && !r.reversed_at,
    reversedAt: iso(r.reversed_at),
    createdAt: iso(r.created_at),
  };
}

function toDiscovery(r: Row): DiscoveryRow {
  return {
    id: r.id,
    executionId: r.execution_id,
    discoveryType: r.discovery_type,
    entityName: r.entity_name,
    entityType: r.entity_type,
    entityId: r.entity_id ?? '',
    relationshipType: r.relationship_type,
    relatedEntityName: r.related_entity_name,
    sourceConnector: r.source_connector,
    sourceEndpoint: r.source_endpoint,
    confidence: Number(r.confidence),
    details: r.details ?? {},
    discoveredAt: iso(r.discovered_at),
  };
}

export class GraphQueries implements GraphReads {
  constructor(private readonly db: DataSource) {}

  async rootsOf(owner: string, ids: readonly string[]): Promise<Map<string, string>> {
    const rows: Array<{ id: string; root_id: string }> = await this.db.query(`SELECT id, root_id FROM entities WHERE owner = $1 AND id = ANY($2::uuid[])`, [
      owner,
      [...new Set(ids)],
    ]);
    return new Map(rows.map((r) => [r.id, r.root_id]));
  }

  /** Entities as the graph shows them: one per root, facts unioned over the merged tree. */
  async entities(owner: string, rootIds: readonly string[]): Promise<EntityView[]> {
    const ids = [...new Set(rootIds)];
    if (ids.length === 0) return [];
    // Prepared: every resolve_entities answer of more than one record reads through here.
    const { cte, select } = viewRowsSql('$1', '$2');
    return viewsOf(await preparedRead(this.db, `WITH ${cte} ${select}`, [owner, ids]), ids);
  }

  async listReviews(owner: string, status: string, limit: number): Promise<ReviewRow[]> {
    const rows: Row[] = await this.db.query(
      `SELECT * FROM review_queue WHERE owner = $1 AND status = $2 ORDER BY created_at DESC, id LIMIT $3`,
      [owner, status || 'pending', limit],
    );
    return rows.map(toReview);
  }

  async listLog(owner: string, action: string, limit: number): Promise<LogRow[]> {
    const rows: Row[] = await this.db.query(
      `SELECT * FROM resolution_log WHERE owner = $1 AND ($2 = '' OR action = $2) ORDER BY created_at DESC, id LIMIT $3`,
      [owner, action, limit],
    );
    return rows.map(toLog);
  }

  async listDiscoveries(
    owner: string,
    executionId: string,
    type: string,
    limit: number,
  ): Promise<DiscoveryRow[]> {
    const rows: Row[] = await this.db.query(
      `SELECT * FROM discoveries WHERE owner = $1 AND ($2 = '' OR execution_id = $2) AND ($3 = '' OR discovery_type = $3) ORDER BY discovered_at DESC, id LIMIT $4`,
      [owner, executionId, type, limit],
    );
    return rows.map(toDiscovery);
  }

  async discoveryStats(owner: string) {
    const byType: Row[] = await this.db.query(
      `SELECT discovery_type AS k, count(*)::int AS n FROM discoveries WHERE owner = $1 GROUP BY 1`,
      [owner],
    );
    const byEntityType: Row[] = await this.db.query(
      `SELECT entity_type AS k, count(*)::int AS n FROM discoveries WHERE owner = $1 AND entity_type <> '' GROUP BY 1`,
      [owner],
    );
    const [counts]: Row[] = await this.db.query(
      `SELECT (SELECT count(*)::int FROM entities WHERE owner = $1 AND parent_id IS NULL) AS entities,
              (SELECT count(*)::int FROM relationships WHERE owner = $1) AS relationships,
              (SELECT count(*)::int FROM review_queue WHERE owner = $1 AND status = 'pending') AS pending`,
      [owner],
    );
    const map = (rows: Row[]): Record<string, number> =>
      Object.fromEntries(rows.map((r) => [String(r.k), Number(r.n)]));
    const bt = map(byType);
    return {
      total: Object.values(bt).reduce((a, b) => a + b, 0),
      byType: bt,
      byEntityType: map(byEntityType),
      entities: Number(counts?.entities ?? 0),
      relationships: Number(counts?.relationships ?? 0),
      pendingReviews: Number(counts?.pending ?? 0),
    };
  }

  /**
   * Roots whose member names, canonical names or aliases contain the query or
   * are trigram-similar to it (pg_trgm, so a misspelt query still finds the
   * entity), best Jaro–Winkler first.
   */
  async search(
    owner: string,
    queries: readonly string[],
    types: readonly string[],
    limit: number,
  ): Promise<EntityView[]> {
    const found = new Map<string, number>();
    for (const q of queries) {
      const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const folded = `%${fold(q).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const rows: Row[] = await this.db.query(
        `SELECT DISTINCT e.root_id, e.name FROM entities e LEFT JOIN entity_aliases a ON a.entity_id = e.id
          WHERE e.owner = $1 AND (cardinality($4::text[]) = 0 OR e.type = ANY($4::text[]))
            AND (e.name ILIKE $2 OR e.canonical_name LIKE $3 OR a.alias ILIKE $2 OR e.id::text = $5
                 OR e.canonical_name % $6 OR lower(a.alias) % $7)
          LIMIT 500`,
        [owner, like, folded, types, q, fold(q), q.toLowerCase()],
      );
      for (const r of rows) {
        const s = r.root_id === q ? 2 : jaroWinkler(fold(r.name), fold(q));
        found.set(r.root_id, Math.max(found.get(r.root_id) ?? 0, s));
      }
    }
    const ranked = [...found.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([id]) => id);
    return this.entities(owner, ranked);
  }

  private async edgesTouching(
    owner: string,
    roots: readonly string[] | undefined,
  ): Promise<RelationshipView[]> {
    const rows: Row[] = await this.db.query(
      `SELECT s.root_id AS source, t.root_id AS target, r.type, r.properties, r.confidence
         FROM relationships r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id
        WHERE r.owner = $1 AND ($2::uuid[] IS NULL OR s.root_id = ANY($2::uuid[]) OR t.root_id = ANY($2::uuid[]))
        ORDER BY r.created_at, r.id LIMIT 200000`,
      [owner, roots ? [...roots] : null],
    );
    return rows
      .filter((r) => r.source !== r.target)
      .map((r) => ({
        sourceId: r.source,
        targetId: r.target,
        type: r.type,
        properties: r.properties ?? {},
        confidence: Number(r.confidence),
      }));
  }

  async subgraph(
    owner: string,
    seeds: readonly string[] | undefined,
    maxHops: number,
    maxNodes: number,
  ): Promise<{ nodes: EntityView[]; edges: RelationshipView[]; truncated: boolean }> {
    let nodeIds: string[];
    let truncated = false;
    if (!seeds) {
      const rows: Row[] = await this.db.query(
        `SELECT id FROM entities WHERE owner = $1 AND parent_id IS NULL ORDER BY created_at, id LIMIT $2`,
        [owner, maxNodes + 1],
      );
      nodeIds = rows.map((r) => r.id);
      if (nodeIds.length > maxNodes) {
        truncated = true;
        nodeIds = nodeIds.slice(0, maxNodes);
      }
    } else {
      // Breadth-first over root-level edges, stopping at max_nodes.
      const seen = new Set(seeds);
      let frontier = [...seeds];
      for (let hop = 0; hop < maxHops && frontier.length > 0 && !truncated; hop++) {
        const next: string[] = [];
        for (const e of await this.edgesTouching(owner, frontier)) {
          for (const id of [e.sourceId, e.targetId]) {
            if (seen.has(id)) continue;
            if (seen.size >= maxNodes) {
              truncated = true;
              break;
            }
            seen.add(id);
            next.push(id);
          }
        }
        frontier = next;
      }
      nodeIds = [...seen];
    }
    const inSet = new Set(nodeIds);
    const edges = (await this.edgesTouching(owner, seeds ? nodeIds : undefined)).filter(
      (e) => inSet.has(e.sourceId) && inSet.has(e.targetId),
    );
    return { nodes: await this.entities(owner, nodeIds), edges, truncated };
  }

  async newEntitiesSince(
    owner: string,
    types: readonly string[],
    since: string,
    minConfidence: number,
    source: string,
    limit: number,
  ) {
    const rows: Row[] = await this.db.query(
      `SELECT id, created_at FROM entities
        WHERE owner = $1 AND parent_id IS NULL AND type = ANY($2::text[]) AND ($3 = '' OR created_at > $3::timestamptz)
          AND confidence >= $4 AND ($5 = '' OR normalised->>'source' = $5)
        ORDER BY created_at, id LIMIT $6`,
      [owner, types, since, minConfidence, source, limit],
    );
    const views = await this.entities(
      owner,
      rows.map((r) => r.id),
    );
    const created = new Map(rows.map((r) => [r.id, iso(r.created_at)]));
    return views.map((v) => ({ ...v, createdAt: created.get(v.id) ?? '' }));
  }

  async saveCommunities(owner: string, algorithm: string, communities: string[][]): Promise<void> {
    await this.db.transaction(async (m) => {
      await m.query(`DELETE FROM entity_clusters WHERE owner = $1 AND algorithm = $2`, [owner, algorithm]);
      for (const [i, members] of communities.entries()) {
        await m.query(
          `INSERT INTO entity_clusters (id, owner, cluster_id, algorithm, member_ids) VALUES ($1, $2, $3, $4, $5::uuid[])`,
          [randomUUID(), owner, i, algorithm, members],
        );
      }
    });
  }
}
