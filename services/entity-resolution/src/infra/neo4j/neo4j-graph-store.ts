/**
 * The Neo4j graph storage (selected by NEO4J_URL): the same storage port as
 * the PostgreSQL one (app/graph-resolution.ts decides), on the Cypher schema
 * of neo4j-schema.ts, through the official `neo4j-driver`. A resolution call
 * is one write transaction (`session.executeWrite`); every statement is
 * parameterised (relationship types, which Cypher cannot take as parameters,
 * are checked against RELATIONSHIP_TYPE before any write) and matches the
 * owner's `user_id`. Merges only link mention nodes (`parent_id` +
 * `MERGED_INTO`, `root_id` denormalised), so reversing one removes exactly
 * its link, as in PostgreSQL. The term-frequency key of each mention is a
 * `BlockKey` too (counted, never searched), as it is a block row in PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import neo4j, { type Driver, type ManagedTransaction } from 'neo4j-driver';
import { storedDecision, type LogEntry } from '../../app/log-entries.js';
import type {
  CandidateRows,
  DiscoveryInput,
  GraphSession,
  GraphStorage,
  GraphWrites,
  LinkState,
  MentionDecision,
  MentionInput,
  MentionWrite,
  NeighbourRow,
  LogRow,
  Provenance,
  ReviewInput,
  ReviewRow,
  StoredDecision,
} from '../../app/ports.js';
import type { NormalisedRecord } from '../../domain/normalise.js';
import { ID_KINDS, type ExternalIds } from '../../domain/record.js';
import { Neo4jGraphQueries, rows, toLog, toReview } from './neo4j-graph-queries.js';
import { NEO4J_SCHEMA, RELATIONSHIP_TYPE } from './neo4j-schema.js';

export interface Neo4jSettings {
  url: string;
  user?: string;
  password?: string;
  database?: string;
}

type Tx = ManagedTransaction;

export class Neo4jGraphStore implements GraphStorage {
  readonly kind = 'neo4j';
  /** The action records are in PostgreSQL: a Neo4j write cannot commit with them (the dispatcher stores the answer). */
  readonly receipts = false;
  readonly relationshipType = RELATIONSHIP_TYPE;
  readonly reads: Neo4jGraphQueries;

  private constructor(
    private readonly driver: Driver,
    private readonly database: string | undefined,
  ) {
    this.reads = new Neo4jGraphQueries(driver, database);
  }

  /** Connects, checks the server answers, and applies the schema. */
  static async connect(s: Neo4jSettings): Promise<Neo4jGraphStore> {
    const driver = neo4j.driver(s.url, s.user ? neo4j.auth.basic(s.user, s.password ?? '') : undefined, {
      disableLosslessIntegers: true,
    });
    try {
      await driver.verifyConnectivity(s.database ? { database: s.database } : {});
      for (const statement of NEO4J_SCHEMA) {
        await driver.executeQuery(statement, {}, { ...(s.database ? { database: s.database } : {}), routing: neo4j.routing.WRITE });
      }
    } catch (err) {
      await driver.close();
      throw err;
    }
    return new Neo4jGraphStore(driver, s.database);
  }

  close(): Promise<void> {
    return this.driver.close();
  }

  write<T>(work: (tx: GraphWrites) => Promise<T>): Promise<T> {
    return this.inWrite((tx) => work(new Neo4jWrites(tx)));
  }

  /** Neo4j writes a mention in several statements: the session is one write transaction. */
  session<T>(work: (s: GraphSession) => Promise<T>): Promise<T> {
    return this.inWrite((tx) => work(new Neo4jSession(tx)));
  }

  private async inWrite<T>(work: (tx: ManagedTransaction) => Promise<T>): Promise<T> {
    const session = this.driver.session({
      defaultAccessMode: neo4j.session.WRITE,
      ...(this.database ? { database: this.database } : {}),
    });
    try {
      return await session.executeWrite(work);
    } finally {
      await session.close();
    }
  }
}

const LOG_OUT = 'l {.*, created_at: toString(l.created_at), reversed_at: toString(l.reversed_at)} AS l';
const REVIEW_OUT = 'r {.*, created_at: toString(r.created_at), reviewed_at: toString(r.reviewed_at)} AS r';

/** The storage operations on one managed write transaction. */
class Neo4jWrites implements GraphWrites {
  constructor(private readonly tx: Tx) {}

