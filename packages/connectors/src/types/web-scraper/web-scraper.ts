/**
 * `web_scraper` connectors (seed §4 `_create_scraper_tool`, §7 Tier 4): GET
 * a page of `connection.base_url`, extract records with CSS selectors, and
 * follow the next-page link (same origin only) up to `max_pages`, waiting
 * `delay_ms` between pages. With `respect_robots` (default) robots.txt is
 * fetched once per origin per call and disallowed paths are refused.
 * Shape of the definition: `web-scraper-schema.ts`.
 */
import { ConnectorError } from '../../connector-error.js';
import type { ConnectorTypeModule, ExecutionContext } from '../../connector-type.js';
import type { EndpointResult } from '../../response-mapping.js';
import type { ConnectorCredentials } from '../rest-api/rest-request.js';
import { toQueryValues } from '../../parameter-values.js';
import { findEndpoint, lowerCaseHeaders, resolveInputs } from '../http-common/graphql-rss-web-definition.js';
import { fetchText, withCallScope, type CallScope } from '../http-common/graphql-rss-web-http.js';
import { extractPage } from './web-scraper-extract.js';
import { parseRobots, robotsAllows, robotsProductToken, type RobotsPolicy } from './web-scraper-robots.js';
import {
  checkScraperRules,
  SCRAPER_KNOWN_KEYS,
  scraperPathPlaceholders,
  webScraperConnectorSchema,
  type ScraperEndpoint,
  type WebScraperConnectorDefinition,
} from './web-scraper-schema.js';

export const SCRAPER_DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_SCRAPER_USER_AGENT = 'AgentFactory/1.0 (+connector-runtime; web_scraper)';
const MAX_PAGE_BYTES = 5 * 1024 * 1024;
/** RFC 9309 §2.5: at least 500 KiB must be parsed; the rest may be ignored. */
const MAX_ROBOTS_BYTES = 500 * 1024;
const REFUSALS = new Set(['FAILED_PRECONDITION', 'INVALID_ARGUMENT', 'PERMISSION_DENIED']);

/** A robots.txt Crawl-delay longer than this is capped (the call's timeout bounds it anyway). */
const MAX_CRAWL_DELAY_MS = 60_000;
const HTML_TYPES = new Set([
  '',
  'text/html',
  'application/xhtml+xml',
  'text/plain',
  'application/xml',
  'text/xml',
]);

export const webScraperType: ConnectorTypeModule = {
  type: 'web_scraper',
  schema: webScraperConnectorSchema,
  knownKeys: SCRAPER_KNOWN_KEYS,
  checkRules: (def) => checkScraperRules(def as WebScraperConnectorDefinition),
  requiredCredentials: () => [],
  timeoutMs: (def) =>
    ((def as WebScraperConnectorDefinition).connection.timeout_seconds ?? SCRAPER_DEFAULT_TIMEOUT_SECONDS) *
    1000,
  execute: (def, endpoint, inputs, credentials, ctx) =>
    executeWebScraper(def as WebScraperConnectorDefinition, endpoint, inputs, credentials, ctx),
};

async function executeWebScraper(
  def: WebScraperConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>>,
  _credentials: ConnectorCredentials,
  ctx: ExecutionContext,
): Promise<EndpointResult> {
  const label = `${def.id}/${endpointName}`;
  const endpoint = findEndpoint(def, endpointName);
  const startUrl = firstPageUrl(def, endpoint, endpointName, inputs);
  const userAgent = def.connection.user_agent ?? DEFAULT_SCRAPER_USER_AGENT;
  const headers = {
    ...lowerCaseHeaders(def.connection.headers),
    accept: 'text/html, application/xhtml+xml;q=0.9, */*;q=0.5',
    'user-agent': userAgent,
  };
  const timeoutMs = (def.connection.timeout_seconds ?? SCRAPER_DEFAULT_TIMEOUT_SECONDS) * 1000;
  const result = await withCallScope(ctx, { label, timeoutMs }, (scope) =>
    crawl(scope, def, endpoint, startUrl, headers, userAgent),
  );
  for (const w of result.warnings ?? []) ctx.warn?.(w, { connector: def.id, endpoint: endpointName });
  return result;
}

