#!/usr/bin/env node
// One-command start: builds if needed, then runs gateway, planner,
// orchestrator, connector-runtime, approval, output-router and entity-resolution in this process.
//   DATABASE_URL unset → embedded PostgreSQL (real binaries from npm) in .af-data/pg,
//                        with a random password (.af-data/pg-password, 0600) and
//                        its socket in .af-data/run (scripts/embedded-pg.mjs)
//   NATS_URL unset     → the in-process event bus (dev only; tests use real NATS)
//   AF_DATA_DIR        → the data directory (default .af-data in the checkout)
//   HTTP_PORT, AF_GRPC_BASE_PORT, AF_METRICS_BASE_PORT → the gateway's HTTP port (8080)
//                        and the first of seven gRPC (50050…) and metrics (9464…) ports
//   AF_DEMO_API_PORT   → the demo data API's port in dev mode (8090; AF_DEMO_API=off: none), see scripts/demo-api.mjs
// A second start on the same data directory, a port already taken or a
// DATABASE_URL that does not work ends with one line saying what to do.
// Ctrl-C stops everything cleanly.
import { fork, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireLock, checkDatabase, checkPorts, StartError } from './start-preflight.mjs';
import { startDevDemo } from './demo-api.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = process.env.AF_DATA_DIR ? resolve(process.env.AF_DATA_DIR) : join(root, '.af-data');
const services = ['connector-runtime', 'output-router', 'planner', 'approval', 'entity-resolution', 'orchestrator', 'gateway'];
const t0 = Date.now();
const say = (msg) => process.stdout.write(`[agent-factory] ${msg}\n`);

async function buildIfNeeded() {
  const missing = services.some((s) => !existsSync(join(root, 'services', s, 'dist', 'main.js')));
  if (!missing && process.env.AF_SKIP_BUILD) return;
  say(missing ? 'building (first run; about a minute)…' : 'checking build (turbo cache)…');
  await buildWithProgress();
}

/**
 * `turbo run build`, one line per package it compiles (`building 3/17: @af/plan`)
 * instead of silence; the compiler's output is shown only when the build fails.
 */
function buildWithProgress() {
  const started = Date.now();
  const child = spawn('pnpm', ['turbo', 'run', 'build', '--output-logs=new-only'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let total = '?';
  let done = 0;
  let built = 0;
  let log = '';
  let rest = '';
  const onData = (chunk) => {
    log += chunk;
    rest += chunk;
    const lines = rest.split('\n');
    rest = lines.pop();
    for (const raw of lines) {
      const line = raw.replace(/\x1b\[[0-9;]*m/g, ''); // turbo may colour its output
      const scope = /Running build in (\d+) packages/.exec(line);
      if (scope) total = scope[1];
      const task = /^(\S+):build: cache (hit|miss)/.exec(line);
      if (!task) continue;
      done++;
      if (task[2] === 'miss') {
        built++;
        say(`building ${done}/${total}: ${task[1]}`);
      }
    }
  };
  child.stdout.setEncoding('utf8').on('data', onData);
  child.stderr.setEncoding('utf8').on('data', onData);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) {
        process.stdout.write(log);
        reject(new StartError(`the build failed (turbo run build exited ${code}); its output is above`));
        return;
      }
      say(built ? `built ${built} package${built === 1 ? '' : 's'} in ${((Date.now() - started) / 1000).toFixed(1)} s (${done - built} up to date)` : `build up to date (${done} packages)`);
      resolve();
    });
  });
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

/**
 * The token plugin services present to connector-runtime's registry: one
 * generated once and kept in .af-data/plugin-registration-token (mode 0600),
 * where `af plugin dev` finds it, so a plugin under development registers
 * with no setup. PLUGIN_REGISTRATION_TOKEN overrides it.
 */
