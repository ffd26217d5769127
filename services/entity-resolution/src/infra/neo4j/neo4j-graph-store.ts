/**
 * The Neo4j graph store (selected by NEO4J_URL): the same port as the
 * PostgreSQL one, on the Cypher schema of neo4j-schema.ts, through the
 * official `neo4j-driver`. A resolution call is one write transaction
 * (`session.executeWrite`); every statement is parameterised (relationship
 * types, which Cypher cannot take as parameters, are checked against
 * RELATIONSHIP_TYPE first) and matches the owner's `user_id`. Merges only
 * link mention nodes (`parent_id` + `MERGED_INTO`, `root_id` denormalised),
 * so reversing one removes exactly its link, as in PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@af/service-kit';
import neo4j, { type Driver, type ManagedTransaction } from 'neo4j-driver';
import type {
  DiscoveryRow,
  EntityView,
  GraphStore,
  InputEntity,
  LogRow,
  Provenance,
  RelationshipView,
  ResolvedOne,
  ReviewRow,
} from '../../app/ports.js';
import { blockKeys, DEFAULT_BLOCKING, rankCandidates } from '../../domain/blocking.js';
import type { Thresholds } from '../../domain/decision.js';
import { normaliseRecord, type NormalisedRecord } from '../../domain/normalise.js';
import { ID_KINDS, type ExternalIds } from '../../domain/record.js';
import { resolveOne, type Candidate } from '../../domain/resolve-one.js';
import { Neo4jGraphQueries, rows, toLog, toReview } from './neo4j-graph-queries.js';
import { NEO4J_SCHEMA, RELATIONSHIP_TYPE } from './neo4j-schema.js';
import { userMergeEntry, type LogEntry } from '../log-entries.js';

export interface Neo4jSettings {
  url: string;
  user?: string;
  password?: string;
  database?: string;
}

type Tx = ManagedTransaction;

export class Neo4jGraphStore implements GraphStore {
  readonly kind = 'neo4j';
  private readonly queries: Neo4jGraphQueries;

  private constructor(
    private readonly driver: Driver,
    private readonly database: string | undefined,
  ) {
    this.queries = new Neo4jGraphQueries(driver, database);
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

  private async write<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
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

  resolve(owner: string, prov: Provenance, inputs: readonly InputEntity[], thresholds: Thresholds): Promise<ResolvedOne[]> {
    for (const [i, input] of inputs.entries())
      for (const [k, rel] of (input.relationships ?? []).entries())
        if (!RELATIONSHIP_TYPE.test(rel.type))
          throw AppError.invalid(`inputs.entities[${i}].relationships[${k}].type`, 'relationship types are UPPER_SNAKE_CASE');
    return this.write(async (tx) => {
      const out: ResolvedOne[] = [];
      for (const input of inputs) {
        const one = await this.resolveOne(tx, owner, prov, input, thresholds);
        out.push(one);
        for (const rel of input.relationships ?? []) {
          const target = await this.resolveOne(tx, owner, prov, rel.target, thresholds);
          await tx.run(
            `MATCH (s:Entity {user_id: $owner, id: $source}), (t:Entity {user_id: $owner, id: $target})
             CREATE (s)-[:\`${rel.type}\` {id: $id, user_id: $owner, properties_json: $props, confidence: 1.0, created_at: datetime()}]->(t)`,
            { owner, source: one.mentionId, target: target.mentionId, id: randomUUID(), props: JSON.stringify(rel.properties ?? {}) },
          );
          await this.discover(tx, owner, prov, {
            type: 'new_relationship',
            name: input.name,
            entityType: input.entityType,
            entityId: one.entityId,
            relationshipType: rel.type,
            related: rel.target.name,
          });
        }
      }
      return out;
    });
  }

  private async resolveOne(tx: Tx, owner: string, prov: Provenance, input: InputEntity, thresholds: Thresholds): Promise<ResolvedOne> {
    const { record } = normaliseRecord(input);
    const keys = blockKeys(record);
    const candidates = await this.candidates(tx, owner, record, keys);
    const outcome = resolveOne(record, candidates, { thresholds });
    const id = randomUUID();
    const aliases = [...new Set(input.aliases ?? [])];
    await tx.run(
      `CREATE (e:Entity {id: $id, user_id: $owner, type: $type, subtype: $subtype, name: $name, canonical_name: $canonical,
                         normalised: $normalised, confidence: $confidence, parent_id: null, root_id: $id, source: $source,
                         aliases: $aliases, aliases_text: $aliasesText, ext_ein: $ein, ext_fec_id: $fec, ext_cik: $cik,
                         first_seen: datetime(), last_seen: datetime(), created_at: datetime(), updated_at: datetime()})
       WITH e
       UNWIND $keys AS k
       MERGE (b:BlockKey {user_id: $owner, key: k})
       CREATE (b)-[:BLOCKS]->(e)`,
      {
        id,
        owner,
        type: record.entityType,
        subtype: input.subtype ?? record.org?.legalForm ?? '',
        name: input.name,
        canonical: record.canonical,
        normalised: JSON.stringify({ ...record, recordId: id }),
        confidence: input.confidence ?? 1,
        source: input.source ?? '',
        aliases,
        aliasesText: aliases.join(' | '),
        ein: record.ids.ein ?? null,
        fec: record.ids.fec_id ?? null,
        cik: record.ids.cik ?? null,
        keys,
      },
    );
    // Provenance: connector, endpoint, run, node; record index and time on the edge.
    await tx.run(
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
    const details = outcome.comparison
      ? {
          probability: outcome.probability,
          jaro_winkler: outcome.comparison.jaroWinkler,
          levels: outcome.comparison.levels,
          weights: outcome.comparison.weights,
          ...(outcome.comparison.sharedId ? { external_id_match: outcome.comparison.sharedId } : {}),
          ...(outcome.comparison.conflict ? { external_id_conflict: outcome.comparison.conflict } : {}),
        }
      : {};
    const base = {
      owner,
      executionId: prov.executionId,
      sourceId: id,
      sourceName: input.name,
      sourceType: record.entityType,
      confidence: outcome.probability,
      method: outcome.comparison?.method ?? '',
      details,
    };
    if (outcome.decision === 'auto_merge' && outcome.clusterId) {
      const parent = outcome.clusterId;
      const logId = randomUUID();
      await this.link(tx, owner, id, parent, logId);
      const targetName = await this.nameOf(tx, owner, parent);
      await this.log(tx, { ...base, id: logId, action: 'auto_merge', targetId: parent, targetName, link: { child: id, parent }, reversible: true });
      await this.discover(tx, owner, prov, {
        type: 'entity_merge',
        name: input.name,
        entityType: record.entityType,
        entityId: parent,
        related: targetName,
        confidence: outcome.probability,
      });
      return { entityId: parent, mentionId: id, decision: 'auto_merge', probability: outcome.probability };
    }
    await this.discover(tx, owner, prov, {
      type: 'new_entity',
      name: input.name,
      entityType: record.entityType,
      entityId: id,
      confidence: input.confidence ?? 1,
    });
    if (outcome.decision === 'flag_review' && outcome.clusterId) {
      const reviewId = randomUUID();
      const targetName = await this.nameOf(tx, owner, outcome.clusterId);
      await tx.run(
        `CREATE (:ReviewItem {id: $id, user_id: $owner, execution_id: $run, source_entity_id: $source, source_entity_name: $sourceName,
                              source_entity_type: $type, candidate_entity_id: $candidate, candidate_entity_name: $candidateName,
                              confidence: $confidence, match_details: $details, context: $context, status: 'pending',
                              reviewed_at: null, created_at: datetime()})`,
        {
          id: reviewId,
          owner,
          run: prov.executionId,
          source: id,
          sourceName: input.name,
          type: record.entityType,
          candidate: outcome.clusterId,
          candidateName: targetName,
          confidence: outcome.probability,
          details: JSON.stringify(details),
          context: JSON.stringify({ source: input.source ?? '', node_id: prov.nodeId, candidate_record: outcome.candidate?.name ?? '' }),
        },
      );
      await this.log(tx, { ...base, action: 'flag_review', targetId: outcome.clusterId, targetName, reversible: false });
      return {
        entityId: id,
        mentionId: id,
        decision: 'flag_review',
        probability: outcome.probability,
        reviewId,
        candidateEntityId: outcome.clusterId,
      };
    }
    await this.log(tx, { ...base, action: 'create_new', targetId: null, targetName: '', reversible: false });
    return { entityId: id, mentionId: id, decision: 'create_new', probability: outcome.probability };
  }

  /** Candidates through the block keys, ranked and bounded as the in-memory BlockIndex does. */
  private async candidates(tx: Tx, owner: string, record: NormalisedRecord, keys: string[]): Promise<Candidate[]> {
    if (keys.length === 0) return [];
    const hits = rows(
      await tx.run(
        `UNWIND $keys AS k MATCH (:BlockKey {user_id: $owner, key: k})-[:BLOCKS]->(e:Entity) RETURN k AS key, e.id AS entity_id LIMIT 20000`,
        { owner, keys },
      ),
    );
    const byKey = new Map<string, string[]>();
    for (const r of hits) (byKey.get(r.key) ?? byKey.set(r.key, []).get(r.key)!).push(r.entity_id);
    const top = rankCandidates(byKey, DEFAULT_BLOCKING, (a, b) => a.localeCompare(b));
    if (top.length === 0) return [];
    const ents = rows(
      await tx.run(
        `MATCH (e:Entity {user_id: $owner}) WHERE e.id IN $ids AND e.type = $type RETURN e.id AS id, e.root_id AS root_id, e.normalised AS normalised`,
        { owner, ids: top, type: record.entityType },
      ),
    );
    const roots = [...new Set(ents.map((e) => e.root_id as string))];
    const idRows = rows(
      await tx.run(
        `MATCH (e:Entity {user_id: $owner}) WHERE e.root_id IN $roots
         RETURN e.root_id AS root_id, e.ext_ein AS ein, e.ext_fec_id AS fec_id, e.ext_cik AS cik ORDER BY e.created_at`,
        { owner, roots },
      ),
    );
    const clusterIds = new Map<string, ExternalIds>();
    for (const r of idRows) {
      const ids = clusterIds.get(r.root_id) ?? {};
      for (const kind of ID_KINDS) if (r[kind]) ids[kind] ??= r[kind];
      clusterIds.set(r.root_id, ids);
    }
    return ents.map((e) => ({
      record: JSON.parse(e.normalised) as NormalisedRecord,
      clusterId: e.root_id,
      clusterIds: clusterIds.get(e.root_id) ?? {},
    }));
  }

  /** Link root `child` under root `parent`: every member of the child's tree now reads through the parent's root. */
  /** `by`: the merge decision whose link this is (a split's reversal puts back the one it removed). */
  private async link(tx: Tx, owner: string, child: string, parent: string, by: string | null): Promise<void> {
    await tx.run(
      `MATCH (c:Entity {user_id: $owner, id: $child}), (p:Entity {user_id: $owner, id: $parent})
       SET c.parent_id = p.id, c.link_log_id = $by, c.updated_at = datetime(), p.last_seen = datetime()
       CREATE (c)-[:MERGED_INTO {decision: $by}]->(p)
       WITH c, p
       MATCH (m:Entity {user_id: $owner, root_id: c.id})
       SET m.root_id = p.root_id`,
      { owner, child, parent, by },
    );
  }

  /** Remove the link of `child`; its subtree becomes its own entity again. */
  private async unlink(tx: Tx, owner: string, child: string): Promise<void> {
    await tx.run(
      `MATCH (c:Entity {user_id: $owner, id: $child})-[l:MERGED_INTO]->(:Entity)
       DELETE l
       SET c.parent_id = null, c.link_log_id = null, c.updated_at = datetime()
       WITH c
       MATCH (m:Entity {user_id: $owner})-[:MERGED_INTO*0..]->(c)
       SET m.root_id = c.id`,
      { owner, child },
    );
  }

  private async rootOf(tx: Tx, owner: string, id: string): Promise<string | undefined> {
    const [r] = rows(await tx.run(`MATCH (e:Entity {user_id: $owner, id: $id}) RETURN e.root_id AS root_id`, { owner, id }));
    return r?.root_id;
  }

  private async nameOf(tx: Tx, owner: string, id: string): Promise<string> {
    const [r] = rows(await tx.run(`MATCH (e:Entity {user_id: $owner, id: $id}) RETURN e.name AS name`, { owner, id }));
    return r?.name ?? '';
  }

  private async log(
    tx: Tx,
    e: LogEntry,
  ): Promise<LogRow> {
    const [r] = rows(
      await tx.run(
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

  private async discover(
    tx: Tx,
    owner: string,
    prov: Provenance,
    d: { type: string; name: string; entityType: string; entityId: string; relationshipType?: string; related?: string; confidence?: number },
  ): Promise<void> {
    await tx.run(
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

  decideReview(owner: string, id: string, decision: 'approve' | 'reject' | 'not_a_match'): Promise<{ review: ReviewRow; log?: LogRow }> {
    return this.write(async (tx) => {
      // SET on the node first takes its write lock, as SELECT … FOR UPDATE does.
      const [found] = rows(
        await tx.run(
          `MATCH (r:ReviewItem {user_id: $owner, id: $id}) SET r._lock = true REMOVE r._lock
           RETURN r {.*, created_at: toString(r.created_at), reviewed_at: toString(r.reviewed_at)} AS r`,
          { owner, id },
        ),
      );
      if (!found) throw AppError.notFound('review', id);
      const review = toReview(found.r);
      if (review.status !== 'pending') throw new AppError('FAILED_PRECONDITION', `review ${id} is already ${review.status}`);
      let log: LogRow | undefined;
      if (decision === 'approve') {
        const child = await this.rootOf(tx, owner, review.sourceEntityId);
        const parent = await this.rootOf(tx, owner, review.candidateEntityId);
        if (!child || !parent) throw new AppError('FAILED_PRECONDITION', `an entity of review ${id} no longer exists`);
        if (child !== parent) {
          const logId = randomUUID();
          await this.link(tx, owner, child, parent, logId);
          log = await this.log(tx, userMergeEntry(owner, id, review, { child, parent }, logId));
        }
      }
      const status = decision === 'approve' ? 'approved_merge' : 'rejected';
      const context = decision === 'not_a_match' ? { ...review.context, not_a_match: true } : review.context;
      const [updated] = rows(
        await tx.run(
          `MATCH (r:ReviewItem {user_id: $owner, id: $id}) SET r.status = $status, r.reviewed_at = datetime(), r.context = $context
           RETURN r {.*, created_at: toString(r.created_at), reviewed_at: toString(r.reviewed_at)} AS r`,
          { owner, id, status, context: JSON.stringify(context) },
        ),
      );
      return { review: toReview(updated!.r), ...(log ? { log } : {}) };
    });
  }

  reverse(owner: string, logId: string): Promise<LogRow> {
    return this.write(async (tx) => {
      const [found] = rows(
        await tx.run(
          `MATCH (l:ResolutionLog {user_id: $owner, id: $id}) SET l._lock = true REMOVE l._lock
           RETURN l {.*, created_at: toString(l.created_at), reversed_at: toString(l.reversed_at)} AS l`,
          { owner, id: logId },
        ),
      );
      if (!found) throw AppError.notFound('resolution log entry', logId);
      const entry = found.l;
      if (entry.reversed_at) throw new AppError('FAILED_PRECONDITION', `decision ${logId} was already reversed`);
      if (!entry.is_reversible || !entry.link_child || !entry.link_parent)
        throw new AppError('FAILED_PRECONDITION', `a ${entry.action} decision changes no link and cannot be reversed`);
      const [current] = rows(
        await tx.run(`MATCH (e:Entity {user_id: $owner, id: $id}) RETURN e.parent_id AS parent_id, e.link_log_id AS link_log_id`, {
          owner,
          id: entry.link_child,
        }),
      );
      if (entry.action === 'user_split') {
        if (current?.parent_id) throw new AppError('FAILED_PRECONDITION', 'the split-off entity has been merged elsewhere since');
        const parentRoot = await this.rootOf(tx, owner, entry.link_parent);
        if (!parentRoot || parentRoot === entry.link_child)
          throw new AppError('FAILED_PRECONDITION', 'the entity it was split from no longer holds it');
        await this.link(tx, owner, entry.link_child, entry.link_parent, entry.link_owner ?? null);
      } else {
        if (current?.parent_id !== entry.link_parent)
          throw new AppError('FAILED_PRECONDITION', `the merge of decision ${logId} is no longer in place`);
        if (current?.link_log_id && current.link_log_id !== entry.id)
          throw new AppError(
            'FAILED_PRECONDITION',
            `the link of decision ${logId} was split off; the link in place now is decision ${current.link_log_id}'s`,
          );
        await this.unlink(tx, owner, entry.link_child);
      }
      const [updated] = rows(
        await tx.run(
          `MATCH (l:ResolutionLog {user_id: $owner, id: $id}) SET l.reversed_at = datetime()
           RETURN l {.*, created_at: toString(l.created_at), reversed_at: toString(l.reversed_at)} AS l`,
          { owner, id: logId },
        ),
      );
      return toLog(updated!.l);
    });
  }

  split(owner: string, memberId: string): Promise<LogRow> {
    return this.write(async (tx) => {
      const [row] = rows(
        await tx.run(`MATCH (e:Entity {user_id: $owner, id: $id}) RETURN e.parent_id AS parent_id, e.link_log_id AS link_log_id, e.name AS name, e.type AS type`, {
          owner,
          id: memberId,
        }),
      );
      if (!row) throw AppError.notFound('entity', memberId);
      if (!row.parent_id) throw new AppError('FAILED_PRECONDITION', `entity ${memberId} is not merged into another entity`);
      const parent = row.parent_id as string;
      const root = await this.rootOf(tx, owner, parent);
      await this.unlink(tx, owner, memberId);
      return this.log(tx, {
        owner,
        executionId: '',
        action: 'user_split',
        sourceId: memberId,
        sourceName: row.name,
        sourceType: row.type,
        targetId: root ?? parent,
        targetName: await this.nameOf(tx, owner, root ?? parent),
        confidence: 1,
        method: 'user',
        details: {},
        link: { child: memberId, parent },
        reversible: true,
        linkOwner: row.link_log_id ?? null,
      });
    });
  }

  entities(owner: string, ids: readonly string[]): Promise<EntityView[]> {
    return this.queries.entities(owner, ids);
  }
  listReviews(owner: string, status: string, limit: number): Promise<ReviewRow[]> {
    return this.queries.listReviews(owner, status, limit);
  }
  listLog(owner: string, action: string, limit: number): Promise<LogRow[]> {
    return this.queries.listLog(owner, action, limit);
  }
  listDiscoveries(owner: string, executionId: string, type: string, limit: number): Promise<DiscoveryRow[]> {
    return this.queries.listDiscoveries(owner, executionId, type, limit);
  }
  discoveryStats(owner: string) {
    return this.queries.discoveryStats(owner);
  }
  search(owner: string, queries: readonly string[], types: readonly string[], limit: number): Promise<EntityView[]> {
    return this.queries.search(owner, queries, types, limit);
  }
  subgraph(
    owner: string,
    seeds: readonly string[] | undefined,
    maxHops: number,
    maxNodes: number,
  ): Promise<{ nodes: EntityView[]; edges: RelationshipView[]; truncated: boolean }> {
    return this.queries.subgraph(owner, seeds, maxHops, maxNodes);
  }
  newEntitiesSince(owner: string, types: readonly string[], since: string, minConfidence: number, source: string, limit: number) {
    return this.queries.newEntitiesSince(owner, types, since, minConfidence, source, limit);
  }
  saveCommunities(owner: string, algorithm: string, communities: string[][]): Promise<void> {
    return this.write((tx) => this.queries.saveCommunities(tx, owner, algorithm, communities));
  }
}
