/**
 * The PostgreSQL graph storage: the writes of the resolution flow
 * (app/graph-resolution.ts decides; one transaction per call, or a session
 * without one for a call whose write is a single statement) on the
 * service's tables, and the reads of pg-graph-queries.ts. Every statement is
 * parameterised and filtered by owner.
 */
import { randomUUID } from 'node:crypto';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { storedDecision, type LogEntry } from '../app/log-entries.js';
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
} from '../app/ports.js';
import type { NormalisedRecord } from '../domain/normalise.js';
import type { ExternalIds } from '../domain/record.js';
import { firstRow, GraphQueries, toLog, toReview, viewRowsSql, viewsOf, type Row } from './pg-graph-queries.js';
import { prepared } from './pg-prepared.js';
import { receiptSql, writeReceipt, type ActionReceipt } from '@af/service-kit';

/** A discovery's columns after its id and owner: run, type, entity, relationship, source, confidence. */
function discoveryValues(prov: Provenance, d: DiscoveryInput): unknown[] {
  return [
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
  ];
}

/** One parameterised statement built in parts: each value a numbered parameter. */
class Statement {
  private readonly params: unknown[] = [];

  /** `value` as the next parameter: its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** Each of `values` as a parameter: their placeholders, comma-separated. */
  values(values: readonly unknown[]): string {
    return values.map((v) => this.param(v)).join(', ');
  }

  /** As a prepared statement (pg-prepared.ts): the few shapes a builder makes are each planned once. */
  run(m: EntityManager, text: string): Promise<any[]> {
    return prepared(m, text, this.params);
  }
}

const LOG_COLUMNS = `(id, owner, execution_id, action, source_entity_id, source_entity_name, source_entity_type, target_entity_id, target_entity_name,
  confidence, match_method, match_details, link_child, link_parent, is_reversible, link_owner)`;

/** A log entry's values, in LOG_COLUMNS order (an id made up when it has none). */
function logValues(e: LogEntry): unknown[] {
  return [
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
  ];
}

/** `when`: a condition the insert waits on (`WHERE …`), or ''. */
function discoveryInsert(sql: Statement, owner: string, found: { prov: Provenance; discovery: DiscoveryInput }, when = ''): string {
  return `INSERT INTO discoveries (id, owner, execution_id, discovery_type, entity_name, entity_type, entity_id, relationship_type, related_entity_name, source_connector, source_endpoint, confidence)
       SELECT ${sql.values([randomUUID(), owner, ...discoveryValues(found.prov, found.discovery)])}${when}`;
}

function reviewInsert(sql: Statement, r: ReviewInput, when = ''): string {
  return `INSERT INTO review_queue (id, owner, execution_id, source_entity_id, source_entity_name, source_entity_type, candidate_entity_id, candidate_entity_name, confidence, match_details, context)
       SELECT ${sql.values([
         r.id,
         r.owner,
         r.executionId,
         r.sourceId,
         r.sourceName,
         r.sourceType,
         r.candidateId,
         r.candidateName,
         r.confidence,
         JSON.stringify(r.details),
         JSON.stringify(r.context),
       ])}${when}`;
}

export class PgGraphStore implements GraphStorage {
  readonly kind = 'postgres';
  /** The graph is in the service's own schema, beside its action records. */
  readonly receipts = true;
  readonly reads: GraphQueries;

  constructor(private readonly db: DataSource) {
    this.reads = new GraphQueries(db);
  }

  write<T>(work: (tx: GraphWrites) => Promise<T>): Promise<T> {
    return this.db.transaction((m) => work(new PgWrites(m)));
  }

  async session<T>(work: (s: GraphSession) => Promise<T>): Promise<T> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      return await work(new PgSession(runner));
    } finally {
      await runner.release();
    }
  }
}

/** The storage operations on one entity manager: a transaction's, or a session's connection outside one. */
class PgWrites implements GraphWrites {
  constructor(protected readonly m: EntityManager) {}

  async blockHits(owner: string, keys: readonly string[], perKey: number): Promise<Array<{ key: string; entityId: string }>> {
    // Per key through the (owner, key) index, each read no further than needed: a common surname's
    // block of a million-record graph is not read to be found too big.
    const rows: Array<{ key: string; entity_id: string }> = await prepared(
      this.m,
      `SELECT k.key, b.entity_id FROM unnest($2::text[]) AS k(key)
       CROSS JOIN LATERAL (
         SELECT entity_id FROM entity_blocks WHERE owner = $1 AND key = k.key LIMIT CASE WHEN k.key LIKE 'id:%' THEN 20000 ELSE $3 END
       ) b`,
      [owner, keys, perKey],
    );
    return rows.map((r) => ({ key: r.key, entityId: r.entity_id }));
  }

