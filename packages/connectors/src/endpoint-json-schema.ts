/**
 * JSON Schemas of a connector's endpoints, for the planner, the composer UI
 * and LLM tool binding: inputs from the declared `parameters` (or graphql
 * `variables`), outputs as the `call_connector` result envelope whose record
 * shape comes from `output_schema`, else from what the type itself produces:
 * `response_mapping.fields`, a `web_scraper` endpoint's `extraction.fields`
 * (typed by each field's `type`, `multiple` and `required`), or for an
 * `rss_feed` endpoint without a mapping the normalised feed item
 * (`RSS_RECORD_FIELDS`). Pure; works for every connector type.
 */
import type { ConnectorDefinition } from './connector-definition.schema.js';
import { RSS_RECORD_FIELDS } from './types/rss-feed/rss-feed-schema.js';

export interface EndpointJsonSchemas {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
}

interface ParameterLike {
  name: string;
  type?: string;
  description?: string;
  required?: boolean;
  default?: unknown;
}

interface FieldLike {
  name: string;
  type: string;
  description?: string;
}

/** A `web_scraper` extraction field: a selector string, or the parsed object form. */
type ScrapeFieldLike = string | { type?: string; attr?: string; multiple?: boolean; required?: boolean };

interface EndpointLike {
  description?: string;
  parameters?: ParameterLike[];
  variables?: ParameterLike[];
  response_mapping?: { fields?: Record<string, string>; entity_type?: string };
  output_schema?: { type?: string; fields?: FieldLike[]; metadata_fields?: FieldLike[] };
  extraction?: { fields?: Record<string, ScrapeFieldLike> };
  passthrough?: boolean;
}

export function endpointJsonSchemas(def: ConnectorDefinition): EndpointJsonSchemas[] {
  return Object.entries(def.endpoints as Record<string, EndpointLike>).map(([name, ep]) => ({
    name,
    description: ep.description ?? '',
    inputSchema: inputSchemaOf([...(ep.parameters ?? []), ...(ep.variables ?? [])]),
    outputSchema: outputSchemaOf(ep, def.type),
  }));
}