  async blockHits(owner: string, keys: readonly string[], perKey: number): Promise<Array<{ key: string; entityId: string }>> {
    // Cypher's LIMIT takes no variable: each key's ids are cut to `perKey` after the subquery.
    const hits = rows(
      await this.tx.run(
        `UNWIND $keys AS k
         CALL {
           WITH k
           MATCH (:BlockKey {user_id: $owner, key: k})-[:BLOCKS]->(e:Entity)
           WITH e LIMIT 20000
           RETURN collect(e.id) AS ids
         }
         RETURN k AS key, CASE WHEN k STARTS WITH 'id:' THEN ids ELSE ids[0..$perKey] END AS ids`,
        { owner, keys, perKey: neo4j.int(perKey) },
      ),
    );
    return hits.flatMap((r) => (r.ids as string[]).map((entityId) => ({ key: r.key as string, entityId })));
  }

  async candidateMentions(owner: string, ids: readonly string[], type: string): Promise<CandidateRows> {
    const ents = rows(
      await this.tx.run(
        `MATCH (e:Entity {user_id: $owner}) WHERE e.id IN $ids AND e.type = $type RETURN e.id AS id, e.root_id AS root_id, e.normalised AS normalised`,
        { owner, ids, type },
      ),
    );
    const roots = [...new Set(ents.map((e) => e.root_id as string))];
    const named = rows(
      await this.tx.run(`MATCH (e:Entity {user_id: $owner}) WHERE e.id IN $roots RETURN e.id AS id, e.name AS name`, { owner, roots }),
    );
    const idRows = rows(
      await this.tx.run(
        `MATCH (e:Entity {user_id: $owner}) WHERE e.root_id IN $roots
         RETURN e.root_id AS root_id, e.ext_ein AS ein, e.ext_fec_id AS fec_id, e.ext_cik AS cik ORDER BY e.created_at`,
        { owner, roots },
      ),
    );
    return {
      mentions: ents.map((e) => ({ id: e.id, rootId: e.root_id, record: JSON.parse(e.normalised) as NormalisedRecord })),
      rootNames: new Map(named.map((n) => [n.id as string, (n.name as string) ?? ''])),
      clusterIds: idRows.map((r) => {
        const found: ExternalIds = {};
        for (const kind of ID_KINDS) if (r[kind]) found[kind] = r[kind];
        return { rootId: r.root_id, ids: found };
      }),
      // Counted by countBlockKeys.
      termCounts: new Map(),
    };
  }

  async neighbours(owner: string, roots: readonly string[], cap: number): Promise<NeighbourRow[]> {
    if (roots.length === 0) return [];
    // Facts only: relationships carry the owner; MERGED_INTO, BLOCKS and provenance edges are not facts.
    const near = rows(
      await this.tx.run(
        `MATCH (m:Entity {user_id: $owner})-[r]-(n:Entity {user_id: $owner})
         WHERE m.root_id IN $roots AND r.user_id = $owner AND type(r) <> 'MERGED_INTO'
         WITH DISTINCT m.root_id AS root_id, n LIMIT 2000
         CALL {
           WITH n
           MATCH (x:Entity {user_id: $owner, root_id: n.root_id})-[d]-(:Entity {user_id: $owner})
           WHERE d.user_id = $owner AND type(d) <> 'MERGED_INTO'
           WITH d LIMIT $cap
           RETURN count(d) AS degree
         }
         RETURN root_id, n.normalised AS normalised, n.root_id AS n_root, degree`,
        { owner, roots, cap: neo4j.int(cap) },
      ),
    );
    return near.map((r) => ({
      rootId: r.root_id,
      record: JSON.parse(r.normalised) as NormalisedRecord,
      entityId: r.n_root,
      degree: Number(r.degree),
    }));
  }

  async countEntities(owner: string, type: string): Promise<number> {
    const [r] = rows(await this.tx.run(`MATCH (e:Entity {user_id: $owner, type: $type}) RETURN count(e) AS n`, { owner, type }));
    return Number(r?.n ?? 0);
  }

  async countBlockKeys(owner: string, keys: readonly string[]): Promise<Map<string, number>> {
    const out = new Map(keys.map((k) => [k, 0]));
    if (keys.length === 0) return out;
    const found = rows(
      await this.tx.run(
        `MATCH (b:BlockKey {user_id: $owner})-[:BLOCKS]->(e:Entity) WHERE b.key IN $keys RETURN b.key AS key, count(e) AS n`,
        { owner, keys: [...keys] },
      ),
    );
    for (const r of found) out.set(String(r.key), Number(r.n));
    return out;
  }

