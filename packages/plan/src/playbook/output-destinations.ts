/**
 * The destinations of `route_output` and of a playbook's `output` block:
 * one schema, used by the planner when a playbook is validated (a bad config
 * is refused before any run, naming its field) and by output-router when it
 * delivers. Pure: no I/O, no clock.
 */
import { z } from 'zod';

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

/** How a destination renders the data; `xlsx` is a spreadsheet (file exports and documents). */
export const DESTINATION_FORMATS = ['markdown', 'json', 'csv', 'text', 'xlsx'] as const;
export type DestinationFormat = (typeof DESTINATION_FORMATS)[number];

export const COLUMN_TYPES = ['text', 'integer', 'number', 'boolean', 'timestamp', 'json'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface Column {
  name: string;
  type: ColumnType;
}

export interface DestinationProblem {
  field: string;
  reason: string;
}

const IDENT = /^[a-z][a-z0-9_]{0,62}$/;

/** Why `name` cannot be a workspace table or column name (lower-case identifier, ≤ 63 bytes, not `pg_…`), or undefined. */
export function identifierProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name === '') return 'must be a non-empty string';
  if (!IDENT.test(name))
    return `${JSON.stringify(name.slice(0, 80))} is not a valid identifier: use 1-63 lower-case letters, digits and underscores, starting with a letter`;
  if (name.startsWith('pg_')) return `${JSON.stringify(name)} is reserved (names starting with pg_ are PostgreSQL's)`;
  return undefined;
}

const COLUMN_ALIASES: Record<string, ColumnType> = {
  string: 'text',
  text: 'text',
  integer: 'integer',
  int: 'integer',
  number: 'number',
  float: 'number',
  real: 'number',
  boolean: 'boolean',
  bool: 'boolean',
  date: 'timestamp',
  datetime: 'timestamp',
  timestamp: 'timestamp',
  json: 'json',
  object: 'json',
  array: 'json',
};

/** Columns from a `schema_mapping` (`{column: type}`, types by name or alias, any case); problems name `<field>.<column>`. */
export function columnsFromMapping(mapping: unknown, field: string): { columns: Column[]; problems: DestinationProblem[] } {
  const problems: DestinationProblem[] = [];
  if (mapping === null || typeof mapping !== 'object' || Array.isArray(mapping)) {
    return { columns: [], problems: [{ field, reason: 'must be an object of column names to types (or "infer")' }] };
  }
  const columns: Column[] = [];
  for (const [name, raw] of Object.entries(mapping)) {
    const bad = identifierProblem(name);
    if (bad) {
      problems.push({ field: `${field}.${name}`, reason: bad });
      continue;
    }
    const type = typeof raw === 'string' ? COLUMN_ALIASES[raw.toLowerCase()] : undefined;
    if (!type) problems.push({ field: `${field}.${name}`, reason: `unknown column type ${JSON.stringify(raw)} (use ${COLUMN_TYPES.join(', ')})` });
    else columns.push({ name, type });
  }
  if (!columns.length && !problems.length) problems.push({ field, reason: 'must name at least one column' });
  return { columns, problems };
}

/** Variables of a file-name template: `{name}`; anything else between braces is a template error. */
export const TEMPLATE_VAR = /\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g;

/** Why a `filename_template` cannot render (unbalanced or malformed braces), or undefined. */
export function templateProblem(template: string): string | undefined {
  const rest = template.replace(TEMPLATE_VAR, '');
  const brace = /[{}]/.exec(rest);
  if (!brace) return undefined;
  return `has a malformed variable near position ${brace.index}: variables are {name} (letters, digits, _), e.g. {date}, {run_id}`;
}

const format = z.enum(DESTINATION_FORMATS);
const ident = (label: string) =>
  z.string().superRefine((v, ctx) => {
    const bad = identifierProblem(v);
    if (bad) ctx.addIssue({ code: 'custom', message: `${label} ${bad}` });
  });
const filenameTemplate = (fallback: string) =>
  z
    .string()
    .min(1)
    .max(300)
    .superRefine((v, ctx) => {
      const bad = templateProblem(v);
      if (bad) ctx.addIssue({ code: 'custom', message: bad });
    })
    .default(fallback);

const documentConfig = z.strictObject({
  filename_template: filenameTemplate('agent_output_{date}'),
  folder_id: z.string().min(1).optional(),
  /** A folder path (`Reports/2026`) created when missing, instead of `folder_id`. */
  folder: z.string().min(1).max(500).optional(),
  create_if_missing: z.boolean().default(true),
});

const tableConfig = z.strictObject({
  workspace_id: ident('workspace_id').default('default'),
  table_name: ident('table_name'),
  /** `{column: type}`, or `"infer"`: the columns follow the rows' shape (as `save_to_workspace`). */
  schema_mapping: z.union([z.literal('infer'), z.record(z.string(), z.unknown())]),
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
  z.strictObject({ type: z.literal('append_to_existing'), ...base, config: z.strictObject({ document_id: z.string().min(1) }) }),
  z.strictObject({ type: z.literal('data_workspace_table'), ...base, config: tableConfig }),
  z.strictObject({
    type: z.literal('knowledge_graph'),
    ...base,
    config: z
      .strictObject({
        /** Entity type of records without one (`type`/`entity_type` field); the graph resolves PERSON and ORG. */
        default_entity_type: z.preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(['PERSON', 'ORG'])).optional(),
        /** The record field holding the entity's name. */
        name_field: z.string().min(1).max(100).default('name'),
      })
      .prefault({}),
  }),
  z.strictObject({ type: z.literal('file_export'), ...base, config: z.strictObject({ filename_template: filenameTemplate('export_{date}') }).prefault({}) }),
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
        /** Where besides the in-app inbox: `email` (SMTP, to `email_to`), `channel` (a connector plugin's `send_channel_message`). */
        channels: z.array(z.enum(['in_app', 'email', 'channel'])).min(1).default(['in_app']),
        email_to: z.array(z.email()).min(1).max(50).optional(),
        /** The plugin serving `send_channel_message` (e.g. `slack-webhook`) and its channel. */
        channel_plugin: z.string().min(1).max(100).optional(),
        channel: z.string().min(1).max(200).optional(),
      })
      .superRefine((c, ctx) => {
        if (c.channels.includes('email') && !c.email_to) ctx.addIssue({ code: 'custom', path: ['email_to'], message: 'is required when channels include email' });
        if (c.channels.includes('channel') && !c.channel_plugin) ctx.addIssue({ code: 'custom', path: ['channel_plugin'], message: 'is required when channels include channel' });
      })
      .prefault({}),
  }),
]);
export type Destination = z.infer<typeof destinationSchema>;

