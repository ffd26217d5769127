#!/usr/bin/env node
// The demo data API: a tiny, deterministic JSON API (organisations and their
// yearly filings) that `pnpm start` serves on loopback in dev mode, so the
// README's "Try it" runs a real connector on a machine with no internet.
// examples/connectors/demo-api.connector.yaml describes it; the examples e2e
// test serves the same answers (demoResponse) from the fixture server.
//
//   GET /health                 {status: "ok"}
//   GET /orgs?q=<text>          {items: [{id, name, city, founded}], total}   (name contains text, any case)
//   GET /filings?org_id=<id>    {org_id, filings: [{year, revenue, expenses}]} (newest first; 404 for an unknown id)
//
// Standalone: node scripts/demo-api.mjs [port]   (default 8090)
import { createServer } from 'node:http';
import { StartError } from './start-preflight.mjs';

export const DEMO_API_DEFAULT_PORT = 8090;

export const DEMO_ORGS = [
  { id: 'org-1', name: 'Acme Community Trust', city: 'Springfield', founded: 1987 },
  { id: 'org-2', name: 'Acme Arts Foundation', city: 'Shelbyville', founded: 2004 },
  { id: 'org-3', name: 'Riverside Food Bank', city: 'Springfield', founded: 1995 },
  { id: 'org-4', name: 'Northern Lights Literacy', city: 'Capital City', founded: 2011 },
];

export const DEMO_FILINGS = {
  'org-1': [
    { year: 2023, revenue: 1480000, expenses: 1310000 },
    { year: 2022, revenue: 1250000, expenses: 1190000 },
    { year: 2021, revenue: 990000, expenses: 1020000 },
  ],
  'org-2': [
    { year: 2023, revenue: 640000, expenses: 610000 },
    { year: 2022, revenue: 720000, expenses: 700000 },
  ],
  'org-3': [
    { year: 2023, revenue: 2310000, expenses: 2250000 },
    { year: 2022, revenue: 2050000, expenses: 1980000 },
  ],
  'org-4': [{ year: 2023, revenue: 180000, expenses: 175000 }],
};

const one = (v) => (Array.isArray(v) ? v[0] : v);

/** The answer to one request: `{status, json}`. Pure, so tests can serve it from any HTTP server. */
export function demoResponse(method, path, query = {}) {
  if (method !== 'GET') return { status: 405, json: { error: 'only GET' } };
  if (path === '/health') return { status: 200, json: { status: 'ok' } };
  if (path === '/orgs') {
    const q = one(query.q);
    if (typeof q !== 'string' || q.trim() === '') return { status: 400, json: { error: 'query parameter q is required' } };
    const items = DEMO_ORGS.filter((o) => o.name.toLowerCase().includes(q.trim().toLowerCase()));
    return { status: 200, json: { items, total: items.length } };
  }
  if (path === '/filings') {
    const id = one(query.org_id);
    if (typeof id !== 'string' || id === '') return { status: 400, json: { error: 'query parameter org_id is required' } };
    const filings = DEMO_FILINGS[id];
    if (!filings) return { status: 404, json: { error: `no organisation '${id}'` } };
    return { status: 200, json: { org_id: id, filings } };
  }
  return { status: 404, json: { error: `no route ${path}` } };
}

/** Serves demoResponse on host:port (port 0: any free one). */
export function startDemoApi({ port = DEMO_API_DEFAULT_PORT, host = '127.0.0.1' } = {}) {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://demo');
    const { status, json } = demoResponse(req.method ?? 'GET', url.pathname, Object.fromEntries(url.searchParams));
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(json));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const bound = server.address().port;
      resolve({
        port: bound,
        url: `http://${host}:${bound}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

/**
 * `pnpm start`'s dev-mode hook. In dev mode (no NATS_URL: the in-process bus)
 * and unless AF_DEMO_API=off, serves the demo API on 127.0.0.1:AF_DEMO_API_PORT
 * (default 8090) and returns the connector-runtime settings that let
 * connectors reach it — that loopback address and port only, added to any
 * CONNECTOR_EGRESS_ALLOW given. Anywhere else nothing is served or allowed.
 */
export async function startDevDemo(env, say) {
  if (env.NATS_URL || env.AF_DEMO_API === 'off') return undefined;
  const text = env.AF_DEMO_API_PORT ?? String(DEMO_API_DEFAULT_PORT);
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) throw new StartError(`AF_DEMO_API_PORT must be a port number (1–65535), not "${text}"`);
  let api;
  try {
    api = await startDemoApi({ port });
  } catch (err) {
    if (err?.code !== 'EADDRINUSE') throw err;
    throw new StartError(`port ${port} on 127.0.0.1 (demo data API) is already in use by another process: stop that process, set AF_DEMO_API_PORT, or AF_DEMO_API=off`);
  }
  say(`demo data API on ${api.url} (dev mode; connectors may call it — see the README's "Try it")`);
  const allow = [env.CONNECTOR_EGRESS_ALLOW, `127.0.0.1:${api.port}`].filter(Boolean).join(',');
  return { api, connectorEnv: { CONNECTOR_EGRESS_ALLOW: allow } };
}

// Run directly (not imported by start.mjs or a test): serve until stopped.
if (process.argv[1]?.endsWith('demo-api.mjs')) {
  void startDemoApi({ port: Number(process.argv[2] ?? DEMO_API_DEFAULT_PORT) }).then((api) => process.stdout.write(`demo data API on ${api.url}\n`));
}
