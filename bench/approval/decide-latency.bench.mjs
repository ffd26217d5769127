// bench/approval: latency from a decision in the approval service (gRPC
// Decide) to the resumed node's node_start, with N runs waiting at once.
// Issue 6 target: p99 < 50 ms with 1,000 concurrent waiting runs.
//
//   N runs of the 2-node plan `gate` (approval) → `next` (tool transform_data,
//   pure) are started with gRPC StartRun and waited on until every one is
//   parked (`waiting`) with a pending request. Then one Decide (approve, as the
//   run's owner) per request, at a steady rate (open loop, one every 1/RATE s)
//   and — in a second round — all at once (burst). Per run:
//     latency   = node_states.started_at of `next` (PostgreSQL now() of the one
//                 statement that commits next's node_start + node_complete)
//                 − the client's send time of Decide (this machine's wall
//                 clock, calibrated against Date.now()).
//   Breakdown from the two services' own tables (same PostgreSQL clock):
//     send → approval.requests.decided_at      (Decide's transaction)
//     decided_at → the `decision` log frame     (outbox relay → JetStream →
//                                                orchestrator consumer → apply)
//     decision frame → next's node_start       (work item → lease → settle → run)
//   and the Decide RPC round trip.
//
// Run by hand after building (`pnpm build`), with PostgreSQL on
// 127.0.0.1:5432 and nats-server -js on 127.0.0.1:4222:
//
//   node bench/approval/decide-latency.bench.mjs [sizes=1000] [ratePerSecond=50]
//
// Writes bench/results/approval.json.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdirSync, writeFileSync } from 'node:fs';
import { startStack, TEST_DATABASE_URL } from '@af/testing';
import { grpcClients, PRODUCTION_ENV, startRunGrpc } from '../orchestrator/lib/ours.mjs';
import { fmt, machineFacts, median, percentile, printTable, progress, RESULTS_DIR } from '../orchestrator/lib/report.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// @af/plan is not a dependency of bench: load its build by path.
const { PlanGraphSchema, planToWire } = await import(pathToFileURL(join(root, 'packages/plan/dist/index.js')).href);

const SIZES = (process.argv[2] ?? '1000').split(',').map(Number);
const RATE = Number(process.argv[3] ?? 50);
const INTERVAL_MS = 1000 / RATE;
const START_IN_FLIGHT = 50;
const SETTLE_MS = 1500;
const POLL_MS = 20;
const TARGET_P99_MS = 50;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((x) => Number(x.toFixed(2)));
const stats = (xs) => {
  const r = (v) => Number(v.toFixed(2));
  return { p50: r(median(xs)), p95: r(percentile(xs, 95)), p99: r(percentile(xs, 99)), max: r(Math.max(...xs)), n: xs.length };
};

/** performance.now() → wall clock offset, to a few µs (see bench/orchestrator/d-resume-latency.bench.mjs). */
function wallClockOffset() {
  const offsets = [];
  for (let k = 0; k < 7; k++) {
    const d0 = Date.now();
    let p;
    let d;
    do {
      p = performance.now();
      d = Date.now();
    } while (d === d0);
    offsets.push(d - p);
  }
  return median(offsets);
}

const WIRE_PLAN = planToWire(
  PlanGraphSchema.parse({
    id: 'bench-approval',
    nodes: [
      { id: 'gate', kind: 'approval', inputs: { prompt: 'ok?' } },
      { id: 'next', kind: 'tool', action: 'transform_data', inputs: { data: [1] }, params: {}, dependsOn: ['gate'] },
    ],
  }),
);

