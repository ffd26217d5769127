/**
 * `rss_feed` connectors (seed §4 "Type: rss_feed"): fetch the selected feeds
 * concurrently, parse RSS 2.0 / RSS 1.0 / Atom, keep items newer than
 * `since_hours`, de-duplicate, newest first, at most `max_items_per_poll`.
 *
 * A feed that fails (network, non-2xx, timeout) becomes a warning and the
 * other feeds' items are still returned; when every selected feed fails the
 * call fails. A feed that answers but is not a feed (malformed XML, HTML)
 * gives no items and a warning (seed §10 "Malformed response").
 */
import { ConnectorError, type ConnectorErrorCode } from '../../connector-error.js';
import type { ConnectorTypeModule, ExecutionContext } from '../../connector-type.js';
import { applyResponseMapping, type EndpointResult } from '../../response-mapping.js';
import type { ConnectorCredentials } from '../rest-api/rest-request.js';
import { findEndpoint, lowerCaseHeaders, resolveInputs } from '../http-common/graphql-rss-web-definition.js';
import { fetchText, withCallScope, type CallScope } from '../http-common/graphql-rss-web-http.js';
import { mergeFeedItems, parseFeed, type FeedItem } from './rss-feed-parse.js';
import {
  checkRssRules,
  endpointFeeds,
  feedName,
  MAX_ITEMS_LIMIT,
  RSS_KNOWN_KEYS,
  rssFeedConnectorSchema,
  type FeedConfig,
  type RssFeedConnectorDefinition,
} from './rss-feed-schema.js';

export const RSS_DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_FEED_USER_AGENT = 'AgentFactory/1.0 (+connector-runtime; rss_feed)';
/** Feeds fetched at the same time by one call. */
const FEED_CONCURRENCY = 4;
/** Feeds are small; a multi-megabyte "feed" is not worth buffering. */
const MAX_FEED_BYTES = 5 * 1024 * 1024;
const ACCEPT =
  'application/rss+xml, application/atom+xml, application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5';

export const rssFeedType: ConnectorTypeModule = {
  type: 'rss_feed',
  schema: rssFeedConnectorSchema,
  knownKeys: RSS_KNOWN_KEYS,
  checkRules: (def) => checkRssRules(def as RssFeedConnectorDefinition),
  requiredCredentials: () => [],
  timeoutMs: (def) =>
    ((def as RssFeedConnectorDefinition).connection.timeout_seconds ?? RSS_DEFAULT_TIMEOUT_SECONDS) * 1000,
  execute: (def, endpoint, inputs, credentials, ctx) =>
    executeRssFeed(def as RssFeedConnectorDefinition, endpoint, inputs, credentials, ctx),
};

type FeedOutcome =
  | { feed: string; items: Array<FeedItem & { feed: string }>; warning?: string }
  | { feed: string; error: ConnectorError };

async function executeRssFeed(
  def: RssFeedConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>>,
  _credentials: ConnectorCredentials,
  ctx: ExecutionContext,
): Promise<EndpointResult> {
  const label = `${def.id}/${endpointName}`;
  const endpoint = findEndpoint(def, endpointName);
  const values = resolveInputs(endpoint.parameters, endpointName, inputs);
  const feeds = selectFeeds(endpointFeeds(def, endpoint), values.get('feed_name'), endpointName);
  const sinceHours = values.get('since_hours') as number | undefined;
  if (sinceHours !== undefined && !(sinceHours > 0)) {
    throw ConnectorError.invalid('inputs.since_hours', 'must be greater than 0');
  }
  const maxItems = (values.get('max_items') as number | undefined) ?? def.connection.max_items_per_poll;
  if (maxItems < 1 || maxItems > MAX_ITEMS_LIMIT) {
    throw ConnectorError.invalid('inputs.max_items', `must be between 1 and ${MAX_ITEMS_LIMIT}`);
  }
  const headers = {
    ...lowerCaseHeaders(def.connection.headers),
    accept: ACCEPT,
    'user-agent': def.connection.user_agent ?? DEFAULT_FEED_USER_AGENT,
  };
  const timeoutMs = (def.connection.timeout_seconds ?? RSS_DEFAULT_TIMEOUT_SECONDS) * 1000;

  const outcomes = await withCallScope(ctx, { label, timeoutMs }, (scope) =>
    mapLimit(feeds, FEED_CONCURRENCY, (feed) => fetchFeed(scope, feed, headers)),
  );

  const failures = outcomes.filter((o): o is Extract<FeedOutcome, { error: ConnectorError }> => 'error' in o);
  const cancelled = failures.find((f) => f.error.code === 'CANCELLED');
  if (cancelled) throw cancelled.error;
  if (failures.length === outcomes.length) throw allFailed(label, failures);

  const warnings: string[] = [];
  const items: Array<FeedItem & { feed: string }> = [];
  for (const o of outcomes) {
    if ('error' in o) warnings.push(`feed "${o.feed}" failed: ${o.error.message}`);
    else {
      items.push(...o.items);
      if (o.warning) warnings.push(o.warning);
    }
  }
  const merged = mergeFeedItems(items, {
    maxItems,
    ...(sinceHours !== undefined ? { sinceMs: Date.now() - sinceHours * 3_600_000 } : {}),
  });
  if (merged.undated > 0) {
    warnings.push(
      `${merged.undated} item(s) carry no usable date, so since_hours could not filter them; they are included`,
    );
  }
  const records = merged.items.map(toRecord);
  const fields = endpoint.response_mapping?.fields;
  const results = fields
    ? applyResponseMapping(records.map(mappingSource(merged.items)), { fields }).results
    : records;
  const result: EndpointResult = { results, count: results.length, has_more: merged.truncated > 0 };
  if (warnings.length > 0) {
    result.warnings = warnings;
    for (const w of warnings) ctx.warn?.(w, { connector: def.id, endpoint: endpointName });
  }
  return result;
}

