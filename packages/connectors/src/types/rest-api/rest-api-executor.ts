/**
 * Executes one `rest_api` endpoint over real HTTP (seed "Dynamic Tool
 * Binding", `_create_rest_api_tool`): build the request (pure, in
 * `rest-request.ts`), add auth (an OAuth2 token from `oauth.ts` when the
 * connector uses one), send it with undici within the timeout, turn a non-2xx
 * answer into a typed ConnectorError and a 2xx body into mapped records —
 * one page, or with `pagination.type` every page up to `max_pages`
 * (`pagination.ts`), concatenated in order.
 *
 * The HTTP call is the only I/O here and is injectable (`deps.fetch`); retries,
 * rate limiting and the circuit breaker belong to the caller, which keeps
 * their state. The whole call (token requests and every page) shares one
 * deadline. Every message that leaves this module is scrubbed of the
 * credential and token values it handled.
 */
import { request as undiciRequest, type Dispatcher } from 'undici';
import type { ConnectorDefinition, Pagination, PaginationType } from '../../connector-definition.schema.js';
import { ConnectorError } from '../../connector-error.js';
import type { HttpRequestFn, HttpTextResponse, OAuthTokenCache, PageProgress } from '../../connector-type.js';
import { startDeadline, type CallDeadline } from '../../call-deadline.js';
import { describeNetworkError, errorForStatus, readBody, readResponseText, snippet } from '../../http-failure.js';
import { OAuthSession, oauthTokenKey } from '../../oauth.js';
import { createPaginator, type FetchedPage } from './pagination.js';
import { redactSecrets, scrubError as scrub } from '../../redaction.js';
import { redactResult, resultSecrets } from '../../result-redaction.js';
import { applyResponseMapping, type EndpointResult } from '../../response-mapping.js';
import {
  credentialSecrets,
  planRestRequest,
  renderRestRequest,
  type ConnectorCredentials,
  type PageOverrides,
  type RestRequest,
  type RestRequestPlan,
} from './rest-request.js';

/** Seed `_create_rest_api_tool`: `connection.get("timeout_seconds", 30)`. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
/** Responses larger than this are refused rather than buffered. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** A paginated call stops (with `has_more: true` and a warning) once its pages add up to this. */
export const DEFAULT_MAX_TOTAL_BYTES = 50 * 1024 * 1024;
const ERROR_BODY_BYTES = 4096;

export interface RestExecutorDeps {
  /** The HTTP client; undici's `request` unless a test or adapter supplies another. */
  fetch?: HttpRequestFn;
  /** Overrides `connection.timeout_seconds` (e.g. the node's remaining deadline). */
  timeoutMs?: number;
  /** Cancels the call; the error is then CANCELLED. */
  signal?: AbortSignal;
  maxResponseBytes?: number;
  /** Byte budget of all pages of a paginated call together. */
  maxTotalBytes?: number;
  /** Where `oauth2` connectors keep their tokens (required for them). */
  oauth?: OAuthTokenCache;
  /** Whose connector this is; scopes the OAuth token cache key. */
  ownerUserId?: string;
  /** The clock (epoch ms), for token expiry. */
  now?: () => number;
  /** Told after each page of a paginated call. */
  onPage?: (progress: PageProgress) => void;
}

/**
 * Calls `endpointName` of a parsed `rest_api` definition (from
 * `parseConnectorDefinition`, so defaults are filled in) with `inputs` and
 * decrypted `credentials`. Resolves to the mapped records; throws
 * ConnectorError for everything else (see `connector-error.ts` for codes).
 */