  async insertMention(e: MentionInput, decision?: MentionDecision): Promise<MentionWrite> {
    const { owner, id, prov, input, record } = e;
    const aliases = [...new Set(input.aliases ?? [])];
    await this.tx.run(
      `CREATE (e:Entity {id: $id, user_id: $owner, type: $type, subtype: $subtype, name: $name, canonical_name: $canonical,
                         normalised: $normalised, confidence: $confidence, parent_id: null, root_id: $id, source: $source,
                         aliases: $aliases, aliases_text: $aliasesText, ext_ein: $ein, ext_fec_id: $fec, ext_cik: $cik,
                         block_keys_version: $keysVersion,
                         first_seen: datetime(), last_seen: datetime(), created_at: datetime(), updated_at: datetime()})
       WITH e
       UNWIND $keys AS k
       MERGE (b:BlockKey {user_id: $owner, key: k})
       CREATE (b)-[:BLOCKS]->(e)`,
      {
        id,
        owner,
        type: record.entityType,
        subtype: e.subtype,
        name: input.name,
        canonical: record.canonical,
        normalised: JSON.stringify(record),
        confidence: input.confidence ?? 1,
        source: input.source ?? '',
        aliases,
        aliasesText: aliases.join(' | '),
        ein: record.ids.ein ?? null,
        fec: record.ids.fec_id ?? null,
        cik: record.ids.cik ?? null,
        keys: e.keys,
        keysVersion: neo4j.int(e.keysVersion),
      },
    );
    // Provenance: connector, endpoint, run, node; record index and time on the edge.
    await this.tx.run(
      `MATCH (e:Entity {user_id: $owner, id: $id})
       MERGE (ds:DataSource {user_id: $owner, execution_id: $run, node_id: $node, connector_id: $connector, endpoint: $endpoint})
         ON CREATE SET ds.connector_name = $connector, ds.query = '', ds.retrieved_at = datetime()
       CREATE (e)-[:DISCOVERED_BY {record_index: $index, source: $source, retrieved_at: datetime()}]->(ds)`,
      {
        owner,
        id,
        run: prov.executionId,
        node: prov.nodeId,
        connector: prov.connector ?? '',
        endpoint: prov.endpoint ?? '',
        index: input.recordIndex ?? null,
        source: input.source ?? '',
      },
    );
    // The decision as its own statements, in this transaction.
    if (!decision) return { written: true };
    if (decision.link) await this.link(owner, id, decision.link.parent, decision.link.parent, decision.log.id);
    if (decision.review) await this.insertReview(decision.review);
    await this.log(decision.log, decision.found);
    return { written: true };
  }

  /** Never asked (Neo4jGraphStore.receipts is false): the action records are in PostgreSQL, outside this transaction. */
  async writeReceipt(): Promise<boolean> {
    throw new Error('a Neo4j graph keeps no action receipts');
  }

  async relate(owner: string, sourceId: string, targetId: string, type: string, properties: Record<string, unknown>): Promise<void> {
    // The use case checked `type` against RELATIONSHIP_TYPE before the transaction; checked again where it is interpolated.
    if (!RELATIONSHIP_TYPE.test(type)) throw new Error(`relationship type ${JSON.stringify(type)} is not UPPER_SNAKE_CASE`);
    await this.tx.run(
      `MATCH (s:Entity {user_id: $owner, id: $source}), (t:Entity {user_id: $owner, id: $target})
       CREATE (s)-[:\`${type}\` {id: $id, user_id: $owner, properties_json: $props, confidence: 1.0, created_at: datetime()}]->(t)`,
      { owner, source: sourceId, target: targetId, id: randomUUID(), props: JSON.stringify(properties) },
    );
  }

  async link(owner: string, child: string, parent: string, root: string, by: string | null): Promise<void> {
    await this.tx.run(
      `MATCH (c:Entity {user_id: $owner, id: $child}), (p:Entity {user_id: $owner, id: $parent})
       SET c.parent_id = p.id, c.link_log_id = $by, c.updated_at = datetime(), p.last_seen = datetime()
       CREATE (c)-[:MERGED_INTO {decision: $by}]->(p)
       WITH c
       MATCH (m:Entity {user_id: $owner, root_id: c.id})
       SET m.root_id = $root`,
      { owner, child, parent, root, by },
    );
  }

  async unlink(owner: string, child: string): Promise<void> {
    await this.tx.run(
      `MATCH (c:Entity {user_id: $owner, id: $child})-[l:MERGED_INTO]->(:Entity)
       DELETE l
       SET c.parent_id = null, c.link_log_id = null, c.updated_at = datetime()
       WITH c
       MATCH (m:Entity {user_id: $owner})-[:MERGED_INTO*0..]->(c)
       SET m.root_id = c.id`,
      { owner, child },
    );
  }

