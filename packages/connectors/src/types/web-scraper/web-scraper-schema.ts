/**
 * `web_scraper` definitions. The seed names the type (§4, §7 Tier 4 state
 * registries) and an endpoint's type-specific "extraction" but gives no
 * example, so the shape follows rest_api where it can:
 *
 *   connection:
 *     base_url: https://sos.example.gov     # every page stays on this origin
 *     user_agent: "…"                         # default identifies Agent Factory
 *     respect_robots: true                    # default
 *     delay_ms: 1000                          # between pages (default)
 *     timeout_seconds: 30                     # the whole call, all pages
 *   endpoints:
 *     search:
 *       path: /corp/search                    # {placeholders} as in rest_api
 *       parameters: [...]                     # the rest go to the query string
 *       extraction:
 *         item_selector: table.results tr     # one record per match (default: the page)
 *         fields:
 *           name: td.name                     # shorthand for {selector: td.name}
 *           url: {selector: a, attr: href}    # href/src resolve to absolute URLs
 *           filed: {selector: td.date, type: date, required: true}
 *       pagination: {next_selector: a.next, max_pages: 5}
 */
import * as cheerio from 'cheerio';
import { z } from 'zod';
import { responseMappingSchema } from '../../connector-definition.schema.js';
import type { DefinitionIssue } from '../../connector-definition.rules.js';
import { SCALAR_PARAMETER_TYPES } from '../../parameter-values.js';
import {
  boundedInt,
  checkMappedFieldNames,
  checkParameters,
  checkStaticHeaders,
  connectorSchemaOf,
  headersSchema,
  httpUrl,
  newRuleSink,
  outputSchemaField,
  parametersSchema,
  rateLimitSchema,
  text,
  timeoutSecondsSchema,
  unusedKey,
} from '../http-common/graphql-rss-web-definition.js';

