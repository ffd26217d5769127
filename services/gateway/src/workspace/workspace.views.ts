/** Wire → JSON views of the workspace (snake_case, as the rest of the API). */
import type { z } from 'zod';
import type { output } from '@af/contracts';
import type * as R from '../http/responses/index.js';

export const folderView = (f: output.Folder): z.infer<typeof R.WorkspaceFolder> => ({
  id: f.id,
  name: f.name,
  parent_id: f.parentId || null,
  path: f.path,
  team_id: f.teamId || null,
  created_at: f.createdAt,
});

export const documentView = (d: output.Document): z.infer<typeof R.WorkspaceDocument> => ({
  id: d.id,
  title: d.title,
  folder_id: d.folderId || null,
  folder_path: d.folderPath,
  content_type: d.contentType,
  size_bytes: Number(d.sizeBytes),
  version: d.version,
  source: d.source ?? {},
  created_at: d.createdAt,
  updated_at: d.updatedAt,
});

export const teamFileView = (f: output.TeamFile): z.infer<typeof R.TeamFile> => ({
  document: documentView(f.document!),
  author: f.author,
  snippet: f.snippet,
  score: f.score,
});

export const notificationView = (n: output.Notification): z.infer<typeof R.Notification> => ({
  id: n.id,
  title: n.title,
  message: n.message,
  priority: n.priority,
  action_url: n.actionUrl || null,
  action_label: n.actionLabel || null,
  read: n.read,
  source: n.source ?? {},
  created_at: n.createdAt,
});

export const todoView = (t: output.Todo): z.infer<typeof R.Todo> => ({
  id: t.id,
  title: t.title,
  body: t.body,
  state: t.state,
  priority: t.priority || null,
  deadline: t.deadline || null,
  scheduled: t.scheduled || null,
  tags: t.tags,
  notes: t.notes,
  created_at: t.createdAt,
  completed_at: t.completedAt || null,
});

export const postView = (p: output.TeamPost): z.infer<typeof R.TeamPost> => ({
  id: p.id,
  thread_id: p.threadId,
  team_id: p.teamId,
  author: p.author,
  content: p.content,
  format: p.format,
  created_at: p.createdAt,
});

export const tableView = (t: output.WorkspaceTable): z.infer<typeof R.WorkspaceTable> => ({
  workspace_id: t.workspaceId,
  table_name: t.tableName,
  columns: t.columns,
  row_count: Number(t.rowCount),
  created_at: t.createdAt,
});

const TEXT = /^(text\/|application\/json)/;
export const isText = (contentType: string) => TEXT.test(contentType);

/** `attachment; filename="…"` with a safe ASCII fallback and the UTF-8 name (RFC 6266). */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export const exportView = (e: output.ExportInfo): z.infer<typeof R.WorkspaceExport> => ({
  export_id: e.id,
  filename: e.filename,
  format: e.format,
  size_bytes: Number(e.sizeBytes),
  created_at: e.createdAt,
  expires_at: e.expiresAt,
  expired: e.expired,
  download_url: e.downloadUrl,
});
