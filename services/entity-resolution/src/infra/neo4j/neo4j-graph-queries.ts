/** Reads of the Neo4j graph store: entity views (through roots), queues, log, discoveries, subgraphs, full-text search. */
import { randomUUID } from 'node:crypto';
import neo4j, { type Driver, type ManagedTransaction } from 'neo4j-driver';
import { entityViews } from '../../app/entity-views.js';
import type { DiscoveryRow, EntityView, GraphReads, LogRow, RelationshipView, ReviewRow } from '../../app/ports.js';
import { jaroWinkler } from '../../domain/similarity.js';
import { fold } from '../../domain/text.js';

type Row = Record<string, any>;

/** Records as plain objects (the driver is created with `disableLosslessIntegers`, so integers are numbers). */
export function rows(result: { records: ReadonlyArray<{ toObject(): unknown }> }): Row[] {
  return result.records.map((r) => r.toObject() as Row);
}

const json = (v: unknown): Record<string, unknown> => {
  if (typeof v !== 'string' || !v) return {};
  try {
    return JSON.parse(v) as Record<string, unknown>;
  } catch {
    return {};
  }
};
const iso = (v: unknown) => (typeof v === 'string' && v ? new Date(v).toISOString() : '');

export function toReview(r: Row): ReviewRow {
  return {
    id: r.id,
    executionId: r.execution_id ?? '',
    sourceEntityId: r.source_entity_id,
    sourceEntityName: r.source_entity_name,
    sourceEntityType: r.source_entity_type,
    candidateEntityId: r.candidate_entity_id,
    candidateEntityName: r.candidate_entity_name,
    confidence: Number(r.confidence),
    matchDetails: json(r.match_details),
    context: json(r.context),
    status: r.status,
    reviewedAt: iso(r.reviewed_at),
    createdAt: iso(r.created_at),
  };
}

export function toLog(r: Row): LogRow {
  return {
    id: r.id,
    executionId: r.execution_id ?? '',
    action: r.action,
    sourceEntityId: r.source_entity_id ?? '',
    sourceEntityName: r.source_entity_name,
    sourceEntityType: r.source_entity_type ?? '',
    targetEntityId: r.target_entity_id ?? '',
    targetEntityName: r.target_entity_name ?? '',
    confidence: Number(r.confidence),
    matchMethod: r.match_method ?? '',
    matchDetails: json(r.match_details),
    isReversible: Boolean(r.is_reversible) && !r.reversed_at,
    reversedAt: iso(r.reversed_at),
    createdAt: iso(r.created_at),
  };
}

function toDiscovery(r: Row): DiscoveryRow {
  return {
    id: r.id,
    executionId: r.execution_id ?? '',
    discoveryType: r.discovery_type,
    entityName: r.entity_name ?? '',
    entityType: r.entity_type ?? '',
    entityId: r.entity_id ?? '',
    relationshipType: r.relationship_type ?? '',
    relatedEntityName: r.related_entity_name ?? '',
    sourceConnector: r.source_connector ?? '',
    sourceEndpoint: r.source_endpoint ?? '',
    confidence: Number(r.confidence),
    details: json(r.details),
    discoveredAt: iso(r.discovered_at),
  };
}

/** Lucene query of fuzzy terms (`term~`), special characters escaped. */
function luceneFuzzy(q: string): string {
  return fold(q)
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => `${t.replace(/[+\-&|!(){}[\]^"~*?:\\/]/g, (c) => `\\${c}`)}~`)
    .join(' ');
}

export class Neo4jGraphQueries implements GraphReads {
  constructor(
    private readonly driver: Driver,
    private readonly database: string | undefined,
  ) {}

  private read(cypher: string, params: Record<string, unknown>): Promise<Row[]> {
    return this.driver
      .executeQuery(cypher, params, { ...(this.database ? { database: this.database } : {}), routing: neo4j.routing.READ })
      .then(rows);
  }

  async rootsOf(owner: string, ids: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.read(`MATCH (m:Entity {user_id: $owner}) WHERE m.id IN $ids RETURN m.id AS id, m.root_id AS root_id`, { owner, ids: [...new Set(ids)] });
    return new Map(rows.map((r) => [String(r.id), String(r.root_id)]));
  }

