import { createLogger, OutboxRelay, Subjects, type OutboxRow, type OutboxStore, type ServiceKit } from '@af/service-kit';
import type { ExecuteRun, ExecuteResult } from '../app/execute-run.use-case.js';
import type { OrchestratorConfig } from '../config.js';
import type { RunMaintenance } from './run-maintenance.js';
import type { LeasedRun } from './run-execution.store.js';
import type { RunRepository } from './run.repository.js';
import { RunWorkConsumer } from './run-work.consumer.js';

const log = createLogger('test', 'silent');

/** A consumer on a real OutboxRelay (memory store and bus) and an executor whose runs finish when told. */
function setup(runsInFlight = 2) {
  const store: OutboxStore = { withBatch: async () => 0, markPublished: async () => undefined };
  const relay = new OutboxRelay(store, { publish: async () => undefined }, log, { intervalMs: 60_000 });
  const subjects = new Subjects('t1');
  const kit = { config: { RUNS_IN_FLIGHT: runsInFlight, SERVICE_INSTANCE_ID: 'replica-1', RUN_LEASE_MS: 1500 }, subjects, relay, log } as unknown as ServiceKit<OrchestratorConfig>;
  const started: string[] = [];
  const preleased: string[] = [];
  const finish = new Map<string, (r: ExecuteResult) => void>();
  const executor = {
    execute: (runId: string, _keepAlive: unknown, leased?: LeasedRun) => {
      started.push(runId);
      if (leased) preleased.push(runId);
      return new Promise<ExecuteResult>((resolve) => finish.set(runId, resolve));
    },
    stop: () => undefined,
  } as unknown as ExecuteRun;
  const enqueued: string[] = [];
  const repo = { enqueue: async (runId: string, msgId: string) => void enqueued.push(`${runId} ${msgId.split(':').slice(0, 3).join(':')}`) } as unknown as RunRepository;
  const consumer = new RunWorkConsumer(kit, repo, {} as RunMaintenance, executor);
  consumer.dispatchCommitted();
  let id = 0;
  const commit = (...rows: Array<Omit<OutboxRow, 'id'>>) => relay.publishCommitted(rows.map((r) => ({ ...r, id: String(++id) })));
  const work = (runId: string) => ({ subject: subjects.runWork(runId), payload: { runId }, msgId: `work:${runId}:start` });
  return { consumer, relay, subjects, started, preleased, finish, commit, work, enqueued };
}

describe('RunWorkConsumer local dispatch', () => {
  it('starts a run whose work item this process committed, at once; other rows start nothing', () => {
    const { started, commit, work, subjects } = setup();
    commit({ subject: subjects.run('r0', 'start'), payload: { runId: 'r0', seq: 1 }, msgId: 'run:r0:1' }, work('r1'));
    expect(started).toEqual(['r1']);
  });

  it('leaves runs to their work items when RUNS_IN_FLIGHT executions are active, and takes more once one ends', async () => {
    const { started, commit, work, finish } = setup(2);
    commit(work('a'), work('b'), work('c'));
    expect(started).toEqual(['a', 'b']);
    finish.get('a')!('finished');
    await new Promise((r) => setImmediate(r));
    commit(work('d'));
    expect(started).toEqual(['a', 'b', 'd']);
  });

  it('starts nothing once stopped', async () => {
    const { consumer, started, commit, work } = setup();
    await consumer.stop();
    commit(work('late'));
    expect(started).toEqual([]);
    expect(consumer.dispatchLocal('other')).toBe(false);
  });

  it('claims a slot for a run being created: leased to this replica, started with its state; an abandoned claim frees the slot', () => {
    const { consumer, started, preleased, commit, work } = setup(2);
    const a = consumer.claim()!;
    expect([a.owner, a.leaseMs]).toEqual(['replica-1', 1500]);
    const b = consumer.claim()!;
    // Both slots are promised: nothing else starts, and no third claim.
    expect(consumer.claim()).toBeNull();
    commit(work('other'));
    expect(started).toEqual([]);
    b.abandon();
    b.abandon(); // twice is once
    const run = { id: 'created' } as LeasedRun['run'];
    a.start({ run, states: new Map(), waiting: new Map(), outputs: new Map() });
    expect(started).toEqual(['created']);
    expect(preleased).toEqual(['created']);
    // One slot left.
    expect(consumer.claim()).not.toBeNull();
    expect(consumer.claim()).toBeNull();
  });

  it('queues a run it stopped executing (shutdown) again, so another replica goes on at once', async () => {
    const { started, finish, commit, work, enqueued } = setup();
    commit(work('s1'), work('s2'));
    expect(started).toEqual(['s1', 's2']);
    finish.get('s1')!('stopped');
    finish.get('s2')!('finished');
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(enqueued).toEqual(['s1 work:s1:stopped']);
  });
});