/** `base_url` + the path with placeholders filled + the other parameters as the query string. */
export function firstPageUrl(
  def: WebScraperConnectorDefinition,
  endpoint: ScraperEndpoint,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>>,
): URL {
  const placeholders = scraperPathPlaceholders(endpoint.path);
  const pathNames = new Set('names' in placeholders ? placeholders.names : []);
  const values = resolveInputs(endpoint.parameters, endpointName, inputs, pathNames);
  const path = endpoint.path.replace(/\{([^{}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(values.get(name))),
  );
  const query: string[] = [];
  for (const param of endpoint.parameters) {
    if (pathNames.has(param.name) || !values.has(param.name)) continue;
    for (const v of toQueryValues(values.get(param.name))) {
      query.push(`${encodeURIComponent(param.name)}=${encodeURIComponent(v)}`);
    }
  }
  const base = def.connection.base_url.replace(/\/+$/, '');
  return new URL(`${base}${path}${query.length > 0 ? `?${query.join('&')}` : ''}`);
}

async function crawl(
  scope: CallScope,
  def: WebScraperConnectorDefinition,
  endpoint: ScraperEndpoint,
  startUrl: URL,
  headers: Record<string, string>,
  userAgent: string,
): Promise<EndpointResult> {
  const origin = startUrl.origin;
  const maxPages = endpoint.pagination?.max_pages ?? 1;
  const robots = new RobotsGate(scope, userAgent, headers);
  const results: Record<string, unknown>[] = [];
  const warnings: string[] = [];
  const skipped: Record<string, number> = {};
  const unconvertible: Record<string, number> = {};
  const visited = new Set<string>();
  let url: URL | undefined = startUrl;
  let hasMore = false;

  for (let page = 1; url && page <= maxPages; page++) {
    const pageUrl: URL = url;
    url = undefined;
    visited.add(pageUrl.toString());
    const displayUrl = `${pageUrl.origin}${pageUrl.pathname}`;
    let html: string;
    try {
      let delay = 0;
      if (def.connection.respect_robots) delay = (await robots.check(pageUrl)).delayMs;
      if (page > 1) await scope.sleep(Math.max(def.connection.delay_ms, delay));
      const res = await fetchText(scope, {
        url: pageUrl.toString(),
        displayUrl,
        headers,
        maxBytes: MAX_PAGE_BYTES,
      });
      if (!HTML_TYPES.has(res.mediaType)) {
        warnings.push(`page ${page} (${displayUrl}) is ${res.mediaType}, not HTML; no records taken from it`);
        break;
      }
      html = res.text;
    } catch (err) {
      const e = err instanceof ConnectorError ? err : scope.failure(err, displayUrl);
      // A later page failing keeps the pages already read (seed §10 "partial results").
      if (page === 1 || e.code === 'CANCELLED') throw e;
      warnings.push(`page ${page} failed, returning the first ${page - 1}: ${e.message}`);
      hasMore = true;
      break;
    }
    const extracted = extractPage(
      html,
      pageUrl.toString(),
      endpoint.extraction,
      endpoint.pagination?.next_selector,
    );
    results.push(...extracted.records);
    addCounts(skipped, extracted.skipped);
    addCounts(unconvertible, extracted.unconvertible);
    if (extracted.nextProblem) warnings.push(`page ${page}: ${extracted.nextProblem}; stopped paging`);
    if (!extracted.nextUrl) continue;
    const next = new URL(extracted.nextUrl);
    if (next.origin !== origin) {
      warnings.push(
        `page ${page}: the next-page link leads to another origin (${next.origin}); not followed`,
      );
    } else if (visited.has(next.toString())) {
      warnings.push(`page ${page}: the next-page link leads back to a page already read; stopped paging`);
    } else if (page === maxPages) {
      hasMore = true;
    } else {
      url = next;
    }
  }

  for (const [field, n] of Object.entries(skipped)) {
    warnings.push(`${n} item(s) skipped because the required field "${field}" had no value`);
  }
  for (const [field, n] of Object.entries(unconvertible)) {
    warnings.push(`${n} value(s) of field "${field}" did not fit its type and were set to null`);
  }
  const out: EndpointResult = { results, count: results.length, has_more: hasMore };
  if (warnings.length > 0) out.warnings = warnings;
  return out;
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
}

/**
 * robots.txt per origin, fetched on first use within one call (RFC 9309
 * §2.3.1: 2xx → its rules; 4xx other than 429 → no restrictions; 5xx, 429
 * or no answer → treated as "disallow everything", so the call fails).
 */
class RobotsGate {
  private readonly policies = new Map<string, Promise<RobotsPolicy>>();
  private readonly token: string;

  constructor(
    private readonly scope: CallScope,
    userAgent: string,
    private readonly headers: Record<string, string>,
  ) {
    this.token = robotsProductToken(userAgent);
  }

  /** Throws FAILED_PRECONDITION when `url` is disallowed; returns the Crawl-delay to keep. */
  async check(url: URL): Promise<{ delayMs: number }> {
    let policy = this.policies.get(url.origin);
    if (!policy) {
      policy = this.load(url.origin);
      this.policies.set(url.origin, policy);
    }
    const rules = await policy;
    const decision = robotsAllows(rules, `${url.pathname}${url.search}`);
    if (!decision.allowed) {
      const directive = `Disallow: ${decision.rule.pattern}`;
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `${this.scope.label}: ${url.origin}/robots.txt disallows ${url.pathname} for user agent "${this.token}" ` +
          `(rule "${directive}" in the ${rules.group === '*' ? '"*"' : `"${rules.group}"`} group); the page was not fetched`,
      );
    }
    const delayMs = Math.min((rules.crawlDelaySeconds ?? 0) * 1000, MAX_CRAWL_DELAY_MS);
    return { delayMs };
  }

  private async load(origin: string): Promise<RobotsPolicy> {
    const displayUrl = `${origin}/robots.txt`;
    try {
      const res = await fetchText(this.scope, {
        url: displayUrl,
        displayUrl,
        headers: { ...this.headers, accept: 'text/plain, */*;q=0.5' },
        maxBytes: MAX_ROBOTS_BYTES,
        overflow: 'truncate',
      });
      return parseRobots(res.text, this.token);
    } catch (err) {
      const status = err instanceof ConnectorError ? err.status : undefined;
      if (status !== undefined && status >= 300 && status < 500 && status !== 429) return { rules: [] };
      if (err instanceof ConnectorError && (err.code === 'TIMEOUT' || err.code === 'CANCELLED')) throw err;
      // A refusal of ours (the egress guard, a bad URL) is not an unreachable robots.txt: the page would be refused the same way.
      if (err instanceof ConnectorError && status === undefined && REFUSALS.has(err.code)) throw err;
      const why = err instanceof ConnectorError ? err.message : String(err);
      throw new ConnectorError(
        'UNAVAILABLE',
        `${this.scope.label}: ${displayUrl} could not be read, so nothing is crawled while respect_robots is on ` +
          `(RFC 9309 treats an unreachable robots.txt as disallowing everything): ${why}`,
        { ...(status !== undefined ? { status } : {}) },
      );
    }
  }
}