/** A destination with its format decided and, for a table with a declared mapping, its columns. */
export type ParsedDestination = Destination & { columns?: Column[]; format: DestinationFormat };

const DEFAULT_FORMAT: Record<DestinationType, DestinationFormat> = {
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

/** Formats a destination type can deliver (a spreadsheet is a file: documents and exports). */
const XLSX_TYPES: readonly DestinationType[] = ['document', 'folder', 'file_export'];

/** Parses `destinations`; every problem names `<field>[i].…` and says why. */
export function parseDestinations(raw: unknown, field: string): { destinations: ParsedDestination[]; problems: DestinationProblem[] } {
  if (!Array.isArray(raw) || raw.length === 0) return { destinations: [], problems: [{ field, reason: 'must be a non-empty list of destinations' }] };
  const destinations: ParsedDestination[] = [];
  const problems: DestinationProblem[] = [];
  raw.forEach((d, i) => {
    const at = `${field}[${i}]`;
    const type = d && typeof d === 'object' ? (d as { type?: unknown }).type : undefined;
    if (typeof type !== 'string' || !(DESTINATION_TYPES as readonly string[]).includes(type)) {
      problems.push({ field: `${at}.type`, reason: `unknown destination type ${JSON.stringify(type)} (use ${DESTINATION_TYPES.join(', ')})` });
      return;
    }
    if (type === 'data_workspace_table' && (d as { config?: { schema_mapping?: unknown } }).config?.schema_mapping === undefined) {
      problems.push({ field: `${at}.config.schema_mapping`, reason: 'is required for a data_workspace_table destination (columns and their types, or "infer")' });
      return;
    }
    const parsed = destinationSchema.safeParse(d);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.push({ field: [at, ...issue.path.map(String)].join('.'), reason: issue.message });
      return;
    }
    const dest: ParsedDestination = { ...parsed.data, format: parsed.data.format ?? DEFAULT_FORMAT[parsed.data.type] };
    if (dest.format === 'xlsx' && !XLSX_TYPES.includes(dest.type)) {
      problems.push({ field: `${at}.format`, reason: `xlsx is a file format: only ${XLSX_TYPES.join(', ')} destinations deliver it` });
      return;
    }
    if (dest.type === 'data_workspace_table' && dest.config.schema_mapping !== 'infer') {
      const cols = columnsFromMapping(dest.config.schema_mapping, `${at}.config.schema_mapping`);
      problems.push(...cols.problems);
      const names = new Set(cols.columns.map((c) => c.name));
      for (const k of dest.config.deduplication_key ?? [])
        if (!names.has(k)) problems.push({ field: `${at}.config.deduplication_key`, reason: `${JSON.stringify(k)} is not a column of schema_mapping` });
      if (dest.config.upsert_key !== undefined && !names.has(dest.config.upsert_key))
        problems.push({ field: `${at}.config.upsert_key`, reason: `${JSON.stringify(dest.config.upsert_key)} is not a column of schema_mapping` });
      dest.columns = cols.columns;
    } else if (dest.type === 'data_workspace_table') {
      for (const k of [...(dest.config.deduplication_key ?? []), ...(dest.config.upsert_key !== undefined ? [dest.config.upsert_key] : [])]) {
        const bad = identifierProblem(k);
        if (bad) problems.push({ field: `${at}.config.${dest.config.upsert_key === k ? 'upsert_key' : 'deduplication_key'}`, reason: bad });
      }
    }
    destinations.push(dest);
  });
  return { destinations, problems };
}

/**
 * The problems of destinations written in a playbook, where values may still
 * hold `{step.field}` references resolved when the step runs: a problem at a
 * string holding a reference is left to the run (the value is not known yet).
 */
export function playbookDestinationProblems(raw: unknown, field: string): DestinationProblem[] {
  if (typeof raw === 'string') return []; // the whole list is wired from another step
  return parseDestinations(raw, field).problems.filter((p) => !holdsReference(valueAt(raw, p.field.slice(field.length))));
}

/** `{step.field}` / `{step[0]}` anywhere, or a value that is one whole `{name}` (a step's output or an input). */
const REFERENCE = /\{\{?\s*[A-Za-z_]\w*(?:\.[\w*]+|\[\d+\]|\[\*\])+\s*\}?\}|^\{\{?\s*[A-Za-z_]\w*\s*\}?\}$/;

function holdsReference(v: unknown): boolean {
  return typeof v === 'string' && REFERENCE.test(v);
}

function valueAt(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const m of path.matchAll(/\[(\d+)\]|\.([^.[\]]+)/g)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = m[1] !== undefined ? (cur as unknown[])[Number(m[1])] : (cur as Record<string, unknown>)[m[2]!];
  }
  return cur;
}
