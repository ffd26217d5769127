#!/usr/bin/env node
// One-command start: builds if needed, then runs gateway, planner,
// orchestrator, connector-runtime, approval and entity-resolution in this process.
//   DATABASE_URL unset → embedded PostgreSQL (real binaries from npm) in .af-data/pg,
//                        with a random password (.af-data/pg-password, 0600) and
//                        its socket in .af-data/run (scripts/embedded-pg.mjs)
//   NATS_URL unset     → the in-process event bus (dev only; tests use real NATS)
//   AF_DATA_DIR        → the data directory (default .af-data in the checkout)
//   HTTP_PORT, AF_GRPC_BASE_PORT, AF_METRICS_BASE_PORT → the gateway's HTTP port (8080)
//                        and the first of the gRPC (50050…) and metrics (9464…) ports
//                        (entity-resolution: base + 6)
// A second start on the same data directory, a port already taken or a
// DATABASE_URL that does not work ends with one line saying what to do.
// Ctrl-C stops everything cleanly.
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireLock, checkDatabase, checkPorts, StartError } from './start-preflight.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = process.env.AF_DATA_DIR ? resolve(process.env.AF_DATA_DIR) : join(root, '.af-data');
const services = ['connector-runtime', 'planner', 'approval', 'entity-resolution', 'orchestrator', 'gateway'];
const t0 = Date.now();
const say = (msg) => process.stdout.write(`[agent-factory] ${msg}\n`);

