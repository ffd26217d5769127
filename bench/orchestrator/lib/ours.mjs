// Our side of the orchestrator benchmarks: the real services (gateway,
// planner, orchestrator, connector-runtime) as separate processes via
// @af/testing startStack(), a chain playbook of in-process transform_data
// steps, and timings read back from the orchestrator's own tables.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { http, startStack } from '@af/testing';

/** Rows the first step reads from the run input `rows`. */
export const INPUT_ROWS = [
  { id: 1, name: 'a', score: 0.9 },
  { id: 2, name: 'b', score: 0.4 },
  { id: 3, name: 'c', score: 0.7 },
];

/**
 * A playbook of `steps` sequential transform_data steps: step 0 reads the
 * run input, every later step reads the previous step's `data`; each applies a
 * trivial `limit` operation (pure, in-process, no connector call).
 */
export function chainPlaybookYaml(steps) {
  const lines = [
    `id: bench-chain-${steps}`,
    `name: Bench chain of ${steps} transform steps`,
    'version: "1.0"',
    'execution_mode: deterministic',
    'inputs:',
    '  - name: rows',
    '    type: list',
    '    required: true',
    'steps:',
  ];
  for (let i = 0; i < steps; i++) {
    lines.push(
      `  - name: s${i}`,
      '    step_type: tool',
      '    action: transform_data',
      '    inputs:',
      `      data: "${i === 0 ? '{rows}' : `{s${i - 1}.data}`}"`,
      '    operations:',
      '      - type: limit',
      '        value: 10',
    );
  }
  return lines.join('\n') + '\n';
}

/**
 * What a production deployment runs with where the test harness (startStack)
 * sets test-speed values: logs at `info` (not `debug`), and the services'
 * default background intervals (the harness reconciles waits every second
 * and sweeps approvals every 200 ms so that tests decide fast; with a
 * thousand waiting runs those loops alone would load the machine). Values
 * are the defaults of services/orchestrator/src/config.ts and
 * services/approval/src/config.ts.
 */
export const PRODUCTION_ENV = {
  gateway: { LOG_LEVEL: 'info' },
  planner: { LOG_LEVEL: 'info' },
  'connector-runtime': { LOG_LEVEL: 'info' },
  orchestrator: { LOG_LEVEL: 'info', APPROVAL_RECONCILE_MS: '5000' },
  approval: { LOG_LEVEL: 'info', APPROVAL_SWEEP_INTERVAL_MS: '1000' },
};

/**
 * Start the services against a fresh database with PRODUCTION_ENV (plus
 * `extraEnv` per service); everything else is the services' defaults.
 * `options` go to startStack (e.g. a `serviceAuthSecret` shared with an
 * action service the bench serves itself).
 */
export async function startOurStack(extraEnv = {}, options = {}) {
  const env = {};
  for (const [name, base] of Object.entries(PRODUCTION_ENV)) {
    env[name] = { ...base, ...(extraEnv[name] ?? {}) };
  }
  // Profiling aid: BENCH_ORCHESTRATOR_NODE_OPTIONS (e.g. `--require ./my-profiler.cjs`) is given to the orchestrator.
  if (process.env.BENCH_ORCHESTRATOR_NODE_OPTIONS) env.orchestrator.NODE_OPTIONS = process.env.BENCH_ORCHESTRATOR_NODE_OPTIONS;
  const stack = await startStack({ ...options, env });
  return stack;
}

/** Service settings that matter for the figures (defaults from services/orchestrator/src/config.ts unless overridden). */
export function orchestratorSettings(stack) {
  const e = stack.services.orchestrator.env;
  return {
    LOG_LEVEL: e.LOG_LEVEL,
    RUN_CONCURRENCY: e.RUN_CONCURRENCY ?? 'default (8)',
    RUNS_IN_FLIGHT: e.RUNS_IN_FLIGHT ?? 'default (64)',
    RUN_LEASE_MS: e.RUN_LEASE_MS ?? 'default (15000)',
    APPROVAL_RECONCILE_MS: e.APPROVAL_RECONCILE_MS,
  };
}