  async rootOf(owner: string, id: string): Promise<string | undefined> {
    const [r] = rows(await this.tx.run(`MATCH (e:Entity {user_id: $owner, id: $id}) RETURN e.root_id AS root_id`, { owner, id }));
    return r?.root_id;
  }

  async nameOf(owner: string, id: string): Promise<string> {
    const [r] = rows(await this.tx.run(`MATCH (e:Entity {user_id: $owner, id: $id}) RETURN e.name AS name`, { owner, id }));
    return r?.name ?? '';
  }

  async lockEntity(owner: string, id: string): Promise<LinkState | undefined> {
    // SET on the node first takes its write lock, as SELECT … FOR UPDATE does.
    const [r] = rows(
      await this.tx.run(
        `MATCH (e:Entity {user_id: $owner, id: $id}) SET e._lock = true REMOVE e._lock
         RETURN e.parent_id AS parent_id, e.link_log_id AS link_log_id, e.name AS name, e.type AS type`,
        { owner, id },
      ),
    );
    return r ? { parentId: r.parent_id ?? null, linkLogId: r.link_log_id ?? null, name: r.name, type: r.type } : undefined;
  }

  private async insertReview(r: ReviewInput): Promise<void> {
    await this.tx.run(
      `CREATE (:ReviewItem {id: $id, user_id: $owner, execution_id: $run, source_entity_id: $source, source_entity_name: $sourceName,
                            source_entity_type: $type, candidate_entity_id: $candidate, candidate_entity_name: $candidateName,
                            confidence: $confidence, match_details: $details, context: $context, status: 'pending',
                            reviewed_at: null, created_at: datetime()})`,
      {
        id: r.id,
        owner: r.owner,
        run: r.executionId,
        source: r.sourceId,
        sourceName: r.sourceName,
        type: r.sourceType,
        candidate: r.candidateId,
        candidateName: r.candidateName,
        confidence: r.confidence,
        details: JSON.stringify(r.details),
        context: JSON.stringify(r.context),
      },
    );
  }

  async lockReview(owner: string, id: string): Promise<ReviewRow | undefined> {
    const [found] = rows(
      await this.tx.run(`MATCH (r:ReviewItem {user_id: $owner, id: $id}) SET r._lock = true REMOVE r._lock RETURN ${REVIEW_OUT}`, { owner, id }),
    );
    return found ? toReview(found.r) : undefined;
  }

  async lockPendingReviewsWithin(owner: string, root: string): Promise<ReviewRow[]> {
    return rows(
      await this.tx.run(
        `MATCH (r:ReviewItem {user_id: $owner, status: 'pending'})
         MATCH (s:Entity {user_id: $owner, id: r.source_entity_id}), (c:Entity {user_id: $owner, id: r.candidate_entity_id})
         WHERE s.root_id = $root AND c.root_id = $root
         SET r._lock = true REMOVE r._lock
         RETURN ${REVIEW_OUT} ORDER BY r.created_at`,
        { owner, root },
      ),
    ).map((x) => toReview(x.r));
  }

  async lockReviewsClosedBy(owner: string, logId: string): Promise<ReviewRow[]> {
    // The context is stored as JSON text: the substring narrows, the parsed value decides.
    return rows(
      await this.tx.run(
        `MATCH (r:ReviewItem {user_id: $owner, status: 'auto_merged'}) WHERE r.context CONTAINS $logId
         SET r._lock = true REMOVE r._lock
         RETURN ${REVIEW_OUT} ORDER BY r.created_at`,
        { owner, logId },
      ),
    )
      .map((x) => toReview(x.r))
      .filter((r) => r.context.merged_by === logId);
  }

  async setReviewStatus(owner: string, id: string, status: string, context: Record<string, unknown>): Promise<ReviewRow> {
    const [updated] = rows(
      await this.tx.run(
        `MATCH (r:ReviewItem {user_id: $owner, id: $id})
         SET r.status = $status, r.reviewed_at = CASE WHEN $status = 'pending' THEN null ELSE datetime() END, r.context = $context
         RETURN ${REVIEW_OUT}`,
        { owner, id, status, context: JSON.stringify(context) },
      ),
    );
    return toReview(updated!.r);
  }

