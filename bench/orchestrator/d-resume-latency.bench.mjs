// bench/orchestrator (d): latency from a decision on a waiting approval
// (gRPC ResumeRun) to the next node's node_start commit, against LangGraph JS
// interrupt() → Command({ resume }) with PostgresSaver. Target: p99 < 20 ms.
//
//   OURS        N runs of the 2-node plan `gate` (approval) → `next`
//               (tool transform_data, pure) started with gRPC StartRun (plan
//               built with @af/plan PlanGraphSchema.parse + planToWire), waited
//               on until all are `waiting`; then one ResumeRun (approve) per
//               run, either at a steady rate (open loop, one every 1/RATE s) or
//               all at once (burst). Per run:
//                 latency = node_states.started_at of `next` (PostgreSQL now()
//                           of the one statement that commits next's node_start
//                           and node_complete — transform_data is pure)
//                           − the client's send time of ResumeRun (wall clock of
//                           this machine, µs, calibrated against Date.now()).
//               Also from run_events: the same to next's node_start frame
//               (orchestrator clock, ms), to the run's `complete` frame (taken
//               just before the statement that commits it — with the default
//               PURE_NODE_BATCH the same statement as next's), from the
//               `decision` log frame (written in ResumeRun's own transaction)
//               to next's node_start frame, a breakdown of the hop, and the
//               ResumeRun RPC round trip itself.
//   LANGGRAPH   @langchain/langgraph 1.7.3, StateGraph gate (interrupt()) →
//               next, PostgresSaver durability "sync" on a fresh database,
//               N threads parked at the interrupt, then
//               invoke(Command({ resume })) per thread at the same rate / burst;
//               latency = performance.now() on entry to `next` − the invoke
//               call; also the invoke's own duration (ends after the final
//               checkpoint).
//
// Ours and LangGraph are interleaved per N, order rotated. Run by hand after
// `pnpm build`, with PostgreSQL on 127.0.0.1:5432 and nats-server -js on
// 127.0.0.1:4222:
//
//   node bench/orchestrator/d-resume-latency.bench.mjs [sizes=200,1000] [ratePerSecond=50]
//
// Writes bench/results/orchestrator-d.json.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Annotation, Command, END, START, StateGraph, interrupt } from '@langchain/langgraph';
import { TEST_DATABASE_URL } from '@af/testing';
import { grpcClients, orchestratorSettings, startOurStack, startRunGrpc } from './lib/ours.mjs';
import { cpuDiff, cpuSnapshot, perUnit } from './lib/cpu.mjs';
import { freshPostgresSaver } from './lib/reference.mjs';
import { fmt, machineFacts, median, percentile, printTable, progress, writeResult } from './lib/report.mjs';

// @af/plan is not a dependency of bench: load its build by path.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { PlanGraphSchema, planToWire } = await import(pathToFileURL(join(root, 'packages/plan/dist/index.js')).href);

const SIZES = (process.argv[2] ?? '200,1000').split(',').map(Number);
const RATE = Number(process.argv[3] ?? 50);
const INTERVAL_MS = 1000 / RATE;
const START_IN_FLIGHT = 50;
const PARK_CONCURRENCY = 50;
const SETTLE_MS = 1000;
const WARMUP_RUNS = 100;
const POLL_MS = 10;
const REFERENCE = { langgraphPostgresSaverResumeMedianMs: 8.4 };
const TARGET_P99_MS = 20;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const round2 = (v) => (typeof v === 'number' ? Number(v.toFixed(2)) : v);
const load = () => loadavg().map((x) => Number(x.toFixed(2)));

/** p50/p95/p99/max of a sample, rounded. */
function stats(xs, digits = 2) {
  const r = (v) => Number(v.toFixed(digits));
  return {
    p50: r(median(xs)),
    p95: r(percentile(xs, 95)),
    p99: r(percentile(xs, 99)),
    max: r(Math.max(...xs)),
    min: r(Math.min(...xs)),
    mean: r(mean(xs)),
    n: xs.length,
  };
}

/**
 * Offset from performance.now() to the wall clock (Date.now(), the clock
 * PostgreSQL's now() and the orchestrator's timestamps read), to a few µs:
 * at the instant Date.now() ticks to a new millisecond the two agree exactly.
 * Re-taken before every measurement, so drift between the monotonic and the
 * wall clock over a run does not accumulate.
 */
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

