/**
 * Executes one `rest_api` endpoint over real HTTP (seed "Dynamic Tool
 * Binding", `_create_rest_api_tool`): build the request (pure, in
 * `rest-request.ts`), send it with undici within the timeout, turn a non-2xx
 * answer into a typed ConnectorError and a 2xx body into mapped records.
 *
 * The HTTP call is the only I/O here and is injectable (`deps.fetch`); retries,
 * rate limiting and the circuit breaker belong to the caller, which keeps
 * their state. Every message that leaves this module is scrubbed of the
 * credential values it was given.
 */
import { request as undiciRequest } from 'undici';
import type { ConnectorDefinition } from './connector-definition.schema.js';
import { ConnectorError } from './connector-error.js';
import { errorForStatus } from './http-failure.js';
import { redactSecrets } from './redaction.js';
import { applyResponseMapping, type EndpointResult } from './response-mapping.js';
import {
  buildRestRequest,
  credentialSecrets,
  type ConnectorCredentials,
  type RestRequest,
} from './rest-request.js';

/** Seed `_create_rest_api_tool`: `connection.get("timeout_seconds", 30)`. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
/** Responses larger than this are refused rather than buffered. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const SNIPPET_CHARS = 200;
const ERROR_BODY_BYTES = 4096;

export interface RestExecutorDeps {
  /** The HTTP client; undici's `request` unless a test or adapter supplies another. */
  fetch?: typeof undiciRequest;
  /** Overrides `connection.timeout_seconds` (e.g. the node's remaining deadline). */
  timeoutMs?: number;
  /** Cancels the call; the error is then CANCELLED. */
  signal?: AbortSignal;
  maxResponseBytes?: number;
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
  let req: RestRequest;
  try {
    req = buildRestRequest(def, endpointName, inputs, credentials);
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
  if (deps.signal?.aborted)
    throw new ConnectorError('CANCELLED', `${label}: cancelled before the request was sent`);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = () => controller.abort();
  deps.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    return await send(req, label, deps, controller.signal);
  } catch (err) {
    if (err instanceof ConnectorError) throw scrub(err, req.secrets);
    if (timedOut) {
      throw new ConnectorError(
        'TIMEOUT',
        `${label}: no complete answer from ${req.displayUrl} within ${timeoutMs} ms`,
      );
    }
    if (deps.signal?.aborted) throw new ConnectorError('CANCELLED', `${label}: cancelled by the caller`);
    throw new ConnectorError(
      'UNAVAILABLE',
      redactSecrets(`${label}: could not reach ${req.displayUrl}: ${describeNetworkError(err)}`, req.secrets),
    );
  } finally {
    clearTimeout(timer);
    deps.signal?.removeEventListener('abort', onCallerAbort);
  }
}

async function send(
  req: RestRequest,
  label: string,
  deps: RestExecutorDeps,
  signal: AbortSignal,
): Promise<EndpointResult> {
  const fetch = deps.fetch ?? undiciRequest;
  const res = await fetch(req.url, { method: req.method, headers: req.headers, signal });
  const status = res.statusCode;

  if (status < 200 || status >= 300) {
    // Only the start of an error body is worth reading; the rest is discarded with the socket.
    const head = await readBody(res.body, ERROR_BODY_BYTES, label, 'truncate');
    throw errorForStatus(status, res.headers, {
      label,
      displayUrl: req.displayUrl,
      bodySnippet: snippet(redactSecrets(head, req.secrets)),
    });
  }
  const text = await readBody(res.body, deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, label, 'fail');
  const mapping = req.endpoint.response_mapping;
  if (text.trim() === '') {
    const empty: EndpointResult = { results: [], count: 0 };
    return status === 204
      ? empty
      : { ...empty, warnings: ['the response body is empty; returning no records'] };
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // Seed §10: a malformed response is logged and yields an empty result, not a failure.
    return {
      results: [],
      count: 0,
      warnings: [`the response from ${req.displayUrl} is not valid JSON; returning no records`],
    };
  }
  return applyResponseMapping(body, mapping, req.endpoint.pagination);
}

/**
 * The body as UTF-8 text, at most `maxBytes`: beyond that either fail
 * (UPSTREAM_ERROR) or return what arrived so far and drop the rest.
 */
async function readBody(
  body: AsyncIterable<Buffer | string> & { destroy?: () => unknown },
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

/**
 * The first characters of an (already redacted) error body on one line.
 * Slicing before collapsing whitespace keeps the snippet far from the
 * truncation point of the error body, where a secret cut in half would no
 * longer match for redaction.
 */
function snippet(text: string): string {
  const head = text.slice(0, SNIPPET_CHARS).replace(/\s+/g, ' ').trim();
  return text.length > SNIPPET_CHARS ? `${head}…` : head;
}

function scrub(err: ConnectorError, secrets: readonly string[]): ConnectorError {
  const message = redactSecrets(err.message, secrets);
  const violations = err.violations.map((v) => ({
    field: redactSecrets(v.field, secrets),
    reason: redactSecrets(v.reason, secrets),
  }));
  const changed =
    message !== err.message ||
    violations.some((v, i) => v.field !== err.violations[i]?.field || v.reason !== err.violations[i]?.reason);
  if (!changed) return err;
  return new ConnectorError(err.code, message, {
    retryable: err.retryable,
    violations,
    ...(err.status !== undefined ? { status: err.status } : {}),
    ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
  });
}

/** A network failure by its code and message only; the error object itself may hold the full URL. */
function describeNetworkError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } };
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return code && !message.includes(code) ? `${code} ${message}` : message;
}
