// bench/orchestrator (c): throughput of 10-step durable runs end to end
// through gRPC on this machine.
//
//   OURS        a 10-step transform_data playbook compiled once through the
//               planner's CompilePlaybook; runs started directly with the
//               orchestrator's gRPC StartRun (the planner's plan passed through
//               unchanged), at most IN_FLIGHT runs started and not yet
//               finished, TOTAL runs per trial; completions counted by polling
//               `SELECT count(*) … FROM orchestrator.runs … status = 'completed'`.
//               Both ways, each on its own stack: pure nodes committed
//               together (default PURE_NODE_BATCH: a run's 10 transform steps
//               ride on its `complete` statement; StartRun, the lease and the
//               finish are its commits) and every node committed on its own
//               (PURE_NODE_BATCH=0: one more commit per step).
//   LANGGRAPH   10-node StateGraph + MemorySaver, TOTAL invokes at IN_FLIGHT
//               concurrent (the reference figure); and + PostgresSaver with
//               durability "sync" on a fresh database (durable like ours).
//
// Trials are interleaved (order rotated); medians reported.
//
//   node bench/orchestrator/c-throughput.bench.mjs [trials=3] [total=500] [inFlight=50]
//
// Writes bench/results/orchestrator-c.json.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { TEST_DATABASE_URL } from '@af/testing';
import { INPUT_ROWS, chainPlaybookYaml, compileOnce, grpcClients, orchestratorSettings, startOurStack, startRunGrpc } from './lib/ours.mjs';
import { cpuDiff, cpuSnapshot, perUnit } from './lib/cpu.mjs';
import { chainGraph, freshPostgresSaver, invokeConcurrently, memorySaver } from './lib/reference.mjs';
import { fmt, machineFacts, median, percentile, printTable, progress, summary, writeResult } from './lib/report.mjs';

