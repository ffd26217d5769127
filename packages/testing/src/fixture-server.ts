/**
 * A real HTTP server on 127.0.0.1 (free port) standing in for the upstream
 * APIs that connectors call. Tests register canned or computed responses,
 * read back every request that arrived, and can HOLD a route so requests to
 * it wait until the test releases them — used to kill a process while its
 * request is in flight and prove the request was not sent twice.
 *
 *   const server = await startFixtureServer();
 *   server.route('GET', '/v1/search', { json: { results: [] } });
 *   const gate = server.hold('GET', '/v1/slow');
 *   await gate.arrived();      // a request is now waiting
 *   gate.release();            // let it through
 *   server.count('GET', '/v1/search');
 *   await server.close();
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
export interface FixtureRequest {
  /** Upper-case method. */
  method: string;
  /** Path without the query string. */
  path: string;
  /** Path and query string exactly as received. */
  url: string;
  /** Decoded query parameters; repeated keys give arrays. */
  query: Record<string, string | string[]>;
  headers: IncomingHttpHeaders;
  body: string;
  /** Values of `:name` segments of the route pattern that matched (empty when none did). */
  params: Record<string, string>;
}

/** A canned answer. */
export interface FixtureResponse {
  /** Default 200. */
  status?: number;
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as is (e.g. a deliberately malformed body); takes precedence over `json`. */
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Wait this long before answering (headers included). */
  delayMs?: number;
}

/**
 * Computes the answer. Return a FixtureResponse, or nothing after writing to
 * `raw.res` yourself (e.g. to destroy the socket mid-answer).
 */
export type FixtureHandler = (
  req: FixtureRequest,
  raw: { req: IncomingMessage; res: ServerResponse },
) => FixtureResponse | void | Promise<FixtureResponse | void>;

/** Holds requests to one route until released. */
export interface FixtureGate {
  /** Lets every waiting and future request to the route through. Idempotent. */
  release(): void;
  readonly released: boolean;
  /** Requests currently waiting at the gate. */
  readonly waiting: number;
  /** Resolves once `count` requests (default 1) have reached the gate since it was created. */
  arrived(count?: number): Promise<void>;
}

export interface FixtureServer {
  /** `http://127.0.0.1:<port>` — no trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in arrival order, including held and unmatched ones. */
  readonly requests: readonly FixtureRequest[];
  /**
   * Answers `method path` (path segments may be `:name` patterns). A later
   * registration for the same route replaces the earlier one.
   */
  route(method: string, path: string, response: FixtureHandler | FixtureResponse): this;
  /** Holds requests to `method path` until the returned gate is released. */
  hold(method: string, path: string): FixtureGate;
  /** Requests received for `method path`; a query string in `path` is ignored. */
  count(method: string, path: string): number;
  requestsTo(method: string, path: string): FixtureRequest[];
  /** Forgets routes and recorded requests and releases every gate. */
  reset(): void;
  /** Stops listening and destroys every connection, held ones included. */
  close(): Promise<void>;
}

interface Route {
  method: string;
  pattern: string;
  respond: FixtureHandler | FixtureResponse;
}

interface Gate extends FixtureGate {
  method: string;
  pattern: string;
  wait(): Promise<void>;
}

/** Starts a fixture server on a free loopback port. */
export async function startFixtureServer(): Promise<FixtureServer> {
  const routes: Route[] = [];
  const gates: Gate[] = [];
  const requests: FixtureRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (res.headersSent || res.destroyed) return;
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: `fixture handler failed: ${err instanceof Error ? err.message : String(err)}`,
        }),
      );
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = req.url ?? '/';
    const parsed = new URL(url, 'http://fixture.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    const route = routes.findLast(
      (r) => r.method === method && matchPath(r.pattern, parsed.pathname) !== undefined,
    );
    const recorded: FixtureRequest = {
      method,
      path: parsed.pathname,
      url,
      query: queryOf(parsed.searchParams),
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      params: route ? (matchPath(route.pattern, parsed.pathname) ?? {}) : {},
    };
    requests.push(recorded);

    const gate = gates.findLast(
      (g) => !g.released && g.method === method && matchPath(g.pattern, parsed.pathname) !== undefined,
    );
    if (gate) await gate.wait();
    if (closed || res.destroyed) return;

    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `no fixture route for ${method} ${parsed.pathname}` }));
      return;
    }
    const answer =
      typeof route.respond === 'function' ? await route.respond(recorded, { req, res }) : route.respond;
    if (!answer) return;
    if (answer.delayMs) await sleep(answer.delayMs);
    if (closed || res.destroyed) return;
    const headers: Record<string, string> = { ...(answer.headers ?? {}) };
    let payload: string | Buffer = '';
    if (answer.body !== undefined) payload = answer.body;
    else if (answer.json !== undefined) {
      payload = JSON.stringify(answer.json);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
        headers['content-type'] = 'application/json';
    }
    res.writeHead(answer.status ?? 200, headers);
    res.end(payload);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  const fixture: FixtureServer = {
    url: `http://127.0.0.1:${port}`,
    port,
    get requests() {
      return requests;
    },
    route(method, path, respond) {
      const m = method.toUpperCase();
      const pattern = stripQuery(path);
      const existing = routes.findIndex((r) => r.method === m && r.pattern === pattern);
      if (existing >= 0) routes.splice(existing, 1);
      routes.push({ method: m, pattern, respond });
      return this;
    },
    hold(method, path) {
      const gate = createGate(method.toUpperCase(), stripQuery(path));
      gates.push(gate);
      return gate;
    },
    count(method, path) {
      return this.requestsTo(method, path).length;
    },
    requestsTo(method, path) {
      const m = method.toUpperCase();
      const pattern = stripQuery(path);
      return requests.filter((r) => r.method === m && matchPath(pattern, r.path) !== undefined);
    },
    reset() {
      routes.length = 0;
      requests.length = 0;
      for (const g of gates.splice(0)) g.release();
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      // Held requests resume, see `closed` and stop; their sockets are destroyed below.
      for (const g of gates.splice(0)) g.release();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return fixture;
}

function createGate(method: string, pattern: string): Gate {
  let released = false;
  let waiting = 0;
  let arrivedTotal = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const arrivals: Array<{ count: number; resolve: () => void }> = [];
  return {
    method,
    pattern,
    get released() {
      return released;
    },
    get waiting() {
      return waiting;
    },
    release() {
      released = true;
      open();
    },
    arrived(count = 1) {
      if (arrivedTotal >= count) return Promise.resolve();
      return new Promise<void>((resolve) => arrivals.push({ count, resolve }));
    },
    async wait() {
      arrivedTotal++;
      for (const a of arrivals.filter((x) => x.count <= arrivedTotal)) {
        arrivals.splice(arrivals.indexOf(a), 1);
        a.resolve();
      }
      if (released) return;
      waiting++;
      await opened;
      waiting--;
    },
  };
}

/** `:name` segments match any one non-empty segment; returns their values, or undefined on no match. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const p = pattern.split('/');
  const s = path.split('/');
  if (p.length !== s.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const want = p[i] as string;
    const got = s[i] as string;
    if (want.startsWith(':') && want.length > 1) {
      if (got === '') return undefined;
      params[want.slice(1)] = safeDecode(got);
    } else if (want !== got) {
      return undefined;
    }
  }
  return params;
}

function queryOf(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of params) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function stripQuery(path: string): string {
  return path.split('?')[0] ?? path;
}
