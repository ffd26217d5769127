// bench/schedules: how fast the orchestrator dispatches schedule fires.
//
//   BURST    N one-off schedules (default 10,000) all due at the same instant
//            T; time from T until every fire has started its run (the run row
//            created, checked as RunCommands.start checks it, by the claim's
//            one multi-row statement, as in production; the runs then execute
//            on the same machine meanwhile), and each fire's dispatch lag (run
//            created − fire due).
//   STEADY   M interval schedules (default 1,000) of 60 s on staggered anchors
//            (1,000 fires per minute, evenly spread) for D minutes; dispatch
//            lag p50 / p99 per minute and the orchestrator processes' resident
//            memory sampled every 10 s (flat = no growth per fire).
//
// The real services run as processes (@af/testing startStack, R orchestrator
// replicas, production log level, default schedule settings: SCHEDULE_POLL_MS
// 1000, so a fire waits up to a second for the next tick). Schedules are
// inserted with SQL (creating 10,000 through the API would measure the API);
// each fire runs a one-node plan (a 0 ms delay). Run by hand after
// `pnpm build`, with PostgreSQL on 127.0.0.1:5432 and nats-server -js:
//
//   node bench/schedules/dispatch.bench.mjs [burst=10000] [steady=1000] [minutes=10] [replicas=2]
//
// (steady=0 or minutes=0: the burst alone.)
//
// Writes bench/results/schedules.json (BENCH_OUT: another file name there).
import { randomUUID } from 'node:crypto';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { TEST_DATABASE_URL } from '@af/testing';
import pg from 'pg';
import { startOurStack } from '../orchestrator/lib/ours.mjs';
import { machineFacts, percentile, progress } from '../orchestrator/lib/report.mjs';

const BURST = Number(process.argv[2] ?? 10_000);
const STEADY = Number(process.argv[3] ?? 1000);
const MINUTES = Number(process.argv[4] ?? 10);
const REPLICAS = Number(process.argv[5] ?? 2);
const TARGET_BURST_MS = 10_000;

const plan = { nodes: [{ id: 'wait', kind: 'delay', params: { durationMs: 0 } }] };
const definition = (spec) => ({
  name: 'bench',
  description: '',
  spec: { timezone: 'UTC', ...spec },
  target: { plan, inputs: {} },
  query_template: '',
  approval_policy: 'auto_approve',
  overlap_policy: 'allow_all',
  catchup_window: 86_400_000,
  jitter: 0,
  max_retries: 2,
  timeout_seconds: 300,
  paused: false,
});

/** Insert schedules in chunks: rows of [nextFireAt, definition]. */
async function insertSchedules(db, rows, createdAt) {
  for (let i = 0; i < rows.length; i += 1000) {
    const chunk = rows.slice(i, i + 1000);
    await db.query(
      `INSERT INTO orchestrator.schedules (id, user_id, name, definition, next_fire_at, due_at, created_at)
       SELECT unnest($1::uuid[]), 'bench-user', 'bench', unnest($2::jsonb[]), unnest($3::timestamptz[]), unnest($3::timestamptz[]), $4`,
      [chunk.map(() => randomUUID()), chunk.map((r) => JSON.stringify(r[1])), chunk.map((r) => r[0]), createdAt],
    );
  }
}

function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The same-script reference: the rows a burst of `n` fires writes (per fire a
 * run, its node state, plan version and start event, its fire and two outbox
 * messages), written by raw multi-row INSERTs into scratch tables of the same
 * shape, in transactions of `batch` rows on `conns` connections at once — no
 * service, no claim, no run execution. It tells how fast this machine writes
 * those rows right now, to judge the burst figure by (the machine is shared).
 */
