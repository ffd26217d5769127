/** Notifications (the in-app inbox), todos and team posts. Every query is scoped by owner or team. */
import { randomUUID } from 'node:crypto';
import { sqlRows, type Queryable } from '@af/service-kit';
import type { Origin } from '../domain/workspace.js';
import { isUuid } from './documents.repository.js';

export interface Notification {
  id: string;
  title: string;
  message: string;
  priority: string;
  actionUrl: string;
  actionLabel: string;
  read: boolean;
  createdAt: Date;
  source: Record<string, unknown>;
}

export interface Todo {
  id: string;
  title: string;
  body: string;
  state: string;
  priority: string;
  deadline: string | null;
  scheduled: string | null;
  tags: string[];
  notes: string[];
  targetFile: string;
  createdAt: Date;
  completedAt: Date | null;
}

export interface TeamPost {
  id: string;
  threadId: string;
  teamId: string;
  author: string;
  content: string;
  format: string;
  createdAt: Date;
  replyCount?: number;
}

const toNotification = (r: any): Notification => ({
  id: r.id,
  title: r.title,
  message: r.message,
  priority: r.priority,
  actionUrl: r.action_url,
  actionLabel: r.action_label,
  read: r.read_at !== null,
  createdAt: new Date(r.created_at),
  source: r.source ?? {},
});

const day = (v: unknown): string | null =>
  v === null || v === undefined
    ? null
    : v instanceof Date
      ? v.toISOString().slice(0, 10)
      : String(v).slice(0, 10);

const toTodo = (r: any): Todo => ({
  id: r.id,
  title: r.title,
  body: r.body,
  state: r.state,
  priority: r.priority,
  deadline: day(r.deadline),
  scheduled: day(r.scheduled),
  tags: r.tags ?? [],
  notes: r.notes ?? [],
  targetFile: r.target_file,
  createdAt: new Date(r.created_at),
  completedAt: r.completed_at ? new Date(r.completed_at) : null,
});

const toPost = (r: any): TeamPost => ({
  id: r.id,
  threadId: r.thread_id,
  teamId: r.team_id,
  author: r.author_user_id,
  content: r.content,
  format: r.format,
  createdAt: new Date(r.created_at),
  ...(r.reply_count !== undefined ? { replyCount: Number(r.reply_count) } : {}),
});

const originJson = (o?: Origin) =>
  JSON.stringify({
    ...(o?.runId ? { run_id: o.runId } : {}),
    ...(o?.nodeId ? { node_id: o.nodeId } : {}),
    ...(o?.action ? { action: o.action } : {}),
  });

export class InboxRepository {
  constructor(private readonly db: Queryable) {}

  async notify(
    n: {
      owner: string;
      title: string;
      message: string;
      priority: string;
      actionUrl?: string;
      actionLabel?: string;
      origin?: Origin;
    },
    q: Queryable = this.db,
  ): Promise<Notification> {
    const [row] = await sqlRows(
      q,
      `INSERT INTO notifications (id, owner_user_id, title, message, priority, action_url, action_label, source) VALUES ($1,$2,$3,$4,$5,$6,$7,$8) RETURNING *`,
      [
        randomUUID(),
        n.owner,
        n.title,
        n.message,
        n.priority,
        n.actionUrl ?? '',
        n.actionLabel ?? '',
        originJson(n.origin),
      ],
    );
    return toNotification(row);
  }

