/**
 * The built-in web actions connector-runtime serves through ActionService:
 *
 * - `search_web` runs the `search` endpoint of the caller's web-search
 *   connector (category `web_search`, e.g. one made from the
 *   `tavily-web-search` template): the one named by `params.connector_id`, or
 *   the caller's only one. Results become `{title, url, snippet, source}`.
 * - `crawl_url` fetches one page through the `web_scraper` connector type
 *   (the egress guard, robots.txt respected, 5 MB page limit, the call's
 *   deadline capped at 30 s) and returns its title, text (or Markdown, by
 *   turndown), links and metadata.
 *
 * Both go through the same call pipeline as any connector call (breaker, rate
 * limits, retries, redaction), as the run's owner.
 */
import { AppError, type ActionContext, type ActionHandler } from '@af/service-kit';
import { parseConnectorDefinition, type ConnectorDefinition } from '@af/connectors';
import TurndownService from 'turndown';
import type { StoredConnector } from '../infra/connector.repository.js';
import type { Connectors } from './connectors.js';

export const WEB_SEARCH_CATEGORY = 'web_search';
export const WEB_SEARCH_TEMPLATE = 'tavily-web-search';
export const MAX_SEARCH_RESULTS = 20;
const SEARCH_TOPICS = ['general', 'news', 'finance'] as const;
const MAX_QUERY_CHARS = 400;
const MAX_CRAWL_SECONDS = 30;
const MAX_URL_CHARS = 2048;
const QUERY_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** The connector operations the web actions need. */
export type WebConnectors = Pick<Connectors, 'get' | 'list' | 'execute' | 'callOnce'>;

export function webActionHandlers(connectors: WebConnectors): ActionHandler[] {
  return [
    { name: 'search_web', sideEffects: false, execute: (ctx) => searchWeb(connectors, ctx) },
    { name: 'crawl_url', sideEffects: false, execute: (ctx) => crawlUrl(connectors, ctx) },
  ];
}

// ---- search_web -------------------------------------------------------------

function searchInputs(ctx: ActionContext): { query: string; maxResults: number; topic: string | undefined; connectorId: string } {
  const query = ctx.inputs.query;
  if (typeof query !== 'string' || query.trim() === '') throw AppError.invalid('inputs.query', 'is required: a non-empty search query');
  if (query.length > MAX_QUERY_CHARS) throw AppError.invalid('inputs.query', `must be at most ${MAX_QUERY_CHARS} characters (it has ${query.length})`);

  const rawMax = ctx.params.max_results ?? 10;
  if (typeof rawMax !== 'number' || !Number.isInteger(rawMax) || rawMax < 1 || rawMax > MAX_SEARCH_RESULTS) {
    throw AppError.invalid('params.max_results', `must be a whole number from 1 to ${MAX_SEARCH_RESULTS} (got ${JSON.stringify(rawMax)})`);
  }

  let topic: string | undefined;
  const categories = ctx.params.categories;
  if (categories !== undefined && categories !== null) {
    const list = Array.isArray(categories) ? categories : [categories];
    const bad = list.find((c) => typeof c !== 'string' || !(SEARCH_TOPICS as readonly string[]).includes(c));
    if (bad !== undefined) throw AppError.invalid('params.categories', `${JSON.stringify(bad)} is not a category web search knows; use one of ${SEARCH_TOPICS.join(', ')}`);
    if (list.length > 1) throw AppError.invalid('params.categories', `name at most one category (got ${list.length}): ${SEARCH_TOPICS.join(', ')}`);
    topic = list[0] as string | undefined;
  }

  const connectorId = ctx.params.connector_id ?? '';
  if (typeof connectorId !== 'string') throw AppError.invalid('params.connector_id', 'must be a connector id (a string)');
  return { query: query.trim(), maxResults: rawMax, topic, connectorId };
}

const isWebSearch = (c: StoredConnector) => c.definition.category === WEB_SEARCH_CATEGORY && Object.hasOwn(c.definition.endpoints ?? {}, 'search');

async function webSearchConnector(connectors: WebConnectors, userId: string, connectorId: string): Promise<StoredConnector> {
  if (connectorId) {
    const found = await connectors.get(userId, connectorId).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'NOT_FOUND') {
        throw AppError.invalid('params.connector_id', `you have no connector '${connectorId}'`, 'not_found');
      }
      throw err;
    });
    if (!isWebSearch(found)) {
      throw AppError.invalid('params.connector_id', `connector '${connectorId}' is not a web-search connector (category ${WEB_SEARCH_CATEGORY} with a "search" endpoint)`);
    }
    return found;
  }
  const candidates = (await connectors.list(userId)).filter(isWebSearch);
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) {
    const reason = `you have no web-search connector: create one from the ${WEB_SEARCH_TEMPLATE} template (POST /api/agent-factory/connectors/from-template/${WEB_SEARCH_TEMPLATE}) or name one in params.connector_id`;
    throw new AppError('FAILED_PRECONDITION', `search_web: ${reason}`, { retryable: false, violations: [{ field: 'params.connector_id', reason, code: 'no_web_search_connector' }] });
  }
  const ids = candidates.map((c) => c.definition.id).sort();
  throw AppError.invalid('params.connector_id', `you have ${ids.length} web-search connectors (${ids.join(', ')}); name one in params.connector_id`, 'ambiguous');
}

