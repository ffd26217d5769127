// bench/orchestrator (b): a 100-node chain of pure transform nodes, both ways.
//
// By default the orchestrator commits pure nodes between side effects
// together (PURE_NODE_BATCH, default 256): their settlements ride on the run's
// next write — here the `complete` statement — in the order they happened; a
// crash before that commit recomputes them. With PURE_NODE_BATCH=0 every
// node's state is committed (one statement) before the next starts. Both run
// end to end, each on its own stack. It also measures, in this process, the
// in-memory work of the same nodes (buildScope → interpolate → transformData
// with the built orchestrator code, no persistence).
//
//   OURS        StartRun over gRPC with a plan compiled once by the planner
//               (CompilePlaybook); per node = (StartRun commit → `complete`
//               commit) / 100 from the orchestrator's timestamps; pure nodes
//               committed together (default) and each on its own.
//   LANGGRAPH   StateGraph of 100 sequential nodes + MemorySaver (per step).
//   IN-MEMORY   our per-node compute without persistence (see above).
//
// Target: pure node ≤ 1/10 of LangGraph + MemorySaver per step.
//
//   node bench/orchestrator/b-pure-chain.bench.mjs [rounds=10]
//
// Writes bench/results/orchestrator-b.json.
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { TEST_DATABASE_URL } from '@af/testing';
import {
  INPUT_ROWS,
  chainPlaybookYaml,
  committedTransactions,
  compileOnce,
  engineTimings,
  grpcClients,
  orchestratorSettings,
  startOurStack,
  startRunGrpc,
  waitFinished,
} from './lib/ours.mjs';
import { cpuDiff, cpuSnapshot, perUnit } from './lib/cpu.mjs';
import { irPlan, runChainInMemory } from './lib/pure-compute.mjs';
import { chainGraph, invokeChain, memorySaver } from './lib/reference.mjs';
import { fmt, machineFacts, median, percentile, printTable, progress, summary, writeResult } from './lib/report.mjs';

const NODES = 100;
const ROUNDS = Number(process.argv[2] ?? 10);
const IN_MEMORY_REPEATS = 200;
const REFERENCE = { langgraphMemorySaverMsPerStep: 0.5 };
const TARGET_FRACTION_OF_LANGGRAPH_MEMORY = 0.1;