export const DEFAULT_DELAY_MS = 1000;
export const DEFAULT_SCRAPER_MAX_PAGES = 5;
export const SCRAPER_MAX_PAGES_LIMIT = 50;
export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'url', 'html'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ATTR_NAME = /^[^\s"'>/=\u0000-\u001f]+$/;

const probe = cheerio.load('<p></p>');
/** A CSS selector cheerio (css-select) can run; refused with its own parse message. */
const cssSelector = text.max(1000).superRefine((selector, ctx) => {
  try {
    probe(selector);
  } catch (err) {
    ctx.addIssue({
      code: 'custom',
      message: `is not a CSS selector cheerio supports: ${err instanceof Error ? err.message : String(err)}`,
    });
  }
});

const fieldObjectSchema = z.strictObject({
  /** Within the item (default: the item element itself). */
  selector: cssSelector.optional(),
  /** Read this attribute instead of the text. */
  attr: z.string().regex(ATTR_NAME, 'must be an HTML attribute name').optional(),
  /** How the text is converted (default string; url when attr is href or src). */
  type: z.enum(FIELD_TYPES).optional(),
  /** Every match as a list instead of the first. */
  multiple: z.boolean().default(false),
  /** Items without a value for this field are skipped (e.g. table header rows). */
  required: z.boolean().default(false),
});
export type ScrapeField = z.output<typeof fieldObjectSchema>;

/** A field is a selector string or `{selector, attr, type, multiple, required}`. */
const fieldSchema = z.preprocess((v) => (typeof v === 'string' ? { selector: v } : v), fieldObjectSchema);

export const extractionSchema = z.strictObject({
  item_selector: cssSelector.optional(),
  fields: z
    .record(
      z.string().regex(FIELD_NAME, 'field names start with a letter or _ and use letters, digits or _'),
      fieldSchema,
    )
    .refine((f) => Object.keys(f).length > 0, 'must declare at least one field')
    .refine((f) => Object.keys(f).length <= 100, 'must declare at most 100 fields'),
});
export type Extraction = z.output<typeof extractionSchema>;

export const scraperPaginationSchema = z.strictObject({
  /** The link (its href) to the next page. */
  next_selector: cssSelector,
  /** Pages fetched per call, the first included. */
  max_pages: boundedInt(1, SCRAPER_MAX_PAGES_LIMIT).default(DEFAULT_SCRAPER_MAX_PAGES),
});

export const scraperConnectionSchema = z.strictObject({
  base_url: httpUrl({ allowQuery: false }),
  user_agent: z
    .string()
    .min(1, 'must not be empty')
    .max(300, 'must be at most 300 characters')
    .regex(/^[\x20-\x7e]+$/, 'must be printable ASCII')
    .optional(),
  respect_robots: z.boolean().default(true),
  delay_ms: boundedInt(0, 60_000).default(DEFAULT_DELAY_MS),
  timeout_seconds: timeoutSecondsSchema,
  headers: headersSchema,
  rate_limit: rateLimitSchema,
});

export const scraperEndpointSchema = z.strictObject({
  description: z.string().optional(),
  path: z
    .string()
    .regex(/^\//, 'must start with "/"')
    .refine(
      (p) => !/[?#]/.test(p),
      'must not contain a query string or fragment; declare query values as parameters',
    ),
  parameters: parametersSchema,
  extraction: extractionSchema,
  pagination: scraperPaginationSchema.optional(),
  response_mapping: responseMappingSchema
    .extend({
      results_path: unusedKey(
        'is not used by web_scraper connectors: extraction.item_selector selects the records',
      ),
      fields: unusedKey('is not used by web_scraper connectors: declare fields under extraction.fields'),
    })
    .optional(),
  output_schema: outputSchemaField,
});
export type ScraperEndpoint = z.output<typeof scraperEndpointSchema>;

export const webScraperConnectorSchema = connectorSchemaOf(
  'web_scraper',
  scraperConnectionSchema,
  scraperEndpointSchema,
);
export type WebScraperConnectorDefinition = z.output<typeof webScraperConnectorSchema>;

export const SCRAPER_KNOWN_KEYS = [
  'user_agent',
  'respect_robots',
  'delay_ms',
  'extraction',
  'item_selector',
  'selector',
  'attr',
  'multiple',
  'next_selector',
  'max_pages',
] as const;

/** `{name}` placeholders of a path; `problem` when braces are malformed. */
export function scraperPathPlaceholders(path: string): { names: string[] } | { problem: string } {
  const names: string[] = [];
  const re = /\{([^{}]*)\}/g;
  for (const m of path.matchAll(re)) {
    const name = m[1] ?? '';
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name))
      return { problem: `placeholder "{${name}}" is not a valid parameter name` };
    names.push(name);
  }
  if (/[{}]/.test(path.replace(re, ''))) return { problem: 'has an unbalanced "{" or "}"' };
  return { names };
}

export function checkScraperRules(def: WebScraperConnectorDefinition): {
  errors: DefinitionIssue[];
  warnings: DefinitionIssue[];
} {
  const sink = newRuleSink();
  checkStaticHeaders(def.connection.headers, 'connection.headers', sink);
  for (const name of Object.keys(def.connection.headers ?? {})) {
    if (name.toLowerCase() === 'user-agent') {
      sink.errors.push({ field: `connection.headers.${name}`, reason: 'set connection.user_agent instead' });
    }
  }
  for (const [name, endpoint] of Object.entries(def.endpoints)) {
    const at = `endpoints.${name}`;
    checkParameters(endpoint.parameters, `${at}.parameters`, sink);
    const placeholders = scraperPathPlaceholders(endpoint.path);
    if ('problem' in placeholders) sink.errors.push({ field: `${at}.path`, reason: placeholders.problem });
    else {
      for (const p of placeholders.names) {
        const index = endpoint.parameters.findIndex((q) => q.name === p);
        const param = endpoint.parameters[index];
        if (!param)
          sink.errors.push({ field: `${at}.path`, reason: `placeholder {${p}} is not a declared parameter` });
        else if (!SCALAR_PARAMETER_TYPES.has(param.type)) {
          sink.errors.push({
            field: `${at}.parameters[${index}].type`,
            reason: `"${p}" is used in the path, so it must be string, number, integer, date or boolean`,
          });
        }
      }
    }
    for (const [field, spec] of Object.entries(endpoint.extraction.fields)) {
      if (spec.type === 'html' && spec.attr !== undefined) {
        sink.errors.push({
          field: `${at}.extraction.fields.${field}.type`,
          reason: 'html reads the element markup, so it cannot be combined with attr',
        });
      }
    }
    checkMappedFieldNames(
      Object.keys(endpoint.extraction.fields),
      endpoint.response_mapping,
      endpoint.output_schema,
      at,
      'extraction.fields',
      sink,
    );
    const pages = endpoint.pagination?.max_pages ?? 1;
    const timeoutMs = (def.connection.timeout_seconds ?? 30) * 1000;
    if (pages > 1 && def.connection.delay_ms * (pages - 1) >= timeoutMs) {
      sink.warnings.push({
        field: `${at}.pagination.max_pages`,
        reason: `${pages} pages with delay_ms ${def.connection.delay_ms} cannot finish within the ${timeoutMs / 1000} s timeout; later pages will be cut off`,
      });
    }
  }
  return sink;
}
