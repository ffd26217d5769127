/** The OutputService: the workspace as the gateway's routes see it. Another user's ids are NOT_FOUND. */
import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { output } from '@af/contracts';
import { AppError, sqlRows } from '@af/service-kit';
import type { Documents } from '../app/documents.js';
import { TableExports, type ExportView } from '../app/table-exports.js';
import { TeamFiles } from '../app/team-files.js';
import { createTodo, NewTodoInputs, NewTodoParams, TodoPatch, todoOrFail, updateTodo } from '../app/todos.js';
import { parse } from '../app/parse.js';
import type { InboxRepository } from '../infra/inbox.repository.js';
import { isUuid } from '../infra/documents.repository.js';
import type { WorkspaceTables } from '../infra/workspace-tables.js';
import {
  decodeToken,
  encodeToken,
  pageSize,
  principalOf,
  toWireDocument,
  toWireFolder,
  toWireNotification,
  toWirePost,
  toWireTable,
  toWireTodo,
} from './output.mapper.js';

const DEPS = Symbol('OutputDeps');

interface Deps {
  documents: Documents;
  inbox: InboxRepository;
  tables: WorkspaceTables;
  /** Table exports: the most rows one holds, and how long its link works. */
  exportLimits?: { maxRows: number; ttlSeconds: number };
}

const toWireExport = (e: ExportView): output.ExportInfo => ({ ...e, sizeBytes: String(e.sizeBytes) });

const notFound = (what: string, id: string, field: string) =>
  new AppError('NOT_FOUND', `${what} ${id} not found`, { violations: [{ field, reason: 'not found' }] });

/** A todo id as given: todo ids are UUIDs, anything else is refused naming the field. */
const todoId = (id: string) => {
  if (!isUuid(id)) throw AppError.invalid('todo_id', 'must be a todo id (a UUID)');
  return id;
};

@Controller()
@output.OutputServiceControllerMethods()
export class OutputController implements output.OutputServiceController {
  private readonly exports: TableExports;

  constructor(@Inject(DEPS) private readonly d: Deps) {
    this.exports = new TableExports(d.documents, d.tables, d.exportLimits ?? { maxRows: 50_000, ttlSeconds: 86_400 });
  }

  private async tableOrFail(principal: output.ListTableRowsRequest['principal'], workspaceId: string, tableName: string) {
    const t = await this.d.tables.info(principalOf(principal).userId, workspaceId || 'default', tableName);
    if (!t) throw notFound('table', tableName, 'table_name');
    return t;
  }

  async listFolders(req: output.ListFoldersRequest): Promise<output.ListFoldersResponse> {
    return {
      folders: (await this.d.documents.repo.listFolders(principalOf(req.principal).userId)).map(toWireFolder),
    };
  }

  async createFolder(req: output.CreateFolderRequest): Promise<output.CreateFolderResponse> {
    const principal = principalOf(req.principal);
    const owner = principal.userId;
    const name = req.name.trim();
    if (!name || name.includes('/') || name === '.' || name === '..' || name.length > 200)
      throw AppError.invalid('name', 'must be 1-200 characters without "/"');
    const parent = req.parentId
      ? await this.d.documents.folderOrFail(owner, req.parentId, 'parent_id')
      : null;
    const teamId = req.teamId?.trim() ?? '';
    if (teamId && parent) throw AppError.invalid('team_id', 'is for a top-level folder; a sub-folder belongs to its parent\'s team');
    // Sharing with a team one is not a member of: that team does not exist for the caller.
    if (teamId && !principal.teamIds.includes(teamId))
      throw new AppError('NOT_FOUND', `team_id: team ${teamId} not found`, { violations: [{ field: 'team_id', reason: 'not found' }] });
    const { folder, created } = await this.d.documents.repo.ensureFolder(owner, name, parent, undefined, teamId || null);
    return { folder: toWireFolder(folder), created };
  }