export async function executeRestEndpoint(
  def: ConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>> | undefined,
  credentials: ConnectorCredentials,
  deps: RestExecutorDeps = {},
): Promise<EndpointResult> {
  if (def.type !== 'rest_api') {
    throw new ConnectorError(
      'UNIMPLEMENTED',
      `connector "${def.id}" is of type ${def.type}, which cannot be executed yet`,
    );
  }
  let plan: RestRequestPlan;
  try {
    plan = planRestRequest(def, endpointName, inputs, credentials);
  } catch (err) {
    throw err instanceof ConnectorError ? scrub(err, credentialSecrets(credentials)) : err;
  }
  const label = `${def.id}/${endpointName}`;
  const timeoutMs = deps.timeoutMs ?? (def.connection.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new ConnectorError(
      'INVALID_ARGUMENT',
      `${label}: the timeout must be a positive number of milliseconds`,
    );
  }
  const auth = def.connection.auth;
  if (auth.type === 'oauth2' && !deps.oauth) {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `${label}: connector uses oauth2 auth, but no OAuth token store is configured for this runtime`,
    );
  }
  if (deps.signal?.aborted)
    throw new ConnectorError('CANCELLED', `${label}: cancelled before the request was sent`);

  const deadline = startDeadline(timeoutMs, deps.signal);
  const call: Call = {
    plan,
    label,
    credentials,
    deps,
    signal: deadline.signal,
    requestSignal: deadline.requestSignal,
    target: plan.displayUrl,
    session: undefined,
  };
  if (auth.type === 'oauth2') {
    call.session = new OAuthSession(
      def.id,
      auth,
      credentials,
      deps.oauth as OAuthTokenCache,
      oauthTokenKey(deps.ownerUserId, def.id, auth, credentials),
      {
        http: deps.fetch ?? undiciRequest,
        signal: deadline.signal,
        now: deps.now ?? Date.now,
        onRequest: (url) => (call.target = url),
      },
    );
  }
  const secrets = () => [...plan.secrets, ...(call.session?.secrets ?? [])];
  try {
    const pagination = plan.endpoint.pagination;
    const result =
      pagination?.type !== undefined
        ? await paginate(call, pagination as Pagination & { type: PaginationType })
        : await single(call);
    // The OAuth tokens of the call are known only here; the stored credentials are redacted
    // from every result by the call pipeline.
    return call.session ? redactResult(result, resultSecrets({}, call.session.secrets)) : result;
  } catch (err) {
    if (err instanceof ConnectorError) throw scrub(err, secrets());
    if (deadline.timedOut) {
      throw new ConnectorError(
        'TIMEOUT',
        `${label}: no complete answer from ${call.target} within ${timeoutMs} ms`,
      );
    }
    if (deps.signal?.aborted) throw new ConnectorError('CANCELLED', `${label}: cancelled by the caller`);
    throw new ConnectorError(
      'UNAVAILABLE',
      redactSecrets(`${label}: could not reach ${call.target}: ${describeNetworkError(err)}`, secrets()),
    );
  } finally {
    deadline.release();
  }
}

type RequestOptions = NonNullable<Parameters<typeof undiciRequest>[1]>;
type HttpMethodName = NonNullable<RequestOptions['method']>;

/** One call in flight. */
interface Call {
  plan: RestRequestPlan;
  label: string;
  credentials: ConnectorCredentials;
  deps: RestExecutorDeps;
  signal: AbortSignal;
  /** The same deadline as the endpoint's requests take it (see `CallDeadline.requestSignal`). */
  requestSignal: CallDeadline['requestSignal'];
  /** The display URL of the request in flight, for timeout messages. */
  target: string;
  session: OAuthSession | undefined;
}

/** A 2xx answer, read. */
interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The URL requested (secret-bearing; only for resolving relative links). */
  url: string;
  displayUrl: string;
}

/** No paging parameters (a call without runtime-driven pagination). */
const FIRST_PAGE: PageOverrides = Object.freeze({});

/** One request, no pagination loop (caller-driven pagination reads has_more / next_cursor). */
async function single(call: Call): Promise<EndpointResult> {
  const page = await fetchPage(call, FIRST_PAGE);
  const decoded = decodePage(call, page);
  if (decoded.kind === 'malformed') return { results: [], count: 0, warnings: [decoded.warning] };
  if (decoded.kind === 'empty') {
    // No content is normal for 204 and for writes; a GET that returns nothing is worth a word.
    return page.status === 204 || call.plan.method !== 'GET'
      ? { results: [], count: 0 }
      : { results: [], count: 0, warnings: ['the response body is empty; returning no records'] };
  }
  return applyResponseMapping(
    decoded.body,
    call.plan.endpoint.response_mapping,
    call.plan.endpoint.pagination,
  );
}

/** Runtime-driven pagination: every page up to `max_pages`, records concatenated in order. */
async function paginate(
  call: Call,
  pagination: Pagination & { type: PaginationType },
): Promise<EndpointResult> {
  const paginator = createPaginator(pagination, new URL(call.plan.def.connection.base_url).origin);
  const maxTotal = call.deps.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
  const results: Record<string, unknown>[] = [];
  const warnings: string[] = [];
  const warn = (w: string) => {
    if (!warnings.includes(w)) warnings.push(w);
  };
  let overrides = paginator.first();
  let pages = 0;
  let bytes = 0;
  let hasMore = false;
  for (;;) {
    const page = await fetchPage(call, overrides);
    pages += 1;
    bytes += Buffer.byteLength(page.text, 'utf8');
    const decoded = decodePage(call, page);
    // An empty body is an empty page: the listing is complete.
    if (decoded.kind === 'empty') break;
    if (decoded.kind === 'malformed') {
      warn(decoded.warning);
      // An unreadable later page means the listing was cut short.
      hasMore = pages > 1;
      if (hasMore)
        warn(`stopped paging at page ${pages}: its body could not be read; more results may exist`);
      break;
    }
    const mapped = applyResponseMapping(decoded.body, call.plan.endpoint.response_mapping);
    results.push(...mapped.results);
    mapped.warnings?.forEach(warn);
    call.deps.onPage?.({ page: pages, records: mapped.results.length, totalRecords: results.length });
    const fetched: FetchedPage = {
      records: mapped.results.length,
      body: decoded.body,
      headers: page.headers,
      requestUrl: page.url,
    };
    const decision = paginator.next(fetched);
    if (decision.kind === 'done') break;
    if (decision.kind === 'stopped') {
      hasMore = true;
      warn(decision.warning);
      break;
    }
    if (pages >= paginator.maxPages) {
      hasMore = true;
      warn(
        `stopped after ${pages} pages (pagination.max_pages is ${paginator.maxPages}); more results are available`,
      );
      break;
    }
    if (bytes >= maxTotal) {
      hasMore = true;
      warn(
        `stopped after ${pages} pages: the pages add up to more than ${maxTotal} bytes; more results are available`,
      );
      break;
    }
    overrides = decision.overrides;
  }
  const out: EndpointResult = { results, count: results.length, has_more: hasMore };
  if (warnings.length > 0) out.warnings = warnings;
  return out;
}

