/**
 * Helpers of the multi-replica chaos test: a seeded kill loop over the
 * orchestrator replicas, and the checks of what a run left behind (effects at
 * the fixture API, the event log, the frames on the bus). The checks return
 * lists of violations so one failed assertion shows every problem at once.
 */
import type { FixtureRequest, ServiceProcess, Stack } from '@af/testing';

/** mulberry32: a small seeded PRNG, so a failing schedule can be replayed with CHAOS_SEED. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One SIGKILL and what the victim held at that moment (read from the database just before). */
export interface Kill {
  victim: string;
  /** Runs whose lease the victim held. */
  runsHeld: number;
  /** Nodes in status `running` of those runs: the work the kill interrupted. */
  nodesRunning: number;
}

/**
 * Every `pauseMs` (a random value in the range) SIGKILLs a random replica
 * that is up — one holding run leases if any does — and starts it again in
 * the background, never taking down more than `maxDown` at once (and never
 * the last one up). A replica that fails to come back ends the loop with that
 * error (rethrown by check() and stop()).
 */
export class KillLoop {
  readonly kills: Kill[] = [];
  /** How long each restart took until the replica was ready. */
  readonly restartMs: number[] = [];
  private stopped = false;
  private failure: unknown;
  private running?: Promise<void>;
  private readonly restarting = new Map<ServiceProcess, Promise<void>>();
  private readonly waiters: Array<{ count: number; resolve: () => void; reject: (err: unknown) => void }> = [];

  constructor(
    private readonly stack: Stack,
    private readonly random: () => number,
    private readonly options: { pauseMs: readonly [number, number]; maxDown: number },
  ) {}

  start(): void {
    this.running = this.loop().catch((err: unknown) => this.fail(err));
  }

  /** Replicas killed and not yet ready again. */
  get down(): number {
    return this.restarting.size;
  }

  /** Resolves once `count` kills have happened (rejects if the loop failed). */
  killed(count: number): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.kills.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ count, resolve, reject }));
  }

  /** Throws the error that ended the loop (a replica that did not come back), if any. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /** Stops killing and waits for the restarts under way: every replica is running afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    await Promise.allSettled([...this.restarting.values()]);
    if (this.failure) throw this.failure;
  }

  private fail(err: unknown): void {
    this.failure ??= err;
    this.stopped = true;
    for (const w of this.waiters.splice(0)) w.reject(err);
  }

  private async loop(): Promise<void> {
    const [min, max] = this.options.pauseMs;
    const replicas = this.stack.orchestrators;
    while (!this.stopped) {
      await sleep(min + this.random() * (max - min));
      if (this.stopped) break;
      const up = replicas.filter((r) => !this.restarting.has(r));
      if (replicas.length - up.length >= this.options.maxDown || up.length <= 1) continue;
      // Prefer a replica that holds runs right now: killing an idle one proves little.
      const held = await this.held();
      const busy = up.filter((r) => held.has(r.env.SERVICE_INSTANCE_ID!));
      const pool = busy.length ? busy : up;
      const victim = pool[Math.floor(this.random() * pool.length)]!;
      await victim.kill();
      this.kills.push({ victim: victim.label, ...(held.get(victim.env.SERVICE_INSTANCE_ID!) ?? { runsHeld: 0, nodesRunning: 0 }) });
      for (const w of this.waiters.filter((x) => x.count <= this.kills.length)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
      const restart = this.restart(victim)
        .catch((err: unknown) => this.fail(err))
        .finally(() => this.restarting.delete(victim));
      this.restarting.set(victim, restart);
    }
  }

  /**
   * start() resolves on the first output of a restarted process (its ready
   * check also matches the previous incarnation's "ready" line), so wait for
   * this incarnation's own ready line too.
   */
  private async restart(victim: ServiceProcess): Promise<void> {
    const t0 = Date.now();
    const mark = victim.output.length;
    await victim.start(60_000);
    while (victim.output.indexOf(`${victim.name} ready`, mark) < 0) {
      if (!victim.running) throw new Error(`${victim.label} exited while starting:\n${victim.tail()}`);
      if (Date.now() - t0 > 60_000) throw new Error(`${victim.label} not ready 60 s after restart:\n${victim.tail()}`);
      await sleep(20);
    }
    this.restartMs.push(Date.now() - t0);
  }

  /** Per lease owner: the running runs it holds and their nodes in status `running`. */
  private async held(): Promise<Map<string, Omit<Kill, 'victim'>>> {
    const rows = await this.stack.db.query<{ owner: string; runs: string; nodes: string }>(
      `SELECT r.lease_owner AS owner, count(DISTINCT r.id) AS runs, count(n.node_id) FILTER (WHERE n.status = 'running') AS nodes
         FROM orchestrator.runs r LEFT JOIN orchestrator.node_states n ON n.run_id = r.id
        WHERE r.status = 'running' AND r.lease_owner IS NOT NULL AND r.lease_until > now()
        GROUP BY r.lease_owner`,
    );
    return new Map(rows.map((r) => [r.owner, { runsHeld: Number(r.runs), nodesRunning: Number(r.nodes) }]));
  }
}

/** The plan's dependencies, read back from the compiled plan the orchestrator stored. */
export type Dependencies = ReadonlyMap<string, readonly string[]>;

