/**
 * `source: url`: downloads one file through `ctx.http` (in production the
 * SSRF-guarded client, which also re-checks redirects), refusing it as soon
 * as it is larger than `max_file_size_mb` — by Content-Length before reading,
 * and by counting while streaming for servers that send none or lie.
 */
import { ConnectorError } from '../../connector-error.js';
import type { HttpRequestFn } from '../../connector-type.js';
import { errorForStatus } from '../../http-failure.js';
import { FileProblem, sizeProblem } from './file-parser-format.js';

/** Why `value` is not a usable file URL, or undefined when it is. */
export function fileUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must use http or https, not "${url.protocol.slice(0, -1).slice(0, 20)}"`;
  }
  if (url.username || url.password) return 'must not contain credentials';
  return undefined;
}

/** Origin and path only: query strings may carry tokens. */
export function displayUrl(value: string): string {
  const url = new URL(value);
  return `${url.origin}${url.pathname}`;
}

/** The last path segment, decoded (for the extension check), or '' for `/`. */
export function fileNameOfUrl(value: string): string {
  const segment = new URL(value).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The body of a 2xx answer, at most `maxBytes`. Non-2xx answers become the
 * usual HTTP ConnectorErrors; an oversized body is a FileProblem.
 */
export async function downloadFile(
  http: HttpRequestFn,
  url: string,
  maxBytes: number,
  signal: AbortSignal,
  label: string,
): Promise<Buffer> {
  const res = await http(url, {
    method: 'GET',
    signal,
    headers: { accept: 'application/xml, text/xml, text/csv, application/json, text/plain;q=0.9, */*;q=0.5' },
  });
  const body = res.body as Body;
  if (res.statusCode < 200 || res.statusCode >= 300) {
    discard(body);
    throw errorForStatus(res.statusCode, res.headers, {
      label,
      displayUrl: displayUrl(url),
      bodySnippet: '',
    });
  }
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(body);
    throw new FileProblem(sizeProblem(declared, maxBytes));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buf.length;
    if (size > maxBytes) {
      discard(body);
      throw new FileProblem(sizeProblem(undefined, maxBytes));
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

type Body = AsyncIterable<Buffer | string> & {
  destroy?: () => unknown;
  on?: (event: 'error', listener: (err: unknown) => void) => unknown;
};

/** Drops the rest of a body and closes the connection; undici reports that as an error nobody needs to see. */
function discard(body: Body): void {
  body.on?.('error', () => undefined);
  body.destroy?.();
}

/** A download failure that is not an HTTP status or FileProblem: timeout, cancel or network. */
export function downloadFailure(
  err: unknown,
  label: string,
  url: string,
  timedOut: boolean,
  cancelled: boolean,
  timeoutMs: number,
): ConnectorError {
  if (timedOut)
    return new ConnectorError(
      'TIMEOUT',
      `${label}: ${displayUrl(url)} did not answer within ${timeoutMs} ms`,
    );
  if (cancelled) return new ConnectorError('CANCELLED', `${label}: cancelled by the caller`);
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? `${e.code} ` : '';
  const message = typeof e?.message === 'string' ? e.message : String(err);
  return new ConnectorError(
    'UNAVAILABLE',
    `${label}: could not download ${displayUrl(url)}: ${code}${message}`,
  );
}
