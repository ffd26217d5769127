/**
 * The PostgreSQL graph store: resolution writes (one transaction per call)
 * and reversible merges. Reads are in pg-graph-queries.ts. Every statement
 * is parameterised and filtered by owner.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@af/service-kit';
import type { DataSource, EntityManager } from 'typeorm';
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
} from '../app/ports.js';
import { blockKeys, DEFAULT_BLOCKING, rankCandidates } from '../domain/blocking.js';
import type { Thresholds } from '../domain/decision.js';
import { normaliseRecord, type NormalisedRecord } from '../domain/normalise.js';
import type { ExternalIds } from '../domain/record.js';
import { resolveOne, type Candidate } from '../domain/resolve-one.js';
import { statsPopulation, termFrequency, tfKey } from '../domain/term-stats.js';
import { firstRow, GraphQueries, toLog, toReview } from './pg-graph-queries.js';
import { userMergeEntry, type LogEntry } from './log-entries.js';

export class PgGraphStore implements GraphStore {
  readonly kind = 'postgres';
  private readonly queries: GraphQueries;

  constructor(private readonly db: DataSource) {
    this.queries = new GraphQueries(db);
  }

  async resolve(
    owner: string,
    prov: Provenance,
    inputs: readonly InputEntity[],
    thresholds: Thresholds,
  ): Promise<ResolvedOne[]> {
    return this.db.transaction(async (m) => {
      const out: ResolvedOne[] = [];
      for (const input of inputs) {
        const one = await this.resolveOne(m, owner, prov, input, thresholds);
        out.push(one);
        for (const rel of input.relationships ?? []) {
          const target = await this.resolveOne(m, owner, prov, rel.target, thresholds);
          await m.query(
            `INSERT INTO relationships (id, owner, source_id, target_id, type, properties) VALUES ($1, $2, $3, $4, $5, $6)`,
            [
              randomUUID(),
              owner,
              one.mentionId,
              target.mentionId,
              rel.type,
              JSON.stringify(rel.properties ?? {}),
            ],
          );
          await this.discover(m, owner, prov, {
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

  private async resolveOne(
    m: EntityManager,
    owner: string,
    prov: Provenance,
    input: InputEntity,
    thresholds: Thresholds,
  ): Promise<ResolvedOne> {
    const { record } = normaliseRecord(input);
    const keys = blockKeys(record);
    const candidates = await this.candidates(m, owner, record, keys);
    // The same term frequencies and population scaling as a batch load, from the stored graph.
    const stats = await this.termStats(m, owner, record);
    const outcome = resolveOne(record, candidates, {
      thresholds,
      freq: () => termFrequency(stats.others, stats.population),
      population: statsPopulation(stats.population),
    });
    const id = randomUUID();
    const stored: NormalisedRecord = { ...record, recordId: id };
    await m.query(
      `INSERT INTO entities (id, owner, type, subtype, name, canonical_name, normalised, confidence, root_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $1)`,
      [
        id,
        owner,
        record.entityType,
        input.subtype ?? record.org?.legalForm ?? '',
        input.name,
        record.canonical,
        JSON.stringify(stored),
        input.confidence ?? 1,
      ],
    );
    for (const alias of new Set(input.aliases ?? [])) {
      await m.query(
        `INSERT INTO entity_aliases (entity_id, owner, alias) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [id, owner, alias],
      );
    }
    for (const [kind, value] of Object.entries(record.ids)) {
      await m.query(
        `INSERT INTO entity_external_ids (entity_id, owner, kind, value) VALUES ($1, $2, $3, $4)`,
        [id, owner, kind, value],
      );
    }
    // The block keys plus the term-frequency key (counted by termStats, never searched as a block).
    await m.query(
      `INSERT INTO entity_blocks (owner, key, entity_id) SELECT $1, k, $2 FROM unnest($3::text[]) AS k`,
      [owner, id, [...keys, tfKey(record)]],
    );
    this.bumpPopulation(owner, record.entityType);
    await m.query(
      `INSERT INTO provenance (owner, entity_id, source, connector, endpoint, run_id, node_id, record_index) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        owner,
        id,
        input.source ?? '',
        prov.connector ?? '',
        prov.endpoint ?? '',
        prov.executionId,
        prov.nodeId,
        input.recordIndex ?? null,
      ],
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
    const method = outcome.comparison?.method ?? '';
    const base = {
      owner,
      executionId: prov.executionId,
      sourceId: id,
      sourceName: input.name,
      sourceType: record.entityType,
      confidence: outcome.probability,
      method,
      details,
    };
    if (outcome.decision === 'auto_merge' && outcome.clusterId) {
      const parent = outcome.clusterId;
      const logId = randomUUID();
      await this.link(m, owner, id, parent, logId);
      const targetName = await this.nameOf(m, owner, parent);
      await this.log(m, {
        ...base,
        id: logId,
        action: 'auto_merge',
        targetId: parent,
        targetName,
        link: { child: id, parent },
        reversible: true,
      });
      await this.discover(m, owner, prov, {
        type: 'entity_merge',
        name: input.name,
        entityType: record.entityType,
        entityId: parent,
        related: targetName,
        confidence: outcome.probability,
      });
      return { entityId: parent, mentionId: id, decision: 'auto_merge', probability: outcome.probability };
    }
    await this.discover(m, owner, prov, {
      type: 'new_entity',
      name: input.name,
      entityType: record.entityType,
      entityId: id,
      confidence: input.confidence ?? 1,
    });
    if (outcome.decision === 'flag_review' && outcome.clusterId) {
      const reviewId = randomUUID();
      const targetName = await this.nameOf(m, owner, outcome.clusterId);
      await m.query(
        `INSERT INTO review_queue (id, owner, execution_id, source_entity_id, source_entity_name, source_entity_type, candidate_entity_id, candidate_entity_name, confidence, match_details, context)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          reviewId,
          owner,
          prov.executionId,
          id,
          input.name,
          record.entityType,
          outcome.clusterId,
          targetName,
          outcome.probability,
          JSON.stringify(details),
          JSON.stringify({
            source: input.source ?? '',
            node_id: prov.nodeId,
            candidate_record: outcome.candidate?.name ?? '',
          }),
        ],
      );
      await this.log(m, {
        ...base,
        action: 'flag_review',
        targetId: outcome.clusterId,
        targetName,
        reversible: false,
      });
      return {
        entityId: id,
        mentionId: id,
        decision: 'flag_review',
        probability: outcome.probability,
        reviewId,
        candidateEntityId: outcome.clusterId,
      };
    }
    await this.log(m, { ...base, action: 'create_new', targetId: null, targetName: '', reversible: false });
    return { entityId: id, mentionId: id, decision: 'create_new', probability: outcome.probability };
  }

  /** Candidates through the block table, ranked and bounded exactly as the in-memory BlockIndex does. */
  /** Entities of a type per owner: counted once, then kept current by this process's inserts, recounted after a minute. */
  private readonly populations = new Map<string, { n: number; at: number }>();

  /**
   * The record's term-frequency statistics in the owner's graph: other entities carrying its
   * surname (PERSON) or core name (ORG), and the entities of its type.
   */
  async termStats(
    m: EntityManager | DataSource,
    owner: string,
    record: NormalisedRecord,
  ): Promise<{ others: number; population: number }> {
    const key = `${owner}\u0000${record.entityType}`;
    let pop = this.populations.get(key);
    if (!pop || Date.now() - pop.at > 60_000) {
      const [row] = (await m.query(`SELECT count(*) AS n FROM entities WHERE owner = $1 AND type = $2`, [
        owner,
        record.entityType,
      ])) as Array<{ n: string }>;
      pop = { n: Number(row?.n ?? 0), at: Date.now() };
      this.populations.set(key, pop);
    }
    const [tf] = (await m.query(`SELECT count(*) AS n FROM entity_blocks WHERE owner = $1 AND key = $2`, [
      owner,
      tfKey(record),
    ])) as Array<{ n: string }>;
    return { others: Number(tf?.n ?? 0), population: pop.n };
  }

  private bumpPopulation(owner: string, type: string): void {
    const pop = this.populations.get(`${owner}\u0000${type}`);
    if (pop) pop.n++;
  }

  private async candidates(
    m: EntityManager,
    owner: string,
    record: NormalisedRecord,
    keys: string[],
  ): Promise<Candidate[]> {
    if (keys.length === 0) return [];
    const rows: Array<{ key: string; entity_id: string }> = await m.query(
      `SELECT key, entity_id FROM entity_blocks WHERE owner = $1 AND key = ANY($2::text[]) LIMIT 20000`,
      [owner, keys],
    );
    const byKey = new Map<string, string[]>();
    for (const r of rows) (byKey.get(r.key) ?? byKey.set(r.key, []).get(r.key)!).push(r.entity_id);
    const top = rankCandidates(byKey, DEFAULT_BLOCKING, (a, b) => a.localeCompare(b));
    if (top.length === 0) return [];
    const ents: Array<{ id: string; root_id: string; normalised: NormalisedRecord }> = await m.query(
      `SELECT id, root_id, normalised FROM entities WHERE owner = $1 AND id = ANY($2::uuid[]) AND type = $3`,
      [owner, top, record.entityType],
    );
    const roots = [...new Set(ents.map((e) => e.root_id))];
    const idRows: Array<{ root_id: string; kind: string; value: string }> = await m.query(
      `SELECT e.root_id, x.kind, x.value FROM entity_external_ids x JOIN entities e ON e.id = x.entity_id WHERE x.owner = $1 AND e.root_id = ANY($2::uuid[])`,
      [owner, roots],
    );
    const clusterIds = new Map<string, ExternalIds>();
    for (const r of idRows) {
      const ids = clusterIds.get(r.root_id) ?? {};
      ids[r.kind as keyof ExternalIds] ??= r.value;
      clusterIds.set(r.root_id, ids);
    }
    return ents.map((e) => ({
      record: e.normalised,
      clusterId: e.root_id,
      clusterIds: clusterIds.get(e.root_id) ?? {},
    }));
  }

  /** Link root `child` under root `parent`; every member of the child's tree now reads through `parent`. */
  private async link(m: EntityManager, owner: string, child: string, parent: string, by: string | null): Promise<void> {
    await m.query(
      `UPDATE entities SET parent_id = $3, link_log_id = $4, updated_at = now() WHERE owner = $1 AND id = $2`,
      [owner, child, parent, by],
    );
    await m.query(`UPDATE entities SET root_id = $3 WHERE owner = $1 AND root_id = $2`, [
      owner,
      child,
      parent,
    ]);
  }

  /** Remove the link of `child`; its subtree becomes its own entity again. */
  private async unlink(m: EntityManager, owner: string, child: string): Promise<void> {
    await m.query(
      `UPDATE entities SET parent_id = NULL, link_log_id = NULL, updated_at = now() WHERE owner = $1 AND id = $2`,
      [owner, child],
    );
    await m.query(
      `WITH RECURSIVE sub(id) AS (SELECT $2::uuid UNION ALL SELECT e.id FROM entities e JOIN sub ON e.parent_id = sub.id WHERE e.owner = $1)
       UPDATE entities SET root_id = $2 WHERE owner = $1 AND id IN (SELECT id FROM sub)`,
      [owner, child],
    );
  }

  private async rootOf(m: EntityManager, owner: string, id: string): Promise<string | undefined> {
    const rows: Array<{ root_id: string }> = await m.query(
      `SELECT root_id FROM entities WHERE owner = $1 AND id = $2`,
      [owner, id],
    );
    return rows[0]?.root_id;
  }

  private async nameOf(m: EntityManager, owner: string, id: string): Promise<string> {
    const rows: Array<{ name: string }> = await m.query(
      `SELECT name FROM entities WHERE owner = $1 AND id = $2`,
      [owner, id],
    );
    return rows[0]?.name ?? '';
  }

  private async log(
    m: EntityManager,
    e: LogEntry,
  ): Promise<LogRow> {
    const rows = await m.query(
      `INSERT INTO resolution_log (id, owner, execution_id, action, source_entity_id, source_entity_name, source_entity_type, target_entity_id, target_entity_name, confidence, match_method, match_details, link_child, link_parent, is_reversible, link_owner)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) RETURNING *`,
      [
        e.id ?? randomUUID(),
        e.owner,
        e.executionId,
        e.action,
        e.sourceId,
        e.sourceName,
        e.sourceType,
        e.targetId,
        e.targetName,
        e.confidence,
        e.method,
        JSON.stringify(e.details),
        e.link?.child ?? null,
        e.link?.parent ?? null,
        e.reversible,
        e.linkOwner ?? null,
      ],
    );
    return toLog(rows[0]);
  }

  private async discover(
    m: EntityManager,
    owner: string,
    prov: Provenance,
    d: {
      type: string;
      name: string;
      entityType: string;
      entityId: string;
      relationshipType?: string;
      related?: string;
      confidence?: number;
    },
  ): Promise<void> {
    await m.query(
      `INSERT INTO discoveries (id, owner, execution_id, discovery_type, entity_name, entity_type, entity_id, relationship_type, related_entity_name, source_connector, source_endpoint, confidence)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        randomUUID(),
        owner,
        prov.executionId,
        d.type,
        d.name,
        d.entityType,
        d.entityId,
        d.relationshipType ?? '',
        d.related ?? '',
        prov.connector ?? '',
        prov.endpoint ?? '',
        d.confidence ?? 1,
      ],
    );
  }

  async decideReview(
    owner: string,
    id: string,
    decision: 'approve' | 'reject' | 'not_a_match',
  ): Promise<{ review: ReviewRow; log?: LogRow }> {
    return this.db.transaction(async (m) => {
      const rows = await m.query(`SELECT * FROM review_queue WHERE owner = $1 AND id = $2 FOR UPDATE`, [
        owner,
        id,
      ]);
      if (rows.length === 0) throw AppError.notFound('review', id);
      const review = toReview(rows[0]);
      if (review.status !== 'pending')
        throw new AppError('FAILED_PRECONDITION', `review ${id} is already ${review.status}`);
      let log: LogRow | undefined;
      if (decision === 'approve') {
        const child = await this.rootOf(m, owner, review.sourceEntityId);
        const parent = await this.rootOf(m, owner, review.candidateEntityId);
        if (!child || !parent)
          throw new AppError('FAILED_PRECONDITION', `an entity of review ${id} no longer exists`);
        if (child !== parent) {
          const logId = randomUUID();
          await this.link(m, owner, child, parent, logId);
          log = await this.log(m, userMergeEntry(owner, id, review, { child, parent }, logId));
        }
      }
      const status = decision === 'approve' ? 'approved_merge' : 'rejected';
      const context = decision === 'not_a_match' ? { ...review.context, not_a_match: true } : review.context;
      const updated = await m.query(
        `UPDATE review_queue SET status = $3, reviewed_at = now(), context = $4 WHERE owner = $1 AND id = $2 RETURNING *`,
        [owner, id, status, JSON.stringify(context)],
      );
      return { review: toReview(firstRow(updated)), ...(log ? { log } : {}) };
    });
  }

  async reverse(owner: string, logId: string): Promise<LogRow> {
    return this.db.transaction(async (m) => {
      const rows = await m.query(`SELECT * FROM resolution_log WHERE owner = $1 AND id = $2 FOR UPDATE`, [
        owner,
        logId,
      ]);
      if (rows.length === 0) throw AppError.notFound('resolution log entry', logId);
      const entry = rows[0];
      if (entry.reversed_at)
        throw new AppError('FAILED_PRECONDITION', `decision ${logId} was already reversed`);
      if (!entry.is_reversible || !entry.link_child || !entry.link_parent)
        throw new AppError(
          'FAILED_PRECONDITION',
          `a ${entry.action} decision changes no link and cannot be reversed`,
        );
      const current: Array<{ parent_id: string | null; link_log_id: string | null }> = await m.query(
        `SELECT parent_id, link_log_id FROM entities WHERE owner = $1 AND id = $2 FOR UPDATE`,
        [owner, entry.link_child],
      );
      if (entry.action === 'user_split') {
        if (current[0]?.parent_id)
          throw new AppError('FAILED_PRECONDITION', 'the split-off entity has been merged elsewhere since');
        const parentRoot = await this.rootOf(m, owner, entry.link_parent);
        if (!parentRoot || parentRoot === entry.link_child)
          throw new AppError('FAILED_PRECONDITION', 'the entity it was split from no longer holds it');
        // The link the split removed comes back as the merge decision's it was.
        await m.query(`UPDATE entities SET parent_id = $3, link_log_id = $4 WHERE owner = $1 AND id = $2`, [
          owner,
          entry.link_child,
          entry.link_parent,
          entry.link_owner ?? null,
        ]);
        await m.query(`UPDATE entities SET root_id = $3 WHERE owner = $1 AND root_id = $2`, [
          owner,
          entry.link_child,
          parentRoot,
        ]);
      } else {
        if (current[0]?.parent_id !== entry.link_parent)
          throw new AppError('FAILED_PRECONDITION', `the merge of decision ${logId} is no longer in place`);
        // A split removed this merge's link and a later decision linked the same pair again: that one is to reverse.
        if (current[0]?.link_log_id && current[0].link_log_id !== entry.id)
          throw new AppError(
            'FAILED_PRECONDITION',
            `the link of decision ${logId} was split off; the link in place now is decision ${current[0].link_log_id}'s`,
          );
        await this.unlink(m, owner, entry.link_child);
      }
      const updated = await m.query(
        `UPDATE resolution_log SET reversed_at = now() WHERE owner = $1 AND id = $2 RETURNING *`,
        [owner, logId],
      );
      return toLog(firstRow(updated));
    });
  }

  async split(owner: string, memberId: string): Promise<LogRow> {
    return this.db.transaction(async (m) => {
      const rows: Array<{ parent_id: string | null; link_log_id: string | null; name: string; type: string }> = await m.query(
        `SELECT parent_id, link_log_id, name, type FROM entities WHERE owner = $1 AND id = $2 FOR UPDATE`,
        [owner, memberId],
      );
      const row = rows[0];
      if (!row) throw AppError.notFound('entity', memberId);
      if (!row.parent_id)
        throw new AppError('FAILED_PRECONDITION', `entity ${memberId} is not merged into another entity`);
      const parent = row.parent_id;
      const root = await this.rootOf(m, owner, parent);
      await this.unlink(m, owner, memberId);
      return this.log(m, {
        owner,
        executionId: '',
        action: 'user_split',
        sourceId: memberId,
        sourceName: row.name,
        sourceType: row.type,
        targetId: root ?? parent,
        targetName: await this.nameOf(m, owner, root ?? parent),
        confidence: 1,
        method: 'user',
        details: {},
        link: { child: memberId, parent },
        reversible: true,
        linkOwner: row.link_log_id,
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
  search(
    owner: string,
    queries: readonly string[],
    types: readonly string[],
    limit: number,
  ): Promise<EntityView[]> {
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
  newEntitiesSince(
    owner: string,
    types: readonly string[],
    since: string,
    minConfidence: number,
    source: string,
    limit: number,
  ) {
    return this.queries.newEntitiesSince(owner, types, since, minConfidence, source, limit);
  }
  saveCommunities(owner: string, algorithm: string, communities: string[][]): Promise<void> {
    return this.queries.saveCommunities(owner, algorithm, communities);
  }
}
