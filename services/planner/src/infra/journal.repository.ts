/**
 * SQL for the agent execution log, the journal and chat conversations.
 * Parameterised only. Who may see what is decided by the caller
 * (app/journal.ts, domain/journal/visibility.ts) and passed in as a scope.
 */
import { AppError, ReceiptSuperseded, sqlRows, writeReceipt, type ActionReceipt, type Queryable } from '@af/service-kit';
import type { DataSource } from 'typeorm';
import type { DetailEntry, JournalTaskStatus } from '../domain/journal/journal-entry.js';
import { UNATTENDED_CONTEXTS, type JournalScope } from '../domain/journal/visibility.js';

export interface ExecutionLogRow {
  run_id: string;
  agent_profile_id: string;
  owner_user_id: string;
  invoked_by: string;
  team_id: string | null;
  query: string;
  strategy: string;
  playbook_id: string | null;
  run_context: string;
  status: 'running' | 'finished';
  started_at: Date;
  completed_at: Date | null;
}

export interface JournalRow {
  id: string;
  agent_profile_id: string;
  user_id: string;
  run_id: string | null;
  summary: string;
  summary_source: 'engine' | 'llm' | 'action';
  detail_entries: DetailEntry[] | Array<Record<string, unknown>>;
  run_context: string;
  invoked_by: string;
  team_id: string | null;
  strategy: string | null;
  playbook_id: string | null;
  entities_mentioned: string[];
  steps_completed: number;
  entities_discovered: number;
  outputs_produced: Array<Record<string, unknown>>;
  connectors_called: Array<Record<string, unknown>>;
  task_status: JournalTaskStatus;
  error_summary: string | null;
  created_at: Date;
}

export type NewJournalEntry = Omit<JournalRow, 'id' | 'created_at'>;

export interface JournalFilter {
  taskStatuses: readonly string[];
  entity: string;
  dateFrom: Date | null;
  dateTo: Date | null;
  /** Words the summary contains (case-insensitive); empty: any. */
  text?: string;
}

export interface ConversationMessage {
  role: 'user' | 'agent';
  content: string;
  agent_profile_id: string | null;
  run_id: string | null;
  created_at: Date;
}

export class JournalRepository {
  constructor(private readonly db: DataSource) {}

  async openRun(row: Omit<ExecutionLogRow, 'status' | 'started_at' | 'completed_at'>): Promise<void> {
    await sqlRows(
      this.db,
      `INSERT INTO agent_execution_log (run_id, agent_profile_id, owner_user_id, invoked_by, team_id, query, strategy, playbook_id, run_context)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (run_id) DO NOTHING`,
      [row.run_id, row.agent_profile_id, row.owner_user_id, row.invoked_by, row.team_id, row.query, row.strategy, row.playbook_id, row.run_context],
    );
  }

  async run(runId: string): Promise<ExecutionLogRow | undefined> {
    return (await sqlRows<ExecutionLogRow>(this.db, 'SELECT * FROM agent_execution_log WHERE run_id = $1', [runId]))[0];
  }

  /** Runs of the profile that have not finished, oldest first. */
  async openRuns(profileId: string): Promise<string[]> {
    const rows = await sqlRows<{ run_id: string }>(this.db, `SELECT run_id FROM agent_execution_log WHERE agent_profile_id = $1 AND status = 'running' ORDER BY started_at LIMIT 20`, [profileId]);
    return rows.map((r) => r.run_id);
  }

  /**
   * Writes the run's journal entry: one per run. While the run waits for a
   * person (`ended: false`) the entry says so and is replaced when it ends;
   * once ended the log row is closed and the entry final (a later call
   * answers it unchanged).
   */
  async finishRun(runId: string, entry: NewJournalEntry, ended: boolean): Promise<JournalRow> {
    return this.db.transaction(async (m) => {
      const [log] = await sqlRows<{ status: string }>(m, 'SELECT status FROM agent_execution_log WHERE run_id = $1 FOR UPDATE', [runId]);
      const open = log?.status === 'running';
      if (ended) await sqlRows(m, `UPDATE agent_execution_log SET status = 'finished', completed_at = now() WHERE run_id = $1 AND status = 'running'`, [runId]);
      const rows = await sqlRows<JournalRow>(
        m,
        `INSERT INTO agent_journal (${ENTRY_COLUMNS.join(', ')}) VALUES (${ENTRY_COLUMNS.map((c, i) => `$${i + 1}${JSON_COLUMNS.has(c) ? '::jsonb' : ''}`).join(', ')})
         ON CONFLICT (run_id) WHERE run_id IS NOT NULL AND summary_source <> 'action'
         DO ${open ? `UPDATE SET ${ENTRY_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}, created_at = now()` : 'NOTHING'} RETURNING *`,
        entryValues(entry),
      );
      if (rows[0]) return rows[0];
      const [existing] = await sqlRows<JournalRow>(m, `SELECT * FROM agent_journal WHERE run_id = $1 AND summary_source <> 'action'`, [runId]);
      if (!existing) throw new AppError('ABORTED', 'the journal entry was written and removed concurrently; retry', { retryable: true });
      return existing;
    });
  }

  /** Open runs started more than `olderThanMs` ago, oldest first (the sweep asks the orchestrator whether they ended). */
  async staleOpenRuns(olderThanMs: number, limit: number): Promise<string[]> {
    const rows = await sqlRows<{ run_id: string }>(
      this.db,
      `SELECT run_id FROM agent_execution_log WHERE status = 'running' AND started_at < now() - make_interval(secs => $1::double precision / 1000) ORDER BY started_at LIMIT $2`,
      [olderThanMs, limit],
    );
    return rows.map((r) => r.run_id);
  }

