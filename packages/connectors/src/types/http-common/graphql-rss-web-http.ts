/**
 * HTTP plumbing shared by the `graphql`, `rss_feed` and `web_scraper` types
 * (one call may send several requests: pages, feeds, robots.txt):
 *
 * - `withCallScope` gives one deadline and one AbortSignal to the whole call
 *   and turns whatever escapes into a ConnectorError with secrets scrubbed;
 * - `fetchText` sends one request through `ctx.http`, maps a non-2xx answer
 *   with `errorForStatus`, and reads the body under a size cap, decoding it by
 *   its declared charset.
 *
 * (Named for its three users because of file ownership; a neutral name such as
 * `http-call.ts` would suit it once other types want it too.)
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ConnectorError } from '../../connector-error.js';
import type { ExecutionContext, HttpRequestFn } from '../../connector-type.js';
import { describeNetworkError, errorForStatus } from '../../http-failure.js';
import { redactSecrets, scrubError } from '../../redaction.js';

export { scrubError };

/** Responses larger than this are refused rather than buffered (same as rest_api). */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
const ERROR_BODY_BYTES = 4096;
const SNIPPET_CHARS = 200;

/** One connector call: its deadline, signal and the secrets to scrub. */
export interface CallScope {
  /** `connector-id/endpoint`, for messages. */
  readonly label: string;
  readonly http: HttpRequestFn;
  /** Fires when the deadline passes or the caller cancels. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly secrets: readonly string[];
  /** The error for a request to `displayUrl` that failed with `err` (network, abort, timeout). */
  failure(err: unknown, displayUrl: string): ConnectorError;
  /** Waits `ms`, or rejects as soon as the call is aborted. */
  sleep(ms: number): Promise<void>;
}

export interface ScopeOptions {
  label: string;
  /** The definition's own timeout; `ctx.timeoutMs` overrides it. */
  timeoutMs: number;
  secrets?: readonly string[];
}

/**
 * Runs `body` within the call's deadline. Everything it throws leaves as a
 * ConnectorError: TIMEOUT once the deadline passed, CANCELLED when the
 * caller's signal fired, UNAVAILABLE for other failures; messages scrubbed.
 */
export async function withCallScope<T>(
  ctx: ExecutionContext,
  options: ScopeOptions,
  body: (scope: CallScope) => Promise<T>,
): Promise<T> {
  const { label } = options;
  const secrets = options.secrets ?? [];
  const timeoutMs = ctx.timeoutMs ?? options.timeoutMs;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new ConnectorError(
      'INVALID_ARGUMENT',
      `${label}: the timeout must be a positive number of milliseconds`,
    );
  }
  if (ctx.signal?.aborted)
    throw new ConnectorError('CANCELLED', `${label}: cancelled before the request was sent`);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = () => controller.abort();
  ctx.signal?.addEventListener('abort', onCallerAbort, { once: true });

  const failure = (err: unknown, displayUrl: string): ConnectorError => {
    if (err instanceof ConnectorError) return scrubError(err, secrets);
    if (timedOut) {
      return new ConnectorError(
        'TIMEOUT',
        `${label}: no complete answer from ${displayUrl} within ${timeoutMs} ms`,
      );
    }
    if (ctx.signal?.aborted) return new ConnectorError('CANCELLED', `${label}: cancelled by the caller`);
    return new ConnectorError(
      'UNAVAILABLE',
      redactSecrets(`${label}: could not reach ${displayUrl}: ${describeNetworkError(err)}`, secrets),
    );
  };
  const scope: CallScope = {
    label,
    http: ctx.http,
    signal: controller.signal,
    timeoutMs,
    secrets,
    failure,
    sleep: (ms) => abortableSleep(ms, controller.signal),
  };
  try {
    return await body(scope);
  } catch (err) {
    if (err instanceof ConnectorError) throw scrubError(err, secrets);
    if (timedOut) throw new ConnectorError('TIMEOUT', `${label}: no complete answer within ${timeoutMs} ms`);
    if (ctx.signal?.aborted) throw new ConnectorError('CANCELLED', `${label}: cancelled by the caller`);
    throw new ConnectorError(
      'UPSTREAM_ERROR',
      redactSecrets(`${label}: ${err instanceof Error ? err.message : String(err)}`, secrets),
    );
  } finally {
    clearTimeout(timer);
    ctx.signal?.removeEventListener('abort', onCallerAbort);
  }
}