  /** Entities as the graph shows them: one per root, facts unioned over the merged tree. */
  async entities(owner: string, rootIds: readonly string[]): Promise<EntityView[]> {
    const ids = [...new Set(rootIds)];
    if (ids.length === 0) return [];
    const members = await this.read(
      `MATCH (m:Entity {user_id: $owner}) WHERE m.root_id IN $ids
       RETURN m.id AS id, m.root_id AS root_id, m.name AS name, m.canonical_name AS canonical_name, m.type AS type, m.subtype AS subtype,
              m.confidence AS confidence, toString(m.created_at) AS created_at, toString(m.updated_at) AS updated_at, m.source AS source,
              m.aliases AS aliases, m.ext_ein AS ein, m.ext_fec_id AS fec_id, m.ext_cik AS cik
       ORDER BY m.created_at, m.id`,
      { owner, ids },
    );
    return entityViews(
      members.map((m) => ({
        id: m.id,
        rootId: m.root_id,
        name: m.name,
        canonicalName: m.canonical_name,
        type: m.type,
        subtype: m.subtype,
        confidence: Number(m.confidence),
        createdAt: iso(m.created_at),
        updatedAt: iso(m.updated_at),
        source: m.source ?? '',
        aliases: (m.aliases as string[] | null) ?? [],
        externalIds: Object.fromEntries((['ein', 'fec_id', 'cik'] as const).flatMap((k) => (m[k] ? [[k, String(m[k])]] : []))),
      })),
      ids,
    );
  }

  async listReviews(owner: string, status: string, limit: number): Promise<ReviewRow[]> {
    const rs = await this.read(
      `MATCH (r:ReviewItem {user_id: $owner, status: $status})
       RETURN r {.*, created_at: toString(r.created_at), reviewed_at: toString(r.reviewed_at)} AS r
       ORDER BY r.created_at DESC, r.id LIMIT $limit`,
      { owner, status: status || 'pending', limit: neo4j.int(limit) },
    );
    return rs.map((x) => toReview(x.r));
  }

  async listLog(owner: string, action: string, limit: number): Promise<LogRow[]> {
    const rs = await this.read(
      `MATCH (l:ResolutionLog {user_id: $owner}) WHERE $action = '' OR l.action = $action
       RETURN l {.*, created_at: toString(l.created_at), reversed_at: toString(l.reversed_at)} AS l
       ORDER BY l.created_at DESC, l.id LIMIT $limit`,
      { owner, action, limit: neo4j.int(limit) },
    );
    return rs.map((x) => toLog(x.l));
  }

  async listDiscoveries(owner: string, executionId: string, type: string, limit: number): Promise<DiscoveryRow[]> {
    const rs = await this.read(
      `MATCH (d:Discovery {user_id: $owner}) WHERE ($run = '' OR d.execution_id = $run) AND ($type = '' OR d.discovery_type = $type)
       RETURN d {.*, discovered_at: toString(d.discovered_at)} AS d
       ORDER BY d.discovered_at DESC, d.id LIMIT $limit`,
      { owner, run: executionId, type, limit: neo4j.int(limit) },
    );
    return rs.map((x) => toDiscovery(x.d));
  }