  /**
   * One statement: the mentions, then their roots' names and external ids, and the term-frequency
   * counts of the record's key and of the mentions' keys (an entity stored before it had its key on
   * its row has none here: counted apart).
   */
  async candidateMentions(owner: string, ids: readonly string[], type: string, termKey: string): Promise<CandidateRows> {
    const rows: Array<{ row: 'm' | 'n' | 'x' | 't'; id: string; root_id: string; normalised: NormalisedRecord | null; a: string | null; b: string | null }> =
      await prepared(
        this.m,
        `WITH m AS (SELECT id, root_id, normalised, tf_key FROM entities WHERE owner = $1 AND id = ANY($2::uuid[]) AND type = $3),
         roots AS (SELECT DISTINCT root_id FROM m),
         tf AS (SELECT tf_key AS key FROM m WHERE tf_key IS NOT NULL UNION SELECT $4::text)
         SELECT 'm' AS row, id, root_id, normalised, NULL AS a, NULL AS b FROM m
         UNION ALL
         SELECT 'n', e.id, e.id, NULL, e.name, NULL FROM entities e WHERE e.owner = $1 AND e.id IN (SELECT root_id FROM roots)
         UNION ALL
         SELECT 'x', e.id, e.root_id, NULL, x.kind, x.value FROM entities e JOIN entity_external_ids x ON x.entity_id = e.id AND x.owner = $1
          WHERE e.owner = $1 AND e.root_id IN (SELECT root_id FROM roots)
         UNION ALL
         SELECT 't', NULL, NULL, NULL, tf.key, (SELECT count(*) FROM entity_blocks b WHERE b.owner = $1 AND b.key = tf.key)::text FROM tf`,
        [owner, ids, type, termKey],
      );
    const out: CandidateRows = { mentions: [], rootNames: new Map(), clusterIds: [], termCounts: new Map() };
    for (const r of rows)
      if (r.row === 'm') out.mentions.push({ id: r.id, rootId: r.root_id, record: r.normalised! });
      else if (r.row === 'n') out.rootNames.set(r.id, r.a ?? '');
      else if (r.row === 'x') out.clusterIds.push({ rootId: r.root_id, ids: { [r.a!]: r.b } as ExternalIds });
      else out.termCounts.set(r.a!, Number(r.b));
    return out;
  }

  async neighbours(owner: string, roots: readonly string[], cap: number): Promise<NeighbourRow[]> {
    if (roots.length === 0) return [];
    const rows: Array<{ root_id: string; normalised: NormalisedRecord; n_root: string; degree: number }> = await prepared(
      this.m,
      `WITH members AS (SELECT id, root_id FROM entities WHERE owner = $1 AND root_id = ANY($2::uuid[])),
       links AS (
         SELECT m.root_id, r.target_id AS other FROM members m JOIN relationships r ON r.owner = $1 AND r.source_id = m.id
         UNION
         SELECT m.root_id, r.source_id FROM members m JOIN relationships r ON r.owner = $1 AND r.target_id = m.id
       ),
       near AS (SELECT l.root_id, n.root_id AS n_root, n.normalised FROM links l JOIN entities n ON n.owner = $1 AND n.id = l.other LIMIT 2000)
       SELECT near.root_id, near.normalised, near.n_root, d.degree FROM near CROSS JOIN LATERAL (
         SELECT count(*)::int AS degree FROM (
           SELECT 1 FROM entities x JOIN relationships r ON r.owner = $1 AND (r.source_id = x.id OR r.target_id = x.id)
           WHERE x.owner = $1 AND x.root_id = near.n_root LIMIT $3
         ) s
       ) d`,
      [owner, roots, cap],
    );
    return rows.map((r) => ({ rootId: r.root_id, record: r.normalised, entityId: r.n_root, degree: r.degree }));
  }

  async countEntities(owner: string, type: string): Promise<number> {
    const [row] = (await this.m.query(`SELECT count(*) AS n FROM entities WHERE owner = $1 AND type = $2`, [owner, type])) as Array<{ n: string }>;
    return Number(row?.n ?? 0);
  }

  async countBlockKeys(owner: string, keys: readonly string[]): Promise<Map<string, number>> {
    const out = new Map(keys.map((k) => [k, 0]));
    if (keys.length === 0) return out;
    const rows = (await prepared(this.m, `SELECT key, count(*) AS n FROM entity_blocks WHERE owner = $1 AND key = ANY($2::text[]) GROUP BY key`, [
      owner,
      [...keys],
    ])) as Array<{ key: string; n: string }>;
    for (const r of rows) out.set(r.key, Number(r.n));
    return out;
  }