const STEPS = 10;
const TRIALS = Number(process.argv[2] ?? 3);
const TOTAL = Number(process.argv[3] ?? 500);
const IN_FLIGHT = Number(process.argv[4] ?? 50);
const POLL_MS = 10;
const TRIAL_TIMEOUT_MS = 120_000;
const REFERENCE = { langgraphMemorySaverInvokesPerSecondAt50: 237 };
const TARGET_RUNS_PER_SECOND = 200;
// The same target against the reference run in this script: 200 runs/s was set beside LangGraph + MemorySaver's
// 237 invokes/s on this machine class, i.e. ≥ 0.84× it — the form that holds on a faster or slower host.
const TARGET_RATIO_TO_LANGGRAPH_MEMORY = Number((TARGET_RUNS_PER_SECOND / REFERENCE.langgraphMemorySaverInvokesPerSecondAt50).toFixed(3));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const machine = await machineFacts(TEST_DATABASE_URL);
// The services load the build present now (another build may land while this runs).
const build = { orchestratorDistBuiltAt: statSync(new URL('../../services/orchestrator/dist/main.js', import.meta.url)).mtime.toISOString() };
progress(`starting the stack (${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')})`);
// Two stacks: pure nodes committed together (the default) and each on its own.
const stacks = { batched: await startOurStack(), perNode: await startOurStack({ orchestrator: { PURE_NODE_BATCH: '0' } }) };
const stack = stacks.batched;
const newSamples = () => ({ ours: [], oursSteady: [], oursDbSide: [], oursRunLatency: [], oursStartRunLatency: [], oursMachineBusy: [], oursCpuPerRun: [] });
const byMode = { batched: newSamples(), perNode: newSamples() };
const samples = { ...byMode.batched, lgMem: [], lgMemLatency: [], lgPg: [], lgPgLatency: [] };
byMode.batched = samples;
try {
  const inputs = { rows: INPUT_ROWS };
  const ctx = {};
  for (const [mode, s] of Object.entries(stacks)) {
    const clients = await grpcClients(s);
    ctx[mode] = { stack: s, clients, wirePlan: await compileOnce(clients, { userId: 'bench-c', teamIds: [] }, chainPlaybookYaml(STEPS)) };
  }
  const memGraph = chainGraph(STEPS, memorySaver());

  /** One trial of ours: `total` runs, at most `inFlight` started and not finished. */
  async function oursTrial(total, record, mode = 'batched') {
    const { stack, clients, wirePlan } = ctx[mode];
    const samples = byMode[mode];
    const principal = { userId: `bench-c-${randomUUID()}`, teamIds: [] };
    let started = 0;
    let finished = 0;
    let completed = 0;
    const pending = new Set();
    const startLatency = [];
    const marks = [];
    let startError;
    const cpu0 = await cpuSnapshot(stack);
    const t0 = performance.now();
    while (finished < total) {
      while (started < total && started - finished < IN_FLIGHT) {
        started++;
        const ts = performance.now();
        const p = startRunGrpc(clients, principal, wirePlan, inputs)
          .then(() => startLatency.push(performance.now() - ts))
          .catch((err) => (startError ??= err))
          .finally(() => pending.delete(p));
        pending.add(p);
      }
      if (startError) throw startError;
      await sleep(POLL_MS);
      const [row] = await stack.db.query(
        `SELECT count(*) FILTER (WHERE status = 'completed')::int AS completed,
                count(*) FILTER (WHERE status IN ('completed','failed','cancelled'))::int AS finished
           FROM orchestrator.runs WHERE user_id = $1`,
        [principal.userId],
      );
      completed = row.completed;
      finished = row.finished;
      marks.push([performance.now() - t0, completed]);
      if (performance.now() - t0 > TRIAL_TIMEOUT_MS) throw new Error(`trial not done after ${TRIAL_TIMEOUT_MS} ms: ${completed}/${total}`);
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuDiff(cpu0, await cpuSnapshot(stack));
    await Promise.all(pending);
    if (completed !== total) throw new Error(`${total - completed} of ${total} runs did not complete`);
    if (!record) return;
    // Steady state: between 10 % and 90 % of the runs completed.
    const at = (frac) => marks.find(([, c]) => c >= frac * total)[0];
    const [db] = await stack.db.query(
      `SELECT extract(epoch FROM max(updated_at) - min(created_at)) * 1000 AS span_ms FROM orchestrator.runs WHERE user_id = $1`,
      [principal.userId],
    );
    const runLatency = await stack.db.query(
      `SELECT extract(epoch FROM updated_at - created_at) * 1000 AS ms FROM orchestrator.runs WHERE user_id = $1`,
      [principal.userId],
    );
    samples.ours.push(total / seconds);
    samples.oursSteady.push((0.8 * total) / ((at(0.9) - at(0.1)) / 1000));
    samples.oursDbSide.push(total / (Number(db.span_ms) / 1000));
    samples.oursRunLatency.push(...runLatency.map((r) => Number(r.ms)));
    samples.oursStartRunLatency.push(...startLatency);
    samples.oursMachineBusy.push(cpu.machineBusyMs / cpu.machineTotalMs);
    samples.oursCpuPerRun.push(perUnit(cpu, total));
  }

  async function lgMemTrial(total, record) {
    const r = await invokeConcurrently(memGraph, { total, concurrency: IN_FLIGHT });
    if (!record) return;
    samples.lgMem.push(r.perSecond);
    samples.lgMemLatency.push(...r.latencies);
  }

  async function lgPgTrial(total, record) {
    const pg = await freshPostgresSaver();
    try {
      const r = await invokeConcurrently(chainGraph(STEPS, pg.saver), { total, concurrency: IN_FLIGHT, durability: 'sync' });
      if (!record) return;
      samples.lgPg.push(r.perSecond);
      samples.lgPgLatency.push(...r.latencies);
    } finally {
      await pg.close();
    }
  }

  progress('warm-up (100 runs of each side, not recorded)');
  await oursTrial(100, false);
  await oursTrial(100, false, 'perNode');
  await lgMemTrial(100, false);
  await lgPgTrial(100, false);

  const sides = { ours: oursTrial, oursPerNode: (total, record) => oursTrial(total, record, 'perNode'), lgMem: lgMemTrial, lgPg: lgPgTrial };
  const order = Object.keys(sides);
  for (let trial = 0; trial < TRIALS; trial++) {
    const rotated = order.map((_, i) => order[(i + trial) % order.length]);
    progress(`trial ${trial + 1}/${TRIALS}: ${rotated.join(', ')}`);
    for (const side of rotated) await sides[side](TOTAL, true);
  }
} finally {
  for (const s of Object.values(stacks)) await s.stop();
}

const ours = median(samples.ours);
const oursPerNode = median(byMode.perNode.ours);
const lgMem = median(samples.lgMem);
const lgPg = median(samples.lgPg);
const meets = ours >= TARGET_RUNS_PER_SECOND;
const meetsRatio = ours / lgMem >= TARGET_RATIO_TO_LANGGRAPH_MEMORY;
const cpuOf = (xs) => Object.fromEntries(Object.keys(xs[0]).map((k) => [k, Number(median(xs.map((x) => x[k])).toFixed(2))]));
const cpuPerRun = cpuOf(samples.oursCpuPerRun);
const cpuPerRunUnbatched = cpuOf(byMode.perNode.oursCpuPerRun);
const p = byMode.perNode;

console.log(`\nbench/orchestrator (c): ${STEPS}-step runs end to end, ${TOTAL} per trial, ${IN_FLIGHT} in flight`);
console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.postgres}; ${TRIALS} trials, medians\n`);
printTable(
  ['side', 'runs/s (median)', 'per-run latency p50 ms', 'p99 ms', 'ours ÷ this'],
  [
    ['OURS: gRPC StartRun → completed (client wall)', fmt(ours, 1), fmt(median(samples.oursRunLatency), 1), fmt(percentile(samples.oursRunLatency, 99), 1), '1.00'],
    ['OURS: steady state (10 % → 90 % completed)', fmt(median(samples.oursSteady), 1), '', '', ''],
    ['OURS: engine clock (first StartRun → last complete)', fmt(median(samples.oursDbSide), 1), '', '', ''],
    ['OURS, every node committed (PURE_NODE_BATCH=0): client wall', fmt(oursPerNode, 1), fmt(median(p.oursRunLatency), 1), fmt(percentile(p.oursRunLatency, 99), 1), fmt(ours / oursPerNode, 2)],
    ['OURS, every node committed: steady state', fmt(median(p.oursSteady), 1), '', '', ''],
    ['LangGraph + MemorySaver', fmt(lgMem, 1), fmt(median(samples.lgMemLatency), 1), fmt(percentile(samples.lgMemLatency, 99), 1), fmt(ours / lgMem, 2)],
    ['LangGraph + PostgresSaver, durability "sync"', fmt(lgPg, 1), fmt(median(samples.lgPgLatency), 1), fmt(percentile(samples.lgPgLatency, 99), 1), fmt(ours / lgPg, 2)],
  ],
);
console.log(`
Our per-run latency is StartRun commit → complete commit (engine clock); StartRun RPC latency under this load p50
${fmt(median(samples.oursStartRunLatency), 1)} ms, p99 ${fmt(percentile(samples.oursStartRunLatency, 99), 1)} ms. Machine CPU busy during our trials: ${fmt(100 * median(samples.oursMachineBusy), 0)} % of ${machine.cores} cores.
CPU ms per run by process (median of trials; /proc): orchestrator ${fmt(cpuPerRun.orchestrator, 2)}, PostgreSQL backends of the stack
database ${fmt(cpuPerRun.postgresStackDb, 2)}, other PostgreSQL ${fmt(cpuPerRun.postgresOther, 2)}, NATS ${fmt(cpuPerRun.nats, 2)}, other services ${fmt(cpuPerRun.otherServices, 2)},
this process ${fmt(cpuPerRun.benchProcess, 2)}, elsewhere on the machine ${fmt(cpuPerRun.elsewhere, 2)}.
Reference measured earlier: LangGraph + MemorySaver ${REFERENCE.langgraphMemorySaverInvokesPerSecondAt50} ten-step invokes/s at 50 concurrent.
Every node committed on its own (PURE_NODE_BATCH=0): CPU ms per run orchestrator ${fmt(cpuPerRunUnbatched.orchestrator, 2)}, PostgreSQL ${fmt(cpuPerRunUnbatched.postgresStackDb, 2)}, NATS ${fmt(cpuPerRunUnbatched.nats, 2)};
StartRun RPC p50 ${fmt(median(p.oursStartRunLatency), 1)} ms.
Target: ≥ ${TARGET_RUNS_PER_SECOND} ten-step durable runs/s through gRPC: pure steps committed together ${meets ? 'MET' : 'NOT MET'} (${fmt(ours, 1)} runs/s, ${fmt(ours / TARGET_RUNS_PER_SECOND, 2)}× the target);
every step committed ${oursPerNode >= TARGET_RUNS_PER_SECOND ? 'MET' : 'NOT MET'} (${fmt(oursPerNode, 1)} runs/s).
The same target as a ratio to this run's LangGraph + MemorySaver (${TARGET_RUNS_PER_SECOND} ÷ ${REFERENCE.langgraphMemorySaverInvokesPerSecondAt50} = ≥ ${TARGET_RATIO_TO_LANGGRAPH_MEMORY}× it,
independent of how fast this host is today): ${meetsRatio ? 'MET' : 'NOT MET'} (${fmt(ours / lgMem, 2)}×; LangGraph ran ${fmt(lgMem, 1)} invokes/s here).`);

writeResult('c', {
  benchmark: 'orchestrator-c-throughput',
  machine: { ...machine, loadAverageAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
  build,
  setup: {
    steps: STEPS,
    trials: TRIALS,
    runsPerTrial: TOTAL,
    inFlight: IN_FLIGHT,
    warmup: '100 runs of each side',
    ours: {
      path: 'orchestrator gRPC StartRun (plan from one planner CompilePlaybook, passed through unchanged), 10 transform_data steps; completions counted by polling orchestrator.runs every 10 ms',
      runsPerSecond: 'runs per trial / (first StartRun sent → all runs seen completed)',
      orchestrator: orchestratorSettings(stack),
      modes: 'ours = pure steps committed together (default PURE_NODE_BATCH); oursEveryNodeCommitted = PURE_NODE_BATCH=0; each on its own stack, both started for the whole script',
    },
    langgraph: `@langchain/langgraph 1.7.3, ${STEPS}-node StateGraph, ${IN_FLIGHT} concurrent invokes (fresh thread each); MemorySaver; PostgresSaver durability "sync" on a fresh database per trial (pg.Pool default size)`,
  },
  results: {
    runsPerSecond: {
      ours: summary(samples.ours, 1),
      oursSteadyState: summary(samples.oursSteady, 1),
      oursEngineClock: summary(samples.oursDbSide, 1),
      oursEveryNodeCommitted: summary(p.ours, 1),
      oursEveryNodeCommittedSteadyState: summary(p.oursSteady, 1),
      langgraphMemory: summary(samples.lgMem, 1),
      langgraphPostgresSync: summary(samples.lgPg, 1),
    },
    latencyMs: {
      oursRunStartToComplete: summary(samples.oursRunLatency, 1),
      oursStartRunRpc: summary(samples.oursStartRunLatency, 2),
      oursEveryNodeCommittedRunStartToComplete: summary(p.oursRunLatency, 1),
      langgraphMemoryInvoke: summary(samples.lgMemLatency, 1),
      langgraphPostgresSyncInvoke: summary(samples.lgPgLatency, 1),
    },
    oursMachineCpuBusyFraction: summary(samples.oursMachineBusy, 2),
    oursCpuMsPerRun: cpuPerRun,
    oursEveryNodeCommittedCpuMsPerRun: cpuPerRunUnbatched,
    ratios: {
      oursOverLanggraphMemory: Number((ours / lgMem).toFixed(3)),
      oursOverLanggraphPostgresSync: Number((ours / lgPg).toFixed(3)),
      oursOverTarget: Number((ours / TARGET_RUNS_PER_SECOND).toFixed(3)),
    },
  },
  reference: REFERENCE,
  target: {
    runsPerSecondAtLeast: TARGET_RUNS_PER_SECOND,
    met: meets,
    metWithEveryNodeCommitted: oursPerNode >= TARGET_RUNS_PER_SECOND,
    ratioToLanggraphMemoryAtLeast: TARGET_RATIO_TO_LANGGRAPH_MEMORY,
    metAsRatio: meetsRatio,
  },
});
process.exit(0);
