/**
 * Reading an agent's journal (list, one entry, recent-activity summary) and
 * the two journal actions a playbook step may call (`write_journal_entry`,
 * `query_journal`). Visibility follows the profile's team shares
 * (domain/journal/visibility.ts); a profile or entry the caller may not see
 * is NOT_FOUND.
 */
import { AppError, type ActionContext, type ActionHandler } from '@af/service-kit';
import { JOURNAL_TASK_STATUSES } from '../domain/journal/journal-entry.js';
import { journalScope, sees, type JournalScope } from '../domain/journal/visibility.js';
import type { Caller } from '../domain/profiles/sharing.js';
import type { JournalFilter, JournalRepository, JournalRow } from '../infra/journal.repository.js';
import type { ProfileRepository } from '../infra/profile.repository.js';
import type { ProfilesService } from './profiles.service.js';

export interface JournalQuery {
  pageSize: number;
  pageToken: string;
  taskStatuses: readonly string[];
  entity: string;
  dateFrom: string;
  dateTo: string;
  text?: string;
}

const SUMMARY_WINDOW = 50;

export class Journal {
  constructor(
    private readonly repo: JournalRepository,
    private readonly profiles: Pick<ProfilesService, 'authorize'>,
    private readonly profileRepo: Pick<ProfileRepository, 'shares'>,
  ) {}

  async list(caller: Caller, profileId: string, q: JournalQuery): Promise<{ entries: JournalRow[]; nextPageToken: string }> {
    const scope = await this.scope(caller, profileId);
    const size = q.pageSize === 0 ? 20 : q.pageSize;
    if (!Number.isInteger(size) || size < 1 || size > 200) throw AppError.invalid('page_size', 'must be between 1 and 200');
    const filter = parseFilter(q);
    const after = q.pageToken ? decodeToken(q.pageToken) : null;
    const rows = await this.repo.list(profileId, scope, filter, size + 1, after);
    const page = rows.slice(0, size);
    const last = page.at(-1);
    return { entries: page, nextPageToken: rows.length > size && last ? encodeToken(last) : '' };
  }

  async get(caller: Caller, id: string): Promise<JournalRow> {
    const entry = await this.repo.entry(id);
    if (!entry) throw AppError.notFound('journal entry', id);
    try {
      const scope = await this.scope(caller, entry.agent_profile_id);
      if (!sees(scope, { invokedBy: entry.invoked_by, runContext: entry.run_context })) throw AppError.notFound('journal entry', id);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') throw AppError.notFound('journal entry', id);
      throw err;
    }
    return entry;
  }

  /** Recent activity for a sidebar: counts by task status over the last entries, the last entry and the entities most mentioned. */
  async summary(caller: Caller, profileId: string): Promise<Record<string, unknown>> {
    const scope = await this.scope(caller, profileId);
    const rows = await this.repo.list(profileId, scope, { taskStatuses: [], entity: '', dateFrom: null, dateTo: null }, SUMMARY_WINDOW, null);
    const byStatus = Object.fromEntries(JOURNAL_TASK_STATUSES.map((s) => [s, rows.filter((r) => r.task_status === s).length]));
    const mentions = new Map<string, number>();
    for (const r of rows) for (const e of r.entities_mentioned) mentions.set(e, (mentions.get(e) ?? 0) + 1);
    const topEntities = [...mentions.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 10).map(([name, count]) => ({ name, count }));
    return {
      agent_profile_id: profileId,
      entries_considered: rows.length,
      by_task_status: byStatus,
      last_entry: rows[0] ? entryToJson(rows[0]) : null,
      last_run_at: rows[0]?.created_at.toISOString() ?? null,
      top_entities: topEntities,
    };
  }