  async notifications(
    owner: string,
    opts: { unreadOnly: boolean; limit: number; before?: { createdAt: Date; id: string } },
  ): Promise<{ items: Notification[]; unread: number }> {
    const params: unknown[] = [owner];
    const where = ['owner_user_id = $1'];
    if (opts.unreadOnly) where.push('read_at IS NULL');
    if (opts.before) {
      params.push(opts.before.createdAt, opts.before.id);
      where.push(`(created_at, id) < ($2, $3)`);
    }
    params.push(opts.limit);
    const rows = await sqlRows(
      this.db,
      `SELECT * FROM notifications WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const [c] = await sqlRows(
      this.db,
      'SELECT count(*)::int AS n FROM notifications WHERE owner_user_id = $1 AND read_at IS NULL',
      [owner],
    );
    return { items: rows.map(toNotification), unread: c.n };
  }

  async markRead(owner: string, ids: string[] | 'all'): Promise<number> {
    const rows =
      ids === 'all'
        ? await sqlRows(
            this.db,
            'UPDATE notifications SET read_at = now() WHERE owner_user_id = $1 AND read_at IS NULL RETURNING id',
            [owner],
          )
        : await sqlRows(
            this.db,
            'UPDATE notifications SET read_at = now() WHERE owner_user_id = $1 AND id = ANY($2::uuid[]) AND read_at IS NULL RETURNING id',
            [owner, ids.filter(isUuid)],
          );
    return rows.length;
  }

  async createTodo(
    t: Omit<Todo, 'id' | 'createdAt' | 'completedAt' | 'notes'> & { owner: string },
    q: Queryable = this.db,
  ): Promise<Todo> {
    const [row] = await sqlRows(
      q,
      `INSERT INTO todos (id, owner_user_id, title, body, state, priority, deadline, scheduled, tags, target_file) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) RETURNING *`,
      [
        randomUUID(),
        t.owner,
        t.title,
        t.body,
        t.state,
        t.priority,
        t.deadline,
        t.scheduled,
        t.tags,
        t.targetFile,
      ],
    );
    return toTodo(row);
  }

  async todo(owner: string, id: string): Promise<Todo | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await sqlRows(this.db, 'SELECT * FROM todos WHERE owner_user_id = $1 AND id = $2', [
      owner,
      id,
    ]);
    return row ? toTodo(row) : undefined;
  }

  async saveTodo(owner: string, t: Todo, q: Queryable = this.db): Promise<Todo> {
    const [row] = await sqlRows(
      q,
      `UPDATE todos SET state = $3, priority = $4, deadline = $5, scheduled = $6, tags = $7, notes = $8, completed_at = $9, updated_at = now()
       WHERE owner_user_id = $1 AND id = $2 RETURNING *`,
      [owner, t.id, t.state, t.priority, t.deadline, t.scheduled, t.tags, t.notes, t.completedAt],
    );
    return toTodo(row);
  }

  /** Todos of an owner: by states (empty: all), tags (all of them), deadline, and a text query over title and body. */
  async todos(
    owner: string,
    f: { states?: string[]; tags?: string[]; deadlineBefore?: string; query?: string; limit: number },
  ): Promise<Todo[]> {
    const params: unknown[] = [owner];
    const where = ['owner_user_id = $1'];
    if (f.states?.length) where.push(`state = ANY($${params.push(f.states)}::text[])`);
    if (f.tags?.length) where.push(`tags @> $${params.push(f.tags)}::text[]`);
    if (f.deadlineBefore) where.push(`deadline < $${params.push(f.deadlineBefore)}::date`);
    if (f.query)
      where.push(
        `(title ILIKE $${params.push(`%${f.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)} OR body ILIKE $${params.length})`,
      );
    params.push(f.limit);
    return (
      await sqlRows(
        this.db,
        `SELECT * FROM todos WHERE ${where.join(' AND ')} ORDER BY created_at LIMIT $${params.length}`,
        params,
      )
    ).map(toTodo);
  }

  async post(
    p: { teamId: string; threadId?: string; author: string; content: string; format: string },
    q: Queryable = this.db,
  ): Promise<TeamPost | undefined> {
    if (p.threadId) {
      const [thread] = await sqlRows(
        q,
        'SELECT 1 FROM team_posts WHERE team_id = $1 AND thread_id = $2 LIMIT 1',
        [p.teamId, isUuid(p.threadId) ? p.threadId : null],
      );
      if (!thread) return undefined;
    }
    const id = randomUUID();
    const [row] = await sqlRows(
      q,
      'INSERT INTO team_posts (id, team_id, thread_id, author_user_id, content, format) VALUES ($1,$2,$3,$4,$5,$6) RETURNING *',
      [id, p.teamId, p.threadId ?? id, p.author, p.content, p.format],
    );
    return toPost(row);
  }

  async posts(
    teamId: string,
    f: { threadId?: string; query?: string; author?: string; from?: string; to?: string; limit: number },
  ): Promise<TeamPost[]> {
    const params: unknown[] = [teamId];
    const where = ['p.team_id = $1'];
    if (f.threadId) where.push(`p.thread_id = $${params.push(isUuid(f.threadId) ? f.threadId : null)}::uuid`);
    if (f.query)
      where.push(`p.content ILIKE $${params.push(`%${f.query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)}`);
    if (f.author) where.push(`p.author_user_id = $${params.push(f.author)}`);
    if (f.from) where.push(`p.created_at >= $${params.push(f.from)}::date`);
    if (f.to) where.push(`p.created_at < $${params.push(f.to)}::date + 1`);
    params.push(f.limit);
    const rows = await sqlRows(
      this.db,
      `SELECT p.*, (SELECT count(*) FROM team_posts r WHERE r.thread_id = p.thread_id AND r.id <> p.thread_id) AS reply_count
       FROM team_posts p WHERE ${where.join(' AND ')} ORDER BY p.created_at DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toPost);
  }
}
