/**
 * Maps an upstream HTTP answer that is not 2xx to a ConnectorError (seed §10
 * "Connector Failures"): 401/403 → AUTH_FAILED, 429 → RATE_LIMIT (with
 * Retry-After), 408 → TIMEOUT, 5xx → UNAVAILABLE, 400/422 → INVALID_ARGUMENT,
 * 404/410 → NOT_FOUND, anything else (other 4xx, an unfollowed 3xx) →
 * UPSTREAM_ERROR. Redirects are never followed: the request may carry an api
 * key in its query string, and following a Location would hand it to
 * whichever host the upstream names.
 */
import { ConnectorError, type ConnectorErrorCode } from './connector-error.js';

export interface HttpFailureContext {
  /** `connector-id/endpoint`, for the message. */
  label: string;
  /** Upstream origin and path (no query string). */
  displayUrl: string;
  /** The start of the response body, already redacted, or '' when none. */
  bodySnippet: string;
  /** For resolving an HTTP-date Retry-After; defaults to now. */
  nowMs?: number;
}

/** The error for a non-2xx `status`. */
export function errorForStatus(
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  ctx: HttpFailureContext,
): ConnectorError {
  const code = codeForStatus(status);
  const retryAfterMs = parseRetryAfter(headerValue(headers, 'retry-after'), ctx.nowMs ?? Date.now());
  const detail = ctx.bodySnippet ? `: ${ctx.bodySnippet}` : '';
  const what = DESCRIPTIONS[code];
  return new ConnectorError(code, `${ctx.label}: ${what} (HTTP ${status} from ${ctx.displayUrl})${detail}`, {
    status,
    ...(retryAfterMs !== undefined && (code === 'RATE_LIMIT' || code === 'UNAVAILABLE')
      ? { retryAfterMs }
      : {}),
  });
}

export function codeForStatus(status: number): ConnectorErrorCode {
  if (status === 401 || status === 403) return 'AUTH_FAILED';
  if (status === 429) return 'RATE_LIMIT';
  if (status === 408) return 'TIMEOUT';
  if (status >= 500) return 'UNAVAILABLE';
  if (status === 400 || status === 422) return 'INVALID_ARGUMENT';
  if (status === 404 || status === 410) return 'NOT_FOUND';
  return 'UPSTREAM_ERROR';
}

