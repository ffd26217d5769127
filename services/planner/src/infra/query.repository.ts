/** SQL for query sessions, query records, conversation summaries and long-term memory. Parameterised only. */
import { sqlRows } from '@af/service-kit';
import type { DataSource } from 'typeorm';
import { EMPTY_MEMORY, memoryFromRow, mergeMemory, type LongTermMemory } from '../domain/query/memory.js';

export interface QueryRecordRow {
  id: string;
  user_id: string;
  session_id: string;
  conversation_id: string;
  query: string;
  streaming: boolean;
  master_plan: Record<string, unknown>;
  memory: LongTermMemory;
  run_id: string | null;
  result: Record<string, unknown> | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class QueryRepository {
  constructor(private readonly db: DataSource) {}

  async memory(userId: string): Promise<LongTermMemory> {
    const [row] = await sqlRows<{ critical_facts: unknown; preferences: unknown }>(this.db, 'SELECT critical_facts, preferences FROM user_long_term_memory WHERE user_id = $1', [userId]);
    return row ? memoryFromRow(row.critical_facts, row.preferences) : EMPTY_MEMORY;
  }

  /** Merges `found` into the user's memory under a row lock (INSERT … ON CONFLICT DO UPDATE). */
  async upsertMemory(userId: string, found: LongTermMemory): Promise<LongTermMemory> {
    return this.db.transaction(async (m) => {
      await sqlRows(m, `INSERT INTO user_long_term_memory (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING`, [userId]);
      const [row] = await sqlRows<{ critical_facts: unknown; preferences: unknown }>(m, 'SELECT critical_facts, preferences FROM user_long_term_memory WHERE user_id = $1 FOR UPDATE', [userId]);
      const merged = mergeMemory(memoryFromRow(row?.critical_facts, row?.preferences), found);
      await sqlRows(m, 'UPDATE user_long_term_memory SET critical_facts = $2, preferences = $3, updated_at = now() WHERE user_id = $1', [userId, JSON.stringify(merged.critical_facts), JSON.stringify(merged.preferences)]);
      return merged;
    });
  }

  /** The caller's session (touched), or undefined when it is not theirs. */
  async touchSession(userId: string, id: string): Promise<string | undefined> {
    if (!UUID.test(id)) return undefined;
    const [row] = await sqlRows<{ id: string }>(this.db, 'UPDATE query_sessions SET last_active_at = now() WHERE id = $1 AND user_id = $2 RETURNING id', [id, userId]);
    return row?.id;
  }

  async createSession(userId: string): Promise<string> {
    const [row] = await sqlRows<{ id: string }>(this.db, 'INSERT INTO query_sessions (user_id) VALUES ($1) RETURNING id', [userId]);
    return row!.id;
  }

  async createRecord(r: Omit<QueryRecordRow, 'id' | 'run_id' | 'result'>): Promise<string> {
    const [row] = await sqlRows<{ id: string }>(
      this.db,
      'INSERT INTO query_records (user_id, session_id, conversation_id, query, streaming, master_plan, memory) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id',
      [r.user_id, r.session_id, r.conversation_id, r.query, r.streaming, JSON.stringify(r.master_plan), JSON.stringify(r.memory)],
    );
    return row!.id;
  }

  async record(userId: string, id: string): Promise<QueryRecordRow | undefined> {
    if (!UUID.test(id)) return undefined;
    const [row] = await sqlRows<QueryRecordRow>(this.db, 'SELECT * FROM query_records WHERE id = $1 AND user_id = $2', [id, userId]);
    return row;
  }

  /** Stores the answer once; a second call gets the first answer back (undefined when it was already stored by another). */
  async answer(id: string, runId: string, result: Record<string, unknown>): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(this.db, 'UPDATE query_records SET run_id = $2, result = $3, answered_at = now() WHERE id = $1 AND result IS NULL RETURNING id', [id, runId, JSON.stringify(result)]);
    return rows.length > 0;
  }

  /** Answered questions of the conversation, oldest first. */
  async answeredTurns(conversationId: string): Promise<Array<{ question: string; answer: string }>> {
    const rows = await sqlRows<{ query: string; answer: string }>(
      this.db,
      `SELECT query, result->>'answer' AS answer FROM query_records WHERE conversation_id = $1 AND result IS NOT NULL ORDER BY answered_at, id`,
      [conversationId],
    );
    return rows.map((r) => ({ question: r.query, answer: r.answer ?? '' }));
  }

  /**
   * Claims `key` for the user's request: `claimed` when the key is new (or
   * its earlier use expired: that row is replaced), otherwise the row as the
   * first request left it (`query_id` NULL while that one still plans).
   */
  async claimKey(userId: string, key: string, fingerprint: string, ttlSeconds: number): Promise<{ claimed: true } | { claimed: false; fingerprint: string; queryId: string | null; plan: unknown }> {
    const [won] = await sqlRows<{ key: string }>(
      this.db,
      `INSERT INTO query_idempotency_keys (user_id, key, fingerprint, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision))
       ON CONFLICT (user_id, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, query_id = NULL, plan = NULL, created_at = now(), expires_at = EXCLUDED.expires_at
         WHERE query_idempotency_keys.expires_at <= now()
       RETURNING key`,
      [userId, key, fingerprint, ttlSeconds],
    );
    if (won) return { claimed: true };
    const [row] = await sqlRows<{ fingerprint: string; query_id: string | null; plan: unknown }>(this.db, 'SELECT fingerprint, query_id, plan FROM query_idempotency_keys WHERE user_id = $1 AND key = $2', [userId, key]);
    // Expired and taken by another request between the two statements: that one's row.
    return { claimed: false, fingerprint: row?.fingerprint ?? '', queryId: row?.query_id ?? null, plan: row?.plan ?? null };
  }

  /** The key's request planned: its query and plan, answered to the same request again. */
  async keyPlanned(userId: string, key: string, queryId: string, plan: unknown): Promise<void> {
    await sqlRows(this.db, 'UPDATE query_idempotency_keys SET query_id = $3, plan = $4 WHERE user_id = $1 AND key = $2', [userId, key, queryId, JSON.stringify(plan)]);
  }

  /** The key's request failed before planning: the key is free again (a retry plans anew). */
  async releaseKey(userId: string, key: string): Promise<void> {
    await sqlRows(this.db, 'DELETE FROM query_idempotency_keys WHERE user_id = $1 AND key = $2 AND query_id IS NULL', [userId, key]);
  }

  /** Drops expired keys (called now and then; an expired key is replaced on use anyway). */
  async sweepKeys(): Promise<number> {
    return (await sqlRows(this.db, 'DELETE FROM query_idempotency_keys WHERE expires_at <= now() RETURNING key', [])).length;
  }

  async addSummary(conversationId: string, text: string, turnsCovered: number): Promise<void> {
    await sqlRows(this.db, 'INSERT INTO conversation_summaries (conversation_id, summary_text, turns_covered) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [conversationId, text, turnsCovered]);
  }

  async summaries(conversationId: string): Promise<Array<{ summary_text: string; turns_covered: number }>> {
    return sqlRows(this.db, 'SELECT summary_text, turns_covered FROM conversation_summaries WHERE conversation_id = $1 ORDER BY turns_covered', [conversationId]);
  }
}