export function dependenciesOf(plan: { nodes: Array<{ id: string; dependsOn?: string[] }> }): Dependencies {
  return new Map(plan.nodes.map((n) => [n.id, n.dependsOn ?? []]));
}

/** What the fixture API answers for one effect: the token downstream steps wire into in1..in3. */
export const tokenOf = (runId: string, nodeId: string) => `${runId}/${nodeId}`;

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v.join(',') : v);

/**
 * Exactly-once at the fixture API: every (run, node) of every run was
 * requested exactly once, nothing else was requested, and each request
 * carried the tokens of exactly the node's dependencies (so outputs replayed
 * after a crash are the ones the first call produced).
 */
export function effectViolations(requests: readonly FixtureRequest[], runIds: readonly string[], deps: Dependencies): string[] {
  const problems: string[] = [];
  const hits = new Map<string, number>();
  const known = new Set(runIds);
  for (const req of requests) {
    const run = one(req.query.run);
    const node = one(req.query.node);
    if (req.path !== '/effects' || !run || !node || !known.has(run) || !deps.has(node)) {
      problems.push(`unexpected request ${req.method} ${req.url}`);
      continue;
    }
    const key = `${run} ${node}`;
    hits.set(key, (hits.get(key) ?? 0) + 1);
    const got = ['in1', 'in2', 'in3'].map((k) => one(req.query[k])).filter((v): v is string => v !== undefined).sort();
    const want = deps.get(node)!.map((d) => tokenOf(run, d)).sort();
    if (got.join('|') !== want.join('|')) problems.push(`${key}: inputs ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  }
  for (const run of runIds) {
    for (const node of deps.keys()) {
      const n = hits.get(`${run} ${node}`) ?? 0;
      if (n !== 1) problems.push(`${run} ${node}: ${n} effect requests, expected exactly 1`);
    }
  }
  return problems;
}

export interface EventRow {
  run_id: string;
  seq: string | number;
  type: string;
  node_id: string | null;
  payload: Record<string, unknown>;
}

/**
 * What the engine guarantees for a run that never retries a node, however
 * often its owner was killed: seq is 1..n; `start` first and one `complete`
 * (status completed) last; per node exactly node_start then node_complete,
 * both attempt 1 — a node replayed after a crash keeps its attempt and emits
 * no second node_start, and a node whose node_start never committed was still
 * pending — and each node starts after all its dependencies completed.
 */
export function eventViolations(runId: string, rows: readonly EventRow[], deps: Dependencies): string[] {
  const problems: string[] = [];
  const at = (msg: string) => problems.push(`${runId}: ${msg}`);
  const seqs = rows.map((r) => Number(r.seq));
  if (seqs.some((s, i) => s !== i + 1)) at(`seq is not 1..${rows.length}: ${seqs.join(',')}`);
  const types = rows.map((r) => r.type);
  if (types[0] !== 'start') at(`first event is ${types[0]}, expected start`);
  const completes = rows.filter((r) => r.type === 'complete');
  if (completes.length !== 1 || types.at(-1) !== 'complete') at(`${completes.length} complete events, last is ${types.at(-1)}`);
  else if (completes[0]!.payload.status !== 'completed') at(`complete has status ${String(completes[0]!.payload.status)}`);
  const expected = 2 + deps.size * 2;
  if (rows.length !== expected) at(`${rows.length} events, expected ${expected}`);
  const completedAt = new Map<string, number>();
  const startedAt = new Map<string, number>();
  for (const node of deps.keys()) {
    const mine = rows.filter((r) => r.node_id === node);
    const shape = mine.map((r) => `${r.type}#${String(r.payload.attempt)}`).join(' ');
    if (shape !== 'node_start#1 node_complete#1') at(`${node} events are [${shape}], expected [node_start#1 node_complete#1]`);
    const start = mine.find((r) => r.type === 'node_start');
    const done = mine.find((r) => r.type === 'node_complete');
    if (start) startedAt.set(node, Number(start.seq));
    if (done) completedAt.set(node, Number(done.seq));
  }
  for (const [node, needs] of deps) {
    const started = startedAt.get(node);
    for (const dep of needs) {
      const done = completedAt.get(dep);
      if (started !== undefined && done !== undefined && started < done) at(`${node} started (seq ${started}) before ${dep} completed (seq ${done})`);
    }
  }
  const strays = rows.filter((r) => r.node_id !== null && !deps.has(r.node_id));
  if (strays.length) at(`events for unknown nodes: ${strays.map((r) => r.node_id).join(',')}`);
  return problems;
}

/** The frames on the bus: per run, seq 1..n each exactly once (the relay's re-publishes were de-duplicated). */
export function busViolations(framesByRun: ReadonlyMap<string, number[]>, eventCounts: ReadonlyMap<string, number>): string[] {
  const problems: string[] = [];
  for (const [runId, count] of eventCounts) {
    const seqs = [...(framesByRun.get(runId) ?? [])].sort((a, b) => a - b);
    const want = Array.from({ length: count }, (_, i) => i + 1);
    if (seqs.join(',') !== want.join(',')) problems.push(`${runId}: bus frames seq [${seqs.join(',')}], expected 1..${count} once each`);
  }
  for (const runId of framesByRun.keys()) if (!eventCounts.has(runId)) problems.push(`frames for unknown run ${runId}`);
  return problems;
}
