/**
 * The HTTP client connectors get in production: undici's `request`, with the
 * SSRF guard of `domain/egress-policy.ts` applied to every connection.
 *
 * - Only http and https URLs are sent.
 * - The host is resolved here and EVERY address it resolves to must be
 *   allowed, so a clear error names the refused host before anything is sent.
 * - The connection itself goes through an undici Agent whose `connect.lookup`
 *   resolves and checks again: the address checked is the address connected
 *   to, so a DNS answer that changes between the two (DNS rebinding) is
 *   refused too.
 * - Redirects (301/302/303/307/308, at most `maxRedirects`) are followed here,
 *   each hop checked like the first; when a hop changes origin only harmless
 *   headers travel on, so an Authorization or api-key header never reaches
 *   a host the connector did not name.
 *
 * - `text` sends the same way and reads the answer whole into a string
 *   (`read-text.ts`): what the rest_api executor uses, cheaper than a body
 *   stream per response.
 *
 * Refusals are ConnectorError FAILED_PRECONDITION naming the host only —
 * never the URL, whose query string may carry an api key. Network failures
 * (DNS, refused connections) are rethrown as they are, for the executor to
 * report as UNAVAILABLE.
 */
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { format as formatUrl } from 'node:url';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { ConnectorError } from '@af/connectors';
import type { HttpRequestFn, HttpTextFn } from '@af/connectors';
import {
  decideEgress,
  egressPolicyFrom,
  type EgressDecision,
  egressRefused,
  schemeRefusal,
  type EgressPolicy,
  type EgressScope,
  scopedKeys,
  scopeKey,
} from '@af/connectors';
import { dispatchText, type TextSignal } from './read-text.js';

/** Resolves a hostname to every address it has (like `dns.lookup` with `all: true`). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface GuardedHttpOptions {
  /** The parsed policy, or the text of `CONNECTOR_EGRESS_ALLOW` (throws when invalid). */
  allow: EgressPolicy | string;
  /**
   * The owner and id of the connector calling: applies the entries scoped to
   * exactly that (`<owner-user-id>/<connector-id>=…`) as well as the plain ones.
   */
  scope?: EgressScope;
  /** Defaults to the system resolver (`dns.lookup`, all addresses). */
  resolve?: ResolveHost;
  /** Redirects followed per request (default 5); 0 returns every 3xx as is. */
  maxRedirects?: number;
  /** TCP/TLS connect timeout (default 10 s). */
  connectTimeoutMs?: number;
}

/** undici's `request`, guarded, with `text` (the answer read whole); `close()` ends its pooled connections. */
export type GuardedHttp = HttpRequestFn & { readonly text: HttpTextFn; close(): Promise<void> };

export const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** What may follow a redirect to another origin; everything else (credentials included) is dropped. */
const CROSS_ORIGIN_HEADERS = new Set(['accept', 'accept-language', 'user-agent', 'content-type', 'cache-control']);

/** Distinct (host, port, address) decisions a client keeps before starting over. */
const MAX_DECISIONS = 4096;

const systemResolve: ResolveHost = async (hostname) => dns.lookup(hostname, { all: true });

type RequestOptions = NonNullable<Parameters<HttpRequestFn>[1]>;
type Headers = Record<string, string | string[]>;