  /** The run's own entry (not those its steps wrote), if written. */
  async entryOfRun(runId: string): Promise<JournalRow | undefined> {
    return (await sqlRows<JournalRow>(this.db, `SELECT * FROM agent_journal WHERE run_id = $1 AND summary_source <> 'action'`, [runId]))[0];
  }

  /**
   * An entry a playbook step wrote (write_journal_entry); with the action call's receipt (the entry's
   * id) in the same transaction when given. ReceiptSuperseded, and nothing written, when the call's
   * key is recorded already.
   */
  async insertEntry(entry: NewJournalEntry, receipt?: ActionReceipt): Promise<JournalRow> {
    const insert = (q: Queryable) =>
      sqlRows<JournalRow>(
        q,
        `INSERT INTO agent_journal (${ENTRY_COLUMNS.join(', ')}) VALUES (${ENTRY_COLUMNS.map((c, i) => `$${i + 1}${JSON_COLUMNS.has(c) ? '::jsonb' : ''}`).join(', ')}) RETURNING *`,
        entryValues(entry),
      );
    if (!receipt) return (await insert(this.db))[0]!;
    return this.db.transaction(async (m) => {
      const [row] = await insert(m);
      if (!(await writeReceipt(m, receipt, { journal_entry_id: row!.id }, true))) throw new ReceiptSuperseded(receipt.key);
      return row!;
    });
  }

  async entry(id: string): Promise<JournalRow | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    return (await sqlRows<JournalRow>(this.db, 'SELECT * FROM agent_journal WHERE id = $1', [id]))[0];
  }

  /** Entries of the profile the scope lets through, newest first, keyset-paged by (created_at, id). */
  async list(profileId: string, scope: JournalScope, filter: JournalFilter, limit: number, after: { createdAt: string; id: string } | null): Promise<JournalRow[]> {
    if ('none' in scope) return [];
    const member = scope.all ? null : scope;
    return sqlRows<JournalRow>(
      this.db,
      `SELECT * FROM agent_journal
        WHERE agent_profile_id = $1
          AND ($2::text IS NULL OR invoked_by = $2::text OR ($3::boolean AND run_context = ANY($4::text[])))
          AND (cardinality($5::text[]) = 0 OR task_status = ANY($5::text[]))
          AND ($6::text = '' OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(entities_mentioned) e WHERE lower(e) LIKE '%' || lower($6::text) || '%'))
          AND ($7::timestamptz IS NULL OR created_at >= $7::timestamptz)
          AND ($8::timestamptz IS NULL OR created_at <= $8::timestamptz)
          AND ($9::timestamptz IS NULL OR (created_at, id) < ($9::timestamptz, $10::uuid))
          AND ($12::text = '' OR summary ILIKE '%' || $12::text || '%')
        ORDER BY created_at DESC, id DESC LIMIT $11`,
      [profileId, member?.invokedBy ?? null, member?.unattendedToo ?? false, [...UNATTENDED_CONTEXTS], [...filter.taskStatuses], filter.entity, filter.dateFrom, filter.dateTo, after?.createdAt ?? null, after?.id ?? null, limit, (filter.text ?? '').replace(/[%_\\]/g, (c) => `\\${c}`)],
    );
  }

  async createConversation(userId: string): Promise<string> {
    const [row] = await sqlRows<{ id: string }>(this.db, 'INSERT INTO conversations (user_id) VALUES ($1) RETURNING id', [userId]);
    return row!.id;
  }

  async conversationOwner(id: string): Promise<string | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    return (await sqlRows<{ user_id: string }>(this.db, 'SELECT user_id FROM conversations WHERE id = $1', [id]))[0]?.user_id;
  }

  /** The last `limit` messages, oldest first. */
  async messages(conversationId: string, limit: number): Promise<ConversationMessage[]> {
    const rows = await sqlRows<ConversationMessage>(
      this.db,
      `SELECT role, content, agent_profile_id, run_id, created_at FROM conversation_messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT $2`,
      [conversationId, limit],
    );
    return rows.reverse();
  }

  async append(conversationId: string, messages: ReadonlyArray<Omit<ConversationMessage, 'created_at'>>): Promise<void> {
    await this.db.transaction(async (m) => {
      for (const msg of messages) {
        await sqlRows(m, 'INSERT INTO conversation_messages (conversation_id, role, content, agent_profile_id, run_id) VALUES ($1, $2, $3, $4, $5)', [
          conversationId,
          msg.role,
          msg.content,
          msg.agent_profile_id,
          msg.run_id,
        ]);
      }
      await sqlRows(m, 'UPDATE conversations SET updated_at = now() WHERE id = $1', [conversationId]);
    });
  }
}

const ENTRY_COLUMNS = [
  'agent_profile_id',
  'user_id',
  'run_id',
  'summary',
  'summary_source',
  'detail_entries',
  'run_context',
  'invoked_by',
  'team_id',
  'strategy',
  'playbook_id',
  'entities_mentioned',
  'steps_completed',
  'entities_discovered',
  'outputs_produced',
  'connectors_called',
  'task_status',
  'error_summary',
] as const;
const JSON_COLUMNS: ReadonlySet<string> = new Set(['detail_entries', 'entities_mentioned', 'outputs_produced', 'connectors_called']);

function entryValues(e: NewJournalEntry): unknown[] {
  return ENTRY_COLUMNS.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(e[c]) : e[c]));
}