async function searchWeb(connectors: WebConnectors, ctx: ActionContext): Promise<Record<string, unknown>> {
  const input = searchInputs(ctx);
  const userId = ctx.principal.userId;
  const connector = await webSearchConnector(connectors, userId, input.connectorId);
  const id = connector.definition.id;
  const { result } = await connectors.execute({
    userId,
    connectorId: id,
    endpoint: 'search',
    inputs: { query: input.query, max_results: input.maxResults, ...(input.topic ? { topic: input.topic } : {}) },
    idempotencyKey: '',
  });
  const rows = Array.isArray(result.results) ? (result.results as Record<string, unknown>[]) : [];
  const results = rows.slice(0, input.maxResults).map((r) => ({
    title: str(r.title),
    url: str(r.url),
    snippet: str(r.snippet ?? r.content),
    source: id,
    ...(typeof r.score === 'number' ? { score: r.score } : {}),
  }));
  return { results, count: results.length, ...(Array.isArray(result.warnings) && result.warnings.length > 0 ? { warnings: result.warnings } : {}) };
}

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

// ---- crawl_url --------------------------------------------------------------

const EXTRACT_MODES = ['text', 'markdown'] as const;
type ExtractMode = (typeof EXTRACT_MODES)[number];

function crawlTarget(ctx: ActionContext): { url: URL; mode: ExtractMode } {
  const raw = ctx.inputs.url;
  if (typeof raw !== 'string' || raw.trim() === '') throw AppError.invalid('inputs.url', 'is required: an http(s) URL');
  if (raw.length > MAX_URL_CHARS) throw AppError.invalid('inputs.url', `must be at most ${MAX_URL_CHARS} characters`);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw AppError.invalid('inputs.url', `${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw AppError.invalid('inputs.url', `must be an http or https URL (got ${url.protocol.replace(/:$/, '')})`);
  if (url.username || url.password) throw AppError.invalid('inputs.url', 'must not carry a user name or password');
  const mode = ctx.params.extract_mode ?? 'text';
  if (!(EXTRACT_MODES as readonly unknown[]).includes(mode)) throw AppError.invalid('params.extract_mode', `must be "text" or "markdown" (got ${JSON.stringify(mode)})`);
  return { url, mode: mode as ExtractMode };
}

/** The body's HTML as Markdown; scripts, styles and the like dropped. */
function toMarkdown(html: string): string {
  const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'head']);
  return turndown.turndown(html).trim();
}

/** A one-page `web_scraper` definition reading `url`: title, text blocks, links and meta description. */
export function crawlDefinition(url: URL, timeoutSeconds: number, withHtml = false): ConnectorDefinition {
  const parameters: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const name of url.searchParams.keys()) {
    if (seen.has(name)) throw AppError.invalid('inputs.url', `query parameter "${name}" appears more than once; crawl_url reads URLs whose query names are unique`);
    if (!QUERY_NAME.test(name)) throw AppError.invalid('inputs.url', `query parameter "${name}" is not a name crawl_url can send (letters, digits, _, . or -)`);
    seen.add(name);
    parameters.push({ name, type: 'string', required: true });
  }
  const host = url.host.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  const parsed = parseConnectorDefinition({
    id: `crawl-${host || 'site'}`.slice(0, 60).replace(/-+$/, ''),
    name: `crawl_url ${url.host}`,
    type: 'web_scraper',
    connection: { base_url: url.origin, respect_robots: true, delay_ms: 0, timeout_seconds: timeoutSeconds },
    endpoints: {
      page: {
        path: url.pathname || '/',
        parameters,
        extraction: {
          fields: {
            title: { selector: 'title' },
            h1: { selector: 'h1' },
            description: { selector: 'meta[name="description"]', attr: 'content' },
            lang: { selector: 'html', attr: 'lang' },
            blocks: { selector: 'h1, h2, h3, h4, h5, h6, p, li, pre, blockquote, td, th, dt, dd', multiple: true },
            body: { selector: 'body' },
            ...(withHtml ? { body_html: { selector: 'body', type: 'html' } } : {}),
            links: { selector: 'a[href]', attr: 'href', type: 'url', multiple: true },
          },
        },
      },
    },
  });
  if (!parsed.ok) {
    const first = parsed.errors[0]!;
    throw AppError.invalid('inputs.url', `cannot be crawled: ${first.field} ${first.reason}`);
  }
  return parsed.definition;
}

async function crawlUrl(connectors: WebConnectors, ctx: ActionContext): Promise<Record<string, unknown>> {
  const { url, mode } = crawlTarget(ctx);
  const seconds = Math.max(1, Math.min(MAX_CRAWL_SECONDS, Math.floor((ctx.deadline - Date.now()) / 1000)));
  const def = crawlDefinition(url, seconds, mode === 'markdown');
  const inputs = Object.fromEntries(url.searchParams.entries());
  const result = await connectors.callOnce(ctx.principal.userId, def, 'page', inputs, {});
  const page = (Array.isArray(result.results) ? (result.results[0] as Record<string, unknown> | undefined) : undefined) ?? {};
  const blocks = Array.isArray(page.blocks) ? (page.blocks as unknown[]).map(str).filter(Boolean) : [];
  const content = mode === 'markdown' && page.body_html ? toMarkdown(str(page.body_html)) : blocks.length > 0 ? blocks.join('\n') : str(page.body);
  const links = [...new Set((Array.isArray(page.links) ? (page.links as unknown[]) : []).map(str).filter((l) => /^https?:/.test(l)))];
  const title = str(page.title) || str(page.h1);
  const metadata: Record<string, unknown> = { url: url.toString(), fetched_at: new Date().toISOString(), robots: 'allowed', extract_mode: mode };
  if (page.description) metadata.description = str(page.description);
  if (page.lang) metadata.lang = str(page.lang);
  if (Array.isArray(result.warnings) && result.warnings.length > 0) metadata.warnings = result.warnings;
  return { content, title, metadata, links };
}