async function bounded(items, limit, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const machine = await machineFacts(TEST_DATABASE_URL);
progress(`starting the stack (${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')})`);
// Production settings (logs at info, default background intervals: see PRODUCTION_ENV), otherwise default configuration.
const stack = await startStack({ env: PRODUCTION_ENV });
const results = {};
try {
  const clients = await grpcClients(stack);
  const require = createRequire(import.meta.resolve('@af/service-kit'));
  require('reflect-metadata');
  const { createGrpcClient, ServiceAuth } = await import('@af/service-kit');
  const { approval } = await import('@af/contracts');
  const approvals = createGrpcClient('approval', approval.APPROVAL_SERVICE_NAME, `127.0.0.1:${stack.services.approval.env.GRPC_PORT}`, {
    auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'bench' }),
  });

  async function waitFor(label, check, timeoutMs = 300_000) {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (await check()) return;
      if (performance.now() > deadline) throw new Error(`${label} not reached after ${timeoutMs} ms`);
      await sleep(POLL_MS);
    }
  }

  async function measure(n, mode) {
    const principal = { userId: `bench-approval-${mode}-${n}-${randomUUID()}`, teamIds: [] };
    progress(`${mode} n=${n}: starting and parking ${n} runs`);
    await bounded(Array.from({ length: n }), START_IN_FLIGHT, () => startRunGrpc(clients, principal, WIRE_PLAN, {}));
    await waitFor('all parked with a pending request', async () => {
      const [r] = await stack.db.query(`SELECT count(*)::int AS n FROM orchestrator.runs WHERE user_id = $1 AND status = 'waiting'`, [principal.userId]);
      const [q] = await stack.db.query(`SELECT count(*)::int AS n FROM approval.requests WHERE owner_user_id = $1 AND status = 'pending'`, [principal.userId]);
      return r.n === n && q.n === n;
    });
    await sleep(SETTLE_MS);
    const requests = await stack.db.query(`SELECT id, run_id FROM approval.requests WHERE owner_user_id = $1`, [principal.userId]);
    const offset = wallClockOffset();
    const sentAt = new Map();
    const rpcMs = [];
    const calls = [];
    const load0 = load();
    progress(`${mode} n=${n}: deciding`);
    const t0 = performance.now();
    for (let i = 0; i < requests.length; i++) {
      if (mode === 'steady') {
        const wait = t0 + i * INTERVAL_MS - performance.now();
        if (wait > 0) await sleep(wait);
      }
      const { id, run_id: runId } = requests[i];
      const t = performance.now();
      sentAt.set(runId, t + offset);
      calls.push(
        clients
          .call(approvals.decide({ principal, requestId: id, decision: approval.Decision.DECISION_APPROVE, instructions: '', idempotencyKey: randomUUID() }))
          .then(() => rpcMs.push(performance.now() - t)),
      );
    }
    await Promise.all(calls);
    await waitFor('all completed', async () => {
      const [r] = await stack.db.query(`SELECT count(*)::int AS n FROM orchestrator.runs WHERE user_id = $1 AND status = 'completed'`, [principal.userId]);
      return r.n === n;
    });
    const rows = await stack.db.query(
      `SELECT r.id,
              extract(epoch FROM ns.started_at) * 1000 AS next_started,
              extract(epoch FROM q.decided_at) * 1000 AS decided,
              extract(epoch FROM min(e.created_at) FILTER (WHERE e.type = 'log' AND e.payload->>'event' = 'decision')) * 1000 AS decision_frame
         FROM orchestrator.runs r
         JOIN orchestrator.node_states ns ON ns.run_id = r.id AND ns.node_id = 'next'
         JOIN approval.requests q ON q.run_id = r.id
         JOIN orchestrator.run_events e ON e.run_id = r.id
        WHERE r.user_id = $1
        GROUP BY r.id, ns.started_at, q.decided_at`,
      [principal.userId],
    );
    const m = { latency: [], sendToDecided: [], decidedToDecisionFrame: [], decisionFrameToNextStart: [] };
    for (const r of rows) {
      const sent = sentAt.get(r.id);
      m.latency.push(Number(r.next_started) - sent);
      m.sendToDecided.push(Number(r.decided) - sent);
      m.decidedToDecisionFrame.push(Number(r.decision_frame) - Number(r.decided));
      m.decisionFrameToNextStart.push(Number(r.next_started) - Number(r.decision_frame));
    }
    return {
      n,
      mode,
      ...(mode === 'steady' ? { ratePerSecond: RATE } : {}),
      loadAverage: { before: load0, after: load() },
      decideToNextNodeStartMs: stats(m.latency),
      breakdownMs: { sendToDecided: stats(m.sendToDecided), decidedToDecisionFrame: stats(m.decidedToDecisionFrame), decisionFrameToNextStart: stats(m.decisionFrameToNextStart) },
      decideRpcMs: stats(rpcMs),
      meetsTarget: percentile(m.latency, 99) < TARGET_P99_MS,
    };
  }

  for (const n of SIZES) {
    for (const mode of ['steady', 'burst']) results[`${mode}-${n}`] = await measure(n, mode);
  }
} finally {
  await stack.stop();
}

printTable(
  ['case', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'send→decided p99', 'decided→frame p99', 'frame→node p99', `p99 < ${TARGET_P99_MS} ms`],
  Object.entries(results).map(([k, r]) => [
    k,
    fmt(r.decideToNextNodeStartMs.p50, 1),
    fmt(r.decideToNextNodeStartMs.p95, 1),
    fmt(r.decideToNextNodeStartMs.p99, 1),
    fmt(r.decideToNextNodeStartMs.max, 1),
    fmt(r.breakdownMs.sendToDecided.p99, 1),
    fmt(r.breakdownMs.decidedToDecisionFrame.p99, 1),
    fmt(r.breakdownMs.decisionFrameToNextStart.p99, 1),
    String(r.meetsTarget),
  ]),
);
mkdirSync(RESULTS_DIR, { recursive: true });
const file = join(RESULTS_DIR, 'approval.json');
writeFileSync(file, JSON.stringify({
  measures: 'Decide (approval gRPC) → the resumed node`s node_start commit, N runs waiting at once; steady rate and burst',
  target: { p99Ms: TARGET_P99_MS, waitingRuns: 1000 },
  machine,
  results,
}, null, 2) + '\n');
console.log(`\nwrote ${file}`);
