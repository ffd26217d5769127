/**
 * Issue 4 acceptance (chaos): 50 runs of a 20-node workflow against the
 * fixture API on 3 orchestrator replicas, while a random replica is SIGKILLed
 * and restarted every few hundred ms. All runs complete, each (run, node)
 * effect reached the fixture API exactly once, and each run's event sequence
 * — in the log and on the bus — has no gaps or duplicates.
 *
 * Any replica may be killed, the gateway's (replica 0) included: runs are
 * submitted with an Idempotency-Key and re-submitted when the gateway answers
 * with an error (StartRun may have committed before its replica died), and
 * progress is polled from the database, not through the gateway. Set
 * CHAOS_SEED to replay a kill schedule.
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { TEST_NATS_URL } from '@af/testing';
import {
  busViolations,
  dependenciesOf,
  effectViolations,
  eventViolations,
  KillLoop,
  seededRandom,
  sleep,
  tokenOf,
  type Dependencies,
  type EventRow,
} from './chaos.js';
import { fixture, http, registerAndLogin, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';

const RUNS = 50;
/** Runs are submitted in batches, batch k after the k-th kill. */
const BATCH = 5;
const REPLICAS = 3;
const LEASE_MS = 1200;
/** Pause between kills; restarts run in the background, at most MAX_DOWN replicas down at once. */
const KILL_PAUSE_MS = [200, 500] as const;
const MAX_DOWN = REPLICAS - 1;
/** From the first submission until every run must be finished. */
const RUNS_DEADLINE_MS = 100_000;
/** One POST /runs attempt (the gateway's own deadlines per call are 15–30 s). */
const ATTEMPT_TIMEOUT_MS = 40_000;
const SEED = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);

/** Where the submission stands, for the message when it does not finish in time. */
const submission = {
  phase: 'not started',
  /** Per idempotency key: each attempt's answer (or `pending`) and how long it took. */
  attempts: new Map<string, string[]>(),
  describe(): string {
    return [...this.attempts].map(([key, tries]) => `  ${key}: ${tries.join(', ')}`).join('\n');
  },
};

let api: FixtureServer;
let stack: Stack;
let token: string;