/** The 2-node plan: an approval gate, then a pure transform_data node. */
const PLAN = PlanGraphSchema.parse({
  id: 'bench-d-resume',
  name: 'Bench approval gate then transform',
  nodes: [
    { id: 'gate', kind: 'approval', inputs: { prompt: 'ok?' } },
    { id: 'next', kind: 'tool', action: 'transform_data', inputs: { data: [1] }, params: {}, dependsOn: ['gate'] },
  ],
});
const WIRE_PLAN = planToWire(PLAN);

/** LangGraph's equivalent: `gate` interrupts; `next` stamps its entry time per thread. */
function langGraph(checkpointer, stamps) {
  const State = Annotation.Root({
    decision: Annotation({ reducer: (_p, n) => n, default: () => null }),
    data: Annotation({ reducer: (_p, n) => n, default: () => [] }),
  });
  return new StateGraph(State)
    .addNode('gate', () => ({ decision: interrupt('ok?') }))
    .addNode('next', (_state, config) => {
      stamps.set(config.configurable.thread_id, performance.now());
      return { data: [1] };
    })
    .addEdge(START, 'gate')
    .addEdge('gate', 'next')
    .addEdge('next', END)
    .compile({ checkpointer });
}

/** Call `fire(item)` for every item: all at once (burst) or one every INTERVAL_MS (open loop). */
async function pace(items, mode, fire) {
  const t0 = performance.now();
  for (let i = 0; i < items.length; i++) {
    if (mode === 'steady') {
      const wait = t0 + i * INTERVAL_MS - performance.now();
      if (wait > 0) await sleep(wait);
    }
    fire(items[i]);
  }
  return performance.now() - t0;
}