  async deleteFolder(req: output.DeleteFolderRequest): Promise<output.DeleteFolderResponse> {
    const r = await this.d.documents.repo.deleteFolder(principalOf(req.principal).userId, req.folderId);
    if (r === 'not_found') throw notFound('folder', req.folderId, 'folder_id');
    if (r === 'not_empty') throw new AppError('FAILED_PRECONDITION', `folder ${req.folderId} is not empty`);
    return {};
  }

  async listDocuments(req: output.ListDocumentsRequest): Promise<output.ListDocumentsResponse> {
    const owner = principalOf(req.principal).userId;
    if (req.folderId) await this.d.documents.folderOrFail(owner, req.folderId, 'folder_id');
    const limit = pageSize(req.pageSize);
    const before = decodeToken(req.pageToken);
    const docs = await this.d.documents.repo.listDocuments(owner, {
      ...(req.folderId ? { folderId: req.folderId } : {}),
      ...(req.query ? { query: req.query } : {}),
      limit: limit + 1,
      ...(before ? { before } : {}),
    });
    const page = docs.slice(0, limit);
    const last = page[page.length - 1];
    return {
      documents: page.map(toWireDocument),
      nextPageToken: docs.length > limit && last ? encodeToken(last.createdAt, last.id) : '',
    };
  }

  async getDocument(req: output.GetDocumentRequest): Promise<output.GetDocumentResponse> {
    const got = await this.d.documents.repo.content(
      principalOf(req.principal).userId,
      req.documentId,
      req.version,
    );
    if (!got)
      throw notFound(
        req.version ? `version ${req.version} of document` : 'document',
        req.documentId,
        'document_id',
      );
    return { document: toWireDocument(got.meta), content: got.content, version: got.version };
  }

  async uploadDocument(req: output.UploadDocumentRequest): Promise<output.UploadDocumentResponse> {
    const owner = principalOf(req.principal).userId;
    const doc = await this.d.documents.upload({
      owner,
      title: req.title,
      contentType: req.contentType,
      content: req.content,
      ...(req.folderId ? { folderId: req.folderId } : {}),
      ...(req.documentId ? { documentId: req.documentId } : {}),
      origin: { action: 'upload' },
    });
    return { document: toWireDocument(doc) };
  }

  async moveDocument(req: output.MoveDocumentRequest): Promise<output.MoveDocumentResponse> {
    const owner = principalOf(req.principal).userId;
    await this.d.documents.docOrFail(owner, req.documentId);
    const folder = req.folderId
      ? await this.d.documents.folderOrFail(owner, req.folderId, 'folder_id')
      : null;
    return {
      document: toWireDocument(
        (await this.d.documents.repo.move(owner, req.documentId, folder?.id ?? null))!,
      ),
    };
  }

  async deleteDocument(req: output.DeleteDocumentRequest): Promise<output.DeleteDocumentResponse> {
    if (!(await this.d.documents.repo.delete(principalOf(req.principal).userId, req.documentId)))
      throw notFound('document', req.documentId, 'document_id');
    return {};
  }

  async listNotifications(req: output.ListNotificationsRequest): Promise<output.ListNotificationsResponse> {
    const limit = pageSize(req.pageSize);
    const before = decodeToken(req.pageToken);
    const { items, unread } = await this.d.inbox.notifications(principalOf(req.principal).userId, {
      unreadOnly: req.unreadOnly,
      limit: limit + 1,
      ...(before ? { before } : {}),
    });
    const page = items.slice(0, limit);
    const last = page[page.length - 1];
    return {
      notifications: page.map(toWireNotification),
      unreadCount: unread,
      nextPageToken: items.length > limit && last ? encodeToken(last.createdAt, last.id) : '',
    };
  }

  async markNotificationsRead(
    req: output.MarkNotificationsReadRequest,
  ): Promise<output.MarkNotificationsReadResponse> {
    if (!req.all && !req.notificationIds.length)
      throw AppError.invalid('notification_ids', 'name at least one notification, or set all');
    return {
      marked: await this.d.inbox.markRead(
        principalOf(req.principal).userId,
        req.all ? 'all' : req.notificationIds,
      ),
    };
  }