  async log(e: LogEntry, found?: { prov: Provenance; discovery: DiscoveryInput }): Promise<LogRow> {
    if (found) await this.discover(e.owner, found.prov, found.discovery);
    const [r] = rows(
      await this.tx.run(
        `CREATE (l:ResolutionLog {id: $id, user_id: $owner, execution_id: $run, action: $action, source_entity_id: $sourceId,
                                  source_entity_name: $sourceName, source_entity_type: $sourceType, target_entity_id: $targetId,
                                  target_entity_name: $targetName, confidence: $confidence, match_method: $method, match_details: $details,
                                  link_child: $child, link_parent: $parent, link_owner: $linkOwner, is_reversible: $reversible, reversed_at: null, created_at: datetime()})
         RETURN l {.*, created_at: toString(l.created_at), reversed_at: null} AS l`,
        {
          id: e.id ?? randomUUID(),
          owner: e.owner,
          run: e.executionId,
          action: e.action,
          linkOwner: e.linkOwner ?? null,
          sourceId: e.sourceId,
          sourceName: e.sourceName,
          sourceType: e.sourceType,
          targetId: e.targetId,
          targetName: e.targetName,
          confidence: e.confidence,
          method: e.method,
          details: JSON.stringify(e.details),
          child: e.link?.child ?? null,
          parent: e.link?.parent ?? null,
          reversible: e.reversible,
        },
      ),
    );
    return toLog(r!.l);
  }

  async lockDecision(owner: string, id: string): Promise<StoredDecision | undefined> {
    const [found] = rows(
      await this.tx.run(`MATCH (l:ResolutionLog {user_id: $owner, id: $id}) SET l._lock = true REMOVE l._lock RETURN ${LOG_OUT}`, { owner, id }),
    );
    return found ? storedDecision(found.l) : undefined;
  }

  async markReversed(owner: string, id: string): Promise<LogRow> {
    const [updated] = rows(
      await this.tx.run(`MATCH (l:ResolutionLog {user_id: $owner, id: $id}) SET l.reversed_at = datetime() RETURN ${LOG_OUT}`, { owner, id }),
    );
    return toLog(updated!.l);
  }

  async discover(owner: string, prov: Provenance, d: DiscoveryInput): Promise<void> {
    await this.tx.run(
      `CREATE (:Discovery {id: $id, user_id: $owner, execution_id: $run, discovery_type: $type, entity_name: $name, entity_type: $entityType,
                           entity_id: $entityId, relationship_type: $relType, related_entity_name: $related, source_connector: $connector,
                           source_endpoint: $endpoint, confidence: $confidence, details: '{}', discovered_at: datetime()})`,
      {
        id: randomUUID(),
        owner,
        run: prov.executionId,
        type: d.type,
        name: d.name,
        entityType: d.entityType,
        entityId: d.entityId,
        relType: d.relationshipType ?? '',
        related: d.related ?? '',
        connector: prov.connector ?? '',
        endpoint: prov.endpoint ?? '',
        confidence: d.confidence ?? 1,
      },
    );
  }

  /** Term frequencies are counted apart here: no entity keeps its key on its node. */
  async withoutTermKey(): Promise<Array<{ owner: string; id: string; record: NormalisedRecord }>> {
    return [];
  }

  async setTermKeys(): Promise<void> {}

  async staleKeyed(version: number, limit: number): Promise<Array<{ owner: string; id: string; record: NormalisedRecord }>> {
    const stale = rows(
      await this.tx.run(
        `MATCH (e:Entity) WHERE coalesce(e.block_keys_version, 0) < $version
         RETURN e.user_id AS owner, e.id AS id, e.normalised AS normalised ORDER BY e.id LIMIT $limit`,
        { version: neo4j.int(version), limit: neo4j.int(limit) },
      ),
    );
    return stale.map((r) => ({ owner: r.owner, id: r.id, record: JSON.parse(r.normalised) as NormalisedRecord }));
  }

  async rekey(owner: string, id: string, keys: readonly string[], version: number): Promise<void> {
    await this.tx.run(
      `MATCH (e:Entity {user_id: $owner, id: $id})
       OPTIONAL MATCH (:BlockKey)-[old:BLOCKS]->(e)
       DELETE old
       WITH DISTINCT e
       SET e.block_keys_version = $version
       WITH e
       UNWIND $keys AS k
       MERGE (b:BlockKey {user_id: $owner, key: k})
       CREATE (b)-[:BLOCKS]->(e)`,
      { owner, id, keys: [...keys], version: neo4j.int(version) },
    );
  }
}

/** A session that is already one write transaction. */
class Neo4jSession extends Neo4jWrites implements GraphSession {
  transaction<T>(work: (tx: GraphWrites) => Promise<T>): Promise<T> {
    return work(this);
  }
}