/** Run `fn` over items, at most `limit` at a time. */
async function bounded(items, limit, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const machine = await machineFacts(TEST_DATABASE_URL);
// The services load the build present now (another build may land while this runs).
const build = {
  orchestratorDistBuiltAt: statSync(join(root, 'services/orchestrator/dist/main.js')).mtime.toISOString(),
  planDistBuiltAt: statSync(join(root, 'packages/plan/dist/index.js')).mtime.toISOString(),
};
progress(`starting the stack (${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')})`);
const stack = await startOurStack();
const results = {};
let settings;
try {
  settings = orchestratorSettings(stack);
  const clients = await grpcClients(stack);

  /** Poll orchestrator.runs until `n` runs of this user have `status`; fail fast on failed/cancelled runs. */
  async function waitRuns(userId, status, n, timeoutMs = 120_000) {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const [row] = await stack.db.query(
        `SELECT count(*) FILTER (WHERE status = $2)::int AS n,
                count(*) FILTER (WHERE status IN ('failed','cancelled'))::int AS bad,
                max(error) AS error
           FROM orchestrator.runs WHERE user_id = $1`,
        [userId, status],
      );
      if (row.bad > 0) throw new Error(`${row.bad} runs failed or were cancelled (e.g. ${row.error})`);
      if (row.n >= n) return;
      if (performance.now() > deadline) throw new Error(`only ${row.n}/${n} runs ${status} after ${timeoutMs} ms`);
      await sleep(POLL_MS);
    }
  }

  /** Start n runs and wait until every one is parked at its gate. */
  async function parkOurs(n, principal) {
    const ids = [];
    await bounded(Array.from({ length: n }), START_IN_FLIGHT, async () => {
      ids.push(await startRunGrpc(clients, principal, WIRE_PLAN, {}));
    });
    await waitRuns(principal.userId, 'waiting', n);
    return ids;
  }

  /** One measurement of ours: park n runs, decide them (steady or burst), read the timings back. */
  async function ours(n, mode, record = true) {
    const principal = { userId: `bench-d-${mode}-${n}-${randomUUID()}`, teamIds: [] };
    const ids = await parkOurs(n, principal);
    await sleep(SETTLE_MS); // let the parking's outbox rows drain
    const offset = wallClockOffset();
    const sentAt = new Map();
    const rpcMs = [];
    const calls = [];
    const load0 = load();
    const cpu0 = await cpuSnapshot(stack);
    const sendSpanMs = await pace(ids, mode, (runId) => {
      const t = performance.now();
      sentAt.set(runId, t + offset);
      calls.push(
        clients
          .call(clients.orchestrator.resumeRun({ principal, runId, nodeId: 'gate', decision: 1, instructions: '', idempotencyKey: randomUUID() }))
          .then(() => rpcMs.push(performance.now() - t)),
      );
    });
    await Promise.all(calls);
    await waitRuns(principal.userId, 'completed', n);
    const cpu = cpuDiff(cpu0, await cpuSnapshot(stack));
    if (!record) return;
    const rows = await stack.db.query(
      `SELECT r.id,
              extract(epoch FROM ns.started_at) * 1000 AS next_started,
              extract(epoch FROM min(e.created_at) FILTER (WHERE e.type = 'log' AND e.node_id = 'gate' AND e.payload->>'event' = 'decision')) * 1000 AS decision,
              extract(epoch FROM min(e.created_at) FILTER (WHERE e.type = 'node_complete' AND e.node_id = 'gate')) * 1000 AS gate_complete,
              extract(epoch FROM min(e.created_at) FILTER (WHERE e.type = 'node_start' AND e.node_id = 'next')) * 1000 AS next_start,
              extract(epoch FROM min(e.created_at) FILTER (WHERE e.type = 'node_complete' AND e.node_id = 'next')) * 1000 AS next_complete,
              extract(epoch FROM min(e.created_at) FILTER (WHERE e.type = 'complete')) * 1000 AS run_complete
         FROM orchestrator.runs r
         JOIN orchestrator.node_states ns ON ns.run_id = r.id AND ns.node_id = 'next'
         JOIN orchestrator.run_events e ON e.run_id = r.id
        WHERE r.user_id = $1
        GROUP BY r.id, ns.started_at`,
      [principal.userId],
    );
    if (rows.length !== n) throw new Error(`expected ${n} runs, read ${rows.length}`);
    const m = {
      toNextStartDb: [], toNextStartFrame: [], toRunCompleteFrame: [], decisionToNextStart: [],
      sendToDecision: [], decisionToGateComplete: [], gateCompleteToNextStart: [], nextStartFrameToStatement: [],
      pureStartAndCompleteTogether: 0,
    };
    for (const r of rows) {
      const v = Object.fromEntries(Object.entries(r).map(([k, x]) => [k, k === 'id' ? x : Number(x)]));
      const sent = sentAt.get(r.id);
      if (Object.values(v).some((x) => x === null || Number.isNaN(x))) throw new Error(`run ${r.id} lacks a frame: ${JSON.stringify(r)}`);
      m.toNextStartDb.push(v.next_started - sent);
      m.toNextStartFrame.push(v.next_start - sent);
      m.toRunCompleteFrame.push(v.run_complete - sent);
      m.decisionToNextStart.push(v.next_start - v.decision);
      m.sendToDecision.push(v.decision - sent);
      m.decisionToGateComplete.push(v.gate_complete - v.decision);
      m.nextStartFrameToStatement.push(v.next_started - v.next_start);
      m.gateCompleteToNextStart.push(v.next_start - v.gate_complete);
      if (v.next_start === v.next_complete) m.pureStartAndCompleteTogether++;
    }
    const byLatency = m.toNextStartDb.map((x, i) => [x, i]).sort((a, b) => b[0] - a[0]);
    const slowest = byLatency.slice(0, Math.max(1, Math.ceil(n / 20))).map(([, i]) => i);
    const parts = {
      sendToDecisionFrame: m.sendToDecision,
      decisionFrameToGateCompleteFrame: m.decisionToGateComplete,
      gateCompleteFrameToNextNodeStartFrame: m.gateCompleteToNextStart,
      nextNodeStartFrameToItsStatement: m.nextStartFrameToStatement,
    };
    const pick = (f) => Object.fromEntries(Object.entries(parts).map(([k, xs]) => [k, round2(f(xs))]));
    results[n] ??= { ours: {}, langgraph: {} };
    results[n].ours[mode] = {
      resumeToNextNodeStartMs: stats(m.toNextStartDb),
      resumeToNextNodeStartFrameMs: stats(m.toNextStartFrame),
      resumeToRunCompleteFrameMs: stats(m.toRunCompleteFrame),
      decisionFrameToNextNodeStartFrameMs: stats(m.decisionToNextStart),
      resumeRpcMs: stats(rpcMs),
      breakdownMedianMs: pick(median),
      // Where the slowest 5 % of resumes spent their time: each part's mean over them.
      breakdownSlowest5PercentMeanMs: pick((xs) => mean(slowest.map((i) => xs[i]))),
      breakdownMs: pick(stats),
      nextNodeStartCommittedWithComplete: `${m.pureStartAndCompleteTogether}/${n}`,
      sendSpanMs: Number(sendSpanMs.toFixed(1)),
      cpuMsPerResume: perUnit(cpu, n),
      machineCpuBusyFraction: Number((cpu.machineBusyMs / cpu.machineTotalMs).toFixed(2)),
      loadAverage: { before: load0, after: load() },
    };
  }

  /** One measurement of LangGraph: park n threads at the interrupt, resume them (steady or burst). */
  async function langgraph(n, mode, lg, record = true) {
    const threads = Array.from({ length: n }, () => randomUUID());
    const cfg = (thread_id) => ({ configurable: { thread_id }, durability: 'sync' });
    await bounded(threads, PARK_CONCURRENCY, async (t) => {
      const out = await lg.graph.invoke({}, cfg(t));
      if (!out.__interrupt__) throw new Error(`LangGraph thread ${t} did not stop at the interrupt`);
    });
    await sleep(SETTLE_MS);
    const sentAt = new Map();
    const invokeMs = [];
    const calls = [];
    const load0 = load();
    const sendSpanMs = await pace(threads, mode, (t) => {
      const t0 = performance.now();
      sentAt.set(t, t0);
      calls.push(
        lg.graph.invoke(new Command({ resume: 'approve' }), cfg(t)).then((out) => {
          if (out.decision !== 'approve' || out.data.length !== 1) throw new Error(`unexpected LangGraph output ${JSON.stringify(out)}`);
          invokeMs.push(performance.now() - t0);
        }),
      );
    });
    await Promise.all(calls);
    if (!record) return;
    const toNext = threads.map((t) => lg.stamps.get(t) - sentAt.get(t));
    results[n] ??= { ours: {}, langgraph: {} };
    results[n].langgraph[mode] = {
      resumeToNextNodeStartMs: stats(toNext),
      resumeInvokeMs: stats(invokeMs),
      sendSpanMs: Number(sendSpanMs.toFixed(1)),
      loadAverage: { before: load0, after: load() },
    };
  }

  async function withLangGraph(fn) {
    const pg = await freshPostgresSaver();
    const stamps = new Map();
    try {
      return await fn({ graph: langGraph(pg.saver, stamps), stamps });
    } finally {
      await pg.close();
    }
  }

  progress(`warm-up (${WARMUP_RUNS} resumes of each side, not recorded)`);
  await ours(WARMUP_RUNS, 'steady', false);
  await withLangGraph((lg) => langgraph(WARMUP_RUNS, 'steady', lg, false));

  for (let round = 0; round < SIZES.length; round++) {
    const n = SIZES[round];
    await withLangGraph(async (lg) => {
      const steps = [
        ['ours steady', () => ours(n, 'steady')],
        ['langgraph steady', () => langgraph(n, 'steady', lg)],
        ['ours burst', () => ours(n, 'burst')],
        ['langgraph burst', () => langgraph(n, 'burst', lg)],
      ];
      const rotated = steps.map((_, i) => steps[(i + round) % steps.length]);
      for (const [name, step] of rotated) {
        progress(`N=${n}: ${name}${name.endsWith('steady') ? ` (${RATE}/s)` : ''} (load ${load().join(' ')})`);
        await step();
      }
    });
  }
} finally {
  await stack.stop();
}