async function writeFloorMs(url, n, batch, conns) {
  const pool = new pg.Pool({ connectionString: url, max: conns });
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS bench_ref;
      DROP TABLE IF EXISTS bench_ref.runs, bench_ref.node_states, bench_ref.plan_versions, bench_ref.run_events, bench_ref.fires, bench_ref.outbox;
      CREATE TABLE bench_ref.runs (id uuid PRIMARY KEY, user_id text, status text, run_context text, plan jsonb, inputs jsonb, idempotency_key text, policies jsonb, created_at timestamptz DEFAULT now(), UNIQUE (user_id, idempotency_key));
      CREATE TABLE bench_ref.node_states (run_id uuid, node_id text, status text, PRIMARY KEY (run_id, node_id));
      CREATE TABLE bench_ref.plan_versions (run_id uuid, version int, plan jsonb, PRIMARY KEY (run_id, version));
      CREATE TABLE bench_ref.run_events (run_id uuid, seq int, type text, payload jsonb, PRIMARY KEY (run_id, seq));
      CREATE TABLE bench_ref.fires (schedule_id uuid, fire_at timestamptz, status text, run_id uuid, PRIMARY KEY (schedule_id, fire_at));
      CREATE TABLE bench_ref.outbox (id bigserial PRIMARY KEY, subject text, payload jsonb, msg_id text);`);
    const planJson = JSON.stringify(plan);
    const chunks = [];
    for (let i = 0; i < n; i += batch) chunks.push(Array.from({ length: Math.min(batch, n - i) }, () => randomUUID()));
    const t0 = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: conns }, async () => {
        const c = await pool.connect();
        try {
          for (let k = next++; k < chunks.length; k = next++) {
            const ids = chunks[k];
            await c.query('BEGIN');
            await c.query(
              `WITH r AS (INSERT INTO bench_ref.runs (id, user_id, status, run_context, plan, inputs, idempotency_key, policies)
                           SELECT id, 'bench-user', 'queued', 'scheduled', $2::jsonb, '{}'::jsonb, 'k:' || id, '[]'::jsonb FROM unnest($1::uuid[]) id RETURNING id),
                    n AS (INSERT INTO bench_ref.node_states SELECT id, 'wait', 'pending' FROM r),
                    p AS (INSERT INTO bench_ref.plan_versions SELECT id, 1, $2::jsonb FROM r),
                    e AS (INSERT INTO bench_ref.run_events SELECT id, 1, 'start', '{}'::jsonb FROM r)
               INSERT INTO bench_ref.fires SELECT id, now(), 'started', id FROM r`,
              [ids, planJson],
            );
            await c.query(`INSERT INTO bench_ref.outbox (subject, payload, msg_id) SELECT 'run.' || id, jsonb_build_object('runId', id), 'm:' || id || ':' || k FROM unnest($1::uuid[]) id, generate_series(1, 2) k`, [ids]);
            await c.query('COMMIT');
          }
        } finally {
          c.release();
        }
      }),
    );
    const ms = Date.now() - t0;
    await pool.query('DROP SCHEMA bench_ref CASCADE');
    return ms;
  } finally {
    await pool.end();
  }
}

const lagStats = (xs) => ({ n: xs.length, p50Ms: Math.round(percentile(xs, 50)), p99Ms: Math.round(percentile(xs, 99)), maxMs: Math.round(Math.max(...xs)) });

const machine = await machineFacts(TEST_DATABASE_URL);
progress(`starting ${REPLICAS} orchestrator replica(s) and the other services`);
// BENCH_RUNS_IN_FLIGHT=1: each replica executes one run at a time, so the burst measures the dispatch with (almost) no run execution beside it.
const runsInFlight = process.env.BENCH_RUNS_IN_FLIGHT;
const stack = await startOurStack(runsInFlight ? { orchestrator: { RUNS_IN_FLIGHT: runsInFlight } } : {}, { orchestratorReplicas: REPLICAS });
const result = { machine, settings: { burst: BURST, steady: STEADY, minutes: MINUTES, replicas: REPLICAS, schedulePollMs: 1000, scheduleBatch: 500, scheduleWorkers: 2, runsInFlight: Number(runsInFlight ?? 64) } };
try {
  // --- reference (same script, same moment): the burst's row writes alone ---
  if (BURST > 0) {
    result.reference = { loadAverageBefore: loadavg().map((x) => Math.round(x * 100) / 100), rowWritesOfBurstMs: await writeFloorMs(stack.db.url, BURST, 500, 4) };
    progress(`reference: the burst's row writes alone (raw SQL, 500-row transactions, 4 connections) took ${result.reference.rowWritesOfBurstMs} ms`);
  }
  // --- burst --- (burst=0: the steady part alone)
  if (BURST > 0) {
  const T = new Date(Math.ceil((Date.now() + 20_000) / 1000) * 1000);
  progress(`inserting ${BURST} one-off schedules due at ${T.toISOString()}`);
  await insertSchedules(stack.db, Array.from({ length: BURST }, () => [T, definition({ at: T.toISOString() })]), new Date());
  for (;;) {
    const [{ n }] = (await stack.db.query(`SELECT count(*)::int AS n FROM orchestrator.schedule_fires WHERE fire_at = $1 AND status IN ('started','finished')`, [T]));
    if (n >= BURST) break;
    if (Date.now() > T.getTime() + 300_000) throw new Error(`burst: only ${n} of ${BURST} fires started after 5 minutes`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const burstRows = (await stack.db.query(`SELECT extract(epoch FROM dispatched_at - ready_at) * 1000 AS lag, extract(epoch FROM dispatched_at - $1::timestamptz) * 1000 AS since FROM orchestrator.schedule_fires WHERE fire_at = $1`, [T]));
  const allDispatchedMs = Math.max(...burstRows.map((r) => Number(r.since)));
  result.burst = { loadAverageAfter: loadavg().map((x) => Math.round(x * 100) / 100), fires: burstRows.length, allDispatchedWithinMs: Math.round(allDispatchedMs), targetMs: TARGET_BURST_MS, met: allDispatchedMs <= TARGET_BURST_MS, lag: lagStats(burstRows.map((r) => Number(r.lag))) };
  progress(`burst: ${burstRows.length} fires dispatched within ${Math.round(allDispatchedMs)} ms (target ${TARGET_BURST_MS})`);
  }
  // Let the burst's runs finish before the steady part.
  for (; STEADY > 0 && MINUTES > 0; ) {
    const [{ n }] = (await stack.db.query(`SELECT count(*)::int AS n FROM orchestrator.runs WHERE status IN ('queued','running','waiting')`));
    if (n === 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }

  // --- steady --- (steady=0 or minutes=0: the burst only)
  if (STEADY > 0 && MINUTES > 0) {
  const start = new Date(Math.ceil((Date.now() + 10_000) / 1000) * 1000);
  const spacing = 60_000 / STEADY;
  progress(`inserting ${STEADY} schedules of 60 s, ${spacing} ms apart, from ${start.toISOString()}, for ${MINUTES} min`);
  await insertSchedules(
    stack.db,
    Array.from({ length: STEADY }, (_, i) => {
      const anchor = new Date(start.getTime() + Math.round(i * spacing));
      return [anchor, definition({ interval: 60_000, start_at: anchor.toISOString() })];
    }),
    start,
  );
  const memory = [];
  const end = start.getTime() + MINUTES * 60_000;
  while (Date.now() < end) {
    memory.push({ atS: Math.round((Date.now() - start.getTime()) / 1000), rssMiB: stack.orchestrators.map((o) => rssMiB(o.pid)).map((v) => (v === null ? null : Math.round(v))) });
    await new Promise((r) => setTimeout(r, 10_000));
  }
  await stack.db.query(`UPDATE orchestrator.schedules SET paused = true`);
  const steadyRows = (await stack.db.query(
    `SELECT extract(epoch FROM dispatched_at - ready_at) * 1000 AS lag, floor(extract(epoch FROM fire_at - $1::timestamptz) / 60) AS minute
       FROM orchestrator.schedule_fires WHERE fire_at >= $1 AND dispatched_at IS NOT NULL`,
    [start],
  ));
  const perMinute = [];
  for (let m = 0; m < MINUTES; m++) {
    const xs = steadyRows.filter((r) => Number(r.minute) === m).map((r) => Number(r.lag));
    if (xs.length) perMinute.push({ minute: m, ...lagStats(xs) });
  }
  result.steady = { loadAverageAfter: loadavg().map((x) => Math.round(x * 100) / 100), firesPerMinute: STEADY, lag: lagStats(steadyRows.map((r) => Number(r.lag))), perMinute, memory };
  progress(`steady: lag p50 ${result.steady.lag.p50Ms} ms, p99 ${result.steady.lag.p99Ms} ms over ${steadyRows.length} fires`);
  }
} finally {
  await stack.stop();
}
const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'results', process.env.BENCH_OUT ?? 'schedules.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
console.log(JSON.stringify({ burst: result.burst, steady: { lag: result.steady?.lag } }, null, 2));
console.log(`wrote ${out}`);