export function inputSchemaOf(parameters: readonly ParameterLike[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of parameters) {
    properties[p.name] = {
      ...typeSchema(p.type ?? 'string'),
      ...(p.description ? { description: p.description } : {}),
      ...(p.default !== undefined ? { default: p.default } : {}),
    };
    if (p.required && p.default === undefined) required.push(p.name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

function outputSchemaOf(ep: EndpointLike, connectorType: string): Record<string, unknown> {
  if (ep.passthrough) return { type: 'object', description: 'the tool output, passed through unchanged' };
  const fields = ep.output_schema?.fields;
  let record: Record<string, unknown> = { type: 'object' };
  if (fields?.length) {
    record = {
      type: 'object',
      properties: Object.fromEntries(
        fields.map((f) => [
          f.name,
          { ...typeSchema(f.type), ...(f.description ? { description: f.description } : {}) },
        ]),
      ),
    };
  } else if (ep.response_mapping?.fields) {
    // Mapped fields are present on every record. Their types are unknown until a sample is seen,
    // except where an rss_feed mapping reads one of the normalised item fields as it is.
    const mapped = ep.response_mapping.fields;
    record = {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(mapped).map(([k, path]) => [
          k,
          connectorType === 'rss_feed' && isRssRecordField(path)
            ? { ...RSS_RECORD_SCHEMA[path], type: nullable(RSS_RECORD_SCHEMA[path].type) }
            : {},
        ]),
      ),
      required: Object.keys(mapped),
    };
  } else if (connectorType === 'web_scraper' && ep.extraction?.fields) {
    record = scrapedRecordSchema(ep.extraction.fields);
  } else if (connectorType === 'rss_feed') {
    record = {
      type: 'object',
      properties: { ...RSS_RECORD_SCHEMA },
      required: [...RSS_RECORD_FIELDS],
    };
  }
  if (ep.response_mapping?.entity_type) record['x-entity-type'] = ep.response_mapping.entity_type;
  const envelope: Record<string, unknown> = {
    type: 'object',
    properties: {
      results: { type: 'array', items: record },
      count: { type: 'integer', minimum: 0 },
      has_more: { type: 'boolean' },
      next_cursor: { type: 'string' },
      warnings: { type: 'array', items: { type: 'string' } },
    },
    required: ['results', 'count'],
  };
  for (const f of ep.output_schema?.metadata_fields ?? []) {
    (envelope.properties as Record<string, unknown>)[f.name] = typeSchema(f.type);
  }
  return envelope;
}

/**
 * The normalised feed item every rss_feed endpoint without a mapping returns
 * (`rss-feed-parse.ts`): text fields are null when the feed leaves them out,
 * dates are ISO 8601 date-times (UTC), `feed` names the feed it came from.
 */
const RSS_RECORD_SCHEMA: Readonly<
  Record<(typeof RSS_RECORD_FIELDS)[number], { type: unknown } & Record<string, unknown>>
> = {
  title: { type: ['string', 'null'] },
  link: { type: ['string', 'null'], description: 'absolute URL of the item' },
  published_at: {
    type: ['string', 'null'],
    description: 'ISO 8601 date-time (UTC); the update time when the feed gives no publication time',
  },
  updated_at: { type: ['string', 'null'], description: 'ISO 8601 date-time (UTC)' },
  summary: { type: ['string', 'null'], description: 'plain text (markup removed)' },
  author: { type: ['string', 'null'] },
  guid: { type: ['string', 'null'] },
  categories: { type: 'array', items: { type: 'string' } },
  feed: { type: 'string', description: 'the name of the feed the item came from' },
};

function isRssRecordField(path: string): path is (typeof RSS_RECORD_FIELDS)[number] {
  return (RSS_RECORD_FIELDS as readonly string[]).includes(path);
}

/** A mapped value may be missing (null) even where the item field itself never is. */
function nullable(type: unknown): unknown {
  if (Array.isArray(type)) return type.includes('null') ? type : [...type, 'null'];
  return [type, 'null'];
}

/** JSON Schema types of the values a web_scraper field type yields (`web-scraper-extract.ts`). */
const SCRAPED_VALUE: Readonly<Record<string, Record<string, unknown>>> = {
  string: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  date: {
    type: 'string',
    description: 'YYYY-MM-DD, or an ISO 8601 date-time when the page gives a time of day',
  },
  url: { type: 'string', description: 'absolute URL (href/src resolved against the page)' },
  html: { type: 'string', description: "the element's inner HTML" },
};

/**
 * Records of a web_scraper endpoint: every extraction field is on every
 * record. A single value is null when the page has none (or it does not
 * convert), unless the field is `required` (items without it are skipped);
 * a `multiple` field is a list of the values that converted, non-empty when
 * required.
 */
function scrapedRecordSchema(fields: Record<string, ScrapeFieldLike>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(fields)) {
    const field = typeof raw === 'string' ? {} : raw;
    const type = field.type ?? (field.attr === 'href' || field.attr === 'src' ? 'url' : 'string');
    const value = SCRAPED_VALUE[type] ?? {};
    if (field.multiple) {
      properties[name] = { type: 'array', items: value, ...(field.required ? { minItems: 1 } : {}) };
    } else if (field.required) {
      properties[name] = { ...value, ...(value.type === 'string' ? { minLength: 1 } : {}) };
    } else {
      properties[name] = { ...value, type: nullable(value.type) };
    }
  }
  return { type: 'object', properties, required: Object.keys(fields), additionalProperties: false };
}

/** Seed types (`string`, `integer[]`, `date`, `record`, …) → JSON Schema. */
export function typeSchema(type: string): Record<string, unknown> {
  if (type.endsWith('[]')) return { type: 'array', items: typeSchema(type.slice(0, -2)) };
  switch (type) {
    case 'string':
      return { type: 'string' };
    case 'number':
      return { type: 'number' };
    case 'integer':
      return { type: 'integer' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'object':
    case 'record':
      return { type: 'object' };
    case 'array':
      return { type: 'array' };
    default:
      return {};
  }
}
