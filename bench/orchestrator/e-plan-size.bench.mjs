// bench/orchestrator (e): how the cost of a node grows with the size of the
// plan — chains of 100, 1,000 and 2,000 pure transform_data steps. Not a
// target of the issue; it shows the engine's per-step work (scheduling scans,
// scopes) staying flat as plans grow, beside LangGraph running the same chains.
//
//   OURS        StartRun over gRPC with a plan compiled once by the planner;
//               default settings (pure nodes committed together, see
//               b-pure-chain.bench.mjs); per node = (StartRun commit →
//               `complete` commit) / nodes, from the orchestrator's timestamps.
//   LANGGRAPH   StateGraph of the same number of sequential nodes +
//               MemorySaver (per step).
//
// Sizes run one after another, each side interleaved by round; medians.
//
//   node bench/orchestrator/e-plan-size.bench.mjs [rounds=3] [sizes=100,1000,2000]
//
// Writes bench/results/orchestrator-e.json.
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { TEST_DATABASE_URL } from '@af/testing';
import { INPUT_ROWS, chainPlaybookYaml, compileOnce, engineTimings, grpcClients, startOurStack, startRunGrpc, waitFinished } from './lib/ours.mjs';
import { chainGraph, invokeChain, memorySaver } from './lib/reference.mjs';
import { fmt, machineFacts, median, printTable, progress, summary, writeResult } from './lib/report.mjs';

const ROUNDS = Number(process.argv[2] ?? 3);
const SIZES = (process.argv[3] ?? '100,1000,2000').split(',').map(Number);
for (const n of SIZES) if (!Number.isInteger(n) || n < 2) throw new Error(`sizes: ${n} is not a whole number of at least 2`);

const machine = await machineFacts(TEST_DATABASE_URL);
const build = { orchestratorDistBuiltAt: statSync(new URL('../../services/orchestrator/dist/main.js', import.meta.url)).mtime.toISOString() };
progress(`starting the stack (${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')})`);
// Plans past the default PLAN_MAX_NODES (1,000) are refused: this bench measures larger ones on purpose.
const planMaxNodes = String(Math.max(1000, ...SIZES));
const stack = await startOurStack({ planner: { PLAN_MAX_NODES: planMaxNodes }, orchestrator: { PLAN_MAX_NODES: planMaxNodes } });
const results = {};
try {
  const clients = await grpcClients(stack);
  const principal = { userId: 'bench-e', teamIds: [] };
  const inputs = { rows: INPUT_ROWS };
  for (const n of SIZES) {
    const plan = await compileOnce(clients, principal, chainPlaybookYaml(n));
    const stamps = [];
    const graph = chainGraph(n, memorySaver(), stamps);
    // Warm-up: one run of each side, not recorded.
    await waitFinished(stack, await startRunGrpc(clients, principal, plan, inputs), { timeoutMs: 600_000 });
    await invokeChain(graph, stamps);
    const ours = [];
    const lgMem = [];
    for (let round = 0; round < ROUNDS; round++) {
      progress(`${n} nodes, round ${round + 1}/${ROUNDS}`);
      const sides = [
        async () => {
          const runId = await startRunGrpc(clients, principal, plan, inputs);
          await waitFinished(stack, runId, { timeoutMs: 600_000 });
          ours.push((await engineTimings(stack, runId)).engineMs / n);
        },
        async () => lgMem.push((await invokeChain(graph, stamps)).totalMs / n),
      ];
      for (const side of round % 2 ? sides.reverse() : sides) await side();
    }
    results[n] = { ours: summary(ours), langgraphMemory: summary(lgMem) };
  }
} finally {
  await stack.stop();
}

const first = SIZES[0];
console.log(`\nbench/orchestrator (e): chains of ${SIZES.join(', ')} pure transform_data steps; ${ROUNDS} rounds, medians`);
console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}\n`);
printTable(
  ['nodes', 'OURS ms per node', `÷ ours at ${first}`, 'LangGraph + MemorySaver ms per step', `÷ LangGraph at ${first}`, 'ours ÷ LangGraph'],
  SIZES.map((n) => [
    n,
    fmt(results[n].ours.median),
    fmt(results[n].ours.median / results[first].ours.median, 2),
    fmt(results[n].langgraphMemory.median),
    fmt(results[n].langgraphMemory.median / results[first].langgraphMemory.median, 2),
    fmt(results[n].ours.median / results[n].langgraphMemory.median, 3),
  ]),
);

writeResult('e', {
  benchmark: 'orchestrator-e-plan-size',
  machine: { ...machine, loadAverageAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
  build,
  setup: {
    sizes: SIZES,
    rounds: ROUNDS,
    warmupRunsPerSideAndSize: 1,
    ours: 'StartRun over gRPC (plan compiled once by the planner), chain of transform_data steps (limit 10), default PURE_NODE_BATCH; per node = (runs.updated_at of the complete transaction − runs.created_at) / nodes, PostgreSQL clock',
    langgraph: '@langchain/langgraph StateGraph of the same number of sequential nodes (slice(0,10) of the rows) + MemorySaver, fresh thread per invoke',
  },
  results: Object.fromEntries(SIZES.map((n) => [n, { msPerNode: results[n], oursOverLanggraphMemory: Number((results[n].ours.median / results[n].langgraphMemory.median).toFixed(3)) }])),
});
process.exit(0);
