#!/usr/bin/env node
// One-command start: builds if needed, then runs gateway, planner,
// orchestrator, connector-runtime and approval in this process.
//   DATABASE_URL unset → embedded PostgreSQL (real binaries from npm) in .af-data/pg,
//                        with a random password (.af-data/pg-password, 0600) and
//                        its socket in .af-data/run (scripts/embedded-pg.mjs)
//   NATS_URL unset     → the in-process event bus (dev only; tests use real NATS)
// Ctrl-C stops everything cleanly.
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, '.af-data');
const services = ['connector-runtime', 'planner', 'approval', 'orchestrator', 'gateway'];
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

/**
 * Embedded PostgreSQL in a child process of its own process group
 * (scripts/embedded-pg.mjs), so that a Ctrl-C reaches the services first and
 * PostgreSQL is stopped last, once they have drained.
 */
async function embeddedPostgres() {
  const port = Number(process.env.AF_EMBEDDED_PG_PORT ?? 54329);
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
  buildIfNeeded();
  const secrets = devSecrets();
  const pg = process.env.DATABASE_URL ? undefined : await embeddedPostgres();
  const natsUrl = process.env.NATS_URL ?? 'memory://agent-factory';
  if (!process.env.NATS_URL) say('NATS_URL not set: using the in-process event bus (dev mode only)');
  const httpPort = process.env.HTTP_PORT ?? '8080';
  const ports = { planner: 50051, orchestrator: 50052, connector: 50053, approval: 50054, gateway: 50050 };
  const common = {
    LOG_LEVEL: 'warn',
    ...secrets,
    ...process.env,
    SERVICE_AUTH_SECRET: serviceAuthSecret(),
    DATABASE_URL: process.env.DATABASE_URL ?? pg.url,
    NATS_URL: natsUrl,
    GRPC_HOST: process.env.GRPC_HOST ?? '127.0.0.1',
  };
  const env = {
    'connector-runtime': { ...common, GRPC_PORT: String(ports.connector), METRICS_PORT: '9467' },
    // Plugin tools run in connector-runtime (ActionService); the planner refuses what none of ACTION_SERVICES serves.
    planner: { ACTION_SERVICES: `connector-runtime=127.0.0.1:${ports.connector}`, ...common, GRPC_PORT: String(ports.planner), METRICS_PORT: '9465', CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}` },
    approval: { ...common, GRPC_PORT: String(ports.approval), METRICS_PORT: '9468', ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrator}` },
    orchestrator: {
      ACTION_SERVICES: `connector-runtime=127.0.0.1:${ports.connector}`,
      ...common,
      GRPC_PORT: String(ports.orchestrator),
      METRICS_PORT: '9466',
      CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
      PLANNER_URL: `127.0.0.1:${ports.planner}`,
      APPROVAL_URL: `127.0.0.1:${ports.approval}`,
    },
    gateway: {
      ...common,
      GRPC_PORT: String(ports.gateway),
      METRICS_PORT: '9464',
      HTTP_PORT: httpPort,
      HTTP_HOST: process.env.HTTP_HOST ?? '127.0.0.1',
      PLANNER_URL: `127.0.0.1:${ports.planner}`,
      ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrator}`,
      CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
      APPROVAL_URL: `127.0.0.1:${ports.approval}`,
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
  say(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s — gateway http://127.0.0.1:${gatewayPort} (OpenAPI: /api/docs). Ctrl-C to stop.`);
}

main();