  async listTodos(req: output.ListTodosRequest): Promise<output.ListTodosResponse> {
    const state = req.state.toUpperCase();
    if (state && state !== 'ALL' && !['TODO', 'NEXT', 'WAITING', 'DONE'].includes(state))
      throw AppError.invalid('state', 'must be TODO, NEXT, WAITING, DONE or all');
    const todos = await this.d.inbox.todos(principalOf(req.principal).userId, {
      ...(state && state !== 'ALL' ? { states: [state] } : {}),
      limit: 500,
    });
    return { todos: todos.map(toWireTodo) };
  }

  async createTodo(req: output.CreateTodoRequest): Promise<output.CreateTodoResponse> {
    const fields = {
      title: req.title,
      body: req.body,
      ...(req.state ? { state: req.state } : {}),
      ...(req.priority ? { priority: req.priority } : {}),
      ...(req.deadline ? { deadline: req.deadline } : {}),
      ...(req.scheduled ? { scheduled: req.scheduled } : {}),
      tags: req.tags,
    };
    // The same fields and checks as create_todo (its inputs and params), named without a prefix.
    const i = parse(NewTodoInputs, fields, '');
    const p = parse(NewTodoParams, fields, '');
    return { todo: toWireTodo(await createTodo(this.d.inbox, principalOf(req.principal).userId, i, p)) };
  }

  async getTodo(req: output.GetTodoRequest): Promise<output.GetTodoResponse> {
    const id = todoId(req.todoId);
    return { todo: toWireTodo(await todoOrFail(this.d.inbox, principalOf(req.principal).userId, id, 'todo_id')) };
  }

  async updateTodo(req: output.UpdateTodoRequest): Promise<output.UpdateTodoResponse> {
    const id = todoId(req.todoId);
    const patch = parse(
      TodoPatch,
      {
        ...(req.state !== undefined ? { state: req.state.toUpperCase() } : {}),
        ...(req.priority !== undefined ? { priority: req.priority } : {}),
        ...(req.deadline !== undefined ? { deadline: req.deadline } : {}),
        ...(req.scheduled !== undefined ? { scheduled: req.scheduled } : {}),
        ...(req.addTags.length ? { add_tags: req.addTags } : {}),
        ...(req.removeTags.length ? { remove_tags: req.removeTags } : {}),
        ...(req.addNote !== undefined ? { add_note: req.addNote } : {}),
      },
      '',
    );
    const r = await updateTodo(this.d.inbox, principalOf(req.principal).userId, id, patch, 'todo_id');
    return { todo: toWireTodo(r.todo), updatedFields: r.updated };
  }

  async listTeamPosts(req: output.ListTeamPostsRequest): Promise<output.ListTeamPostsResponse> {
    const p = principalOf(req.principal);
    if (!p.teamIds.includes(req.teamId)) throw notFound('team', req.teamId, 'team_id');
    return {
      posts: (
        await this.d.inbox.posts(req.teamId, {
          ...(req.threadId ? { threadId: req.threadId } : {}),
          limit: 200,
        })
      ).map(toWirePost),
    };
  }

  async listTeamFiles(req: output.ListTeamFilesRequest): Promise<output.ListTeamFilesResponse> {
    const query = req.query?.trim() ?? '';
    if (query.length > 1000) throw AppError.invalid('query', 'must be at most 1000 characters');
    if (req.maxResults < 0 || req.maxResults > 100) throw AppError.invalid('max_results', 'must be between 1 and 100');
    const hits = await new TeamFiles(this.d.documents.repo).search(
      principalOf(req.principal),
      {
        teamId: req.teamId,
        ...(query ? { query } : {}),
        ...(req.folderPath ? { folderPath: req.folderPath } : {}),
        maxResults: req.maxResults || (query ? 10 : 100),
      },
      { team: 'team_id', query: 'query' },
    );
    return { files: hits.map((h) => ({ document: toWireDocument(h.meta), author: h.meta.author, snippet: h.snippet, score: h.score })) };
  }