/** A guarded `request` with its own connection pool. */
export function createGuardedHttp(options: GuardedHttpOptions): GuardedHttp {
  const policy = typeof options.allow === 'string' ? egressPolicyFrom(options.allow) : options.allow;
  const resolve = options.resolve ?? systemResolve;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) {
    throw new Error(`maxRedirects: must be a whole number >= 0, got ${String(options.maxRedirects)}`);
  }
  const scope = options.scope;

  // The policy never changes for this client, so a decision is a pure function of
  // (host, port, address): worked out once, not on every request (an IP literal's
  // takes an address parse and a scan of the allow-list).
  const decisions = new Map<string, EgressDecision>();
  const decide = (host: string, port: number, address: string): EgressDecision => {
    const key = `${port} ${host} ${address}`;
    let decision = decisions.get(key);
    if (!decision) {
      decision = decideEgress(policy, { host, port, address, ...(scope ? { scope } : {}) });
      if (decisions.size >= MAX_DECISIONS) decisions.clear();
      decisions.set(key, decision);
    }
    return decision;
  };

  /**
   * Throws unless every address of `target`'s host is allowed: synchronously
   * for an IP literal (nothing to resolve), else once the name is resolved.
   */
  const check = (target: Target, signal?: RequestSignal | null): Promise<void> | undefined => {
    if (target.refusal) throw egressRefused(target.host, target.refusal, false);
    if (target.literal) {
      const decision = decide(target.hostname, target.port, target.hostname);
      if (!decision.allowed) throw egressRefused(target.host, decision.reason, decision.allowable);
      return undefined;
    }
    return abortable(resolve(target.hostname), signal).then((found) => {
      if (found.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${target.hostname}`), { code: 'ENOTFOUND' });
      for (const { address } of found) {
        const decision = decide(target.hostname, target.port, address);
        if (!decision.allowed) throw egressRefused(target.host, decision.reason, decision.allowable);
      }
    });
  };

  // One connector per port: `lookup` is told only the hostname, and allow-list entries may name a port.
  const connectors = new Map<number, buildConnector.connector>();
  const agent = new Agent({
    connect: (opts, callback) => {
      const port = Number(opts.port) || (opts.protocol === 'https:' ? 443 : 80);
      let connect = connectors.get(port);
      if (!connect) {
        connect = buildConnector({
          lookup: guardedLookup(port),
          timeout: options.connectTimeoutMs ?? 10_000,
        });
        connectors.set(port, connect);
      }
      connect(opts, callback);
    },
  });

  /** `net.connect`'s lookup: resolves, refuses the connection unless every address is allowed. */
  function guardedLookup(port: number): LookupFunction {
    return (hostname: string, lookupOptions: LookupOptions, callback) => {
      resolve(hostname).then(
        (found) => {
          for (const { address } of found) {
            const decision = decide(hostname, port, address);
            if (!decision.allowed) {
              const host = port === 80 || port === 443 ? hostname : `${hostname}:${port}`;
              callback(egressRefused(host, decision.reason, decision.allowable) as NodeJS.ErrnoException, '', 0);
              return;
            }
          }
          const family = lookupOptions.family === 'IPv4' ? 4 : lookupOptions.family === 'IPv6' ? 6 : lookupOptions.family;
          const usable: LookupAddress[] = family ? found.filter((a) => a.family === family) : found;
          if (usable.length === 0) {
            callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
          } else if (lookupOptions.all) {
            callback(null, usable);
          } else {
            callback(null, usable[0]!.address, usable[0]!.family);
          }
        },
        (err: NodeJS.ErrnoException) => callback(err, '', 0),
      );
    };
  }

  /**
   * Sends `url` hop by hop through `send` (each hop checked first), following
   * redirects; `discard` drops the body of a hop that is followed.
   */
  const follow = async <R extends Answer>(
    url: Parameters<HttpRequestFn>[0],
    requestOptions: RequestOptions | undefined,
    send: (options: Dispatcher.RequestOptions, signal: RequestSignal | null | undefined) => Promise<R>,
    discard: (res: R) => Promise<unknown>,
  ): Promise<R> => {
    let current = toUrl(url);
    let opts: RequestOptions = requestOptions ?? {};
    const signal = opts.signal as RequestSignal | null | undefined;
    for (let hop = 0; ; hop++) {
      const target = targetOf(current);
      const checking = check(target, signal);
      if (checking) await checking;
      const res = await send(dispatchOptions(opts, target.origin, current), signal);
      if (maxRedirects === 0 || !REDIRECTS.has(res.statusCode)) return res;
      const location = headerValue(res.headers, 'location');
      let next: URL;
      try {
        if (!location) return res;
        next = new URL(location, current);
      } catch {
        return res; // An unusable Location: the caller sees the 3xx itself.
      }
      const redirected = redirectOptions(res.statusCode, opts, current.origin !== next.origin);
      if (!redirected) return res;
      await discard(res);
      if (hop >= maxRedirects) {
        throw new ConnectorError('UPSTREAM_ERROR', `${current.host}: more than ${maxRedirects} redirects`, {
          status: res.statusCode,
        });
      }
      opts = redirected;
      current = next;
    }
  };

  const sendRequest = (options: Dispatcher.RequestOptions) => agent.request(options);
  const dumpBody = (res: Dispatcher.ResponseData) => res.body.dump();
  const guarded = (url: Parameters<HttpRequestFn>[0], requestOptions?: RequestOptions) =>
    follow(url, requestOptions, sendRequest, dumpBody);
  // A followed hop's body is already read (at most `errorBytes` of it): nothing to drop.
  const nothingToDrop = () => Promise.resolve();
  const text: HttpTextFn = (url, requestOptions, limits) =>
    follow(url, requestOptions, (options, signal) => dispatchText(agent, options, limits, signal), nothingToDrop);

  return Object.assign(guarded as HttpRequestFn, { text, close: () => agent.close() });
}

/**
 * A guard per connector over one policy: connectors without entries of their
 * own share one pool; each owner's connector with scoped entries gets its
 * own, so a connection opened under one connector's allowance is never
 * reused by another connector — nor by another user's connector of the same id.
 */
export interface EgressGuard {
  /** The guarded HTTP of `connectorId` owned by `ownerUserId` (its scoped entries apply, nobody else's). */
  forConnector(ownerUserId: string, connectorId: string): HttpRequestFn;
  close(): Promise<void>;
}

export function createEgressGuard(options: Omit<GuardedHttpOptions, 'scope'>): EgressGuard {
  const policy = typeof options.allow === 'string' ? egressPolicyFrom(options.allow) : options.allow;
  const scoped = scopedKeys(policy);
  const shared = createGuardedHttp({ ...options, allow: policy });
  const own = new Map<string, GuardedHttp>();
  return {
    forConnector(ownerUserId, connectorId) {
      const scope = { owner: ownerUserId, id: connectorId };
      const key = scopeKey(scope);
      if (!ownerUserId || !connectorId || !scoped.has(key)) return shared;
      let http = own.get(key);
      if (!http) {
        http = createGuardedHttp({ ...options, allow: policy, scope });
        own.set(key, http);
      }
      return http;
    },
    async close() {
      await Promise.all([shared, ...own.values()].map((h) => h.close()));
    },
  };
}

/**
 * The options for the next hop, or undefined when the redirect cannot be
 * followed safely (a streamed body cannot be sent twice).
 */
function redirectOptions(status: number, opts: RequestOptions, crossOrigin: boolean): RequestOptions | undefined {
  const method = (opts.method ?? 'GET').toUpperCase();
  // 303 always, and 301/302 after a POST, continue as a GET without the body (RFC 9110 §15.4).
  const toGet = (status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST');
  const body = toGet ? undefined : opts.body;
  if (body !== undefined && body !== null && !(typeof body === 'string' || body instanceof Uint8Array)) return undefined;
  let headers = normalizeHeaders(opts.headers);
  if (toGet) {
    const { 'content-type': _t, 'content-length': _l, ...restHeaders } = headers;
    headers = restHeaders;
  }
  if (crossOrigin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => CROSS_ORIGIN_HEADERS.has(k)));
  // The Location replaces the query (undici's `query` option applied to the first hop only).
  const { body: _b, method: _m, headers: _h, query: _q, dispatcher: _d, ...rest } = opts;
  return {
    ...rest,
    method: (toGet ? 'GET' : method) as Dispatcher.HttpMethod,
    headers,
    ...(body !== undefined ? { body } : {}),
  };
}

function normalizeHeaders(headers: Dispatcher.RequestOptions['headers']): Headers {
  const out: Headers = {};
  if (!headers) return out;
  const add = (k: string, v: string | string[] | undefined) => {
    if (v !== undefined) out[k.toLowerCase()] = v;
  };
  if (Array.isArray(headers)) {
    // undici's flat form: [name, value, name, value, …]
    for (let i = 0; i + 1 < headers.length; i += 2) add(String(headers[i]), String(headers[i + 1]));
  } else if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k, v] of headers as Iterable<[string, string | string[] | undefined]>) add(k, v);
  } else {
    for (const [k, v] of Object.entries(headers as Record<string, string | string[] | undefined>)) add(k, v);
  }
  return out;
}

/**
 * undici's dispatch options for one hop: the caller's options, sent to the
 * origin that was checked (whatever `origin` or `path` the options carry).
 * Straight to the Agent, so the options are copied once (undici's top-level
 * `request` copies them again). The keys come first and are set again after
 * the copy: V8 adds keys to a spread copy slowly (microseconds), but sets
 * existing ones fast.
 */
function dispatchOptions(opts: RequestOptions, origin: string, url: URL): Dispatcher.RequestOptions {
  const path = url.search ? `${url.pathname}${url.search}` : url.pathname;
  const method = opts.method || (opts.body ? 'PUT' : 'GET');
  const out = { origin, path, method, ...opts } as Dispatcher.RequestOptions;
  out.origin = origin;
  out.path = path;
  out.method = method;
  return out;
}

/** Where a request goes, as the guard checks it. */
interface Target {
  /** `scheme://host[:port]`, the key of undici's connection pool. */
  origin: string;
  /** The URL's host with its port, for messages. */
  host: string;
  /** Without IPv6 brackets. */
  hostname: string;
  port: number;
  literal: boolean;
  /** Set when the scheme may not leave the service. */
  refusal: string | undefined;
}

/** The parts of `url` the guard needs (URL getters each slice the href, so read once). */
function targetOf(url: URL): Target {
  const protocol = url.protocol;
  const raw = url.hostname;
  const hostname = raw.charCodeAt(0) === 0x5b /* [ */ ? raw.slice(1, -1) : raw;
  return {
    origin: url.origin,
    host: url.host,
    hostname,
    port: Number(url.port) || (protocol === 'https:' ? 443 : 80),
    literal: isIP(hostname) !== 0,
    refusal: schemeRefusal(protocol),
  };
}

function toUrl(url: Parameters<HttpRequestFn>[0]): URL {
  try {
    if (typeof url === 'string') return new URL(url);
    if (url instanceof URL) return new URL(url.href);
    return new URL(formatUrl(url));
  } catch {
    throw new ConnectorError('INVALID_ARGUMENT', 'the request URL is not a valid absolute URL');
  }
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A request's signal as undici's `request` takes it: an AbortSignal, or an
 * EventEmitter that emits `abort` and then has `aborted` and `reason` (the
 * executor's shared deadlines, `domain/call-deadline.ts`).
 */
type RequestSignal = TextSignal;

/** What the redirect loop reads of an answer. */
interface Answer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

/** `promise`, or a rejection as soon as `signal` fires (a DNS lookup itself cannot be cancelled). */
function abortable<T>(promise: Promise<T>, signal?: RequestSignal | null): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason ?? new Error('aborted'));
    const off =
      'addEventListener' in signal
        ? (signal.addEventListener('abort', onAbort, { once: true }), () => signal.removeEventListener('abort', onAbort))
        : (signal.once('abort', onAbort), () => signal.off('abort', onAbort));
    promise.then(
      (v) => {
        off();
        resolve(v);
      },
      (e) => {
        off();
        reject(e);
      },
    );
  });
}

/**
 * The same egress rule for connections that are not HTTP (the `database`
 * type's Postgres pools): every address the host resolves to must be allowed.
 */
export function egressHostCheck(allow: string | EgressPolicy, resolve: ResolveHost = systemResolve) {
  const policy = typeof allow === 'string' ? egressPolicyFrom(allow) : allow;
  return async (target: { host: string; port: number; connectorId: string; ownerUserId?: string }): Promise<void> => {
    // Without an owner only plain entries apply: a scoped exception is never opened to an unknown caller.
    const scope = target.ownerUserId ? { scope: { owner: target.ownerUserId, id: target.connectorId } } : {};
    for (const { address } of await resolve(target.host)) {
      const d = decideEgress(policy, { host: target.host, port: target.port, address, ...scope });
      if (!d.allowed) throw egressRefused(target.host, d.reason, d.allowable);
    }
  };
}
