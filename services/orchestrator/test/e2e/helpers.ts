/** Shared helpers of the orchestrator e2e tests: gRPC clients on a started stack, runs, frames. */
import { connector, orchestrator } from '@af/contracts';
import { PlanGraphSchema, planToWire } from '@af/plan';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import type { Stack } from '@af/testing';

export const RunStatus = orchestrator.RunStatus;
export const NodeStatus = orchestrator.NodeStatus;

export interface Harness {
  runs: orchestrator.OrchestratorServiceClient;
  connectors: connector.ConnectorServiceClient;
  principal: { userId: string; teamIds: string[] };
}

export function harness(stack: Stack, userId: string): Harness {
  return {
    runs: createGrpcClient('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) }),
    connectors: createGrpcClient<connector.ConnectorServiceClient>('connector', connector.CONNECTOR_SERVICE_NAME, `127.0.0.1:${stack.services['connector-runtime'].env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) }),
    principal: { userId, teamIds: [] },
  };
}

export async function createConnector(h: Harness, yaml: string, key: string): Promise<void> {
  await call(h.connectors.createConnector({ principal: h.principal, yaml, definition: undefined, credentials: {}, idempotencyKey: key }));
}

export const wirePlan = (plan: Record<string, unknown>) => planToWire(PlanGraphSchema.parse(plan));

export async function start(
  h: Harness,
  plan: Record<string, unknown>,
  opts: {
    inputs?: Record<string, unknown>;
    outputContract?: Record<string, unknown>;
    goalCondition?: Array<Record<string, unknown>>;
    policies?: Array<Record<string, unknown>>;
    key?: string;
  } = {},
): Promise<string> {
  const { run } = await call(
    h.runs.startRun({
      principal: h.principal,
      plan: wirePlan(plan),
      inputs: opts.inputs ?? {},
      idempotencyKey: opts.key ?? '',
      runContext: 'background',
      outputContract: opts.outputContract,
      goalCondition: opts.goalCondition ?? [],
      policies: opts.policies ?? [],
    }),
  );
  return run!.id;
}

/** StartRun that must fail: the AppError. */
export async function startError(h: Harness, plan: Record<string, unknown>, opts: Parameters<typeof start>[2] = {}): Promise<AppError> {
  const err = await start(h, plan, opts).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected StartRun to fail, got ${String(err)}`);
  return err;
}

export const finished = (r: orchestrator.Run) => [RunStatus.RUN_STATUS_COMPLETED, RunStatus.RUN_STATUS_FAILED, RunStatus.RUN_STATUS_CANCELLED].includes(r.status);

export async function getRun(h: Harness, runId: string): Promise<orchestrator.Run> {
  return (await call(h.runs.getRun({ principal: h.principal, runId }))).run!;
}

export async function until(h: Harness, runId: string, done: (r: orchestrator.Run) => boolean = finished, timeoutMs = 30_000): Promise<orchestrator.Run> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const run = await getRun(h, runId);
    if (done(run)) return run;
    if (Date.now() > deadline) {
      throw new Error(`run ${runId}: ${orchestrator.runStatusToJSON(run.status)} ${JSON.stringify([...run.nodes, ...run.iterations].map((n) => [n.nodeId, orchestrator.nodeStatusToJSON(n.status)]))}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Frame {
  seq: number;
  type: string;
  nodeId: string;
  payload: Record<string, any>;
}

export async function frames(h: Harness, runId: string): Promise<Frame[]> {
  const { events } = await call(h.runs.listRunEvents({ principal: h.principal, runId, afterSeq: '0' }));
  return events.map((e) => ({ seq: Number(e.seq), type: e.type, nodeId: e.nodeId, payload: (e.payload ?? {}) as Record<string, any> }));
}

/** `type` or `type:nodeId` per frame — the golden-run shape. */
export const shape = (fs: Frame[]) => fs.map((f) => (f.nodeId ? `${f.type}:${f.nodeId}` : f.type));

export const byId = (r: orchestrator.Run) => Object.fromEntries([...r.nodes, ...r.iterations].map((n) => [n.nodeId, n]));

export const status = (r: orchestrator.Run) => Object.fromEntries([...r.nodes, ...r.iterations].map((n) => [n.nodeId, orchestrator.nodeStatusToJSON(n.status).replace('NODE_STATUS_', '').toLowerCase()]));

export const output = (r: orchestrator.Run, nodeId: string) => {
  const n = byId(r)[nodeId];
  return n?.outputJson ? JSON.parse(n.outputJson) : undefined;
};

export async function resume(h: Harness, runId: string, nodeId: string, decision: 'approve' | 'reject'): Promise<orchestrator.Run> {
  const { run } = await call(
    h.runs.resumeRun({
      principal: h.principal,
      runId,
      nodeId,
      decision: decision === 'approve' ? orchestrator.Decision.DECISION_APPROVE : orchestrator.Decision.DECISION_REJECT,
      instructions: '',
      idempotencyKey: '',
    }),
  );
  return run!;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Tracks how many requests a fixture route is serving at once. */
export function concurrencyMeter() {
  let now = 0;
  let peak = 0;
  return {
    enter() {
      now++;
      peak = Math.max(peak, now);
    },
    leave() {
      now--;
    },
    get peak() {
      return peak;
    },
    reset() {
      peak = now;
    },
  };
}

/** ReplanRun; `plan` in the IR object shape (absent: the run's stored playbook is compiled again). */
export async function replan(
  h: Harness,
  runId: string,
  opts: { plan?: Record<string, unknown>; rationale?: string; policyId?: string; expectedPlanVersion?: number; key?: string } = {},
): Promise<orchestrator.Run> {
  const { run } = await call(
    h.runs.replanRun({
      principal: h.principal,
      runId,
      plan: opts.plan ? wirePlan(opts.plan) : undefined,
      rationale: opts.rationale ?? '',
      policyId: opts.policyId ?? '',
      expectedPlanVersion: opts.expectedPlanVersion ?? 0,
      idempotencyKey: opts.key ?? '',
    }),
  );
  return run!;
}

/** A call that must fail: the AppError. */
export async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected the call to fail, got ${String(err)}`);
  return err;
}

/**
 * The golden-run check for concurrent branches: `expected` lists frame shapes
 * in order; `{ parallel: [laneA, laneB] }` is a stretch where the lanes' frames
 * interleave in any way, each lane keeping its own order (and every frame of
 * the stretch after what precedes it and before what follows it).
 */
export function expectOrder(actual: string[], expected: Array<string | { parallel: string[][] }>): void {
  const size = (part: string | { parallel: string[][] }) => (typeof part === 'string' ? 1 : part.parallel.reduce((n, lane) => n + lane.length, 0));
  const total = expected.reduce((n, part) => n + size(part), 0);
  const fail = (why: string) => {
    throw new Error(`${why}\nactual: ${JSON.stringify(actual, null, 1)}`);
  };
  if (actual.length !== total) fail(`expected ${total} frames, got ${actual.length}`);
  let i = 0;
  for (const part of expected) {
    if (typeof part === 'string') {
      if (actual[i] !== part) fail(`frame ${i}: expected ${part}, got ${actual[i]}`);
      i++;
      continue;
    }
    const next = part.parallel.map(() => 0);
    for (let k = 0; k < size(part); k++, i++) {
      const lane = part.parallel.findIndex((l, j) => l[next[j]!] === actual[i]);
      if (lane < 0) fail(`frame ${i}: ${actual[i]} is not next in any of ${JSON.stringify(part.parallel.map((l, j) => l.slice(next[j]!)))}`);
      next[lane]!++;
    }
  }
}
