// bench/output-router: 10,000 rows into a workspace table through
// output-router's WorkspaceTables (the code data_workspace_table and
// save_to_workspace run: advisory lock, catalogue, checked + quoted
// identifiers, per-value conversion, batched INSERT … ON CONFLICT … RETURNING),
// beside the floor: the same rows as raw parameterised multi-row INSERTs of the
// same batch size into a plain table with `pg`. Three cases, each on a fresh
// table, rounds interleaved:
//   insert  10,000 new rows with a deduplication key (every row kept)
//   dedup   10,000 rows of which 5,000 duplicate existing keys (skipped)
//   upsert  10,000 rows whose upsert key exists (every row updated)
// Raw: `INSERT … VALUES …` (insert), `… ON CONFLICT DO NOTHING` (dedup),
// `… ON CONFLICT DO UPDATE` (upsert) with the same unique index.
// Target (issue 18): ours ≥ 0.5× raw rows/s.
//
// Run by hand after building (`pnpm build`), with PostgreSQL on 127.0.0.1:5432:
//   node bench/output-router/table-insert.bench.mjs [rounds=5] [rows=10000]
// Writes bench/results/output-router.json.
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdirSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { createTestDatabase, TEST_DATABASE_URL } from '@af/testing';
import { fmt, machineFacts, median, printTable, progress, RESULTS_DIR } from '../orchestrator/lib/report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dist = (p) => import(pathToFileURL(join(root, 'services/output-router/dist', p)).href);
const { WorkspaceTables } = await dist('infra/workspace-tables.js');
const { OUTPUT_ROUTER_MIGRATIONS } = await dist('infra/migrations/index.js');

const rounds = Number(process.argv[2] ?? 5);
const N = Number(process.argv[3] ?? 10_000);
const COLUMNS = [
  { name: 'ein', type: 'text' },
  { name: 'name', type: 'text' },
  { name: 'amount', type: 'number' },
  { name: 'year', type: 'integer' },
  { name: 'filed', type: 'timestamp' },
];
const rowsFrom = (start, n) =>
  Array.from({ length: n }, (_, i) => ({
    ein: `e${start + i}`,
    name: `Organisation ${start + i}`,
    amount: (start + i) * 1.5,
    year: 2020 + ((start + i) % 5),
    filed: '2026-01-02',
  }));

const machine = await machineFacts(TEST_DATABASE_URL);
const db = await createTestDatabase();
const pool = new pg.Pool({ connectionString: db.url, max: 4, options: '-c search_path=output_router' });
await pool.query('CREATE SCHEMA IF NOT EXISTS output_router');
for (const M of OUTPUT_ROUTER_MIGRATIONS)
  await new M().up({ query: (sql, params) => pool.query(sql, params).then((r) => r.rows) });

/** The Queryable + transaction WorkspaceTables needs, over one pool. */
const tx = {
  query: (sql, params) => pool.query(sql, params).then((r) => r.rows),
  async transaction(fn) {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn({ query: (sql, params) => c.query(sql, params).then((r) => r.rows) });
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK');
      throw err;
    } finally {
      c.release();
    }
  },
};
const tables = new WorkspaceTables(tx);

async function ours(kind, round) {
  const table = `t_${kind}_${round}`;
  const key = kind === 'upsert' ? { upsertKey: 'ein' } : { dedupKey: ['ein'] };
  const write = (rows) =>
    tables.write({
      owner: 'bench',
      workspaceId: 'default',
      tableName: table,
      columns: COLUMNS,
      rows,
      createIfMissing: true,
      source: 'bench',
      field: 'rows',
      ...key,
    });
  // Existing rows for dedup / upsert (not timed): the first half, or all of them.
  if (kind === 'dedup') await write(rowsFrom(0, N / 2));
  if (kind === 'upsert') await write(rowsFrom(0, N));
  const rows =
    kind === 'insert'
      ? rowsFrom(0, N)
      : kind === 'dedup'
        ? rowsFrom(0, N)
        : rowsFrom(0, N).map((r) => ({ ...r, amount: r.amount + 1 }));
  if (kind === 'insert') await write(rowsFrom(N * 10, 1)); // the table exists before timing, as it does for raw
  const t0 = process.hrtime.bigint();
  const r = await write(rows);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const expected = kind === 'insert' ? [N, 0] : kind === 'dedup' ? [N / 2, 0] : [0, N];
  if (r.inserted !== expected[0] || r.updated !== expected[1])
    throw new Error(`${kind}: ${JSON.stringify(r)} is not ${JSON.stringify(expected)}`);
  return ms;
}