export interface TextRequest {
  /** May carry secrets (an api key in the query): never put it in a message. */
  url: string;
  /** Origin and path only, for messages. */
  displayUrl: string;
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  maxBytes?: number;
  /** Beyond `maxBytes`: fail (default) or keep what arrived (robots.txt). */
  overflow?: 'fail' | 'truncate';
}

export interface TextResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Lower-case media type without parameters, '' when absent. */
  mediaType: string;
  text: string;
}

/**
 * Sends one request and returns its decoded 2xx body. A non-2xx answer is
 * thrown as `errorForStatus(...)` with a redacted body snippet, unless
 * `describeError` gives a better snippet (e.g. GraphQL error messages).
 */
export async function fetchText(
  scope: CallScope,
  req: TextRequest,
  describeError?: (bodyHead: string) => string | undefined,
): Promise<TextResponse> {
  if (scope.signal.aborted) throw scope.failure(new Error('aborted'), req.displayUrl);
  try {
    const res = await scope.http(req.url, {
      method: req.method ?? 'GET',
      headers: req.headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
      signal: scope.signal,
    });
    const status = res.statusCode;
    const mediaType =
      (headerValue(res.headers, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (status < 200 || status >= 300) {
      const head = decode(await readBody(res.body, ERROR_BODY_BYTES, 'truncate', scope.label), res.headers);
      const redacted = redactSecrets(head, scope.secrets);
      throw errorForStatus(status, res.headers, {
        label: scope.label,
        displayUrl: req.displayUrl,
        bodySnippet: snippet(describeError?.(redacted) ?? redacted),
      });
    }
    const raw = await readBody(
      res.body,
      req.maxBytes ?? DEFAULT_MAX_BODY_BYTES,
      req.overflow ?? 'fail',
      scope.label,
    );
    return { status, headers: res.headers, mediaType, text: decode(raw, res.headers) };
  } catch (err) {
    throw scope.failure(err, req.displayUrl);
  }
}

/** Reads at most `maxBytes`; beyond that fails with UPSTREAM_ERROR or keeps the head. */
async function readBody(
  body: AsyncIterable<Buffer | string> & { destroy?: () => unknown },
  maxBytes: number,
  overflow: 'fail' | 'truncate',
  label: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (size + buf.length > maxBytes) {
      body.destroy?.();
      if (overflow === 'truncate') {
        chunks.push(buf.subarray(0, maxBytes - size));
        break;
      }
      throw new ConnectorError('UPSTREAM_ERROR', `${label}: the response is larger than ${maxBytes} bytes`);
    }
    size += buf.length;
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/**
 * Text by the charset the response declares: the Content-Type parameter, then
 * an XML declaration or HTML meta tag near the start; UTF-8 otherwise (and
 * for labels this runtime does not know).
 */
export function decode(raw: Buffer, headers: IncomingHttpHeaders): string {
  const declared =
    /charset\s*=\s*"?([\w.:-]+)/i.exec(headerValue(headers, 'content-type') ?? '')?.[1] ?? sniffCharset(raw);
  if (declared && !/^utf-?8$/i.test(declared)) {
    try {
      return new TextDecoder(declared).decode(raw);
    } catch {
      // Unknown label: UTF-8 is the best remaining guess.
    }
  }
  return new TextDecoder('utf-8').decode(raw);
}

function sniffCharset(raw: Buffer): string | undefined {
  if (raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) return 'utf-8';
  const head = raw.subarray(0, 1024).toString('latin1');
  return (
    /<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]
  );
}

export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The first characters of (already redacted) text on one line. */
export function snippet(text: string, max = SNIPPET_CHARS): string {
  const head = text.slice(0, max).replace(/\s+/g, ' ').trim();
  return text.length > max ? `${head}…` : head;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return signal.aborted ? Promise.reject(new Error('aborted')) : Promise.resolve();
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