// ---------------------------------------------------------------- report
const rows = [];
for (const n of SIZES) {
  for (const mode of ['steady', 'burst']) {
    const o = results[n].ours[mode];
    const l = results[n].langgraph[mode];
    const row = (label, s) => [label, fmt(s.p50, 2), fmt(s.p95, 2), fmt(s.p99, 2), fmt(s.max, 2)];
    const tag = `N=${n} ${mode}${mode === 'steady' ? ` ${RATE}/s` : ''}`;
    rows.push(row(`${tag}  OURS ResumeRun → next node_start (DB clock)`, o.resumeToNextNodeStartMs));
    rows.push(row(`${tag}  OURS ResumeRun → next node_start frame`, o.resumeToNextNodeStartFrameMs));
    rows.push(row(`${tag}  OURS ResumeRun → run complete frame (≥ commit)`, o.resumeToRunCompleteFrameMs));
    rows.push(row(`${tag}  OURS decision frame → next node_start frame`, o.decisionFrameToNextNodeStartFrameMs));
    rows.push(row(`${tag}  OURS ResumeRun RPC round trip`, o.resumeRpcMs));
    rows.push(row(`${tag}  LangGraph resume → next node entered`, l.resumeToNextNodeStartMs));
    rows.push(row(`${tag}  LangGraph resume invoke (to final checkpoint)`, l.resumeInvokeMs));
  }
}
const target = Object.fromEntries(SIZES.map((n) => [n, results[n].ours.steady.resumeToNextNodeStartMs.p99 < TARGET_P99_MS]));
const met = Object.values(target).every(Boolean);