async function raw(kind, round) {
  const table = `raw_${kind.replace(/-/g, '_')}_${round}`;
  await pool.query(
    `CREATE TABLE ${table} (_id bigserial PRIMARY KEY, ein text, name text, amount double precision, year bigint, filed timestamptz, _source text, _query text, _timestamp timestamptz NOT NULL DEFAULT now())`,
  );
  await pool.query(`CREATE UNIQUE INDEX ${table}_ein ON ${table} (ein)`);
  const names = ['ein', 'name', 'amount', 'year', 'filed', '_source', '_query'];
  const batch = Math.floor(30_000 / names.length);
  const insert = async (rows, conflict) => {
    const c = await pool.connect();
    try {
      await c.query('BEGIN');
      for (let s = 0; s < rows.length; s += batch) {
        const params = [];
        const tuples = rows
          .slice(s, s + batch)
          .map(
            (r) =>
              `(${[r.ein, r.name, r.amount, r.year, r.filed, 'bench', ''].map((v) => (params.push(v), `$${params.length}`)).join(', ')})`,
          );
        await c.query(
          `INSERT INTO ${table} (${names.join(', ')}) VALUES ${tuples.join(', ')}${conflict}`,
          params,
        );
      }
      await c.query('COMMIT');
    } finally {
      c.release();
    }
  };
  if (kind === 'dedup') await insert(rowsFrom(0, N / 2), '');
  if (kind === 'upsert') await insert(rowsFrom(0, N), '');
  const conflict =
    kind === 'insert'
      ? ''
      : kind === 'insert-on-conflict' || kind === 'dedup'
        ? ' ON CONFLICT (ein) DO NOTHING'
        : ' ON CONFLICT (ein) DO UPDATE SET name = EXCLUDED.name, amount = EXCLUDED.amount, year = EXCLUDED.year, filed = EXCLUDED.filed, _source = EXCLUDED._source, _query = EXCLUDED._query, _timestamp = now()';
  const rows =
    kind === 'upsert' ? rowsFrom(0, N).map((r) => ({ ...r, amount: r.amount + 1 })) : rowsFrom(0, N);
  const t0 = process.hrtime.bigint();
  await insert(rows, conflict);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

const kinds = ['insert', 'dedup', 'upsert'];
const times = Object.fromEntries(kinds.map((k) => [k, { ours: [], raw: [], rawOnConflict: [] }]));
for (let round = 0; round < rounds; round++) {
  progress(`round ${round + 1}/${rounds}`);
  for (const kind of kinds) {
    // Alternate which side goes first.
    if (round % 2) {
      times[kind].raw.push(await raw(kind, round));
      times[kind].ours.push(await ours(kind, round));
    } else {
      times[kind].ours.push(await ours(kind, round));
      times[kind].raw.push(await raw(kind, round));
    }
    // New rows through the same ON CONFLICT DO NOTHING a deduplication key needs (the insert case's like-for-like floor).
    if (kind === 'insert') times[kind].rawOnConflict.push(await raw('insert-on-conflict', round));
  }
}
await pool.end();
await db.drop();

const results = kinds.map((kind) => {
  const o = median(times[kind].ours);
  const r = median(times[kind].raw);
  const rc = times[kind].rawOnConflict.length ? median(times[kind].rawOnConflict) : undefined;
  return {
    kind,
    rows: N,
    oursMs: o,
    rawMs: r,
    oursRowsPerSecond: (N / o) * 1000,
    rawRowsPerSecond: (N / r) * 1000,
    ratio: r / o,
    ...(rc !== undefined ? { rawOnConflictMs: rc, ratioToOnConflict: rc / o } : {}),
    target: 0.5,
    met: r / o >= 0.5,
  };
});
printTable(
  [
    'case',
    'ours ms',
    'raw ms',
    'ours rows/s',
    'raw rows/s',
    'ours ÷ raw',
    'raw ON CONFLICT ms',
    'ours ÷ that',
  ],
  results.map((x) => [
    x.kind,
    fmt(x.oursMs, 1),
    fmt(x.rawMs, 1),
    fmt(x.oursRowsPerSecond, 0),
    fmt(x.rawRowsPerSecond, 0),
    fmt(x.ratio, 2),
    x.rawOnConflictMs === undefined ? '' : fmt(x.rawOnConflictMs, 1),
    x.ratioToOnConflict === undefined ? '' : fmt(x.ratioToOnConflict, 2),
  ]),
);
mkdirSync(RESULTS_DIR, { recursive: true });
writeFileSync(
  join(RESULTS_DIR, 'output-router.json'),
  JSON.stringify({ bench: 'output-router table insert', rounds, machine, results, samples: times }, null, 2) +
    '\n',
);