  async discoveryStats(owner: string) {
    const byType = await this.read(`MATCH (d:Discovery {user_id: $owner}) RETURN d.discovery_type AS k, count(*) AS n`, { owner });
    const byEntityType = await this.read(
      `MATCH (d:Discovery {user_id: $owner}) WHERE d.entity_type <> '' RETURN d.entity_type AS k, count(*) AS n`,
      { owner },
    );
    const [counts] = await this.read(
      `CALL { MATCH (e:Entity {user_id: $owner}) WHERE e.parent_id IS NULL RETURN count(e) AS entities }
       CALL { MATCH (:Entity {user_id: $owner})-[r]->(:Entity {user_id: $owner}) WHERE r.user_id = $owner RETURN count(r) AS relationships }
       CALL { MATCH (r:ReviewItem {user_id: $owner, status: 'pending'}) RETURN count(r) AS pending }
       RETURN entities, relationships, pending`,
      { owner },
    );
    const map = (rs: Row[]): Record<string, number> => Object.fromEntries(rs.map((r) => [String(r.k), Number(r.n)]));
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

  /** Roots whose names or aliases contain the query or match it in the full-text index (fuzzy terms), best Jaro–Winkler first. */
  async search(owner: string, queries: readonly string[], types: readonly string[], limit: number): Promise<EntityView[]> {
    const found = new Map<string, number>();
    for (const q of queries) {
      const lucene = luceneFuzzy(q);
      const hits = await this.read(
        `CALL {
           MATCH (e:Entity {user_id: $owner})
           WHERE e.id = $q OR toLower(e.name) CONTAINS $lower OR e.canonical_name CONTAINS $folded
              OR any(a IN coalesce(e.aliases, []) WHERE toLower(a) CONTAINS $lower)
           RETURN e LIMIT 500
           UNION
           CALL db.index.fulltext.queryNodes('entityFullText', $lucene) YIELD node, score
           WITH node AS e, score WHERE $fulltext AND e.user_id = $owner
           RETURN e LIMIT 500
         }
         WITH e WHERE size($types) = 0 OR e.type IN $types
         RETURN DISTINCT e.root_id AS root_id, e.name AS name, e.aliases AS aliases`,
        { owner, q, lower: q.toLowerCase(), folded: fold(q), lucene: lucene || 'x', fulltext: lucene !== '', types: [...types] },
      );
      for (const r of hits) {
        const names = [r.name as string, ...((r.aliases as string[] | null) ?? [])];
        const s = r.root_id === q ? 2 : Math.max(...names.map((n) => jaroWinkler(fold(n), fold(q))));
        found.set(r.root_id, Math.max(found.get(r.root_id) ?? 0, s));
      }
    }
    const ranked = [...found.entries()]
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .slice(0, limit)
      .map(([id]) => id);
    return this.entities(owner, ranked);
  }

  /** Root-level edges touching `roots` (all of the namespace's when undefined); MERGED_INTO and provenance edges are not facts. */
  private async edgesTouching(owner: string, roots: readonly string[] | undefined): Promise<RelationshipView[]> {
    const rs = await this.read(
      `MATCH (s:Entity {user_id: $owner})-[r]->(t:Entity {user_id: $owner})
       WHERE r.user_id = $owner AND type(r) <> 'MERGED_INTO' AND ($roots IS NULL OR s.root_id IN $roots OR t.root_id IN $roots)
       RETURN s.root_id AS source, t.root_id AS target, type(r) AS type, r.properties_json AS properties, r.confidence AS confidence
       ORDER BY r.created_at, r.id LIMIT 200000`,
      { owner, roots: roots ? [...roots] : null },
    );
    return rs
      .filter((r) => r.source !== r.target)
      .map((r) => ({ sourceId: r.source, targetId: r.target, type: r.type, properties: json(r.properties), confidence: Number(r.confidence) }));
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
      const rs = await this.read(
        `MATCH (e:Entity {user_id: $owner}) WHERE e.parent_id IS NULL RETURN e.id AS id ORDER BY e.created_at, e.id LIMIT $limit`,
        { owner, limit: neo4j.int(maxNodes + 1) },
      );
      nodeIds = rs.map((r) => r.id);
      if (nodeIds.length > maxNodes) {
        truncated = true;
        nodeIds = nodeIds.slice(0, maxNodes);
      }
    } else {
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
    const edges = (await this.edgesTouching(owner, seeds ? nodeIds : undefined)).filter((e) => inSet.has(e.sourceId) && inSet.has(e.targetId));
    return { nodes: await this.entities(owner, nodeIds), edges, truncated };
  }

  async newEntitiesSince(owner: string, types: readonly string[], since: string, minConfidence: number, source: string, limit: number) {
    const rs = await this.read(
      `MATCH (e:Entity {user_id: $owner})
       WHERE e.parent_id IS NULL AND e.type IN $types AND ($since = '' OR e.created_at > datetime($since))
         AND e.confidence >= $min AND ($source = '' OR e.source = $source)
       RETURN e.id AS id, toString(e.created_at) AS created_at ORDER BY e.created_at, e.id LIMIT $limit`,
      { owner, types: [...types], since, min: minConfidence, source, limit: neo4j.int(limit) },
    );
    const views = await this.entities(
      owner,
      rs.map((r) => r.id),
    );
    const created = new Map(rs.map((r) => [r.id as string, iso(r.created_at)]));
    return views.map((v) => ({ ...v, createdAt: created.get(v.id) ?? '' }));
  }

  /** Communities as EntityCluster nodes with MEMBER_OF_CLUSTER edges (one write transaction); the algorithm's previous ones are replaced. */
  async saveCommunities(owner: string, algorithm: string, communities: string[][]): Promise<void> {
    const session = this.driver.session({ defaultAccessMode: neo4j.session.WRITE, ...(this.database ? { database: this.database } : {}) });
    try {
      await session.executeWrite((tx) => this.replaceCommunities(tx, owner, algorithm, communities));
    } finally {
      await session.close();
    }
  }

  private async replaceCommunities(tx: ManagedTransaction, owner: string, algorithm: string, communities: string[][]): Promise<void> {
    await tx.run(`MATCH (c:EntityCluster {user_id: $owner, algorithm: $algorithm}) DETACH DELETE c`, { owner, algorithm });
    for (const [i, members] of communities.entries()) {
      await tx.run(
        `CREATE (c:EntityCluster {id: $id, user_id: $owner, cluster_id: $cluster, algorithm: $algorithm, member_count: $count, label: '', computed_at: datetime()})
         WITH c
         MATCH (e:Entity {user_id: $owner}) WHERE e.id IN $members
         CREATE (e)-[:MEMBER_OF_CLUSTER]->(c)`,
        { id: randomUUID(), owner, cluster: neo4j.int(i), algorithm, count: neo4j.int(members.length), members },
      );
    }
  }
}