  /** write_journal_entry and query_journal, for steps of an agent's run (the run names the agent). */
  actions(): ActionHandler[] {
    return [
      {
        name: 'write_journal_entry',
        sideEffects: true,
        execute: async (ctx) => {
          const log = await this.agentRun(ctx);
          const summary = ctx.inputs.summary;
          if (typeof summary !== 'string' || !summary.trim()) throw AppError.invalid('inputs.summary', 'is required: a non-empty string');
          const details = ctx.inputs.detail_entries ?? [];
          if (!Array.isArray(details) || details.some((d) => !d || typeof d !== 'object' || Array.isArray(d))) throw AppError.invalid('inputs.detail_entries', 'must be a list of objects');
          const entities = ctx.inputs.entities_mentioned ?? [];
          if (!Array.isArray(entities) || entities.some((e) => typeof e !== 'string')) throw AppError.invalid('inputs.entities_mentioned', 'must be a list of strings');
          const row = await this.repo.insertEntry({
            agent_profile_id: log.agent_profile_id,
            user_id: log.owner_user_id,
            run_id: ctx.runId || null,
            summary: summary.slice(0, 20_000),
            summary_source: 'action',
            detail_entries: details as Array<Record<string, unknown>>,
            run_context: log.run_context,
            invoked_by: ctx.principal.userId,
            team_id: log.team_id,
            strategy: log.strategy,
            playbook_id: log.playbook_id,
            entities_mentioned: (entities as string[]).slice(0, 200),
            steps_completed: 0,
            entities_discovered: 0,
            outputs_produced: [],
            connectors_called: [],
            task_status: 'complete',
            error_summary: null,
          }, ctx.receipt);
          if (ctx.receipt) ctx.receipt.completed = true;
          return { journal_entry_id: row.id, success: true };
        },
        // The entry and the call's receipt are one transaction: a repeat of the key (after a crash
        // too) is answered from the receipt, and writes no second entry.
        optimistic: true,
        replay: async (_ctx, receipt) => ({ journal_entry_id: (receipt as { journal_entry_id: string }).journal_entry_id, success: true }),
      },
      {
        name: 'query_journal',
        sideEffects: false,
        execute: async (ctx) => {
          const log = await this.agentRun(ctx);
          const limit = ctx.params.limit ?? 20;
          if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 200) throw AppError.invalid('params.limit', 'must be an integer between 1 and 200');
          const str = (k: string) => {
            const v = ctx.inputs[k];
            if (v !== undefined && v !== null && typeof v !== 'string') throw AppError.invalid(`inputs.${k}`, 'must be a string');
            return (v as string | undefined) ?? '';
          };
          const status = str('status');
          const { entries } = await this.list({ userId: ctx.principal.userId, teamIds: ctx.principal.teamIds ?? [] }, log.agent_profile_id, {
            pageSize: limit,
            pageToken: '',
            taskStatuses: status ? [status] : [],
            entity: str('entity_name'),
            dateFrom: str('date_from'),
            dateTo: str('date_to'),
            text: str('query'),
          });
          const dates = entries.map((e) => e.created_at.toISOString()).sort();
          return {
            entries: entries.map((e) => ({
              summary: e.summary,
              created_at: e.created_at.toISOString(),
              run_context: e.run_context,
              steps_completed: e.steps_completed,
              entities_discovered: e.entities_discovered,
              outputs_produced: e.outputs_produced,
              task_status: e.task_status,
            })),
            count: entries.length,
            date_range: { from: dates[0] ?? null, to: dates.at(-1) ?? null },
          };
        },
      },
    ];
  }

  private async agentRun(ctx: ActionContext) {
    const log = ctx.runId ? await this.repo.run(ctx.runId) : undefined;
    if (!log) throw new AppError('FAILED_PRECONDITION', `${ctx.action} runs only in an agent's run (run ${ctx.runId || '(none)'} was not started for an agent profile)`);
    return log;
  }

  private async scope(caller: Caller, profileId: string): Promise<JournalScope> {
    const { view } = await this.profiles.authorize(caller, profileId, 'view');
    return journalScope(caller, view.profile.user_id, await this.profileRepo.shares(profileId));
  }
}

export function entryToJson(e: JournalRow): Record<string, unknown> {
  return {
    id: e.id,
    agent_profile_id: e.agent_profile_id,
    run_id: e.run_id,
    summary: e.summary,
    summary_source: e.summary_source,
    detail_entries: e.detail_entries,
    run_context: e.run_context,
    invoked_by: e.invoked_by,
    team_id: e.team_id,
    strategy: e.strategy,
    playbook_id: e.playbook_id,
    entities_mentioned: e.entities_mentioned,
    steps_completed: e.steps_completed,
    entities_discovered: e.entities_discovered,
    outputs_produced: e.outputs_produced,
    connectors_called: e.connectors_called,
    task_status: e.task_status,
    error_summary: e.error_summary,
    created_at: e.created_at.toISOString(),
  };
}

function parseFilter(q: JournalQuery): JournalFilter {
  for (const [i, s] of q.taskStatuses.entries()) {
    if (!(JOURNAL_TASK_STATUSES as readonly string[]).includes(s)) throw AppError.invalid(`task_status[${i}]`, `unknown task status '${s}' (one of ${JOURNAL_TASK_STATUSES.join(', ')})`);
  }
  if (q.entity.length > 200) throw AppError.invalid('entity', 'is longer than 200 characters');
  return { taskStatuses: q.taskStatuses, entity: q.entity, dateFrom: date(q.dateFrom, 'date_from', false), dateTo: date(q.dateTo, 'date_to', true), text: (q.text ?? '').slice(0, 200) };
}

/** An ISO date (a whole day: from its start, to its end) or timestamp. */
function date(v: string, field: string, endOfDay: boolean): Date | null {
  if (!v) return null;
  const dayOnly = /^\d{4}-\d{2}-\d{2}$/.test(v);
  const d = new Date(dayOnly ? `${v}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : v);
  if (Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(v)) throw AppError.invalid(field, 'must be an ISO date (2026-01-31) or timestamp');
  return d;
}

function encodeToken(e: JournalRow): string {
  return Buffer.from(JSON.stringify({ c: e.created_at.toISOString(), i: e.id })).toString('base64url');
}

function decodeToken(t: string): { createdAt: string; id: string } {
  try {
    const v = JSON.parse(Buffer.from(t, 'base64url').toString()) as { c?: unknown; i?: unknown };
    if (typeof v.c === 'string' && typeof v.i === 'string' && /^[0-9a-f-]{36}$/i.test(v.i) && !Number.isNaN(Date.parse(v.c))) return { createdAt: v.c, id: v.i };
  } catch {
    /* falls through */
  }
  throw AppError.invalid('page_token', 'is not a token this list gave out');
}