/** `feed_name`: "all" (or absent) for every feed, else one name or a comma-separated list. */
function selectFeeds(feeds: readonly FeedConfig[], selection: unknown, endpointName: string): FeedConfig[] {
  if (selection === undefined || selection === 'all') return [...feeds];
  const names = String(selection)
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const byName = new Map(feeds.map((f) => [feedName(f), f]));
  const unknown = names.filter((n) => !byName.has(n));
  if (names.length === 0 || unknown.length > 0) {
    throw ConnectorError.invalid(
      'inputs.feed_name',
      `${names.length === 0 ? 'names no feed' : `has no feed "${unknown.join('", "')}"`}; endpoint "${endpointName}" has all, ${[...byName.keys()].join(', ')}`,
    );
  }
  return [...new Set(names)].map((n) => byName.get(n) as FeedConfig);
}

async function fetchFeed(
  scope: CallScope,
  feed: FeedConfig,
  headers: Record<string, string>,
): Promise<FeedOutcome> {
  const name = feedName(feed);
  const url = new URL(feed.url);
  const displayUrl = `${url.origin}${url.pathname}`;
  try {
    const res = await fetchText(scope, { url: feed.url, displayUrl, headers, maxBytes: MAX_FEED_BYTES });
    const parsed = parseFeed(res.text, feed.url);
    if (!parsed.ok) {
      return {
        feed: name,
        items: [],
        warning: `feed "${name}" (${displayUrl}) ${parsed.reason}; it gave no items`,
      };
    }
    return { feed: name, items: parsed.items.map((i) => ({ ...i, feed: name })) };
  } catch (err) {
    if (err instanceof ConnectorError) return { feed: name, error: err };
    throw err;
  }
}

/** One error for "every feed failed": the shared code, else UNAVAILABLE when any is retryable. */
function allFailed(
  label: string,
  failures: ReadonlyArray<{ feed: string; error: ConnectorError }>,
): ConnectorError {
  const only = failures[0] as { feed: string; error: ConnectorError };
  if (failures.length === 1) return only.error;
  const codes = new Set(failures.map((f) => f.error.code));
  const code: ConnectorErrorCode =
    codes.size === 1
      ? only.error.code
      : failures.some((f) => f.error.retryable)
        ? 'UNAVAILABLE'
        : 'UPSTREAM_ERROR';
  const detail = failures.map((f) => `feed "${f.feed}": ${f.error.message}`).join('; ');
  return new ConnectorError(code, `${label}: every feed failed: ${detail}`, {
    retryable: failures.some((f) => f.error.retryable),
    ...(codes.size === 1 && only.error.retryAfterMs !== undefined
      ? { retryAfterMs: only.error.retryAfterMs }
      : {}),
  });
}

function toRecord(item: FeedItem & { feed: string }): Record<string, unknown> {
  return {
    title: item.title,
    link: item.link,
    published_at: item.published_at,
    updated_at: item.updated_at,
    summary: item.summary,
    author: item.author,
    guid: item.guid,
    categories: item.categories,
    feed: item.feed,
  };
}

/**
 * What `response_mapping.fields` reads: the item's own elements (so the
 * seed's `pubDate`, `description`, `category` work) overlaid with the
 * normalised fields (so `published_at`, `summary`, `feed` work for every format).
 */
function mappingSource(items: ReadonlyArray<FeedItem & { feed: string }>) {
  return (record: Record<string, unknown>, index: number): Record<string, unknown> => ({
    ...(items[index] as FeedItem).raw,
    ...record,
  });
}

/** `fn` over `items` with at most `limit` running at once; results in input order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
