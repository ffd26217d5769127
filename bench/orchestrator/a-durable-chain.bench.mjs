// bench/orchestrator (a): a 100-node chain where every node's state is
// durably committed before the next node starts.
//
//   OURS        the real services (gateway, planner, orchestrator,
//               connector-runtime as processes via @af/testing startStack);
//               a playbook of 100 sequential transform_data steps started with
//               POST /api/v1/runs; per node = (StartRun commit → `complete`
//               commit) / 100, from the orchestrator's own timestamps. The
//               orchestrator runs with PURE_NODE_BATCH=0: every node's state
//               is committed (one statement: node_start + node_complete,
//               state, output, outbox rows) before the next node starts —
//               by default pure nodes ride on the next write instead (see
//               b-pure-chain.bench.mjs).
//   LANGGRAPH   StateGraph of 100 sequential nodes + PostgresSaver on the same
//               PostgreSQL (fresh database per invoke), durability "sync"
//               (checkpoint committed before the next step — the like-for-like
//               reference) and "async" (LangGraph's default); + MemorySaver.
//   FLOOR       100 sequential single-row BEGIN; INSERT; COMMIT on one pg
//               connection (fresh database).
//   REPLAY      our per-node SQL replayed with raw pg (see lib/replay.mjs):
//               today's one named statement per node, and the first
//               version's two transactions (with a per-statement breakdown);
//               and today's statement with each of its parts left out, the
//               fence alone, and a one-row INSERT in its own transaction
//               (what each part costs; lib/replay.mjs replayParts).
//
// Ours and the references are interleaved round by round (order rotated) and
// summarised by medians. Run by hand after `pnpm build`, with PostgreSQL on
// 127.0.0.1:5432 and nats-server -js on 127.0.0.1:4222:
//
//   node bench/orchestrator/a-durable-chain.bench.mjs [rounds=10]
//
// Writes bench/results/orchestrator-a.json.
import { statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { TEST_DATABASE_URL } from '@af/testing';
import {
  INPUT_ROWS,
  chainPlaybookYaml,
  committedTransactions,
  orchestratorSettings,
  registerAndLogin,
  runViaGateway,
  startOurStack,
} from './lib/ours.mjs';
import { chainGraph, freshPostgresSaver, invokeChain, memorySaver, rawCommitLoop } from './lib/reference.mjs';
import { cpuDiff, cpuSnapshot, perUnit } from './lib/cpu.mjs';
import { REPLAY_SHAPE, STATEMENT_VARIANTS, prepareReplaySchema, replayParts, replayRun } from './lib/replay.mjs';
import { fmt, machineFacts, median, percentile, printTable, progress, summary, writeResult } from './lib/report.mjs';

const NODES = 100;
const ROUNDS = Number(process.argv[2] ?? 10);
const REFERENCE = { langgraphPostgresSaverMsPerStep: 2.05, langgraphMemorySaverMsPerStep: 0.5, rawCommitMs: '0.5–0.8' };
const TARGET_RATIO_TO_FLOOR = 1.5;

const machine = await machineFacts(TEST_DATABASE_URL);
// The services load the build present now (another build may land while this runs).
const build = { orchestratorDistBuiltAt: statSync(new URL('../../services/orchestrator/dist/main.js', import.meta.url)).mtime.toISOString() };
progress(`starting the stack (${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')})`);
// Every node committed before the next starts: pure nodes are not held for the next write here.
const stack = await startOurStack({ orchestrator: { PURE_NODE_BATCH: '0' } });
const samples = {
  ours: [], oursWall: [], oursDispatch: [], oursIntervals: [], oursCommitsPerNode: [],
  lgPgSync: [], lgPgSyncIntervals: [], lgPgAsync: [], lgPgAsyncIntervals: [], lgMem: [], lgMemIntervals: [],
  floor: [], floorCommits: [], replay: [], replayIntervals: [], replayRelay: [], replayRelayIntervals: [], replayCurrent: [], replayCurrentIntervals: [],
};
let templateRunId;
const oursCpu = [];
const statementMs = {};
/** Per variant of the statement (lib/replay.mjs STATEMENT_VARIANTS, plus oneInsert): median ms per node of each round. */
const parts = {};
try {
  const token = await registerAndLogin(stack);
  const yaml = chainPlaybookYaml(NODES);
  const stamps = [];
  const memGraph = chainGraph(NODES, memorySaver(), stamps);

  // Idle commit rate of the stack (outbox relays of four services poll), to subtract from commit counts.
  const idle0 = await committedTransactions(stack);
  const tIdle = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  await new Promise((r) => setTimeout(r, 1200)); // stats flush
  const idleCommitsPerMs = ((await committedTransactions(stack)) - idle0) / (performance.now() - tIdle);

  progress('warm-up (2 runs of each side, not recorded)');
  for (let i = 0; i < 2; i++) {
    templateRunId = (await runViaGateway(stack, token, yaml, { rows: INPUT_ROWS })).runId;
    await invokeChain(memGraph, stamps);
    const pg = await freshPostgresSaver();
    await invokeChain(chainGraph(NODES, pg.saver, stamps), stamps, 'sync');
    await pg.close();
    await rawCommitLoop(NODES);
  }
  await prepareReplaySchema(stack.db.url);
  await replayRun(stack.db.url, templateRunId, NODES, { withRelay: true });
  await replayRun(stack.db.url, templateRunId, NODES, { mode: 'current' });

  const sides = {
    async ours() {
      const c0 = await committedTransactions(stack);
      const cpu0 = await cpuSnapshot(stack);
      const t0 = performance.now();
      const r = await runViaGateway(stack, token, yaml, { rows: INPUT_ROWS });
      oursCpu.push(cpuDiff(cpu0, await cpuSnapshot(stack)));
      samples.ours.push(r.engineMs / NODES);
      samples.oursWall.push(r.wallMs / NODES);
      samples.oursDispatch.push(r.dispatchMs);
      samples.oursIntervals.push(...r.nodeIntervalsMs);
      // Commit counts: pg_stat_database is flushed within ~1 s; idle background subtracted.
      await new Promise((res) => setTimeout(res, 1200));
      const commits = (await committedTransactions(stack)) - c0 - idleCommitsPerMs * (performance.now() - t0);
      samples.oursCommitsPerNode.push(commits / NODES);
    },
    async lgPg() {
      const pg = await freshPostgresSaver();
      const g = chainGraph(NODES, pg.saver, stamps);
      const sync = await invokeChain(g, stamps, 'sync');
      const asyncRun = await invokeChain(g, stamps, 'async');
      await pg.close();
      samples.lgPgSync.push(sync.totalMs / NODES);
      samples.lgPgSyncIntervals.push(...sync.intervals);
      samples.lgPgAsync.push(asyncRun.totalMs / NODES);
      samples.lgPgAsyncIntervals.push(...asyncRun.intervals);
    },
    async lgMem() {
      const r = await invokeChain(memGraph, stamps);
      samples.lgMem.push(r.totalMs / NODES);
      samples.lgMemIntervals.push(...r.intervals);
    },
    async floor() {
      const commits = await rawCommitLoop(NODES);
      samples.floor.push(commits.reduce((a, b) => a + b, 0) / NODES);
      samples.floorCommits.push(...commits);
    },
    async replay() {
      const plain = await replayRun(stack.db.url, templateRunId, NODES, { withRelay: false, statementMs });
      samples.replay.push(plain.reduce((a, b) => a + b, 0) / NODES);
      samples.replayIntervals.push(...plain);
      const relay = await replayRun(stack.db.url, templateRunId, NODES, { withRelay: true });
      samples.replayRelay.push(relay.reduce((a, b) => a + b, 0) / NODES);
      samples.replayRelayIntervals.push(...relay);
      const current = await replayRun(stack.db.url, templateRunId, NODES, { mode: 'current' });
      samples.replayCurrent.push(current.reduce((a, b) => a + b, 0) / NODES);
      samples.replayCurrentIntervals.push(...current);
      for (const [variant, xs] of Object.entries(await replayParts(stack.db.url, templateRunId, NODES))) (parts[variant] ??= []).push(median(xs));
    },
  };
  const order = Object.keys(sides);
  for (let round = 0; round < ROUNDS; round++) {
    const rotated = order.map((_, i) => order[(i + round) % order.length]);
    progress(`round ${round + 1}/${ROUNDS}: ${rotated.join(', ')}`);
    for (const side of rotated) await sides[side]();
  }
} finally {
  await stack.stop();
}

const ours = median(samples.ours);
const floor = median(samples.floor);
const lgPgSync = median(samples.lgPgSync);
const lgPgAsync = median(samples.lgPgAsync);
const lgMem = median(samples.lgMem);
const replay = median(samples.replay);
const replayRelay = median(samples.replayRelay);
const replayCurrent = median(samples.replayCurrent);

console.log(`\nbench/orchestrator (a): ${NODES}-node chain, every node durably committed before the next starts`);
console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.postgres} (synchronous_commit=${machine.postgresSettings.synchronous_commit}); ${ROUNDS} rounds, medians\n`);
printTable(
  ['side', 'ms per node/step (median of runs)', 'p99 of single node/step intervals', 'ours ÷ this'],
  [
    ['OURS: StartRun → complete, ÷ 100 (engine clock)', fmt(ours), fmt(percentile(samples.oursIntervals, 99)), '1.00'],
    ['OURS: client POST → seen completed, ÷ 100', fmt(median(samples.oursWall)), '', ''],
    ['LangGraph + PostgresSaver, durability "sync"', fmt(lgPgSync), fmt(percentile(samples.lgPgSyncIntervals, 99)), fmt(ours / lgPgSync, 2)],
    ['LangGraph + PostgresSaver, durability "async" (default)', fmt(lgPgAsync), fmt(percentile(samples.lgPgAsyncIntervals, 99)), fmt(ours / lgPgAsync, 2)],
    ['LangGraph + MemorySaver', fmt(lgMem), fmt(percentile(samples.lgMemIntervals, 99)), fmt(ours / lgMem, 2)],
    ['FLOOR: BEGIN; INSERT 1 row; COMMIT (per commit)', fmt(floor), fmt(percentile(samples.floorCommits, 99)), fmt(ours / floor, 2)],
    ['REPLAY: our per-node statement today (1 named statement), raw pg', fmt(replayCurrent), fmt(percentile(samples.replayCurrentIntervals, 99)), fmt(ours / replayCurrent, 2)],
    ['REPLAY: first version (2 transactions per node), raw pg', fmt(replay), fmt(percentile(samples.replayIntervals, 99)), fmt(ours / replay, 2)],
    ['REPLAY: first version + its relay batch after each commit', fmt(replayRelay), fmt(percentile(samples.replayRelayIntervals, 99)), fmt(ours / replayRelay, 2)],
  ],
);
const statementBreakdown = Object.entries(statementMs).map(([label, xs]) => ({
  statement: label,
  perNode: Number((xs.length / (ROUNDS * NODES)).toFixed(2)),
  medianMs: Number(median(xs).toFixed(3)),
  p99Ms: Number(percentile(xs, 99).toFixed(3)),
  sumPerNodeMs: Number((xs.reduce((a, b) => a + b, 0) / (ROUNDS * NODES)).toFixed(3)),
}));
console.log('\nREPLAY of the first version (without relay), where the SQL time of one node went:');
printTable(
  ['statement', 'per node', 'median ms', 'p99 ms', 'mean ms per node'],
  statementBreakdown.map((s) => [s.statement, s.perNode, fmt(s.medianMs), fmt(s.p99Ms), fmt(s.sumPerNodeMs)]),
);
const partsMs = Object.fromEntries(Object.entries(parts).map(([variant, xs]) => [variant, Number(median(xs).toFixed(3))]));
console.log(`\nREPLAY of today's statement with parts left out (median over rounds of each round's median ms per node; raw pg, alone):`);
printTable(
  ['variant', 'ms per node', '÷ floor', 'full − this (what the part costs)'],
  Object.entries(partsMs).map(([variant, ms]) => [
    variant === 'oneInsert' ? 'oneInsert: INSERT 1 row, its own transaction' : `${variant}${STATEMENT_VARIANTS[variant]?.length ? ` (without ${STATEMENT_VARIANTS[variant].join(', ')})` : ''}`,
    fmt(ms),
    fmt(ms / floor, 2),
    variant === 'full' ? '' : fmt(partsMs.full - ms),
  ]),
);
const cpuPerNode = perUnit(sumDiffs(oursCpu), ROUNDS * NODES);
console.log('\nOURS, CPU ms per node by process (summed over the runs, /proc; "elsewhere" is other work on this shared machine):');
printTable(['where', 'CPU ms per node'], Object.entries(cpuPerNode).map(([k, v]) => [k, fmt(v)]));
const meets = ours <= TARGET_RATIO_TO_FLOOR * floor;
console.log(`
Ours (PURE_NODE_BATCH=0): one statement per node (node_start + node_complete frames, state, output, outbox rows)
committed before the next node starts; measured ${fmt(median(samples.oursCommitsPerNode), 1)} commits per node in the stack's database including the
outbox marks. Dispatch (StartRun's commit → first node's commit: the in-process hand-off, lease, state reads and the
first node) median ${fmt(median(samples.oursDispatch), 1)} ms, included above. Earlier reference figures on this machine class: LangGraph ${REFERENCE.langgraphPostgresSaverMsPerStep} ms/step with
PostgresSaver, ${REFERENCE.langgraphMemorySaverMsPerStep} ms with MemorySaver, raw commit ≈ ${REFERENCE.rawCommitMs} ms.
Target: durable node ≤ ${TARGET_RATIO_TO_FLOOR}× the raw-commit floor (≤ ${fmt(TARGET_RATIO_TO_FLOOR * floor)} ms): ${meets ? 'MET' : 'NOT MET'} (${fmt(ours / floor, 1)}×).`);

writeResult('a', {
  benchmark: 'orchestrator-a-durable-chain',
  machine: { ...machine, loadAverageAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
  build,
  setup: {
    nodes: NODES,
    rounds: ROUNDS,
    warmupRoundsPerSide: 2,
    ours: {
      path: 'POST /api/v1/runs (gateway → planner CompilePlaybook → orchestrator StartRun), 100 transform_data steps (limit 10), waited by polling orchestrator.runs every 5 ms',
      perNode: '(runs.updated_at of the complete transaction − runs.created_at of StartRun) / 100, PostgreSQL clock',
      orchestrator: { ...orchestratorSettings(stack), PURE_NODE_BATCH: '0 (every node committed before the next starts)' },
      commitsPerNodeDesign: 1,
    },
    langgraph: '@langchain/langgraph 1.7.3 StateGraph, 100 sequential nodes (slice(0,10) of the rows), recursionLimit 10000, fresh thread per invoke; PostgresSaver (@langchain/langgraph-checkpoint-postgres 1.0.5) on a fresh database per round',
    floor: 'one pg.Client, fresh database, BEGIN; INSERT INTO steps (run_id, step, state jsonb); COMMIT × 100',
    replay: {
      statementsPerNode: REPLAY_SHAPE,
      note: 'copies of the orchestrator tables (same columns, indexes, foreign keys) in schema bench_replay of the stack database; one pg.Client',
    },
  },
  results: {
    msPerNode: {
      ours: summary(samples.ours),
      oursClientWall: summary(samples.oursWall),
      langgraphPostgresSync: summary(samples.lgPgSync),
      langgraphPostgresAsyncDefault: summary(samples.lgPgAsync),
      langgraphMemory: summary(samples.lgMem),
      floorRawCommit: summary(samples.floor),
      replayCurrentStatement: summary(samples.replayCurrent),
      replayFirstVersionSql: summary(samples.replay),
      replayFirstVersionSqlWithRelay: summary(samples.replayRelay),
    },
    singleIntervalMs: {
      oursNodeStartToNodeStart: summary(samples.oursIntervals),
      langgraphPostgresSync: summary(samples.lgPgSyncIntervals),
      langgraphPostgresAsyncDefault: summary(samples.lgPgAsyncIntervals),
      langgraphMemory: summary(samples.lgMemIntervals),
      floorCommit: summary(samples.floorCommits),
      replayCurrentStatement: summary(samples.replayCurrentIntervals),
      replayFirstVersionSql: summary(samples.replayIntervals),
      replayFirstVersionSqlWithRelay: summary(samples.replayRelayIntervals),
    },
    replayStatementBreakdown: statementBreakdown,
    /** Today's statement replayed alone with parts left out (r = run-row fence, e = events, ob = outbox, c0 = node state, c1 = output); oneInsert = INSERT 1 row in its own transaction. */
    replayStatementPartsMsPerNode: partsMs,
    oursCpuMsPerNode: cpuPerNode,
    oursDispatchMs: summary(samples.oursDispatch),
    oursCommitsPerNode: summary(samples.oursCommitsPerNode, 2),
    ratios: {
      oursOverFloor: Number((ours / floor).toFixed(2)),
      oursOverLanggraphPostgresSync: Number((ours / lgPgSync).toFixed(2)),
      oursOverLanggraphPostgresAsyncDefault: Number((ours / lgPgAsync).toFixed(2)),
      oursOverLanggraphMemory: Number((ours / lgMem).toFixed(2)),
      oursOverReplayCurrentStatement: Number((ours / replayCurrent).toFixed(2)),
      replayCurrentStatementOverFloor: Number((replayCurrent / floor).toFixed(2)),
    },
  },
  reference: REFERENCE,
  target: { durableNodeAtMostTimesFloor: TARGET_RATIO_TO_FLOOR, met: meets },
});
process.exit(0);

function sumDiffs(diffs) {
  const out = {};
  for (const d of diffs) for (const [k, v] of Object.entries(d)) out[k] = (out[k] ?? 0) + v;
  return out;
}