function pluginRegistrationToken() {
  if (process.env.PLUGIN_REGISTRATION_TOKEN) return process.env.PLUGIN_REGISTRATION_TOKEN;
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'plugin-registration-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const token = randomBytes(24).toString('hex');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return token;
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
  const ports = { gateway: grpcBase, planner: grpcBase + 1, orchestrator: grpcBase + 2, connector: grpcBase + 3, approval: grpcBase + 4, 'output-router': grpcBase + 5, 'entity-resolution': grpcBase + 6 };
  const metrics = { gateway: metricsBase, planner: metricsBase + 1, orchestrator: metricsBase + 2, connector: metricsBase + 3, approval: metricsBase + 4, 'output-router': metricsBase + 5, 'entity-resolution': metricsBase + 6 };
  if (grpcBase + 6 > 65535 || metricsBase + 6 > 65535) throw new StartError('AF_GRPC_BASE_PORT and AF_METRICS_BASE_PORT must leave room for seven ports (at most 65529)');
  mkdirSync(dataDir, { recursive: true });
  lock = acquireLock(dataDir, { httpUrl: `http://127.0.0.1:${httpPort}`, startedAt: new Date().toISOString() });
  const host = process.env.GRPC_HOST ?? '127.0.0.1';
  const label = (name) => (name === 'connector' ? 'connector-runtime' : name);
  const grpcHint = 'set AF_GRPC_BASE_PORT to the first of seven free ports';
  const metricsHint = 'set AF_METRICS_BASE_PORT to the first of seven free ports';
  await checkPorts(process.env.HTTP_HOST ?? '127.0.0.1', [{ port: Number(httpPort), what: 'gateway HTTP', hint: 'set HTTP_PORT' }]);
  await checkPorts(host, [
    ...Object.entries(ports).map(([name, port]) => ({ port, what: `${label(name)} gRPC`, hint: grpcHint })),
    ...Object.entries(metrics).map(([name, port]) => ({ port, what: `${label(name)} metrics`, hint: metricsHint })),
  ]);
  if (process.env.DATABASE_URL) await checkDatabase(root, process.env.DATABASE_URL);
  else await checkPorts('127.0.0.1', [{ port: embeddedPgPort(), what: 'embedded PostgreSQL', hint: 'set AF_EMBEDDED_PG_PORT' }]);
  // Dev mode only: the demo data API of the README's "Try it", reachable by connectors (scripts/demo-api.mjs).
  demo = await startDevDemo(process.env, say);
  await buildIfNeeded();
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
  // Services serving playbook actions (ActionService): the orchestrator runs them, the planner refuses what none serves.
  const actionServices = [`connector-runtime=127.0.0.1:${ports.connector}`, `output-router=127.0.0.1:${ports['output-router']}`, `entity-resolution=127.0.0.1:${ports['entity-resolution']}`, `planner=127.0.0.1:${ports.planner}`].join(',');
  const env = {
    'output-router': { ...common, GRPC_PORT: String(ports['output-router']), METRICS_PORT: String(metrics['output-router']), CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`, ENTITY_RESOLUTION_URL: `127.0.0.1:${ports['entity-resolution']}` },
    'connector-runtime': { ...common, ...demo?.connectorEnv, PLUGIN_REGISTRATION_TOKEN: pluginRegistrationToken(), GRPC_PORT: String(ports.connector), METRICS_PORT: String(metrics.connector) },
    // Plugin tools run in connector-runtime (ActionService); the planner refuses what none of ACTION_SERVICES serves.
    planner: { ACTION_SERVICES: actionServices, ...common, GRPC_PORT: String(ports.planner), METRICS_PORT: String(metrics.planner), CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`, ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrator}` },
    approval: { ...common, GRPC_PORT: String(ports.approval), METRICS_PORT: String(metrics.approval), ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrator}` },
    'entity-resolution': { ...common, GRPC_PORT: String(ports['entity-resolution']), METRICS_PORT: String(metrics['entity-resolution']), OUTPUT_ROUTER_URL: `127.0.0.1:${ports['output-router']}` },
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
      OUTPUT_ROUTER_URL: `127.0.0.1:${ports['output-router']}`,
      ENTITY_RESOLUTION_URL: `127.0.0.1:${ports['entity-resolution']}`,
    },
  };
  const running = [];
  const stopAll = async () => {
    for (const s of running.reverse()) await s.close().catch((err) => say(`stop failed: ${err.message}`));
    await pg?.stop();
    await demo?.api.close();
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
  const shown = ['gateway', 'planner', 'orchestrator', 'connector-runtime', 'approval', 'output-router', 'entity-resolution'];
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
/** The dev-mode demo data API, if started. */
let demo;
process.on('exit', () => lock?.release());

main().catch((err) => {
  say(err instanceof StartError ? err.message : `failed to start: ${err?.message ?? err}`);
  process.exit(1);
});