const machine = await machineFacts(TEST_DATABASE_URL);
// The services load the build present now (another build may land while this runs).
const build = { orchestratorDistBuiltAt: statSync(new URL('../../services/orchestrator/dist/main.js', import.meta.url)).mtime.toISOString() };
progress(`starting the stack (${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')})`);
// Two stacks side by side: pure nodes committed together (the default) and each on its own.
const stacks = { batched: await startOurStack(), perNode: await startOurStack({ orchestrator: { PURE_NODE_BATCH: '0' } }) };
const stack = stacks.batched;
const oursCpu = { batched: [], perNode: [] };
const samples = {
  ours: [], oursIntervals: [], oursBody: [], oursCommitsPerNode: [],
  oursPerNode: [], oursPerNodeIntervals: [], oursPerNodeBody: [], oursPerNodeCommitsPerNode: [],
  lgMem: [], lgMemIntervals: [], inMemory: [],
};
try {
  const ctx = {};
  for (const [mode, s] of Object.entries(stacks)) {
    const clients = await grpcClients(s);
    const principal = { userId: 'bench-b', teamIds: [] };
    ctx[mode] = { stack: s, clients, principal, wirePlan: await compileOnce(clients, principal, chainPlaybookYaml(NODES)) };
  }
  const plan = irPlan(ctx.batched.wirePlan);
  const inputs = { rows: INPUT_ROWS };
  const stamps = [];
  const memGraph = chainGraph(NODES, memorySaver(), stamps);

  // Idle commit rate of each stack's database (its services' outbox relays and timers poll), to subtract from commit counts.
  const idle0 = Object.fromEntries(await Promise.all(Object.entries(ctx).map(async ([mode, c]) => [mode, await committedTransactions(c.stack)])));
  const tIdle = performance.now();
  await new Promise((r) => setTimeout(r, 4200));
  const idleCommitsPerMs = {};
  for (const [mode, c] of Object.entries(ctx)) idleCommitsPerMs[mode] = ((await committedTransactions(c.stack)) - idle0[mode]) / (performance.now() - tIdle);

  progress('warm-up (2 runs of each side, not recorded)');
  for (let i = 0; i < 2; i++) {
    for (const c of Object.values(ctx)) await waitFinished(c.stack, await startRunGrpc(c.clients, c.principal, c.wirePlan, inputs));
    await invokeChain(memGraph, stamps);
    for (let j = 0; j < IN_MEMORY_REPEATS; j++) runChainInMemory(plan, inputs);
  }

  const oursSide = (mode, key) => async () => {
    const { stack: s, clients, principal, wirePlan } = ctx[mode];
    const c0 = await committedTransactions(s);
    const cpu0 = await cpuSnapshot(s);
    const t0 = performance.now();
    const runId = await startRunGrpc(clients, principal, wirePlan, inputs);
    await waitFinished(s, runId);
    oursCpu[mode].push(cpuDiff(cpu0, await cpuSnapshot(s)));
    const r = await engineTimings(s, runId);
    samples[key].push(r.engineMs / NODES);
    samples[`${key}Intervals`].push(...r.nodeIntervalsMs);
    samples[`${key}Body`].push(...r.nodeBodyMs);
    await new Promise((res) => setTimeout(res, 1200)); // pg_stat_database flush
    samples[`${key}CommitsPerNode`].push(((await committedTransactions(s)) - c0 - idleCommitsPerMs[mode] * (performance.now() - t0)) / NODES);
  };
  const sides = {
    ours: oursSide('batched', 'ours'),
    oursPerNode: oursSide('perNode', 'oursPerNode'),
    async lgMem() {
      const r = await invokeChain(memGraph, stamps);
      samples.lgMem.push(r.totalMs / NODES);
      samples.lgMemIntervals.push(...r.intervals);
    },
    async inMemory() {
      const xs = [];
      for (let j = 0; j < IN_MEMORY_REPEATS; j++) xs.push(runChainInMemory(plan, inputs));
      samples.inMemory.push(median(xs));
    },
  };
  const order = Object.keys(sides);
  for (let round = 0; round < ROUNDS; round++) {
    const rotated = order.map((_, i) => order[(i + round) % order.length]);
    progress(`round ${round + 1}/${ROUNDS}: ${rotated.join(', ')}`);
    for (const side of rotated) await sides[side]();
  }
} finally {
  for (const s of Object.values(stacks)) await s.stop();
}

const ours = median(samples.ours);
const oursPerNode = median(samples.oursPerNode);
const lgMem = median(samples.lgMem);
const inMemory = median(samples.inMemory);
const target = TARGET_FRACTION_OF_LANGGRAPH_MEMORY * lgMem;
const cpuOf = (diffs) =>
  perUnit(
    diffs.reduce((acc, d) => {
      for (const [k, v] of Object.entries(d)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {}),
    ROUNDS * NODES,
  );
const cpuPerNode = cpuOf(oursCpu.batched);
const cpuPerNodeUnbatched = cpuOf(oursCpu.perNode);
const meets = ours <= target;

console.log(`\nbench/orchestrator (b): ${NODES}-node chain of pure transform nodes`);
console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.postgres}; ${ROUNDS} rounds, medians`);
console.log(`
Pure nodes committed together (default, PURE_NODE_BATCH=256): their settlements ride on the run's next
write — here the \`complete\` statement carries all 100 — in the order they happened. Each on its own
(PURE_NODE_BATCH=0): one statement per node before the next starts. IN-MEMORY is the same nodes' work
without persistence.
`);
printTable(
  ['side', 'ms per node/step (median)', 'p99 single node/step', 'ours ÷ this'],
  [
    ['OURS: gRPC StartRun → complete, ÷ 100, pure nodes committed together', fmt(ours), fmt(percentile(samples.oursIntervals, 99)), '1.00'],
    ['OURS: the same, every node committed on its own (PURE_NODE_BATCH=0)', fmt(oursPerNode), fmt(percentile(samples.oursPerNodeIntervals, 99)), fmt(ours / oursPerNode, 2)],
    ['LangGraph + MemorySaver', fmt(lgMem), fmt(percentile(samples.lgMemIntervals, 99)), fmt(ours / lgMem, 2)],
    ['IN-MEMORY: our node work without persistence', fmt(inMemory, 4), '', fmt(ours / inMemory, 0)],
  ],
);
const verdict = (v) => `${v <= target ? 'MET' : 'NOT MET'} (${fmt(v / lgMem, 3)}× LangGraph + MemorySaver)`;
console.log(`
Measured commits per node in the stack's database, idle polling subtracted (noisy at this size: a run committed together makes ~3
commits in all): ${fmt(median(samples.oursCommitsPerNode), 2)} together, ${fmt(median(samples.oursPerNodeCommitsPerNode), 2)} each on its own (outbox marks included). Committed together, all
nodes of a run share one statement, so their start-to-start intervals are 0.
Target: pure node ≤ 1/10 of LangGraph + MemorySaver (≤ ${fmt(target)} ms here; ≤ ${REFERENCE.langgraphMemorySaverMsPerStep / 10} ms from the earlier
reference ${REFERENCE.langgraphMemorySaverMsPerStep} ms): committed together ${verdict(ours)}; each on its own ${verdict(oursPerNode)}.
CPU ms per node by process (/proc, summed over our runs), together / each on its own: orchestrator ${fmt(cpuPerNode.orchestrator, 3)} / ${fmt(cpuPerNodeUnbatched.orchestrator, 3)},
PostgreSQL backends of the stack database ${fmt(cpuPerNode.postgresStackDb, 3)} / ${fmt(cpuPerNodeUnbatched.postgresStackDb, 3)}, NATS ${fmt(cpuPerNode.nats, 3)} / ${fmt(cpuPerNodeUnbatched.nats, 3)}.
In-memory node work is ${fmt(inMemory / lgMem, 4)}× LangGraph + MemorySaver per step.`);