/** Register a fresh user and return a bearer token. */
export async function registerAndLogin(stack) {
  const email = `bench-${randomUUID()}@example.com`;
  const password = 'a long bench password';
  const reg = await http('POST', `${stack.gatewayUrl}/api/auth/register`, { body: { email, password } });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await http('POST', `${stack.gatewayUrl}/api/auth/login`, { body: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return login.body.access_token;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Poll the run's row (a cheap primary-key read) until it is finished. */
export async function waitFinished(stack, runId, { pollMs = 5, timeoutMs = 120_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await stack.db.query('SELECT status, error FROM orchestrator.runs WHERE id = $1', [runId]);
    if (row && ['completed', 'failed', 'cancelled'].includes(row.status)) {
      if (row.status !== 'completed') throw new Error(`run ${runId} ${row.status}: ${row.error}`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} not finished after ${timeoutMs} ms`);
    await sleep(pollMs);
  }
}

/**
 * Start a run through the gateway (POST /api/v1/runs: compile via the
 * planner, then the orchestrator's StartRun) and wait for `completed`.
 * Returns the client's wall time and the engine's own timings.
 */
export async function runViaGateway(stack, token, yaml, inputs) {
  const t0 = performance.now();
  const res = await http('POST', `${stack.gatewayUrl}/api/v1/runs`, { token, body: { playbook: yaml, inputs } });
  if (res.status !== 201) throw new Error(`POST /api/v1/runs: ${res.status} ${JSON.stringify(res.body)}`);
  const tAccepted = performance.now();
  const runId = res.body.run.id;
  await waitFinished(stack, runId);
  const wallMs = performance.now() - t0;
  return { runId, wallMs, postMs: tAccepted - t0, ...(await engineTimings(stack, runId)) };
}

/**
 * Timings from the orchestrator's tables, all from PostgreSQL's clock with µs
 * resolution: `runs.created_at` is now() of StartRun's transaction,
 * `runs.updated_at` now() of the finishing transaction, and each node's
 * `started_at`/`finished_at` now() of its node_start/node_complete transaction.
 */
export async function engineTimings(stack, runId) {
  const [run] = await stack.db.query(
    `SELECT extract(epoch FROM created_at) * 1000 AS created, extract(epoch FROM updated_at) * 1000 AS finished
       FROM orchestrator.runs WHERE id = $1`,
    [runId],
  );
  const nodes = await stack.db.query(
    `SELECT node_id, extract(epoch FROM started_at) * 1000 AS started, extract(epoch FROM finished_at) * 1000 AS finished
       FROM orchestrator.node_states WHERE run_id = $1 ORDER BY started_at`,
    [runId],
  );
  const starts = nodes.map((n) => Number(n.started));
  const intervals = starts.slice(1).map((s, i) => s - starts[i]);
  const created = Number(run.created);
  const finished = Number(run.finished);
  return {
    nodeCount: nodes.length,
    /** StartRun's commit time to the `complete` transaction. */
    engineMs: finished - created,
    /** StartRun to the first node_start: outbox relay → NATS work queue → consumer → lease. */
    dispatchMs: starts[0] - created,
    /** node_start(i) → node_start(i+1): one node's full cycle in the steady state. */
    nodeIntervalsMs: intervals,
    /** node_start → node_complete transaction of each node (execution + the first commit). */
    nodeBodyMs: nodes.map((n) => Number(n.finished) - Number(n.started)),
  };
}

/** gRPC clients of the planner and orchestrator (grpc-js through the service-kit helper, as the gateway does). */
export async function grpcClients(stack) {
  // The Nest client reads decorator metadata; load the polyfill the services load.
  const require = createRequire(import.meta.resolve('@af/service-kit'));
  require('reflect-metadata');
  const { createGrpcClient, call, ServiceAuth } = await import('@af/service-kit');
  const { orchestrator, planner } = await import('@af/contracts');
  const host = '127.0.0.1';
  // Every call carries a principal token for the principal it names, signed with the stack's service secret.
  const auth = new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'bench' });
  return {
    call,
    planner: createGrpcClient('planner', planner.PLANNER_SERVICE_NAME, `${host}:${stack.services.planner.env.GRPC_PORT}`, { auth }),
    orchestrator: createGrpcClient('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `${host}:${stack.services.orchestrator.env.GRPC_PORT}`, { auth }),
  };
}

/** Compile a playbook once through the planner; the returned wire plan is passed to StartRun unchanged. */
export async function compileOnce(clients, principal, yaml) {
  const res = await clients.call(clients.planner.compilePlaybook({ principal, yaml }));
  if (!res.plan) throw new Error(`CompilePlaybook returned no plan: ${JSON.stringify(res.results)}`);
  return res.plan;
}

/** StartRun directly on the orchestrator; returns the run id. */
export async function startRunGrpc(clients, principal, plan, inputs) {
  const { run } = await clients.call(
    clients.orchestrator.startRun({ principal, plan, inputs, idempotencyKey: randomUUID(), runContext: '' }),
  );
  return run.id;
}

/** Transactions committed in the stack's database so far (PostgreSQL flushes these stats within ~1 s). */
export async function committedTransactions(stack) {
  const [row] = await stack.db.query('SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(row.n);
}
