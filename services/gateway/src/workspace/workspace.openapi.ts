/** The workspace routes in the OpenAPI document (served at /api/docs). */
import * as R from '../http/responses/index.js';
import type { RouteDoc } from '../http/responses/document.js';
import {
  CreateFolderBody,
  CreateTodoBody,
  ExportTableBody,
  ListExportsQuery,
  MarkReadBody,
  MoveBody,
  UpdateTodoBody,
  UploadBody,
  VersionBody,
} from './workspace.schemas.js';

const W = '/api/agent-factory/workspace';
const UNAVAILABLE = { '503': 'This deployment runs no output-router (OUTPUT_ROUTER_URL is unset)' };

export const WORKSPACE_ROUTES: RouteDoc[] = [
  {
    method: 'get',
    path: `${W}/folders`,
    response: R.FolderList,
    summary: 'Your folders with their paths',
    errors: UNAVAILABLE,
  },
  {
    method: 'post',
    path: `${W}/folders`,
    response: R.FolderCreated,
    status: ['201', '200'],
    summary: 'Create a folder (200 with created=false when it exists under that parent)',
    body: CreateFolderBody,
  },
  {
    method: 'delete',
    path: `${W}/folders/{id}`,
    summary: 'Delete an empty folder (409 when it is not empty)',
    status: '204',
  },
  {
    method: 'get',
    path: `${W}/documents`,
    response: R.DocumentList,
    summary: 'Your documents, newest first (?folder_id=&query=&page_size=&page_token=)',
  },
  {
    method: 'get',
    path: `${W}/documents/{id}`,
    response: R.DocumentDetail,
    summary: "A document's metadata and, for text, its content (?version= for an older version)",
  },
  {
    method: 'get',
    path: `${W}/documents/{id}/download`,
    response: R.Binary,
    media: '*/*',
    summary: "The document's bytes as an attachment (?version=)",
  },
  {
    method: 'post',
    path: `${W}/documents`,
    response: R.DocumentAnswer,
    summary:
      'Upload a document: text as `content` or any bytes as `content_base64`; checked content types, size limit',
    body: UploadBody,
    errors: { '413': "Larger than the workspace's file size limit" },
  },
  {
    method: 'post',
    path: `${W}/documents/{id}/versions`,
    response: R.DocumentAnswer,
    summary: 'A new version of a document (earlier versions are kept)',
    body: VersionBody,
    errors: { '413': "Larger than the workspace's file size limit" },
  },
  {
    method: 'post',
    path: `${W}/documents/{id}/move`,
    response: R.DocumentAnswer,
    summary: 'Move a document to a folder (folder_id null: out of every folder)',
    body: MoveBody,
    status: '200',
  },
  {
    method: 'delete',
    path: `${W}/documents/{id}`,
    summary: 'Delete a document and every version',
    status: '204',
  },
  {
    method: 'get',
    path: `${W}/notifications`,
    response: R.NotificationList,
    summary: 'Your notifications, newest first, with the unread count (?unread_only=true)',
  },
  {
    method: 'get',
    path: `${W}/notifications/stream`,
    summary:
      'New notifications as server-sent events (`event: notification`); send the last event id as Last-Event-ID to resume',
    frames: R.Notification,
  },
  {
    method: 'post',
    path: `${W}/notifications/read`,
    response: R.NotificationsMarked,
    summary: 'Mark notifications read ({notification_ids} or {all: true})',
    body: MarkReadBody,
    status: '200',
  },
  {
    method: 'get',
    path: `${W}/todos`,
    response: R.TodoList,
    summary: 'Your todos (?state=TODO|NEXT|WAITING|DONE|all)',
  },
  {
    method: 'post',
    path: `${W}/todos`,
    response: R.TodoAnswer,
    summary: 'Create a todo (as the create_todo action): title required; body, state, priority, deadline (due date), scheduled, tags',
    body: CreateTodoBody,
  },
  {
    method: 'get',
    path: `${W}/todos/{id}`,
    response: R.TodoAnswer,
    summary: 'One todo of yours (404 for anyone else\'s)',
  },
  {
    method: 'patch',
    path: `${W}/todos/{id}`,
    response: R.TodoUpdated,
    summary: 'Change a todo (as update_todo): state (DONE completes it), priority, deadline, scheduled, tags, a note',
    body: UpdateTodoBody,
    status: '200',
  },
  {
    method: 'get',
    path: `${W}/teams/{teamId}/posts`,
    response: R.TeamPostList,
    summary: 'Posts of a team you are a member of (?thread_id=)',
  },
  {
    method: 'get',
    path: `${W}/teams/{teamId}/files`,
    response: R.TeamFileList,
    summary: "Documents in the shared folders of a team you are a member of (404 otherwise): ?query= the best matches first (as search_team_files), else the newest; ?folder_path=, ?max_results=",
  },
  {
    method: 'get',
    path: `${W}/teams/{teamId}/files/{id}`,
    response: R.TeamFileDetail,
    summary: "A document of a team's shared folders with its text, for the team's members (404 otherwise)",
  },
  {
    method: 'get',
    path: `${W}/tables`,
    response: R.WorkspaceTableList,
    summary: 'Your workspace tables with their columns and row counts',
  },
  {
    method: 'get',
    path: `${W}/tables/{workspaceId}/{tableName}/rows`,
    response: R.WorkspaceTableRows,
    summary:
      'Rows of a workspace table in insertion order, with _source, _query, _timestamp (?page_size=&page_token=); ?filter.<column>=<value> keeps the rows whose column equals the value (compared as the column type; several filters all hold; _source and _query may be filtered too). An unknown column or a value not of the column type is 400 naming filter.<column>; another user\'s table is 404',
  },
  {
    method: 'post',
    path: `${W}/tables/{workspaceId}/{tableName}/export`,
    response: R.ExportCreated,
    body: ExportTableBody,
    summary:
      'Export a workspace table (its rows matching `filters`, as on the rows route) to csv, json, markdown or xlsx: an export with an expiring download link (400 naming format or filter.<column>; 404 for another user\'s table)',
    errors: { '409': 'More rows than OUTPUT_MAX_TABLE_ROWS match: narrow them with filters', '413': 'The file is larger than OUTPUT_MAX_FILE_BYTES' },
  },
  {
    method: 'get',
    path: `${W}/exports`,
    response: R.ExportList,
    query: ListExportsQuery,
    summary: 'Your exports (table exports and route_output file exports), newest first, expired ones marked',
  },
  {
    method: 'get',
    path: `${W}/exports/{id}/download`,
    response: R.Binary,
    media: '*/*',
    summary: 'The file of an export until its link expires (409 after)',
  },
];
