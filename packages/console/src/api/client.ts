/**
 * The one way the console talks to the gateway: `fetch` on same-origin `/api`
 * with the login token as a bearer header. Errors keep the API's shape
 * (`{error: {code, message, violations[]}}`) so forms can put each violation
 * next to the field it names.
 */

export interface Violation {
  field: string;
  reason: string;
  code?: string;
  suggestedFix?: string;
  step?: string;
  line?: number;
  column?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly violations: Violation[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The reason given for `field` (exact match, or a path below it such as `output.go` for `go` under prefix `output`). */
  forField(field: string): string | undefined {
    return this.violations.find((v) => v.field === field)?.reason;
  }
}

const TOKEN_KEY = 'af.console.token';
let token: string | null = readStoredToken();
const listeners = new Set<() => void>();

function readStoredToken(): string | null {
  try {
    return globalThis.sessionStorage?.getItem(TOKEN_KEY) ?? null;
  } catch {
    return null;
  }
}

export function getToken(): string | null {
  return token;
}

/** Keeps the token for this browser tab only (sessionStorage), never in the bundle or a cookie. */
export function setToken(next: string | null): void {
  token = next;
  try {
    if (next) sessionStorage.setItem(TOKEN_KEY, next);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage unavailable: the token lives in memory only */
  }
  for (const l of listeners) l();
}

export function onTokenChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Calls `/api…`; resolves with the JSON answer (undefined for 204), rejects with an ApiError. */
export async function api<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body), signal: opts.signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'the gateway could not be reached; check that it is running');
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: any = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const e = json?.error;
    const err = new ApiError(res.status, e?.code ?? `HTTP_${res.status}`, e?.message ?? `${method} ${path} answered ${res.status}`, Array.isArray(e?.violations) ? e.violations : []);
    if (res.status === 401 && token) setToken(null);
    throw err;
  }
  return json as T;
}

/** Builds a query string from the defined, non-empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * Downloads `/api…` (a document's or an export's file) with the bearer token
 * and hands it to the browser as a file; an API error rejects as ApiError.
 */
export async function download(path: string, fallbackName = 'download'): Promise<void> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(path, { headers });
  if (!res.ok) {
    let e: any;
    try {
      e = (await res.json())?.error;
    } catch {
      e = undefined;
    }
    throw new ApiError(res.status, e?.code ?? `HTTP_${res.status}`, e?.message ?? `GET ${path} answered ${res.status}`, Array.isArray(e?.violations) ? e.violations : []);
  }
  const name = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(res.headers.get('content-disposition') ?? '')?.[1];
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name ? decodeURIComponent(name) : fallbackName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