writeResult('b', {
  benchmark: 'orchestrator-b-pure-chain',
  machine: { ...machine, loadAverageAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
  build,
  setup: {
    nodes: NODES,
    rounds: ROUNDS,
    pureNodesCommittedTogether: 'both: default (PURE_NODE_BATCH=256: the complete statement carries the 100 settlements) and PURE_NODE_BATCH=0 (one statement per node), each on its own stack',
    ours: {
      path: 'orchestrator gRPC StartRun with the plan from one planner CompilePlaybook; 100 transform_data steps (limit 10); waited by polling orchestrator.runs every 5 ms',
      perNode: '(runs.updated_at of the complete transaction − runs.created_at of StartRun) / 100, PostgreSQL clock',
      orchestrator: orchestratorSettings(stack),
    },
    langgraph: '@langchain/langgraph 1.7.3 StateGraph, 100 sequential nodes, MemorySaver, fresh thread per invoke',
    inMemory: `buildScope + interpolate(inputs, params) + transformData per node from services/orchestrator/dist, no persistence; median of ${IN_MEMORY_REPEATS} chains per round`,
  },
  results: {
    msPerNode: {
      ours: summary(samples.ours),
      oursEveryNodeCommitted: summary(samples.oursPerNode),
      langgraphMemory: summary(samples.lgMem),
      inMemoryNodeWork: summary(samples.inMemory, 5),
    },
    singleIntervalMs: {
      oursNodeStartToNodeStart: summary(samples.oursIntervals),
      oursEveryNodeCommittedNodeStartToNodeStart: summary(samples.oursPerNodeIntervals),
      langgraphMemory: summary(samples.lgMemIntervals),
    },
    oursCommitsPerNode: summary(samples.oursCommitsPerNode, 2),
    oursEveryNodeCommittedCommitsPerNode: summary(samples.oursPerNodeCommitsPerNode, 2),
    oursCpuMsPerNode: cpuPerNode,
    oursEveryNodeCommittedCpuMsPerNode: cpuPerNodeUnbatched,
    ratios: {
      oursOverLanggraphMemory: Number((ours / lgMem).toFixed(3)),
      oursEveryNodeCommittedOverLanggraphMemory: Number((oursPerNode / lgMem).toFixed(3)),
      inMemoryOverLanggraphMemory: Number((inMemory / lgMem).toFixed(4)),
    },
  },
  reference: REFERENCE,
  target: {
    pureNodeAtMostFractionOfLanggraphMemory: TARGET_FRACTION_OF_LANGGRAPH_MEMORY,
    thresholdMs: Number(target.toFixed(4)),
    met: meets,
    metWithEveryNodeCommitted: oursPerNode <= target,
  },
});
process.exit(0);