beforeAll(async () => {
  api = await startFixtureServer();
  const random = seededRandom(SEED ^ 0x5eed);
  // A little latency per effect, so kills land while calls are in flight.
  api.route('GET', '/effects', (req) => ({
    delayMs: 20 + Math.floor(random() * 61),
    json: { effects: [{ token: tokenOf(String(req.query.run), String(req.query.node)) }] },
  }));
  stack = await startStack({ orchestratorReplicas: REPLICAS, env: { orchestrator: { RUN_LEASE_MS: String(LEASE_MS) } } });
  token = await registerAndLogin(stack, 'chaos@example.com');
  const res = await http('POST', `${stack.gatewayUrl}/api/agent-factory/connectors`, {
    token,
    body: { yaml: fixture('chaos-effects.connector.yaml').replace('{{BASE_URL}}', api.url), credentials: {} },
  });
  expect(res.status).toBe(201);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

it('finishes 50 runs exactly once each while replicas are killed', async () => {
  const playbook = fixture('chaos-twenty.playbook.yaml');
  const killer = new KillLoop(stack, seededRandom(SEED), { pauseMs: KILL_PAUSE_MS, maxDown: MAX_DOWN });
  const runIds: string[] = [];
  const started = Date.now();
  killer.start();
  let unfinished: string[] = [];
  try {
    // Batches are submitted after successive kills, so kills overlap with work from start to end.
    let submitted = false;
    let submitError: unknown;
    void (async () => {
      for (let batch = 0; batch < RUNS / BATCH; batch++) {
        submission.phase = `batch ${batch}: waiting for kill ${batch} (${killer.kills.length} so far, ${killer.down} replica(s) restarting)`;
        if (batch > 0) await killer.killed(batch);
        submission.phase = `batch ${batch}: submitting`;
        runIds.push(...(await Promise.all(Array.from({ length: BATCH }, (_, i) => startRun(playbook, `chaos-${batch * BATCH + i}`)))));
      }
    })().then(
      () => (submitted = true),
      (err: unknown) => (submitError = err),
    );
    for (;;) {
      killer.check();
      if (submitError) throw submitError;
      unfinished = await unfinishedRuns(runIds);
      if (submitted && unfinished.length === 0) break;
      if (Date.now() - started > RUNS_DEADLINE_MS) {
        if (!submitted) {
          throw new Error(
            `only ${runIds.length} of ${RUNS} runs submitted after ${RUNS_DEADLINE_MS} ms (seed ${SEED}, ${killer.kills.length} kills, ` +
              `${killer.down} replica(s) restarting); ${submission.phase}; attempts:\n${submission.describe()}`,
          );
        }
        break;
      }
      await sleep(250);
    }
  } finally {
    await killer.stop();
  }
  const kills = killer.kills;
  const summary =
    `seed ${SEED}, ${Date.now() - started} ms, ${kills.length} kills, ${kills.filter((k) => k.runsHeld > 0).length} of them holding runs, ` +
    `${kills.reduce((n, k) => n + k.nodesRunning, 0)} running nodes interrupted [${kills.map((k) => `${k.victim}:${k.runsHeld}r/${k.nodesRunning}n`).join(' ')}], ` +
    `restarts took ${killer.restartMs.join('/')} ms, ${[...submission.attempts.values()].flat().length} POST /runs attempts for ${RUNS} runs`;
  if (unfinished.length) throw new Error(`${unfinished.length} of ${runIds.length} runs unfinished after ${RUNS_DEADLINE_MS} ms (${summary}):\n${await describeRuns(unfinished)}`);
  console.info(`chaos: ${summary}`);

  expect(runIds).toHaveLength(RUNS);
  expect(new Set(runIds).size).toBe(RUNS);
  // The kill loop ran while the batches were submitted; at least one kill hit a replica mid-node.
  expect(kills.length).toBeGreaterThanOrEqual(RUNS / BATCH - 1);
  expect(kills.some((k) => k.nodesRunning > 0)).toBe(true);

  const runs = await stack.db.query<{ id: string; status: string; plan: { nodes: Array<{ id: string; dependsOn?: string[] }> } }>(
    'SELECT id::text AS id, status, plan FROM orchestrator.runs WHERE id::text = ANY($1)',
    [runIds],
  );
  expect(runs.map((r) => r.status)).toEqual(Array(RUNS).fill('completed'));
  const deps: Dependencies = dependenciesOf(runs[0]!.plan);
  // The workflow itself: 20 nodes, two roots, fan-out and fan-in.
  expect(deps.size).toBe(20);
  expect([...deps.values()].filter((d) => d.length === 0)).toHaveLength(2);
  expect(Math.max(...[...deps.values()].map((d) => d.length))).toBe(3);

  expect(effectViolations(api.requests, runIds, deps)).toEqual([]);

  const events = await stack.db.query<EventRow>(
    'SELECT run_id::text AS run_id, seq, type, node_id, payload FROM orchestrator.run_events WHERE run_id::text = ANY($1) ORDER BY run_id, seq',
    [runIds],
  );
  const byRun = new Map<string, EventRow[]>(runIds.map((id) => [id, []]));
  for (const e of events) byRun.get(e.run_id)!.push(e);
  expect(runIds.flatMap((id) => eventViolations(id, byRun.get(id)!, deps))).toEqual([]);

  const counts = new Map([...byRun].map(([id, rows]) => [id, rows.length]));
  expect(busViolations(await framesOnBus(events.length), counts)).toEqual([]);

  // The gateway (through replica 0, killed or not) serves every finished run.
  for (const id of runIds) {
    const res = await http('GET', `${stack.gatewayUrl}/api/v1/runs/${id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.run.status).toBe('completed');
    expect(res.body.run.nodes.map((n: any) => `${n.status}#${n.attempt}`)).toEqual(Array(20).fill('completed#1'));
  }
}, 170_000);

/** POST /runs with an idempotency key; re-submits on an error answer (same key, so at most one run). */
async function startRun(playbook: string, key: string): Promise<string> {
  let last = '';
  const tries: string[] = [];
  submission.attempts.set(key, tries);
  for (let attempt = 1; attempt <= 10; attempt++) {
    const t0 = Date.now();
    tries.push('pending');
    // A request the gateway never answers is given up on and sent again, as any client would (it shows in `attempts`).
    const res = await http('POST', `${stack.gatewayUrl}/api/v1/runs`, { token, headers: { 'idempotency-key': key }, body: { playbook }, timeoutMs: ATTEMPT_TIMEOUT_MS }).catch(
      (err: unknown) => ({ status: 0, body: String(err) }),
    );
    tries[tries.length - 1] = `${res.status} in ${Date.now() - t0} ms`;
    if (res.status === 201 || res.status === 200) return res.body.run.id as string;
    last = `${res.status} ${JSON.stringify(res.body)}`;
    tries[tries.length - 1] += ` ${last.slice(0, 200)}`;
    await sleep(300);
  }
  throw new Error(`POST /api/v1/runs (${key}) kept failing: ${last}`);
}

async function unfinishedRuns(runIds: string[]): Promise<string[]> {
  if (runIds.length === 0) return [];
  const rows = await stack.db.query<{ id: string }>(
    `SELECT id::text AS id FROM orchestrator.runs WHERE id::text = ANY($1) AND status NOT IN ('completed','failed','cancelled')`,
    [runIds],
  );
  return rows.map((r) => r.id);
}

/** One line per run: status, lease, and its nodes grouped by state. */
async function describeRuns(ids: string[]): Promise<string> {
  const runs = await stack.db.query<{ id: string; status: string; lease_owner: string | null; lease_until: Date | null; last_seq: string }>(
    'SELECT id::text AS id, status, lease_owner, lease_until, last_seq FROM orchestrator.runs WHERE id::text = ANY($1) ORDER BY id',
    [ids],
  );
  const nodes = await stack.db.query<{ run_id: string; node_id: string; status: string; attempt: number }>(
    'SELECT run_id::text AS run_id, node_id, status, attempt FROM orchestrator.node_states WHERE run_id::text = ANY($1) ORDER BY node_id',
    [ids],
  );
  return runs
    .map((r) => {
      const groups = new Map<string, string[]>();
      for (const n of nodes.filter((x) => x.run_id === r.id)) groups.set(n.status, [...(groups.get(n.status) ?? []), `${n.node_id}#${n.attempt}`]);
      const states = [...groups].map(([s, ns]) => `${s}[${ns.join(',')}]`).join(' ');
      return `  ${r.id} ${r.status} seq=${r.last_seq} lease=${r.lease_owner ?? '-'}@${r.lease_until?.toISOString() ?? '-'} ${states}`;
    })
    .join('\n');
}

/** Every run frame retained on the bus for this stack, by run: their seqs (waits for the outbox relay to catch up). */
async function framesOnBus(expected: number): Promise<Map<string, number[]>> {
  const nc = await connect({ servers: TEST_NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    const stream = `${stack.natsPrefix.toUpperCase()}_AF_EVENTS`;
    const subject = `${stack.natsPrefix}.af.run.>`;
    const deadline = Date.now() + 20_000;
    while ((await jsm.streams.info(stream)).state.messages < expected && Date.now() < deadline) await sleep(200);
    const info = await jsm.consumers.add(stream, { ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All, filter_subject: subject });
    const consumer = await jetstream(nc).consumers.get(stream, info.name);
    const frames = new Map<string, number[]>();
    for (let done = false; !done; ) {
      const batch = await consumer.fetch({ max_messages: 1000, expires: 2000 });
      let got = 0;
      for await (const m of batch) {
        got++;
        const frame = m.json<{ runId: string; seq: number }>();
        frames.set(frame.runId, [...(frames.get(frame.runId) ?? []), frame.seq]);
        if (m.info.pending === 0) done = true;
      }
      if (got === 0) done = true;
    }
    return frames;
  } finally {
    await nc.close();
  }
}
