/** Domain ⇄ wire for the OutputService, and page tokens. */
import type { output } from '@af/contracts';
import { AppError } from '@af/service-kit';
import type { DocumentMeta, Folder, Principal } from '../domain/workspace.js';
import type { Notification, TeamPost, Todo } from '../infra/inbox.repository.js';
import type { TableInfo } from '../infra/workspace-tables.js';

export const principalOf = (p: { userId?: string; teamIds?: string[] } | undefined): Principal => {
  if (!p?.userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
  return { userId: p.userId, teamIds: p.teamIds ?? [] };
};

export const toWireFolder = (f: Folder): output.Folder => ({
  id: f.id,
  name: f.name,
  parentId: f.parentId ?? '',
  path: f.path,
  createdAt: f.createdAt.toISOString(),
  teamId: f.teamId ?? '',
});

export const toWireDocument = (d: DocumentMeta): output.Document => ({
  id: d.id,
  title: d.title,
  folderId: d.folderId ?? '',
  folderPath: d.folderPath,
  contentType: d.contentType,
  sizeBytes: String(d.sizeBytes),
  version: d.version,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
  source: d.source,
});

export const toWireNotification = (n: Notification): output.Notification => ({
  id: n.id,
  title: n.title,
  message: n.message,
  priority: n.priority,
  actionUrl: n.actionUrl,
  actionLabel: n.actionLabel,
  read: n.read,
  createdAt: n.createdAt.toISOString(),
  source: n.source,
});

export const toWireTodo = (t: Todo): output.Todo => ({
  id: t.id,
  title: t.title,
  body: t.body,
  state: t.state,
  priority: t.priority,
  deadline: t.deadline ?? '',
  scheduled: t.scheduled ?? '',
  tags: t.tags,
  notes: t.notes,
  createdAt: t.createdAt.toISOString(),
  completedAt: t.completedAt?.toISOString() ?? '',
});

export const toWirePost = (p: TeamPost): output.TeamPost => ({
  id: p.id,
  threadId: p.threadId,
  teamId: p.teamId,
  author: p.author,
  content: p.content,
  format: p.format,
  createdAt: p.createdAt.toISOString(),
});

export const toWireTable = (t: TableInfo): output.WorkspaceTable => ({
  workspaceId: t.workspaceId,
  tableName: t.tableName,
  columns: t.columns,
  rowCount: String(t.rowCount),
  createdAt: t.createdAt.toISOString(),
});

/** Keyset page tokens: base64url of `<iso date>|<id>` (or of a number for table rows). */
export function encodeToken(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.toISOString()}|${id}`).toString('base64url');
}

export function decodeToken(token: string): { createdAt: Date; id: string } | undefined {
  if (!token) return undefined;
  const [at, id] = Buffer.from(token, 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  if (!id || Number.isNaN(createdAt.getTime()))
    throw AppError.invalid('page_token', 'is not a token this service issued');
  return { createdAt, id };
}

export function pageSize(n: number, max = 200, dflt = 50): number {
  if (n < 0) throw AppError.invalid('page_size', 'must not be negative');
  return Math.min(n || dflt, max);
}