  async getTeamFile(req: output.GetTeamFileRequest): Promise<output.GetTeamFileResponse> {
    const got = await new TeamFiles(this.d.documents.repo).read(principalOf(req.principal), req.teamId, req.documentId, { team: 'team_id', document: 'document_id' });
    return { file: { document: toWireDocument(got.meta), author: got.meta.author, snippet: '', score: 0 }, content: got.content };
  }

  async listTables(req: output.ListTablesRequest): Promise<output.ListTablesResponse> {
    return { tables: (await this.d.tables.list(principalOf(req.principal).userId)).map(toWireTable) };
  }

  async listTableRows(req: output.ListTableRowsRequest): Promise<output.ListTableRowsResponse> {
    const t = await this.tableOrFail(req.principal, req.workspaceId, req.tableName);
    const after = req.pageToken ? Number(Buffer.from(req.pageToken, 'base64url').toString('utf8')) : 0;
    if (!Number.isSafeInteger(after) || after < 0)
      throw AppError.invalid('page_token', 'is not a token this service issued');
    const limit = pageSize(req.pageSize, 1000, 100);
    const rows = await this.d.tables.rows(t, after, limit + 1, req.filters ?? []);
    const page = rows.slice(0, limit).map((r) => ({
      ...r,
      _id: Number(r._id),
      _timestamp: r._timestamp instanceof Date ? r._timestamp.toISOString() : r._timestamp,
    }));
    const last = page[page.length - 1];
    return {
      table: toWireTable(t),
      rows: page,
      nextPageToken: rows.length > limit && last ? Buffer.from(String(last._id)).toString('base64url') : '',
    };
  }

  async exportTable(req: output.ExportTableRequest): Promise<output.ExportTableResponse> {
    const t = await this.tableOrFail(req.principal, req.workspaceId, req.tableName);
    const r = await this.exports.export(principalOf(req.principal).userId, t, req.format, req.filters ?? []);
    return { export: toWireExport(r.export), rowCount: String(r.rowCount) };
  }

  async listExports(req: output.ListExportsRequest): Promise<output.ListExportsResponse> {
    const limit = pageSize(req.pageSize);
    const after = decodeToken(req.pageToken);
    if (after && !isUuid(after.id)) throw AppError.invalid('page_token', 'is not a token this service issued');
    const rows = await this.exports.list(principalOf(req.principal).userId, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      exports: page.map(toWireExport),
      nextPageToken: rows.length > limit && last ? encodeToken(new Date(last.createdAt), last.id) : '',
    };
  }

  async getExport(req: output.GetExportRequest): Promise<output.GetExportResponse> {
    const owner = principalOf(req.principal).userId;
    const db = this.d.documents.repo.db;
    const [row] = isUuid(req.exportId)
      ? await sqlRows(
          db,
          'SELECT filename, content_type, blob_key, expires_at, expires_at < now() AS expired FROM exports WHERE owner_user_id = $1 AND id = $2',
          [owner, req.exportId],
        )
      : [];
    if (!row) throw notFound('export', req.exportId, 'export_id');
    if (row.expired)
      throw new AppError(
        'FAILED_PRECONDITION',
        `the download link of export ${req.exportId} expired at ${new Date(row.expires_at).toISOString()}`,
      );
    return {
      filename: row.filename,
      contentType: row.content_type,
      content: await this.d.documents.repo.blobs.get(row.blob_key),
      expiresAt: new Date(row.expires_at).toISOString(),
    };
  }
}

@Module({})
export class OutputModule {
  static forRoot(deps: Deps): DynamicModule {
    return {
      module: OutputModule,
      controllers: [OutputController],
      providers: [{ provide: DEPS, useValue: deps }],
    };
  }
}
