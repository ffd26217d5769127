// Run by `pnpm test` and `pnpm test:int` before any test: the integration and
// end-to-end tests need a real PostgreSQL and a NATS server with JetStream.
// When one is unreachable this prints one plain message per missing service
// (the URL it tried and how to start it) and exits 1, instead of letting the
// tests fail later with stack traces. Silent when both are up.
//
// The URLs are the ones the tests use (packages/testing/src/env.ts):
// TEST_DATABASE_URL and TEST_NATS_URL, with the same defaults.
import { createRequire } from 'node:module';
import { connect } from 'node:net';

const TIMEOUT_MS = 5_000;
const DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** A URL with any password replaced, for printing. */
function printable(url) {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** Connects to PostgreSQL and runs a query; resolves to null when it works, else the reason. */
async function checkPostgres(url) {
  let pg;
  try {
    // `pg` is a dependency of packages/testing, the package that opens the tests' databases.
    pg = createRequire(new URL('../packages/testing/package.json', import.meta.url))('pg');
  } catch {
    return 'the `pg` package is not installed (run `pnpm install` first)';
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return err?.message || err?.code || String(err);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Opens a TCP connection to the first server of a NATS URL and reads the
 * server's INFO line; resolves to null when it is a NATS server with
 * JetStream, else the reason.
 */
function checkNats(url) {
  let host;
  let port;
  try {
    const u = new URL(url.split(',')[0].trim());
    host = u.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
    port = Number(u.port || 4222);
  } catch {
    return Promise.resolve('not a valid URL');
  }
  return new Promise((resolve) => {
    let buffer = '';
    const socket = connect({ host, port });
    const done = (reason) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(TIMEOUT_MS, () => done(`no answer within ${TIMEOUT_MS / 1000} s`));
    socket.on('error', (err) => done(err.code || err.message));
    socket.on('close', () => done('the connection was closed before the server said hello'));
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      const end = buffer.indexOf('\r\n');
      if (end < 0) return;
      const line = buffer.slice(0, end);
      if (!line.startsWith('INFO ')) return done('the server there is not a NATS server');
      let info = {};
      try {
        info = JSON.parse(line.slice(5));
      } catch {
        // an INFO line we cannot read: still a NATS server
      }
      done(
        info.jetstream === false || (info.jetstream === undefined && 'version' in info)
          ? 'JETSTREAM_OFF'
          : null,
      );
    });
  });
}

const [pgProblem, natsProblem] = await Promise.all([checkPostgres(DATABASE_URL), checkNats(NATS_URL)]);

const messages = [];
if (pgProblem) {
  messages.push(
    [
      `PostgreSQL is not reachable at ${printable(DATABASE_URL)} (${pgProblem}).`,
      '  Start it, e.g. on Debian/Ubuntu: `pg_ctlcluster 15 main start` (your version) or `service postgresql start`;',
      '  the tests need a superuser that can create databases (trust auth on 127.0.0.1 is simplest).',
      '  Use another server with TEST_DATABASE_URL=postgres://user@host:port/db.',
    ].join('\n'),
  );
}
if (natsProblem) {
  messages.push(
    [
      natsProblem === 'JETSTREAM_OFF'
        ? `NATS at ${printable(NATS_URL)} is running without JetStream.`
        : `NATS is not reachable at ${printable(NATS_URL)} (${natsProblem}).`,
      '  Start it with JetStream: `nats-server -js` (listens on 127.0.0.1:4222).',
      '  Use another server with TEST_NATS_URL=nats://host:port.',
    ].join('\n'),
  );
}
if (messages.length > 0) {
  process.stderr.write(
    `${messages.join('\n\n')}\n\n` +
      'Stopped before running the tests. `.ci/run` starts both services automatically; ' +
      '`pnpm test:unit` runs the unit tests, which need neither.\n',
  );
  process.exit(1);
}
