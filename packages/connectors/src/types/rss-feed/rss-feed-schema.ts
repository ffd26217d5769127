/**
 * `rss_feed` definitions (seed §4 "Type: rss_feed"): `connection.feeds` (or
 * an endpoint's own `feeds`), each a URL or `{url, name, description}`;
 * endpoints take the parameters `feed_name`, `since_hours` and `max_items`,
 * and map the normalised items with `response_mapping.fields`.
 */
import { z } from 'zod';
import { responseMappingSchema } from '../../connector-definition.schema.js';
import type { DefinitionIssue } from '../../connector-definition.rules.js';
import type { ParameterType } from '../../parameter-values.js';
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
  timeoutSecondsSchema,
  unusedKey,
} from '../http-common/graphql-rss-web-definition.js';

export const DEFAULT_MAX_ITEMS_PER_POLL = 50;
export const MAX_ITEMS_LIMIT = 1000;
const FEED_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const feedObjectSchema = z.strictObject({
  /** The feed's URL; query strings are part of many feed URLs (the seed's are). */
  url: httpUrl({ allowQuery: true }),
  /** What `feed_name` selects and each record's `feed` says; defaults to the URL's host and path. */
  name: z
    .string()
    .regex(FEED_NAME, 'must start with a letter or digit and use letters, digits, _, . or -')
    .optional(),
  description: z.string().optional(),
});
/** A feed is a URL or `{url, name, description}`. */
const feedSchema = z.preprocess((v) => (typeof v === 'string' ? { url: v } : v), feedObjectSchema);
export type FeedConfig = z.output<typeof feedObjectSchema>;

const feedListSchema = z
  .array(feedSchema)
  .min(1, 'must list at least one feed')
  .max(50, 'must list at most 50 feeds');

export const rssConnectionSchema = z.strictObject({
  feeds: feedListSchema.optional(),
  /** For schedulers and monitors; one call always fetches the feeds once. */
  poll_interval_minutes: z.number().positive('must be positive').optional(),
  /** Most records one call returns (newest first). */
  max_items_per_poll: boundedInt(1, MAX_ITEMS_LIMIT).default(DEFAULT_MAX_ITEMS_PER_POLL),
  timeout_seconds: timeoutSecondsSchema,
  headers: headersSchema,
  /** Sent as User-Agent; some feed hosts refuse anonymous clients. */
  user_agent: z.string().min(1, 'must not be empty').max(300).optional(),
});

export const rssEndpointSchema = z.strictObject({
  description: z.string().optional(),
  /** This endpoint's own feeds, instead of `connection.feeds`. */
  feeds: feedListSchema.optional(),
  parameters: parametersSchema,
  response_mapping: responseMappingSchema
    .extend({ results_path: unusedKey('is not used by rss_feed connectors: every feed item is one record') })
    .optional(),
  output_schema: outputSchemaField,
});
export type RssEndpoint = z.output<typeof rssEndpointSchema>;

export const rssFeedConnectorSchema = connectorSchemaOf('rss_feed', rssConnectionSchema, rssEndpointSchema);
export type RssFeedConnectorDefinition = z.output<typeof rssFeedConnectorSchema>;

export const RSS_KNOWN_KEYS = [
  'feeds',
  'url',
  'poll_interval_minutes',
  'max_items_per_poll',
  'user_agent',
] as const;

/** The parameters an rss_feed endpoint understands, and the types each may be declared with. */
export const RSS_PARAMETERS: Readonly<Record<string, readonly ParameterType[]>> = {
  feed_name: ['string'],
  since_hours: ['integer', 'number'],
  max_items: ['integer'],
};

/** The records' fields (what `response_mapping.fields` may read besides the raw item elements). */
export const RSS_RECORD_FIELDS = [
  'title',
  'link',
  'published_at',
  'updated_at',
  'summary',
  'author',
  'guid',
  'categories',
  'feed',
] as const;

/** Feeds of an endpoint: its own, else the connection's. */
export function endpointFeeds(def: RssFeedConnectorDefinition, endpoint: RssEndpoint): FeedConfig[] {
  return endpoint.feeds ?? def.connection.feeds ?? [];
}

/** A feed's name: as declared, else its host and path. */
export function feedName(feed: FeedConfig): string {
  if (feed.name) return feed.name;
  const url = new URL(feed.url);
  return `${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}

export function checkRssRules(def: RssFeedConnectorDefinition): {
  errors: DefinitionIssue[];
  warnings: DefinitionIssue[];
} {
  const sink = newRuleSink();
  checkStaticHeaders(def.connection.headers, 'connection.headers', sink);
  if (def.connection.feeds) checkFeedNames(def.connection.feeds, 'connection.feeds', sink.errors);
  for (const [name, endpoint] of Object.entries(def.endpoints)) {
    const at = `endpoints.${name}`;
    if (endpoint.feeds) checkFeedNames(endpoint.feeds, `${at}.feeds`, sink.errors);
    else if (!def.connection.feeds) {
      sink.errors.push({
        field: 'connection.feeds',
        reason: 'is required unless every endpoint lists its own feeds',
      });
    }
    checkParameters(endpoint.parameters, `${at}.parameters`, sink);
    endpoint.parameters.forEach((p, i) => {
      const types = Object.hasOwn(RSS_PARAMETERS, p.name) ? RSS_PARAMETERS[p.name] : undefined;
      if (!types) {
        sink.errors.push({
          field: `${at}.parameters[${i}].name`,
          reason: `"${p.name}" is not understood by rss_feed endpoints; use ${Object.keys(RSS_PARAMETERS).join(', ')}`,
        });
      } else if (!types.includes(p.type)) {
        sink.errors.push({
          field: `${at}.parameters[${i}].type`,
          reason: `must be ${types.join(' or ')} for "${p.name}"`,
        });
      }
    });
    const fields = endpoint.response_mapping?.fields;
    checkMappedFieldNames(
      fields ? Object.keys(fields) : [...RSS_RECORD_FIELDS],
      endpoint.response_mapping,
      endpoint.output_schema,
      at,
      fields ? 'response_mapping.fields' : 'the rss_feed record (title, link, published_at, …)',
      sink,
    );
  }
  // Errors about one missing connection.feeds are the same for every endpoint.
  const seen = new Set<string>();
  sink.errors = sink.errors.filter((e) => {
    const key = `${e.field}\u0000${e.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return sink;
}

function checkFeedNames(feeds: readonly FeedConfig[], at: string, errors: DefinitionIssue[]): void {
  const seen = new Set<string>();
  feeds.forEach((f, i) => {
    const name = feedName(f);
    if (name === 'all')
      errors.push({ field: `${at}[${i}].name`, reason: '"all" is reserved for every feed' });
    if (seen.has(name)) errors.push({ field: `${at}[${i}].name`, reason: `duplicate feed name "${name}"` });
    seen.add(name);
  });
}
