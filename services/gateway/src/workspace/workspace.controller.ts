/**
 * The user's workspace over HTTP, in front of output-router: documents and
 * folders (list, read, download, upload, move, delete), notifications (list,
 * mark read), todos, team posts, workspace tables and export downloads.
 * Another user's resources are 404 (output-router scopes every call by the
 * principal). Without OUTPUT_ROUTER_URL these routes answer 503.
 */
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Patch,
  Post,
  Query,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Response } from 'express';
import { output, type common } from '@af/contracts';
import { AppError, call, createGrpcClient } from '@af/service-kit';
import { AuthGuard, CurrentUser } from '../http/auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from '../http/deps.js';
import { parseBody } from '../http/validation.js';
import * as S from './workspace.schemas.js';
import {
  attachment,
  documentView,
  exportView,
  folderView,
  isText,
  notificationView,
  postView,
  tableView,
  teamFileView,
  todoView,
} from './workspace.views.js';

const clients = new WeakMap<GatewayDeps, output.OutputServiceClient>();

/** The output-router client, made once per gateway. */
export function workspaceClient(deps: GatewayDeps): output.OutputServiceClient {
  let client = clients.get(deps);
  if (!client) {
    const url = deps.kit.config.OUTPUT_ROUTER_URL;
    if (!url)
      throw new AppError(
        'UNAVAILABLE',
        'the workspace is not available: this deployment runs no output-router (OUTPUT_ROUTER_URL is unset)',
      );
    client = createGrpcClient<output.OutputServiceClient>('output', output.OUTPUT_SERVICE_NAME, url, {
      auth: deps.serviceAuth,
      readyWaitMs: deps.kit.config.UPSTREAM_WAIT_MS,
    });
    clients.set(deps, client);
  }
  return client;
}