console.log(`\nbench/orchestrator (d): ResumeRun (approve) → next node_start; sizes ${SIZES.join(', ')}; steady ${RATE}/s and burst`);
console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.postgres}\n`);
printTable(['measure (ms)', 'p50', 'p95', 'p99', 'max'], rows);
console.log(
  '\nOurs, breakdown (medians; "slowest 5 %": means over the slowest 5 % of resumes): frames = orchestrator clock at ms resolution, taken when each\n' +
    "transition happened (held settlements keep their own time); the ResumeRun that committed the decision hands the run to an executor in the same\n" +
    "process, whose statement carries the gate's completion, next's start and completion and the run's complete:",
);
printTable(
  ['run', 'send → decision', 'decision → gate complete', 'gate → next start', 'frame → stmt', 'CPU ms/resume orch', 'pg', 'nats', 'machine busy'],
  SIZES.flatMap((n) =>
    ['steady', 'steady slowest 5 %', 'burst'].map((label) => {
      const mode = label.split(' ')[0];
      const o = results[n].ours[mode];
      const b = label.includes('slowest') ? o.breakdownSlowest5PercentMeanMs : o.breakdownMedianMs;
      const cpu = label.includes('slowest') ? {} : o.cpuMsPerResume;
      return [
        `N=${n} ${label}`,
        fmt(b.sendToDecisionFrame, 2),
        fmt(b.decisionFrameToGateCompleteFrame, 2),
        fmt(b.gateCompleteFrameToNextNodeStartFrame, 2),
        fmt(b.nextNodeStartFrameToItsStatement, 2),
        cpu.orchestrator === undefined ? '' : fmt(cpu.orchestrator, 2),
        cpu.orchestrator === undefined ? '' : fmt(cpu.postgresStackDb + cpu.postgresOther, 2),
        cpu.orchestrator === undefined ? '' : fmt(cpu.nats, 2),
        cpu.orchestrator === undefined ? '' : `${fmt(100 * o.machineCpuBusyFraction, 0)} %`,
      ];
    }),
  ),
);
console.log(`
Reference measured earlier on this machine class: LangGraph + PostgresSaver resume ${REFERENCE.langgraphPostgresSaverResumeMedianMs} ms median.
Target: ResumeRun → next node_start p99 < ${TARGET_P99_MS} ms at a steady rate: ${met ? 'MET' : 'NOT MET'} (${SIZES.map((n) => `N=${n}: p99 ${fmt(results[n].ours.steady.resumeToNextNodeStartMs.p99, 2)} ms`).join(', ')}).`);

writeResult('d', {
  benchmark: 'orchestrator-d-resume-latency',
  machine: { ...machine, loadAverageAtEnd: load() },
  build,
  setup: {
    sizes: SIZES,
    steadyRatePerSecond: RATE,
    warmup: `${WARMUP_RUNS} parked runs / threads of each side resumed at the steady rate, not recorded`,
    plan: "gate: approval {prompt:'ok?'} → next: tool transform_data {data:[1]} (pure; with the default PURE_NODE_BATCH the gate's completion, next's node_start and node_complete and the run's complete are one statement)",
    modes: {
      steady: `open loop: one resume every ${INTERVAL_MS} ms, not waiting for earlier ones`,
      burst: 'all N resumes issued at once',
    },
    ours: {
      path: `N runs started with gRPC StartRun (≤ ${START_IN_FLIGHT} in flight), polled until all are 'waiting', ${SETTLE_MS} ms settle, then gRPC ResumeRun {nodeId:'gate', decision: DECISION_APPROVE} per run`,
      latency:
        "node_states.started_at of 'next' (PostgreSQL now() of the statement committing next's node_start + node_complete; its commit follows within that statement) − client send time of ResumeRun (performance.now() mapped to the wall clock, re-calibrated before each measurement)",
      dispatch: 'ResumeRun commits the decision and queues the run; the replica that served it starts executing it at once (its work item still goes out through the outbox and JetStream, and is dropped by whichever execution finds the run taken or finished)',
      frames: 'run_events.created_at is the orchestrator process clock at ms resolution (new Date()), taken just before the statement is sent',
      orchestrator: settings,
    },
    langgraph:
      '@langchain/langgraph 1.7.3 + @langchain/langgraph-checkpoint-postgres 1.0.5, durability "sync", fresh database per size, pg.Pool default size; gate calls interrupt(), resumed with invoke(new Command({ resume })); latency = entry to `next` − invoke call',
  },
  results,
  reference: REFERENCE,
  target: { resumeToNextNodeStartP99BelowMs: TARGET_P99_MS, judgedOn: 'steady mode, ours, DB-clock latency', metBySize: target, met },
});
process.exit(0);