  /**
   * One statement: the mention (linked when merged), its aliases, ids, block keys and provenance,
   * and its decision's review item, log entry and discovery (one round trip on the request path).
   * With a receipt, the action call's record is completed in the same statement, and every insert
   * waits on it: a call another holder finished writes nothing (false).
   */
  async insertMention(e: MentionInput, decision?: MentionDecision, withView = false): Promise<MentionWrite> {
    const { owner, id, prov, input, record } = e;
    const link = decision?.link;
    const ids = Object.entries(record.ids);
    const sql = new Statement();
    const receipt = decision?.receipt;
    const parts = receipt
      ? [`done AS (${receiptSql(receipt.call, (v) => sql.param(v), receipt.body, receipt.final)} RETURNING 1)`]
      : [];
    // Each insert is a SELECT so that, with a receipt, it runs only when the call was still this one's.
    const when = receipt ? ' WHERE EXISTS (SELECT 1 FROM done)' : '';
    const [$id, $owner] = [sql.param(id), sql.param(owner)];
    parts.push(
      `mention AS (
         INSERT INTO entities (id, owner, type, subtype, name, canonical_name, normalised, confidence, root_id, parent_id, link_log_id, block_keys_version, tf_key)
         SELECT ${$id}, ${$owner}, ${sql.values([
           record.entityType,
           e.subtype,
           input.name,
           record.canonical,
           JSON.stringify(record),
           input.confidence ?? 1,
           link?.parent ?? id,
           link?.parent ?? null,
           link ? decision.log.id : null,
           e.keysVersion,
           e.termKey,
         ])}${when}
       )`,
      `aliases AS (
         INSERT INTO entity_aliases (entity_id, owner, alias) SELECT DISTINCT ${$id}::uuid, ${$owner}, a FROM unnest(${sql.param([...new Set(input.aliases ?? [])])}::text[]) AS a${when}
         ON CONFLICT DO NOTHING
       )`,
      `ids AS (
         INSERT INTO entity_external_ids (entity_id, owner, kind, value)
         SELECT ${$id}, ${$owner}, k, v FROM unnest(${sql.param(ids.map(([k]) => k))}::text[], ${sql.param(ids.map(([, v]) => v))}::text[]) AS t(k, v)${when}
       )`,
      `blocks AS (INSERT INTO entity_blocks (owner, key, entity_id) SELECT ${$owner}, k, ${$id} FROM unnest(${sql.param(e.keys)}::text[]) AS k${when})`,
      `provenance AS (
         INSERT INTO provenance (owner, entity_id, source, connector, endpoint, run_id, node_id, record_index)
         SELECT ${$owner}, ${$id}, ${sql.values([input.source ?? '', prov.connector ?? '', prov.endpoint ?? '', prov.executionId, prov.nodeId, input.recordIndex ?? null])}${when}
       )`,
    );
    if (decision?.review) parts.push(`review AS (${reviewInsert(sql, decision.review, when)})`);
    if (decision) {
      parts.push(`found AS (${discoveryInsert(sql, owner, decision.found, when)})`);
      parts.push(`logged AS (INSERT INTO resolution_log ${LOG_COLUMNS} SELECT ${sql.values(logValues(decision.log))}${when})`);
    }
    const written = receipt ? 'EXISTS (SELECT 1 FROM done)' : 'true';
    if (!withView) {
      const [row] = await sql.run(this.m, `WITH ${parts.join(',\n')} SELECT ${written} AS written`);
      return { written: row.written === true };
    }
    const root = link?.parent ?? id;
    // Its own rows as the entity view reads them (the statement's reads do not see its own inserts).
    const at = new Date();
    const own: Row[] = [
      { part: 'm', id, root_id: root, name: input.name, canonical_name: record.canonical, type: record.entityType, subtype: e.subtype, confidence: input.confidence ?? 1, created_at: at, updated_at: at, source: record.source ?? null },
      ...[...new Set(input.aliases ?? [])].map((alias) => ({ part: 'a', id, root_id: root, name: alias, created_at: at })),
      ...ids.map(([kind, value]) => ({ part: 'x', id, root_id: root, name: value, created_at: at, kind })),
    ];
    if (!link) {
      const [row] = await sql.run(this.m, `WITH ${parts.join(',\n')} SELECT ${written} AS written`);
      return row.written === true ? { written: true, view: viewsOf(own, [id])[0]! } : { written: false };
    }
    // Merged: the entity it joins as stored before this statement, its own rows added.
    const view = viewRowsSql($owner, `ARRAY[${sql.param(link.parent)}]`, `SELECT 'w', NULL, NULL, (${written})::text, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL`);
    parts.push(view.cte);
    const rows = await sql.run(this.m, `WITH ${parts.join(',\n')} ${view.select}`);
    if (rows.find((r) => r.part === 'w')?.name !== 'true') return { written: false };
    return { written: true, view: viewsOf([...rows, ...own], [link.parent])[0] };
  }

