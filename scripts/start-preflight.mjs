// Checks scripts/start.mjs makes before it starts anything, each failing with
// one plain line for a human (no stack trace): another `pnpm start` on the
// same data directory, ports already taken, a DATABASE_URL that does not work.
import { existsSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A problem to print as one line before exiting non-zero. */
export class StartError extends Error {}

/** Whether `pid` is a live process that is a `pnpm start` (scripts/start.mjs), as far as we can tell. */
function isRunningStart(pid) {
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err?.code !== 'EPERM') return false;
  }
  // A pid reused after a crash (kill -9) by some other program is not ours.
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start.mjs');
  } catch {
    return true; // no /proc (macOS): a live pid is taken as ours
  }
}

/**
 * Takes `<dataDir>/start.pid` for this process, or throws a StartError naming
 * the running instance (pid, gateway URL) and how to stop it. A file left by a
 * process that is gone (or unreadable) is replaced. Returns `update(fields)`
 * (records e.g. the gateway port once known) and `release()`.
 */
export function acquireLock(dataDir, info) {
  const file = join(dataDir, 'start.pid');
  const write = (fields, flag) => writeFileSync(file, `${JSON.stringify({ pid: process.pid, ...fields })}\n`, { flag, mode: 0o644 });
  for (let attempt = 0; ; attempt++) {
    try {
      write(info, 'wx');
      break;
    } catch (err) {
      if (err?.code !== 'EEXIST' || attempt > 2) throw err;
    }
    let other;
    try {
      other = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      other = undefined;
    }
    if (other && isRunningStart(other.pid)) {
      const where = other.httpUrl ? `, gateway ${other.httpUrl}` : '';
      throw new StartError(
        `already running (pid ${other.pid}${where}, data in ${dataDir}): stop it with Ctrl-C in its terminal or \`kill ${other.pid}\`, then start again`,
      );
    }
    try {
      unlinkSync(file); // stale: its process is gone
    } catch (err) {
      if (err?.code !== 'ENOENT') throw err;
    }
  }
  let current = info;
  const ours = () => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')).pid === process.pid;
    } catch {
      return false;
    }
  };
  return {
    update(fields) {
      current = { ...current, ...fields };
      if (ours()) write(current, 'w');
    },
    release() {
      if (existsSync(file) && ours()) unlinkSync(file);
    },
  };
}

/** Resolves true when nothing listens on host:port (we could bind it), false when it is taken. */
function portFree(host, port) {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (err) => (err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err)));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Throws a StartError naming the first port of `wanted` ([{port, what, hint}])
 * that is taken, and how to choose another. Port 0 (any) is not checked.
 */
export async function checkPorts(host, wanted) {
  for (const { port, what, hint } of wanted) {
    if (!port) continue;
    if (!(await portFree(host, port))) {
      throw new StartError(`port ${port} on ${host} (${what}) is already in use by another process: stop that process or ${hint}`);
    }
  }
}

/** host:port/database of a postgres URL, never its password. */
function describeUrl(url) {
  const host = url.hostname || 'localhost';
  const port = url.port || '5432';
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
  return { host, port, database };
}

/** The one line for a DATABASE_URL that did not work (exported for its wording). */
export function databaseProblem(rawUrl, err) {
  let url;
  try {
    url = new URL(rawUrl);
  } catch {
    return 'DATABASE_URL is not a URL: set it to postgres://user:password@host:port/database, or omit it to use the embedded database';
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    return `DATABASE_URL must start with postgres:// or postgresql:// (it starts with ${url.protocol}//): fix it, or omit it to use the embedded database`;
  }
  if (!err) return undefined;
  const { host, port, database } = describeUrl(url);
  const code = err.code;
  if (code === '3D000') {
    return `DATABASE_URL names database "${database}", which does not exist on ${host}:${port}: create it (createdb -h ${host} -p ${port} ${database}) or omit DATABASE_URL to use the embedded database`;
  }
  if (code === 'ECONNREFUSED') {
    return `cannot connect to PostgreSQL at ${host}:${port} (connection refused): is it running there? Check DATABASE_URL, or omit it to use the embedded database`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `cannot resolve host "${host}" of DATABASE_URL: check DATABASE_URL, or omit it to use the embedded database`;
  }
  if (code === '28P01' || code === '28000') {
    return `PostgreSQL at ${host}:${port} refused the user or password of DATABASE_URL (${String(err.message).split(/\r?\n/)[0]}): check DATABASE_URL`;
  }
  const message = String(err.message ?? err).split(/\r?\n/)[0];
  const safe = url.password ? message.split(decodeURIComponent(url.password)).join('[REDACTED]') : message;
  return `cannot use DATABASE_URL (${host}:${port}/${database}): ${safe}: check DATABASE_URL, or omit it to use the embedded database`;
}

/** Connects once with DATABASE_URL; throws a StartError with databaseProblem's line when that fails. */
export async function checkDatabase(root, rawUrl) {
  const syntax = databaseProblem(rawUrl);
  if (syntax) throw new StartError(syntax);
  const { Client } = createRequire(join(root, 'packages', 'service-kit', 'package.json'))('pg');
  const client = new Client({ connectionString: rawUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new StartError(databaseProblem(rawUrl, err));
  } finally {
    await client.end().catch(() => {});
  }
}