const DESCRIPTIONS: Record<ConnectorErrorCode, string> = {
  AUTH_FAILED: 'the upstream refused the stored credentials; the connector needs re-authentication',
  RATE_LIMIT: 'the upstream is rate limiting requests',
  TIMEOUT: 'the upstream timed out the request',
  UNAVAILABLE: 'the upstream is unavailable',
  INVALID_ARGUMENT: 'the upstream rejected the request parameters',
  NOT_FOUND: 'the upstream has no such resource',
  UPSTREAM_ERROR: 'the upstream answered with an unexpected status',
  FAILED_PRECONDITION: 'failed precondition',
  UNIMPLEMENTED: 'not implemented',
  CANCELLED: 'cancelled',
};

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP-date (RFC 9110
 * §10.2.3). `undefined` when absent or unparsable; never negative.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // HTTP-dates are always GMT; requiring it keeps Date.parse from reading "-5" as a year.
  if (!/ GMT$/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

function headerValue(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  name: string,
): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The longest error-body excerpt put into a message. */
export const SNIPPET_CHARS = 200;

/** A response body: undici's (a Readable with `.text()`), or any async iterable of chunks (test doubles). */
export type ResponseBody = AsyncIterable<Buffer | string> & {
  destroy?: () => unknown;
  text?: () => Promise<string>;
  on?: unknown;
};

/**
 * A response body as UTF-8 text, at most `maxBytes`: beyond that either fail
 * (UPSTREAM_ERROR, naming `label`) or return what arrived so far and drop the
 * rest.
 */
export function readBody(
  body: ResponseBody,
  maxBytes: number,
  label: string,
  overflow: 'fail' | 'truncate',
): Promise<string> {
  return isEventStream(body)
    ? readStream(body, maxBytes, label, overflow)
    : readIterable(body, maxBytes, label, overflow);
}

interface EventStream {
  on(event: 'data', fn: (chunk: Buffer | string) => void): unknown;
  on(event: 'end' | 'close', fn: () => void): unknown;
  on(event: 'error', fn: (err: unknown) => void): unknown;
  off(event: string, fn: (...args: never[]) => void): unknown;
  destroy(): unknown;
  readableEnded?: boolean;
}

const ignore = () => undefined;

function isEventStream(body: unknown): body is EventStream {
  const b = body as Partial<Record<'on' | 'off' | 'destroy', unknown>>;
  return typeof b.on === 'function' && typeof b.off === 'function' && typeof b.destroy === 'function';
}

/** Node streams by their events: no async-iterator machinery per response. */
function readStream(
  body: EventStream,
  maxBytes: number,
  label: string,
  overflow: 'fail' | 'truncate',
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const text = () =>
      chunks.length === 1
        ? (chunks[0] as Buffer).toString('utf8')
        : Buffer.concat(chunks, size).toString('utf8');
    const onData = (chunk: Buffer | string) => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (size + buf.length > maxBytes) {
        done();
        // Destroying the body makes it emit its abort error: nobody else is listening for it.
        body.on('error', ignore);
        body.destroy();
        if (overflow === 'truncate') {
          chunks.push(buf.subarray(0, maxBytes - size));
          size = maxBytes;
          resolve(text());
        } else {
          reject(
            new ConnectorError('UPSTREAM_ERROR', `${label}: the response is larger than ${maxBytes} bytes`),
          );
        }
        return;
      }
      size += buf.length;
      chunks.push(buf);
    };
    const onEnd = () => {
      done();
      resolve(text());
    };
    const onError = (err: unknown) => {
      done();
      reject(err);
    };
    // Destroyed without an error or an end (e.g. by another reader): the body is incomplete.
    const onClose = () => {
      done();
      reject(
        Object.assign(new Error('the response body ended before it was complete'), {
          code: 'ERR_STREAM_PREMATURE_CLOSE',
        }),
      );
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

async function readIterable(
  body: ResponseBody,
  maxBytes: number,
  label: string,
  overflow: 'fail' | 'truncate',
): Promise<string> {
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
  return Buffer.concat(chunks).toString('utf8');
}

/** A response as `readResponseText` needs it (undici's `request` answer, or a test double). */
export interface ReadableResponse {
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: ResponseBody;
}

/**
 * A 2xx body as UTF-8 text, at most `maxBytes` (beyond that UPSTREAM_ERROR,
 * naming `label`). When the answer declares a Content-Length within the cap
 * the client's own reader takes it in one go (undici's `body.text()`, which
 * cannot receive more than the declared length); otherwise it is read chunk
 * by chunk and refused as soon as it passes the cap.
 */
export async function readResponseText(
  res: ReadableResponse,
  maxBytes: number,
  label: string,
): Promise<string> {
  const declared = headerValue(res.headers, 'content-length');
  if (declared !== undefined && typeof res.body.text === 'function' && /^\d{1,15}$/.test(declared)) {
    const length = Number(declared);
    if (length > maxBytes) {
      if (isEventStream(res.body)) res.body.on('error', ignore);
      res.body.destroy?.();
      throw new ConnectorError('UPSTREAM_ERROR', `${label}: the response is larger than ${maxBytes} bytes`);
    }
    return res.body.text();
  }
  return readBody(res.body, maxBytes, label, 'fail');
}

/**
 * The first characters of an (already redacted) error body on one line.
 * Slicing before collapsing whitespace keeps the snippet far from the
 * truncation point of the error body, where a secret cut in half would no
 * longer match for redaction.
 */
export function snippet(text: string): string {
  const head = text.slice(0, SNIPPET_CHARS).replace(/\s+/g, ' ').trim();
  return text.length > SNIPPET_CHARS ? `${head}…` : head;
}

/** A network failure by its code and message only; the error object itself may hold the full URL. */
export function describeNetworkError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return code && !message.includes(code) ? `${code} ${message}` : message;
}
