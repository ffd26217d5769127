/**
 * The destinations of `route_output` (and of a playbook's `output` block):
 * parsed once, every problem naming its field (`params.destinations[1].config.table_name`).
 */
import { z } from 'zod';
import { identifierProblem } from './identifiers.js';
import { columnsFromMapping, type Column } from './table-schema.js';
import { FORMATS, type Format } from './render.js';

export const DESTINATION_TYPES = [
  'chat',
  'document',
  'folder',
  'append_to_existing',
  'data_workspace_table',
  'knowledge_graph',
  'file_export',
  'webhook',
  'notification',
] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

const format = z.enum(FORMATS);
const ident = (label: string) =>
  z.string().superRefine((v, ctx) => {
    const bad = identifierProblem(v);
    if (bad) ctx.addIssue({ code: 'custom', message: `${label} ${bad}` });
  });

const documentConfig = z.strictObject({
  filename_template: z.string().min(1).max(300).default('agent_output_{date}'),
  folder_id: z.string().min(1).optional(),
  /** A folder path (`Reports/2026`) created when missing, instead of `folder_id`. */
  folder: z.string().min(1).max(500).optional(),
  create_if_missing: z.boolean().default(true),
});

const tableConfig = z.strictObject({
  workspace_id: ident('workspace_id').default('default'),
  table_name: ident('table_name'),
  schema_mapping: z.record(z.string(), z.unknown()),
  create_if_missing: z.boolean().default(true),
  deduplication_key: z.array(z.string()).min(1).optional(),
  upsert_key: z.string().optional(),
  source: z.string().max(500).optional(),
  query: z.string().max(2000).optional(),
});

const base = { condition: z.unknown().optional(), format: format.optional() };

export const destinationSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('chat'), ...base, config: z.strictObject({}).default({}) }),
  z.strictObject({ type: z.literal('document'), ...base, config: documentConfig.prefault({}) }),
  z.strictObject({ type: z.literal('folder'), ...base, config: documentConfig.prefault({}) }),
  z.strictObject({
    type: z.literal('append_to_existing'),
    ...base,
    config: z.strictObject({ document_id: z.string().min(1) }),
  }),
  z.strictObject({ type: z.literal('data_workspace_table'), ...base, config: tableConfig }),
  z.strictObject({
    type: z.literal('knowledge_graph'),
    ...base,
    config: z.record(z.string(), z.unknown()).default({}),
  }),
  z.strictObject({
    type: z.literal('file_export'),
    ...base,
    config: z
      .strictObject({ filename_template: z.string().min(1).max(300).default('export_{date}') })
      .prefault({}),
  }),
  z.strictObject({
    type: z.literal('webhook'),
    ...base,
    config: z.strictObject({
      url: z.url({ protocol: /^https?$/ }),
      /** Signs the body: header `X-AF-Signature: sha256=<hex HMAC of the body>`. */
      secret: z.string().min(16).optional(),
    }),
  }),
  z.strictObject({
    type: z.literal('notification'),
    ...base,
    config: z
      .strictObject({
        title: z.string().max(200).default('Output ready'),
        priority: z.enum(['low', 'normal', 'high', 'urgent']).default('normal'),
      })
      .prefault({}),
  }),
]);
export type Destination = z.infer<typeof destinationSchema>;

/** A destination with its table columns resolved (data_workspace_table). */
export type ParsedDestination = Destination & { columns?: Column[]; format: Format };

export interface DestinationProblem {
  field: string;
  reason: string;
}

const DEFAULT_FORMAT: Record<DestinationType, Format> = {
  chat: 'markdown',
  document: 'markdown',
  folder: 'markdown',
  append_to_existing: 'markdown',
  data_workspace_table: 'json',
  knowledge_graph: 'json',
  file_export: 'csv',
  webhook: 'json',
  notification: 'text',
};

/** Parses `destinations`; problems name `<field>[i].…`. */
export function parseDestinations(
  raw: unknown,
  field: string,
): { destinations: ParsedDestination[]; problems: DestinationProblem[] } {
  if (!Array.isArray(raw) || raw.length === 0)
    return { destinations: [], problems: [{ field, reason: 'must be a non-empty list of destinations' }] };
  const destinations: ParsedDestination[] = [];
  const problems: DestinationProblem[] = [];
  raw.forEach((d, i) => {
    const at = `${field}[${i}]`;
    const type = d && typeof d === 'object' ? (d as { type?: unknown }).type : undefined;
    if (typeof type !== 'string' || !(DESTINATION_TYPES as readonly string[]).includes(type)) {
      problems.push({
        field: `${at}.type`,
        reason: `unknown destination type ${JSON.stringify(type)} (use ${DESTINATION_TYPES.join(', ')})`,
      });
      return;
    }
    if (
      type === 'data_workspace_table' &&
      (d as { config?: { schema_mapping?: unknown } }).config?.schema_mapping === undefined
    ) {
      problems.push({
        field: `${at}.config.schema_mapping`,
        reason: 'is required for a data_workspace_table destination',
      });
      return;
    }
    const parsed = destinationSchema.safeParse(d);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        problems.push({ field: [at, ...issue.path.map(String)].join('.'), reason: issue.message });
      return;
    }
    const dest: ParsedDestination = {
      ...parsed.data,
      format: parsed.data.format ?? DEFAULT_FORMAT[parsed.data.type],
    };
    if (dest.type === 'data_workspace_table') {
      const cols = columnsFromMapping(dest.config.schema_mapping, `${at}.config.schema_mapping`);
      problems.push(...cols.problems);
      const names = new Set(cols.columns.map((c) => c.name));
      for (const k of dest.config.deduplication_key ?? [])
        if (!names.has(k))
          problems.push({
            field: `${at}.config.deduplication_key`,
            reason: `${JSON.stringify(k)} is not a column of schema_mapping`,
          });
      if (dest.config.upsert_key !== undefined && !names.has(dest.config.upsert_key)) {
        problems.push({
          field: `${at}.config.upsert_key`,
          reason: `${JSON.stringify(dest.config.upsert_key)} is not a column of schema_mapping`,
        });
      }
      dest.columns = cols.columns;
    }
    destinations.push(dest);
  });
  return { destinations, problems };
}

/** The delivery key of destination `index` of a node: `runId:nodeId:<index>-<type>` (stable across attempts). */
export function deliveryKey(runId: string, nodeId: string, index: number, type: DestinationType): string {
  return `${runId}:${nodeId}:${index}-${type}`;
}
