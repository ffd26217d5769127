// bench/orchestrator (c), ActionService: what it costs to run a step in the
// service that serves its action instead of in the orchestrator.
//
//   SERVED      a 10-step chain whose every step is a `tool` node of action
//               `bench_echo`, served by a trivial ActionService in this process
//               (ActionDispatcher + ActionServiceModule, first answers stored
//               with PgActionRecords in a database of the same PostgreSQL, as
//               a real serving service does); the orchestrator routes it by
//               its ACTION_SERVICES table, one Execute per step with the key
//               `runId:nodeId:attempt`.
//   IN-PROCESS  the same chain (same wiring, same inputs) with in-process
//               `transform_data` steps (a `limit` operation), on the same
//               stack; and on a second stack with every node committed on its
//               own (PURE_NODE_BATCH=0), which is how a served step is
//               committed too.
//
// Both are started with gRPC StartRun, TOTAL runs per trial, IN_FLIGHT in
// flight, completions counted from orchestrator.runs (every POLL_MS, reading
// only the runs still open, by primary key, so the poll costs the same per
// second whatever the side); trials interleaved
// (order rotated), medians reported. Cost per run = 1 / runs per second.
// Target: a served run costs ≤ 1.3× the in-process one.
//
//   node bench/orchestrator/c-actions.bench.mjs [trials=3] [total=300] [inFlight=50]
//
// Writes bench/results/orchestrator-c-actions.json.
import { randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { createTestDatabase, freePort, TEST_DATABASE_URL } from '@af/testing';
import { INPUT_ROWS, grpcClients, startOurStack, startRunGrpc } from './lib/ours.mjs';
import { cpuDiff, cpuSnapshot, perUnit } from './lib/cpu.mjs';
import { fmt, machineFacts, median, printTable, progress, summary, writeResult } from './lib/report.mjs';

const STEPS = 10;
const TRIALS = Number(process.argv[2] ?? 3);
const TOTAL = Number(process.argv[3] ?? 300);
const IN_FLIGHT = Number(process.argv[4] ?? 50);
const POLL_MS = 10;
const TRIAL_TIMEOUT_MS = 180_000;
const TARGET_RATIO = 1.3;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const require = createRequire(import.meta.resolve('@af/service-kit'));
require('reflect-metadata');
const kit = await import('@af/service-kit');
const { PlanGraphSchema, planToWire } = await import('@af/plan');

/** The chain: step 0 reads the run input, every later step the previous step's `data`. */
function chainPlan(step) {
  const nodes = [];
  for (let i = 0; i < STEPS; i++) {
    nodes.push({ id: `s${i}`, kind: 'tool', ...step, inputs: { data: i === 0 ? '{rows}' : `{s${i - 1}.data}` }, dependsOn: i === 0 ? [] : [`s${i - 1}`] });
  }
  return planToWire(PlanGraphSchema.parse({ id: 'bench-actions', inputs: [{ name: 'rows', type: 'list', required: true }], nodes }));
}

const machine = await machineFacts(TEST_DATABASE_URL);
progress(`starting the action service and two stacks (${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')})`);

// The serving side: one trivial action, its records in PostgreSQL.
const serviceAuthSecret = randomBytes(32).toString('hex');
const recordsDb = await createTestDatabase();
const db = await kit.openDatabase({ url: recordsDb.url, schema: 'bench_actions', migrations: [kit.ActionExecutions1765000000000] });
let executions = 0;
// Read-only, as search-like actions are (a repeated key runs it again); and the same marked side-effecting, so every
// call also claims and completes its key in PgActionRecords (two writes), as a workspace or notification action does.
const echo = { name: 'bench_echo', sideEffects: false, execute: async (ctx) => (executions++, { data: ctx.inputs.data }) };
const echoRecorded = { ...echo, name: 'bench_echo_recorded', sideEffects: true };
const dispatcher = new kit.ActionDispatcher('bench-actions', [echo, echoRecorded], new kit.PgActionRecords(db));
const port = await freePort();
const actionAuth = new kit.ServiceAuth({ secret: serviceAuthSecret, service: 'bench-actions' });
const server = await kit.startGrpcServer({
  module: kit.ActionServiceModule.forRoot(dispatcher, { auth: actionAuth }),
  packages: ['action'],
  host: '127.0.0.1',
  port,
  log: kit.createLogger('bench-actions', 'warn'),
  auth: actionAuth,
});
const actionServices = `bench-actions=127.0.0.1:${port}`;
const stacks = {
  batched: await startOurStack({ orchestrator: { ACTION_SERVICES: actionServices } }, { serviceAuthSecret }),
  perNode: await startOurStack({ orchestrator: { ACTION_SERVICES: actionServices, PURE_NODE_BATCH: '0' } }, { serviceAuthSecret }),
};
const plans = {
  served: chainPlan({ action: 'bench_echo' }),
  servedRecorded: chainPlan({ action: 'bench_echo_recorded' }),
  inProcess: chainPlan({ action: 'transform_data', params: { operations: [{ type: 'limit', value: 10 }] } }),
};
const sides = {
  served: { stack: 'batched', plan: 'served' },
  servedRecorded: { stack: 'batched', plan: 'servedRecorded' },
  inProcess: { stack: 'batched', plan: 'inProcess' },
  inProcessEveryNodeCommitted: { stack: 'perNode', plan: 'inProcess' },
};
/** The run owners of each side's recorded trials (one per trial). */
const users = {};
let servedStartsAlone;
const samples = Object.fromEntries(Object.keys(sides).map((s) => [s, { runsPerSecond: [], cpuPerRun: [] }]));

try {
  const clients = { batched: await grpcClients(stacks.batched), perNode: await grpcClients(stacks.perNode) };

  /** One trial: `total` runs of one side, at most IN_FLIGHT started and not finished. */
  async function trial(side, total, record) {
    const { stack: which, plan } = sides[side];
    const stack = stacks[which];
    const principal = { userId: `bench-ca-${randomUUID()}`, teamIds: [] };
    if (record) (users[side] ??= []).push(principal.userId);
    let started = 0;
    let finished = 0;
    let completed = 0;
    let startError;
    const pending = new Set();
    /** Runs started (their ids known) and not seen finished yet: the poll reads only these, by primary key. */
    const open = new Set();
    const cpu0 = await cpuSnapshot(stack);
    const t0 = performance.now();
    while (finished < total) {
      while (started < total && started - finished < IN_FLIGHT) {
        started++;
        const p = startRunGrpc(clients[which], principal, plans[plan], { rows: INPUT_ROWS })
          .then((id) => open.add(id))
          .catch((err) => (startError ??= err))
          .finally(() => pending.delete(p));
        pending.add(p);
      }
      if (startError) throw startError;
      await sleep(POLL_MS);
      if (open.size === 0) continue;
      const done = await stack.db.query(
        `SELECT id::text AS id, status FROM orchestrator.runs WHERE id = ANY($1::uuid[]) AND status IN ('completed','failed','cancelled')`,
        [[...open]],
      );
      for (const r of done) {
        open.delete(r.id);
        finished++;
        if (r.status === 'completed') completed++;
      }
      if (performance.now() - t0 > TRIAL_TIMEOUT_MS) throw new Error(`trial not done after ${TRIAL_TIMEOUT_MS} ms: ${completed}/${total}`);
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuDiff(cpu0, await cpuSnapshot(stack));
    await Promise.all(pending);
    if (completed !== total) {
      const [bad] = await stack.db.query(`SELECT error FROM orchestrator.runs WHERE user_id = $1 AND status <> 'completed' LIMIT 1`, [principal.userId]);
      throw new Error(`${total - completed} of ${total} ${side} runs did not complete: ${bad?.error}`);
    }
    if (!record) return;
    samples[side].runsPerSecond.push(total / seconds);
    samples[side].cpuPerRun.push(perUnit(cpu, total));
  }

  progress('warm-up (100 runs of each side, not recorded)');
  for (const side of Object.keys(sides)) await trial(side, 100, false);
  const before = executions;
  const order = Object.keys(sides);
  for (let t = 0; t < TRIALS; t++) {
    const rotated = order.map((_, i) => order[(i + t) % order.length]);
    progress(`trial ${t + 1}/${TRIALS}: ${rotated.join(', ')}`);
    for (const side of rotated) await trial(side, TOTAL, true);
  }
  // Served read-only steps whose start was committed on its own: the call outlived READ_ONLY_START_GRACE_MS (50 ms).
  [servedStartsAlone] = await stacks.batched.db.query(
    `SELECT count(*) FILTER (WHERE s.xmin::text <> c.xmin::text)::int AS alone, count(*)::int AS steps
       FROM orchestrator.run_events s
       JOIN orchestrator.run_events c ON c.run_id = s.run_id AND c.node_id = s.node_id AND c.type = 'node_complete'
       JOIN orchestrator.runs r ON r.id = s.run_id
      WHERE s.type = 'node_start' AND r.user_id = ANY($1)`,
    [users.served],
  );
  // Every served step called the action once: the table routed every node, none replayed.
  if (executions - before !== 2 * TRIALS * TOTAL * STEPS) throw new Error(`expected ${2 * TRIALS * TOTAL * STEPS} executions, saw ${executions - before}`);
} finally {
  for (const s of Object.values(stacks)) await s.stop();
  await server.close();
  await db.destroy();
  await recordsDb.drop();
}

const rate = (side) => median(samples[side].runsPerSecond);
const served = rate('served');
const servedRecorded = rate('servedRecorded');
const inProcess = rate('inProcess');
const inProcessPerNode = rate('inProcessEveryNodeCommitted');
const ratio = inProcess / served;
const ratioPerNode = inProcessPerNode / served;
const ratioRecorded = inProcess / servedRecorded;
const cpuOf = (xs) => Object.fromEntries(Object.keys(xs[0]).map((k) => [k, Number(median(xs.map((x) => x[k])).toFixed(2))]));
const cpu = Object.fromEntries(Object.keys(sides).map((s) => [s, cpuOf(samples[s].cpuPerRun)]));
const loadAtEnd = loadavg().map((x) => Number(x.toFixed(2)));

console.log(`\nbench/orchestrator (c) ActionService: ${STEPS}-step runs, ${TOTAL} per trial, ${IN_FLIGHT} in flight, ${TRIALS} trials, medians`);
console.log(`${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')} at start, ${loadAtEnd.join(' ')} at end\n`);
printTable(
  ['side', 'runs/s (median)', 'cost ÷ in-process', 'CPU ms/run orchestrator', 'PostgreSQL', 'this process (action service)'],
  [
    ['SERVED: 10 × bench_echo (read-only) through ActionService', fmt(served, 1), fmt(ratio, 2), fmt(cpu.served.orchestrator, 2), fmt(cpu.served.postgresStackDb + cpu.served.postgresOther, 2), fmt(cpu.served.benchProcess, 2)],
    ['SERVED, side-effecting (each key recorded)', fmt(servedRecorded, 1), fmt(ratioRecorded, 2), fmt(cpu.servedRecorded.orchestrator, 2), fmt(cpu.servedRecorded.postgresStackDb + cpu.servedRecorded.postgresOther, 2), fmt(cpu.servedRecorded.benchProcess, 2)],
    ['IN-PROCESS: 10 × transform_data (default)', fmt(inProcess, 1), '1.00', fmt(cpu.inProcess.orchestrator, 2), fmt(cpu.inProcess.postgresStackDb + cpu.inProcess.postgresOther, 2), fmt(cpu.inProcess.benchProcess, 2)],
    ['IN-PROCESS, every node committed (PURE_NODE_BATCH=0)', fmt(inProcessPerNode, 1), fmt(inProcessPerNode / inProcess, 2), fmt(cpu.inProcessEveryNodeCommitted.orchestrator, 2), fmt(cpu.inProcessEveryNodeCommitted.postgresStackDb + cpu.inProcessEveryNodeCommitted.postgresOther, 2), fmt(cpu.inProcessEveryNodeCommitted.benchProcess, 2)],
  ],
);
console.log(`
Target: a served run costs ≤ ${TARGET_RATIO}× the same run with in-process steps.
  against the default in-process run (pure steps committed together): ${fmt(ratio, 2)}× — ${ratio <= TARGET_RATIO ? 'MET' : 'NOT MET'}
  against in-process steps each committed on its own, as a served step is: ${fmt(ratioPerNode, 2)}× — ${ratioPerNode <= TARGET_RATIO ? 'MET' : 'NOT MET'}
  a side-effecting served action (first answer stored per key) against the default in-process run: ${fmt(ratioRecorded, 2)}×
  served read-only steps whose start was committed on its own (the call took longer than the 50 ms grace): ${servedStartsAlone.alone} of ${servedStartsAlone.steps}`);

writeResult('c-actions', {
  benchmark: 'orchestrator-c-actions',
  machine: { ...machine, loadAverageAtEnd: loadAtEnd },
  setup: {
    steps: STEPS,
    trials: TRIALS,
    runsPerTrial: TOTAL,
    inFlight: IN_FLIGHT,
    warmup: '100 runs of each side',
    served: 'tool nodes of action bench_echo ({data} → {data}, read-only: no record per key; servedRecorded: the same marked side-effecting, so each key is claimed and completed in PgActionRecords), served in the bench process by ActionDispatcher + ActionServiceModule with PgActionRecords (same PostgreSQL, own database); orchestrator ACTION_SERVICES points at it',
    inProcess: 'the same chain with transform_data (limit 10) steps, same stack; and on a stack with PURE_NODE_BATCH=0',
    path: 'orchestrator gRPC StartRun of a wire plan built once; completions counted by polling orchestrator.runs every 10 ms for the runs still open (by primary key)',
  },
  results: {
    runsPerSecond: {
      served: summary(samples.served.runsPerSecond, 1),
      servedRecorded: summary(samples.servedRecorded.runsPerSecond, 1),
      inProcess: summary(samples.inProcess.runsPerSecond, 1),
      inProcessEveryNodeCommitted: summary(samples.inProcessEveryNodeCommitted.runsPerSecond, 1),
    },
    cpuMsPerRun: cpu,
    servedStepsStartCommittedAlone: servedStartsAlone,
    costRatio: {
      servedOverInProcess: Number(ratio.toFixed(3)),
      servedOverInProcessEveryNodeCommitted: Number(ratioPerNode.toFixed(3)),
      servedRecordedOverInProcess: Number(ratioRecorded.toFixed(3)),
    },
  },
  target: { costRatioAtMost: TARGET_RATIO, met: ratio <= TARGET_RATIO, metAgainstEveryNodeCommitted: ratioPerNode <= TARGET_RATIO },
});
process.exit(0);