function buildIfNeeded() {
  const missing = services.some((s) => !existsSync(join(root, 'services', s, 'dist', 'main.js')));
  if (!missing && process.env.AF_SKIP_BUILD) return;
  say(missing ? 'building (first run)…' : 'checking build (turbo cache)…');
  execFileSync('pnpm', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit' });
}

/** Secrets for local use, generated once and kept in .af-data (gitignored). */
function devSecrets() {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'dev-secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const secrets = {
    JWT_SECRET: randomBytes(32).toString('hex'),
    CREDENTIALS_KEYS: `dev1:${randomBytes(32).toString('base64')}`,
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

/**
 * SERVICE_AUTH_SECRET signs the principal tokens on every gRPC call between the
 * services. When none is given, one is generated once and kept in
 * .af-data/service-auth-secret (mode 0600), where CLI tools can read it:
 *   SERVICE_AUTH_SECRET=$(cat .af-data/service-auth-secret) pnpm --filter @af/planner load-catalog …
 */
function serviceAuthSecret() {
  if (process.env.SERVICE_AUTH_SECRET) return process.env.SERVICE_AUTH_SECRET;
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'service-auth-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

const embeddedPgPort = () => Number(process.env.AF_EMBEDDED_PG_PORT ?? 54329);

/** A port from the environment: a whole number 0–65535, else a StartError naming the variable. */
function portFromEnv(name, fallback) {
  const text = process.env[name] ?? String(fallback);
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new StartError(`${name} must be a port number (0–65535), not "${text}"`);
  return port;
}

/**
 * Embedded PostgreSQL in a child process of its own process group
 * (scripts/embedded-pg.mjs), so that a Ctrl-C reaches the services first and
 * PostgreSQL is stopped last, once they have drained.
 */
async function embeddedPostgres() {
  const port = embeddedPgPort();
  const child = fork(join(root, 'scripts', 'embedded-pg.mjs'), [dataDir, String(port), root], { detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const answer = await new Promise((resolve) => {
    child.once('message', resolve);
    child.once('exit', (code) => resolve({ ready: false, error: `exited with ${code}` }));
  });
  if (!answer.ready) throw new Error(`embedded PostgreSQL did not start: ${answer.error}`);
  say(`embedded PostgreSQL on 127.0.0.1:${port}`);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    url: answer.url,
    stop: async () => {
      if (child.exitCode === null && child.connected) child.send('stop');
      await exited;
    },
  };
}

async function main() {
  const httpPort = String(portFromEnv('HTTP_PORT', 8080));
  const grpcBase = portFromEnv('AF_GRPC_BASE_PORT', 50050);
  const metricsBase = portFromEnv('AF_METRICS_BASE_PORT', 9464);
  const ports = { gateway: grpcBase, planner: grpcBase + 1, orchestrator: grpcBase + 2, connector: grpcBase + 3, approval: grpcBase + 4 };
  const metrics = { gateway: metricsBase, planner: metricsBase + 1, orchestrator: metricsBase + 2, connector: metricsBase + 3, approval: metricsBase + 4 };
  ports['entity-resolution'] = grpcBase + 6;
  metrics['entity-resolution'] = metricsBase + 6;
  if (grpcBase + 6 > 65535 || metricsBase + 6 > 65535) throw new StartError('AF_GRPC_BASE_PORT and AF_METRICS_BASE_PORT must leave room for seven ports (at most 65529)');
  // Built-in actions served over ActionService (the orchestrator routes to them; the planner refuses what none serves).
  const actionServices = [`connector-runtime=127.0.0.1:${ports.connector}`, `entity-resolution=127.0.0.1:${ports['entity-resolution']}`].join(',');
  mkdirSync(dataDir, { recursive: true });
  lock = acquireLock(dataDir, { httpUrl: `http://127.0.0.1:${httpPort}`, startedAt: new Date().toISOString() });
  const host = process.env.GRPC_HOST ?? '127.0.0.1';
  const label = (name) => (name === 'connector' ? 'connector-runtime' : name);
  const grpcHint = 'set AF_GRPC_BASE_PORT to the first of five free ports';
  const metricsHint = 'set AF_METRICS_BASE_PORT to the first of five free ports';
  await checkPorts(process.env.HTTP_HOST ?? '127.0.0.1', [{ port: Number(httpPort), what: 'gateway HTTP', hint: 'set HTTP_PORT' }]);
  await checkPorts(host, [
    ...Object.entries(ports).map(([name, port]) => ({ port, what: `${label(name)} gRPC`, hint: grpcHint })),
    ...Object.entries(metrics).map(([name, port]) => ({ port, what: `${label(name)} metrics`, hint: metricsHint })),
  ]);
  if (process.env.DATABASE_URL) await checkDatabase(root, process.env.DATABASE_URL);
  else await checkPorts('127.0.0.1', [{ port: embeddedPgPort(), what: 'embedded PostgreSQL', hint: 'set AF_EMBEDDED_PG_PORT' }]);
  buildIfNeeded();
  const secrets = devSecrets();
  const pg = process.env.DATABASE_URL ? undefined : await embeddedPostgres();
  const natsUrl = process.env.NATS_URL ?? 'memory://agent-factory';
  if (!process.env.NATS_URL) say('NATS_URL not set: using the in-process event bus (dev mode only)');
  const common = {
    LOG_LEVEL: 'warn',
    ...secrets,
    ...process.env,
    SERVICE_AUTH_SECRET: serviceAuthSecret(),
    DATABASE_URL: process.env.DATABASE_URL ?? pg.url,
    NATS_URL: natsUrl,
    GRPC_HOST: host,
  };
  const env = {
    'connector-runtime': { ...common, GRPC_PORT: String(ports.connector), METRICS_PORT: String(metrics.connector) },
    // Plugin tools run in connector-runtime (ActionService); the planner refuses what none of ACTION_SERVICES serves.
    planner: { ACTION_SERVICES: actionServices, ...common, GRPC_PORT: String(ports.planner), METRICS_PORT: String(metrics.planner), CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}` },
    approval: { ...common, GRPC_PORT: String(ports.approval), METRICS_PORT: String(metrics.approval), ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrator}` },
    'entity-resolution': { ...common, GRPC_PORT: String(ports['entity-resolution']), METRICS_PORT: String(metrics['entity-resolution']) },
    orchestrator: {
      ACTION_SERVICES: actionServices,
      ...common,
      GRPC_PORT: String(ports.orchestrator),
      METRICS_PORT: String(metrics.orchestrator),
      CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
      PLANNER_URL: `127.0.0.1:${ports.planner}`,
      APPROVAL_URL: `127.0.0.1:${ports.approval}`,
    },
    gateway: {
      ...common,
      GRPC_PORT: String(ports.gateway),
      METRICS_PORT: String(metrics.gateway),
      HTTP_PORT: httpPort,
      HTTP_HOST: process.env.HTTP_HOST ?? '127.0.0.1',
      PLANNER_URL: `127.0.0.1:${ports.planner}`,
      ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrator}`,
      CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
      APPROVAL_URL: `127.0.0.1:${ports.approval}`,
      ENTITY_RESOLUTION_URL: `127.0.0.1:${ports['entity-resolution']}`,
    },
  };
  const running = [];
  const stopAll = async () => {
    for (const s of running.reverse()) await s.close().catch((err) => say(`stop failed: ${err.message}`));
    await pg?.stop();
  };
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      say('stopping…');
      setTimeout(() => process.exit(1), 20_000).unref();
      stopAll().then(() => process.exit(0));
    });
  }
  try {
    for (const name of services) {
      const mod = await import(join(root, 'services', name, 'dist', 'index.js'));
      const start = Object.values(mod).find((v) => typeof v === 'function' && v.name.startsWith('bootstrap'));
      say(`starting ${name}…`);
      running.push(await start(env[name]));
    }
  } catch (err) {
    say(`failed to start: ${err.message}`);
    await stopAll();
    process.exit(1);
  }
  const gatewayPort = running.at(-1).httpPort;
  lock.update({ httpUrl: `http://127.0.0.1:${gatewayPort}` });
  const shown = ['gateway', 'planner', 'orchestrator', 'connector-runtime', 'approval', 'entity-resolution'];
  const listed = (table) => shown.map((name) => `${name} ${table[name === 'connector-runtime' ? 'connector' : name]}`).join(', ');
  // The metrics ports the services bound (the ones configured, unless one was 0).
  const metricsPorts = Object.fromEntries(services.map((name, i) => [name === 'connector-runtime' ? 'connector' : name, running[i].kit?.metricsPort || metrics[name === 'connector-runtime' ? 'connector' : name]]));
  say(
    `ready in ${((Date.now() - t0) / 1000).toFixed(1)} s — gateway http://127.0.0.1:${gatewayPort} (OpenAPI: /api/docs); ` +
      `gRPC: ${listed(ports)}; metrics: ${listed(metricsPorts)}${pg ? `; embedded PostgreSQL ${embeddedPgPort()}` : ''}. Ctrl-C to stop.`,
  );
}

/** The lock on the data directory (start.pid), released however this process ends. */
let lock;
process.on('exit', () => lock?.release());

main().catch((err) => {
  say(err instanceof StartError ? err.message : `failed to start: ${err?.message ?? err}`);
  process.exit(1);
});