  writeReceipt(call: ActionReceipt, body: unknown, final: boolean): Promise<boolean> {
    return writeReceipt(this.m, call, body, final);
  }

  async relate(owner: string, sourceId: string, targetId: string, type: string, properties: Record<string, unknown>): Promise<void> {
    await this.m.query(
      `INSERT INTO relationships (id, owner, source_id, target_id, type, properties) VALUES ($1, $2, $3, $4, $5, $6)`,
      [randomUUID(), owner, sourceId, targetId, type, JSON.stringify(properties)],
    );
  }

  /** One statement: the child's link, and every member of the child's tree reading through `root`. */
  async link(owner: string, child: string, parent: string, root: string, by: string | null): Promise<void> {
    await prepared(
      this.m,
      `UPDATE entities SET
         parent_id = CASE WHEN id = $2 THEN $3 ELSE parent_id END,
         link_log_id = CASE WHEN id = $2 THEN $5 ELSE link_log_id END,
         updated_at = CASE WHEN id = $2 THEN now() ELSE updated_at END,
         root_id = CASE WHEN root_id = $2 THEN $4 ELSE root_id END
       WHERE owner = $1 AND (id = $2 OR root_id = $2)`,
      [owner, child, parent, root, by],
    );
  }

  async unlink(owner: string, child: string): Promise<void> {
    await this.m.query(`UPDATE entities SET parent_id = NULL, link_log_id = NULL, updated_at = now() WHERE owner = $1 AND id = $2`, [owner, child]);
    await this.m.query(
      `WITH RECURSIVE sub(id) AS (SELECT $2::uuid UNION ALL SELECT e.id FROM entities e JOIN sub ON e.parent_id = sub.id WHERE e.owner = $1)
       UPDATE entities SET root_id = $2 WHERE owner = $1 AND id IN (SELECT id FROM sub)`,
      [owner, child],
    );
  }

  async rootOf(owner: string, id: string): Promise<string | undefined> {
    const rows: Array<{ root_id: string }> = await prepared(this.m, `SELECT root_id FROM entities WHERE owner = $1 AND id = $2`, [owner, id]);
    return rows[0]?.root_id;
  }

  async nameOf(owner: string, id: string): Promise<string> {
    const rows: Array<{ name: string }> = await prepared(this.m, `SELECT name FROM entities WHERE owner = $1 AND id = $2`, [owner, id]);
    return rows[0]?.name ?? '';
  }

  async lockEntity(owner: string, id: string): Promise<LinkState | undefined> {
    const rows: Array<{ parent_id: string | null; link_log_id: string | null; name: string; type: string }> = await this.m.query(
      `SELECT parent_id, link_log_id, name, type FROM entities WHERE owner = $1 AND id = $2 FOR UPDATE`,
      [owner, id],
    );
    const r = rows[0];
    return r ? { parentId: r.parent_id, linkLogId: r.link_log_id, name: r.name, type: r.type } : undefined;
  }

  async lockReview(owner: string, id: string): Promise<ReviewRow | undefined> {
    const rows = await this.m.query(`SELECT * FROM review_queue WHERE owner = $1 AND id = $2 FOR UPDATE`, [owner, id]);
    return rows.length === 0 ? undefined : toReview(rows[0]);
  }

  async lockPendingReviewsWithin(owner: string, root: string): Promise<ReviewRow[]> {
    const rows = await this.m.query(
      `SELECT q.* FROM review_queue q
         JOIN entities s ON s.owner = q.owner AND s.id = q.source_entity_id
         JOIN entities c ON c.owner = q.owner AND c.id = q.candidate_entity_id
        WHERE q.owner = $1 AND q.status = 'pending' AND s.root_id = $2 AND c.root_id = $2
        ORDER BY q.created_at
        FOR UPDATE OF q`,
      [owner, root],
    );
    return rows.map(toReview);
  }