@Controller('api/agent-factory/workspace')
@UseGuards(AuthGuard)
export class WorkspaceController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  /** A method, not a getter: the OpenAPI spec reads the prototype's members without an instance. */
  private ws() {
    return workspaceClient(this.deps);
  }

  @Get('folders')
  async folders(@CurrentUser() principal: common.Principal) {
    return { folders: (await call(this.ws().listFolders({ principal }))).folders.map(folderView) };
  }

  @Post('folders')
  async createFolder(
    @CurrentUser() principal: common.Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const b = parseBody(S.CreateFolderBody, body);
    const r = await call(this.ws().createFolder({ principal, name: b.name, parentId: b.parent_id ?? '', teamId: b.team_id ?? '' }));
    res.status(r.created ? 201 : 200);
    return { folder: folderView(r.folder!), created: r.created };
  }

  @Delete('folders/:id')
  @HttpCode(204)
  async deleteFolder(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await call(this.ws().deleteFolder({ principal, folderId: id }));
  }

  @Get('documents')
  async documents(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(S.ListDocumentsQuery, query);
    const r = await call(
      this.ws().listDocuments({
        principal,
        folderId: q.folder_id ?? '',
        query: q.query ?? '',
        pageSize: q.page_size ?? 0,
        pageToken: q.page_token ?? '',
      }),
    );
    return { documents: r.documents.map(documentView), next_page_token: r.nextPageToken || null };
  }

  /** Metadata, and the content when it is text (binary documents: use /download). */
  @Get('documents/:id')
  async document(
    @CurrentUser() principal: common.Principal,
    @Param('id') id: string,
    @Query() query: unknown,
  ) {
    const q = parseBody(S.VersionQuery, query);
    const r = await call(this.ws().getDocument({ principal, documentId: id, version: q.version ?? 0 }));
    const doc = r.document!;
    return {
      document: documentView(doc),
      version: r.version,
      content: isText(doc.contentType) ? Buffer.from(r.content).toString('utf8') : null,
    };
  }

  @Get('documents/:id/download')
  async download(
    @CurrentUser() principal: common.Principal,
    @Param('id') id: string,
    @Query() query: unknown,
    @Res() res: Response,
  ) {
    const q = parseBody(S.VersionQuery, query);
    const r = await call(this.ws().getDocument({ principal, documentId: id, version: q.version ?? 0 }));
    res.setHeader('Content-Type', r.document!.contentType);
    res.setHeader('Content-Disposition', attachment(r.document!.title));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(200).end(Buffer.from(r.content));
  }

  @Post('documents')
  async upload(
    @CurrentUser() principal: common.Principal,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const b = parseBody(S.UploadBody, body);
    const r = await call(
      this.ws().uploadDocument({
        principal,
        title: b.title,
        contentType: b.content_type,
        content: S.bytesOf(b),
        folderId: b.folder_id ?? '',
        documentId: '',
      }),
    );
    res.status(201);
    return { document: documentView(r.document!) };
  }

  @Post('documents/:id/versions')
  async newVersion(
    @CurrentUser() principal: common.Principal,
    @Param('id') id: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const b = parseBody(S.VersionBody, body);
    const r = await call(
      this.ws().uploadDocument({
        principal,
        title: '',
        contentType: b.content_type,
        content: S.bytesOf(b),
        folderId: '',
        documentId: id,
      }),
    );
    res.status(201);
    return { document: documentView(r.document!) };
  }

  @Post('documents/:id/move')
  @HttpCode(200)
  async move(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const b = parseBody(S.MoveBody, body);
    return {
      document: documentView(
        (await call(this.ws().moveDocument({ principal, documentId: id, folderId: b.folder_id ?? '' })))
          .document!,
      ),
    };
  }

  @Delete('documents/:id')
  @HttpCode(204)
  async deleteDocument(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await call(this.ws().deleteDocument({ principal, documentId: id }));
  }

  @Get('notifications')
  async notifications(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(S.ListNotificationsQuery, query);
    const r = await call(
      this.ws().listNotifications({
        principal,
        unreadOnly: q.unread_only === 'true',
        pageSize: q.page_size ?? 0,
        pageToken: q.page_token ?? '',
      }),
    );
    return {
      notifications: r.notifications.map(notificationView),
      unread_count: r.unreadCount,
      next_page_token: r.nextPageToken || null,
    };
  }

  @Post('notifications/read')
  @HttpCode(200)
  async markRead(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const b = parseBody(S.MarkReadBody, body);
    return {
      marked: (
        await call(
          this.ws().markNotificationsRead({
            principal,
            notificationIds: b.notification_ids ?? [],
            all: b.all ?? false,
          }),
        )
      ).marked,
    };
  }

  @Get('todos')
  async todos(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(S.ListTodosQuery, query);
    return {
      todos: (await call(this.ws().listTodos({ principal, state: q.state ?? '' }))).todos.map(todoView),
    };
  }

  @Post('todos')
  async createTodo(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const b = parseBody(S.CreateTodoBody, body);
    const r = await call(
      this.ws().createTodo({
        principal,
        title: b.title,
        body: b.body ?? '',
        state: b.state ?? '',
        priority: b.priority ?? '',
        deadline: b.deadline ?? '',
        scheduled: b.scheduled ?? '',
        tags: b.tags ?? [],
      }),
    );
    return { todo: todoView(r.todo!) };
  }

  @Get('todos/:id')
  async todo(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    return { todo: todoView((await call(this.ws().getTodo({ principal, todoId: id }))).todo!) };
  }

  @Patch('todos/:id')
  async updateTodo(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const b = parseBody(S.UpdateTodoBody, body);
    const r = await call(
      this.ws().updateTodo({
        principal,
        todoId: id,
        ...(b.state !== undefined ? { state: b.state } : {}),
        ...(b.priority !== undefined ? { priority: b.priority } : {}),
        ...(b.deadline !== undefined ? { deadline: b.deadline } : {}),
        ...(b.scheduled !== undefined ? { scheduled: b.scheduled } : {}),
        addTags: b.add_tags ?? [],
        removeTags: b.remove_tags ?? [],
        ...(b.add_note !== undefined ? { addNote: b.add_note } : {}),
      }),
    );
    return { todo: todoView(r.todo!), updated_fields: r.updatedFields };
  }

  @Get('teams/:teamId/posts')
  async posts(
    @CurrentUser() principal: common.Principal,
    @Param('teamId') teamId: string,
    @Query() query: unknown,
  ) {
    const q = parseBody(S.ListPostsQuery, query);
    return {
      posts: (
        await call(this.ws().listTeamPosts({ principal, teamId, threadId: q.thread_id ?? '' }))
      ).posts.map(postView),
    };
  }

  @Get('teams/:teamId/files')
  async teamFiles(@CurrentUser() principal: common.Principal, @Param('teamId') teamId: string, @Query() query: unknown) {
    const q = parseBody(S.TeamFilesQuery, query);
    const r = await call(
      this.ws().listTeamFiles({ principal, teamId, query: q.query ?? '', folderPath: q.folder_path ?? '', maxResults: q.max_results ?? 0 }),
    );
    return { files: r.files.map(teamFileView) };
  }

  @Get('teams/:teamId/files/:id')
  async teamFile(@CurrentUser() principal: common.Principal, @Param('teamId') teamId: string, @Param('id') id: string) {
    const r = await call(this.ws().getTeamFile({ principal, teamId, documentId: id }));
    const file = r.file!;
    return { file: teamFileView(file), content: isText(file.document!.contentType) ? Buffer.from(r.content).toString('utf8') : null };
  }

  @Get('tables')
  async tables(@CurrentUser() principal: common.Principal) {
    return { tables: (await call(this.ws().listTables({ principal }))).tables.map(tableView) };
  }

  @Get('tables/:workspaceId/:tableName/rows')
  async rows(
    @CurrentUser() principal: common.Principal,
    @Param('workspaceId') workspaceId: string,
    @Param('tableName') tableName: string,
    @Query() query: unknown,
  ) {
    const { rest, filters } = S.splitFilters(query);
    const q = parseBody(S.ListRowsQuery, rest);
    const r = await call(
      this.ws().listTableRows({
        principal,
        workspaceId,
        tableName,
        pageSize: q.page_size ?? 0,
        pageToken: q.page_token ?? '',
        filters,
      }),
    );
    return { table: tableView(r.table!), rows: r.rows, next_page_token: r.nextPageToken || null };
  }

  @Post('tables/:workspaceId/:tableName/export')
  async exportTable(
    @CurrentUser() principal: common.Principal,
    @Param('workspaceId') workspaceId: string,
    @Param('tableName') tableName: string,
    @Body() body: unknown,
    @Res({ passthrough: true }) res: Response,
  ) {
    const b = parseBody(S.ExportTableBody, body);
    const r = await call(
      this.ws().exportTable({
        principal,
        workspaceId,
        tableName,
        format: b.format,
        filters: Object.entries(b.filters ?? {}).map(([column, value]) => ({ column, value: String(value) })),
      }),
    );
    const e = exportView(r.export!);
    res.status(201);
    return {
      export_id: e.export_id,
      filename: e.filename,
      download_url: e.download_url,
      expires_at: e.expires_at,
      format: e.format,
      size_bytes: e.size_bytes,
      row_count: Number(r.rowCount),
    };
  }

  @Get('exports')
  async exports(@CurrentUser() principal: common.Principal, @Query() query: unknown) {
    const q = parseBody(S.ListExportsQuery, query);
    const r = await call(this.ws().listExports({ principal, pageSize: q.page_size ?? 0, pageToken: q.page_token ?? '' }));
    return { exports: r.exports.map(exportView), next_page_token: r.nextPageToken || null };
  }

  @Get('exports/:id/download')
  async exportDownload(
    @CurrentUser() principal: common.Principal,
    @Param('id') id: string,
    @Res() res: Response,
  ) {
    const r = await call(this.ws().getExport({ principal, exportId: id }));
    res.setHeader('Content-Type', r.contentType);
    res.setHeader('Content-Disposition', attachment(r.filename));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.status(200).end(Buffer.from(r.content));
  }
}