/**
 * Sends one page's request and reads a 2xx answer; throws the mapped
 * ConnectorError for anything else. With OAuth2, a 401 gets one new token
 * and one retry.
 */
async function fetchPage(call: Call, overrides: PageOverrides): Promise<Page> {
  let token = call.session ? await call.session.accessToken() : undefined;
  const fetch: HttpRequestFn = call.deps.fetch ?? undiciRequest;
  const maxBytes = call.deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  for (let attempt = 0; ; attempt++) {
    const req = render(call, overrides, token);
    call.target = req.displayUrl;
    // One options shape for every request. undici's `request` copies the options and sets
    // `origin` and `path` on the copy (so does the SSRF guard): V8 adds keys to a spread copy
    // slowly — microseconds a request — but sets existing ones fast, so both are here, empty.
    const options = {
      origin: undefined,
      path: undefined,
      method: req.method as HttpMethodName,
      headers: req.headers,
      body: req.body,
      signal: call.requestSignal,
    } as RequestOptions;
    const res = fetch.text
      ? await fetch.text(req.url, options, { maxBytes, errorBytes: ERROR_BODY_BYTES, label: call.label })
      : await streamed(await fetch(req.url, options), maxBytes, call.label, req.method === 'HEAD');
    const status = res.statusCode;
    if (status === 401 && call.session && token !== undefined && attempt === 0) {
      token = await call.session.replaceRejected(token);
      continue;
    }
    if (status < 200 || status >= 300) {
      throw errorForStatus(status, res.headers, {
        label: call.label,
        displayUrl: req.displayUrl,
        bodySnippet: snippet(redactSecrets(res.text, [...req.secrets, ...(call.session?.secrets ?? [])])),
      });
    }
    return { status, headers: res.headers, text: res.text, url: req.url, displayUrl: req.displayUrl };
  }
}

/**
 * A `request` answer read as `HttpTextFn` reads it: a 2xx body whole (at most
 * `maxBytes`), of any other only the start (the rest is discarded with the
 * socket); a HEAD answer has no body, whatever its Content-Length says.
 */
async function streamed(
  res: Dispatcher.ResponseData<unknown>,
  maxBytes: number,
  label: string,
  head: boolean,
): Promise<HttpTextResponse> {
  const status = res.statusCode;
  const text = head
    ? (await res.body.dump(), '')
    : status >= 200 && status < 300
      ? await readResponseText(res, maxBytes, label)
      : await readBody(res.body, ERROR_BODY_BYTES, label, 'truncate');
  return { statusCode: status, headers: res.headers, text };
}

function render(call: Call, overrides: PageOverrides, accessToken: string | undefined): RestRequest {
  return renderRestRequest(call.plan, call.credentials, accessToken !== undefined ? { overrides, accessToken } : { overrides });
}

/**
 * The decoded JSON body. HEAD answers become one `{ status, headers }`
 * record. An empty body or one that is not JSON yields no records: seed §10
 * says a malformed response is logged and gives an empty result, not a
 * failure.
 */
function decodePage(
  call: Call,
  page: Page,
): { kind: 'body'; body: unknown } | { kind: 'empty' } | { kind: 'malformed'; warning: string } {
  if (call.plan.method === 'HEAD') {
    return { kind: 'body', body: { status: page.status, headers: publicHeaders(page.headers) } };
  }
  // A UTF-8 byte order mark is not JSON, but harmless (RFC 8259 §8.1 lets parsers ignore it).
  const text = page.text.charCodeAt(0) === 0xfeff ? page.text.slice(1) : page.text;
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'body', body: JSON.parse(text) };
  } catch {
    return {
      kind: 'malformed',
      warning: `the response from ${page.displayUrl} is not valid JSON; returning no records`,
    };
  }
}

/** Response headers as one string each, without cookies (they may carry session secrets). */
function publicHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.toLowerCase() === 'set-cookie') continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