  async lockReviewsClosedBy(owner: string, logId: string): Promise<ReviewRow[]> {
    const rows = await this.m.query(
      `SELECT * FROM review_queue WHERE owner = $1 AND status = 'auto_merged' AND context->>'merged_by' = $2 ORDER BY created_at FOR UPDATE`,
      [owner, logId],
    );
    return rows.map(toReview);
  }

  async setReviewStatus(owner: string, id: string, status: string, context: Record<string, unknown>): Promise<ReviewRow> {
    const updated = await this.m.query(
      `UPDATE review_queue SET status = $3, reviewed_at = CASE WHEN $3 = 'pending' THEN NULL ELSE now() END, context = $4
        WHERE owner = $1 AND id = $2 RETURNING *`,
      [owner, id, status, JSON.stringify(context)],
    );
    return toReview(firstRow(updated));
  }

  async log(e: LogEntry, found?: { prov: Provenance; discovery: DiscoveryInput }): Promise<LogRow> {
    const sql = new Statement();
    const insert = `INSERT INTO resolution_log ${LOG_COLUMNS} VALUES (${sql.values(logValues(e))}) RETURNING *`;
    // The discovery in the same statement: one round trip for the decision's two rows.
    const rows = found ? await sql.run(this.m, `WITH found AS (${discoveryInsert(sql, e.owner, found)}) ${insert}`) : await sql.run(this.m, insert);
    return toLog(rows[0]);
  }

  async lockDecision(owner: string, id: string): Promise<StoredDecision | undefined> {
    const rows = await this.m.query(`SELECT * FROM resolution_log WHERE owner = $1 AND id = $2 FOR UPDATE`, [owner, id]);
    return rows[0] ? storedDecision(rows[0]) : undefined;
  }

  async markReversed(owner: string, id: string): Promise<LogRow> {
    const updated = await this.m.query(`UPDATE resolution_log SET reversed_at = now() WHERE owner = $1 AND id = $2 RETURNING *`, [owner, id]);
    return toLog(firstRow(updated));
  }

  async discover(owner: string, prov: Provenance, d: DiscoveryInput): Promise<void> {
    const sql = new Statement();
    await sql.run(this.m, discoveryInsert(sql, owner, { prov, discovery: d }));
  }

  async staleKeyed(version: number, limit: number): Promise<Array<{ owner: string; id: string; record: NormalisedRecord }>> {
    const rows: Array<{ owner: string; id: string; normalised: NormalisedRecord }> = await this.m.query(
      `SELECT owner, id, normalised FROM entities WHERE block_keys_version < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [version, limit],
    );
    return rows.map((r) => ({ owner: r.owner, id: r.id, record: r.normalised }));
  }

  async withoutTermKey(limit: number): Promise<Array<{ owner: string; id: string; record: NormalisedRecord }>> {
    const rows: Array<{ owner: string; id: string; normalised: NormalisedRecord }> = await this.m.query(
      `SELECT owner, id, normalised FROM entities WHERE tf_key IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows.map((r) => ({ owner: r.owner, id: r.id, record: r.normalised }));
  }

  async setTermKeys(keys: ReadonlyArray<{ owner: string; id: string; termKey: string }>): Promise<void> {
    await this.m.query(
      `UPDATE entities e SET tf_key = v.k FROM unnest($1::text[], $2::uuid[], $3::text[]) AS v(owner, id, k) WHERE e.owner = v.owner AND e.id = v.id`,
      [keys.map((k) => k.owner), keys.map((k) => k.id), keys.map((k) => k.termKey)],
    );
  }

  async rekey(owner: string, id: string, keys: readonly string[], version: number, termKey: string | null): Promise<void> {
    await this.m.query(`DELETE FROM entity_blocks WHERE owner = $1 AND entity_id = $2`, [owner, id]);
    await this.m.query(`INSERT INTO entity_blocks (owner, key, entity_id) SELECT $1, k, $2 FROM unnest($3::text[]) AS k`, [owner, id, [...keys]]);
    await this.m.query(`UPDATE entities SET block_keys_version = $3, tf_key = $4 WHERE owner = $1 AND id = $2`, [owner, id, version, termKey]);
  }

}

/** Statements on one pooled connection, each its own transaction (PostgreSQL's autocommit), until `transaction`. */
class PgSession extends PgWrites implements GraphSession {
  constructor(private readonly runner: QueryRunner) {
    super(runner.manager);
  }

  async transaction<T>(work: (tx: GraphWrites) => Promise<T>): Promise<T> {
    await this.runner.startTransaction();
    try {
      const out = await work(new PgWrites(this.runner.manager));
      await this.runner.commitTransaction();
      return out;
    } catch (err) {
      await this.runner.rollbackTransaction();
      throw err;
    }
  }
}
