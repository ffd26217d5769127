/** Answers of the workspace routes in front of output-router (/api/agent-factory/workspace). */
import { z } from 'zod';
import { component, JsonObject, nullableTimestamp, timestamp } from './common.js';

/** A download's bytes (documented under the file's own media type, not JSON). */
export const Binary = z.string().meta({ format: 'binary', description: 'The file\'s bytes' });

const nextPageToken = z.string().nullable().meta({ description: 'Pass as page_token for the next page; null on the last page' });

export const WorkspaceFolder = component(
  'WorkspaceFolder',
  z.strictObject({
    id: z.string(),
    name: z.string(),
    parent_id: z.string().nullable().meta({ description: 'null: a top-level folder' }),
    path: z.string().meta({ description: '`/`-joined names from the top, e.g. `/Reports/2026`' }),
    team_id: z.string().nullable().meta({ description: "the team this folder is shared with (its members read its documents); null: yours only" }),
    created_at: timestamp,
  }),
  { description: 'A folder of your workspace' },
);

export const WorkspaceDocument = component(
  'WorkspaceDocument',
  z.strictObject({
    id: z.string(),
    title: z.string(),
    folder_id: z.string().nullable().meta({ description: 'null: not in a folder' }),
    folder_path: z.string(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    version: z.number().int(),
    source: JsonObject.meta({ description: 'Where it came from: run_id, node_id, action' }),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  { description: 'A document of your workspace (its latest or a requested version)' },
);

export const Notification = component(
  'Notification',
  z.strictObject({
    id: z.string(),
    title: z.string(),
    message: z.string(),
    priority: z.string().meta({ description: 'low | normal | high | urgent' }),
    action_url: z.string().nullable(),
    action_label: z.string().nullable(),
    read: z.boolean(),
    source: JsonObject,
    created_at: timestamp,
  }),
  { description: 'A notification in your inbox' },
);

export const Todo = component(
  'Todo',
  z.strictObject({
    id: z.string(),
    title: z.string(),
    body: z.string(),
    state: z.string().meta({ description: 'TODO | NEXT | WAITING | DONE' }),
    priority: z.string().nullable().meta({ description: 'A | B | C, or null' }),
    deadline: z.string().nullable(),
    scheduled: z.string().nullable(),
    tags: z.array(z.string()),
    notes: z.array(z.string()),
    created_at: timestamp,
    completed_at: nullableTimestamp,
  }),
  { description: 'A todo of yours' },
);

export const TeamPost = component(
  'TeamPost',
  z.strictObject({
    id: z.string(),
    thread_id: z.string(),
    team_id: z.string(),
    author: z.string(),
    content: z.string(),
    format: z.string(),
    created_at: timestamp,
  }),
  { description: 'A post on a team\'s board' },
);

export const WorkspaceTable = component(
  'WorkspaceTable',
  z.strictObject({
    workspace_id: z.string(),
    table_name: z.string(),
    columns: z.array(z.strictObject({ name: z.string(), type: z.string().meta({ description: 'text | integer | number | boolean | timestamp | json' }) })),
    row_count: z.number().int(),
    created_at: timestamp,
  }),
  { description: 'A workspace table with its columns' },
);

export const FolderList = z.strictObject({ folders: z.array(WorkspaceFolder) });
export const FolderCreated = z.strictObject({
  folder: WorkspaceFolder,
  created: z.boolean().meta({ description: 'false: the folder already existed under that parent (status 200)' }),
});
export const DocumentList = z.strictObject({ documents: z.array(WorkspaceDocument), next_page_token: nextPageToken });
export const DocumentDetail = z.strictObject({
  document: WorkspaceDocument,
  version: z.number().int().meta({ description: 'The version read' }),
  content: z.string().nullable().meta({ description: 'The text for text/* and application/json documents; null otherwise (use /download)' }),
});
export const DocumentAnswer = z.strictObject({ document: WorkspaceDocument });
export const TeamFile = component(
  'TeamFile',
  z.strictObject({
    document: WorkspaceDocument,
    author: z.string().meta({ description: "The user id of the document's owner" }),
    snippet: z.string().meta({ description: 'With ?query=: the text around the first match; empty otherwise' }),
    score: z.number().meta({ description: 'With ?query=: title words count 3, each occurrence in the text 1; 0 otherwise' }),
  }),
  { description: "A document in a team's shared folders" },
);
export const TeamFileList = z.strictObject({ files: z.array(TeamFile) });
export const TeamFileDetail = z.strictObject({
  file: TeamFile,
  content: z.string().nullable().meta({ description: 'The text for text/* and application/json documents; null otherwise' }),
});
export const NotificationList = z.strictObject({
  notifications: z.array(Notification),
  unread_count: z.number().int(),
  next_page_token: nextPageToken,
});
export const NotificationsMarked = z.strictObject({ marked: z.number().int().meta({ description: 'How many notifications were marked read' }) });
export const TodoList = z.strictObject({ todos: z.array(Todo) });
export const TodoAnswer = z.strictObject({ todo: Todo });
export const TodoUpdated = z.strictObject({
  todo: Todo,
  updated_fields: z.array(z.string()).meta({ description: 'The fields this change set' }),
});
export const TeamPostList = z.strictObject({ posts: z.array(TeamPost) });
export const WorkspaceTableList = z.strictObject({ tables: z.array(WorkspaceTable) });
export const WorkspaceTableRows = z.strictObject({
  table: WorkspaceTable,
  rows: z.array(JsonObject).meta({ description: 'Each row\'s columns with _source, _query and _timestamp' }),
  next_page_token: nextPageToken,
});

export const WorkspaceExport = component(
  'WorkspaceExport',
  z.strictObject({
    export_id: z.string(),
    filename: z.string(),
    format: z.string().meta({ description: 'csv | json | markdown | xlsx | text' }),
    size_bytes: z.number().int(),
    created_at: timestamp,
    expires_at: timestamp.meta({ description: 'The download link works until then (409 after)' }),
    expired: z.boolean(),
    download_url: z.string().meta({ description: 'GET it (with your token) for the file' }),
  }),
  { description: 'A file exported from the workspace, with its expiring download link' },
);
export const ExportCreated = z.strictObject({
  export_id: z.string(),
  filename: z.string(),
  download_url: z.string(),
  expires_at: timestamp,
  format: z.string(),
  size_bytes: z.number().int(),
  row_count: z.number().int().meta({ description: 'Rows written to the file' }),
});
export const ExportList = z.strictObject({ exports: z.array(WorkspaceExport), next_page_token: nextPageToken });
