/** Bodies and queries of the workspace routes (parsed at the boundary; errors name the field). */
import { AppError } from '@af/service-kit';
import { z } from 'zod';

const pageSize = z.coerce.number().int().min(1).max(200).optional();

export const ListDocumentsQuery = z.strictObject({
  folder_id: z.string().optional(),
  query: z.string().max(200).optional(),
  page_size: pageSize,
  page_token: z.string().max(500).optional(),
});
export const VersionQuery = z.strictObject({ version: z.coerce.number().int().min(1).optional() });
export const CreateFolderBody = z.strictObject({
  name: z.string().min(1).max(200),
  parent_id: z.string().optional(),
  team_id: z.string().min(1).max(200).optional().meta({ description: "Share this top-level folder with a team you belong to: the team's members read its documents (read_team_file, search_team_files)" }),
});

/** Text content as it is, or any content as base64; exactly one of them. */
export const UploadBody = z
  .strictObject({
    title: z.string().min(1).max(255),
    content_type: z.string().min(1).max(200),
    content: z.string().optional(),
    content_base64: z.base64().optional(),
    folder_id: z.string().optional(),
  })
  .refine((b) => (b.content === undefined) !== (b.content_base64 === undefined), {
    message: 'give exactly one of content or content_base64',
    path: ['content'],
  });

export const VersionBody = z
  .strictObject({
    content_type: z.string().min(1).max(200),
    content: z.string().optional(),
    content_base64: z.base64().optional(),
  })
  .refine((b) => (b.content === undefined) !== (b.content_base64 === undefined), {
    message: 'give exactly one of content or content_base64',
    path: ['content'],
  });

export const MoveBody = z.strictObject({ folder_id: z.string().nullable() });
export const ListNotificationsQuery = z.strictObject({
  unread_only: z.enum(['true', 'false']).optional(),
  page_size: pageSize,
  page_token: z.string().max(500).optional(),
});
export const MarkReadBody = z.strictObject({
  notification_ids: z.array(z.string()).max(500).optional(),
  all: z.boolean().optional(),
});
export const ListTodosQuery = z.strictObject({ state: z.string().max(20).optional() });
const todoDate = z.string().max(40).meta({ description: 'A date, YYYY-MM-DD' });
export const CreateTodoBody = z.strictObject({
  title: z.string().min(1).max(500),
  body: z.string().max(50_000).optional().meta({ description: 'The description (markdown)' }),
  state: z.enum(['TODO', 'NEXT', 'WAITING']).optional().meta({ description: 'TODO when not given' }),
  priority: z.enum(['A', 'B', 'C']).optional(),
  deadline: todoDate.optional().meta({ description: 'Due date, YYYY-MM-DD' }),
  scheduled: todoDate.optional(),
  tags: z.array(z.string().min(1).max(100)).max(50).optional(),
});
export const UpdateTodoBody = z.strictObject({
  state: z.enum(['TODO', 'NEXT', 'WAITING', 'DONE']).optional().meta({ description: 'DONE completes the todo; another state reopens it' }),
  priority: z.enum(['A', 'B', 'C', '']).optional().meta({ description: 'Empty clears it' }),
  deadline: todoDate.optional().meta({ description: 'Due date, YYYY-MM-DD' }),
  scheduled: todoDate.optional(),
  add_tags: z.array(z.string().min(1).max(100)).max(50).optional(),
  remove_tags: z.array(z.string().max(100)).max(50).optional(),
  add_note: z.string().max(10_000).optional(),
});
export const ListPostsQuery = z.strictObject({ thread_id: z.string().optional() });
export const TeamFilesQuery = z.strictObject({
  query: z.string().min(1).max(1000).optional(),
  folder_path: z.string().min(1).max(500).optional(),
  max_results: z.coerce.number().int().min(1).max(100).optional(),
});
export const ListRowsQuery = z.strictObject({
  page_size: z.coerce.number().int().min(1).max(1000).optional(),
  page_token: z.string().max(500).optional(),
});

/** Query keys `filter.<column>=<value>`: equality filters on a table's columns. */
export const FILTER_PREFIX = 'filter.';

/**
 * Splits a rows query into its `filter.<column>` entries and the rest. A
 * filter given twice (an array) or with an empty column name is refused
 * naming it; the columns themselves are checked by output-router against
 * the table's real columns.
 */
export function splitFilters(query: unknown): { rest: Record<string, unknown>; filters: Array<{ column: string; value: string }> } {
  const rest: Record<string, unknown> = {};
  const filters: Array<{ column: string; value: string }> = [];
  for (const [k, v] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (!k.startsWith(FILTER_PREFIX)) {
      rest[k] = v;
      continue;
    }
    const column = k.slice(FILTER_PREFIX.length);
    if (!column) throw AppError.invalid(k, 'names no column (use filter.<column>=<value>)');
    if (typeof v !== 'string') throw AppError.invalid(k, 'must be given once, as text');
    if (v.length > 1000) throw AppError.invalid(k, 'must be at most 1000 characters');
    filters.push({ column, value: v });
  }
  return { rest, filters };
}

const TableFilters = z
  .record(z.string().min(1).max(100), z.union([z.string().max(1000), z.number(), z.boolean()]))
  .meta({ description: 'Equality filters: {column: value}; the same as ?filter.<column>=<value> on the rows route' });

export const ExportTableBody = z.strictObject({
  format: z.enum(['csv', 'json', 'markdown', 'xlsx']),
  filters: TableFilters.optional(),
});

export const ListExportsQuery = z.strictObject({
  page_size: z.coerce.number().int().min(1).max(200).optional(),
  page_token: z.string().max(500).optional(),
});

/** The bytes of an upload body. */
export function bytesOf(b: {
  content?: string | undefined;
  content_base64?: string | undefined;
}): Uint8Array {
  return b.content !== undefined
    ? new TextEncoder().encode(b.content)
    : Buffer.from(b.content_base64 ?? '', 'base64');
}
