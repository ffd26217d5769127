/**
 * Work distribution: runs to execute arrive on the JetStream work queue; any
 * replica takes one. A sweeper re-enqueues runs whose lease lapsed (a dead
 * replica) so nothing depends on a message surviving.
 *
 * A run created by a request this replica served starts here at once,
 * created already leased to it and without a work item (`claim`); when this
 * replica is at capacity the run is created queued with a work item instead.
 *
 * A run whose work item this replica just committed (ResumeRun, an
 * approval's resolution, a timer, a child run's end, …) is also started here
 * at once when the replica has room (`dispatchLocal`, wired to the outbox's
 * committed rows), without waiting for the work item to make the trip
 * through the outbox and JetStream; the work item still goes out, and
 * whichever execution takes the lease first runs it — the other finds it
 * taken (or finished) and drops it.
 */
import { decodeJson, PgOutboxStore, type Closeable, type ServiceKit } from '@af/service-kit';
import type { ExecuteRun } from '../app/execute-run.use-case.js';
import type { OrchestratorConfig } from '../config.js';
import type { RunMaintenance } from './run-maintenance.js';
import type { LeasedRun } from './run-execution.store.js';
import type { LocalClaim, RunRepository } from './run.repository.js';

const TIMER_POLL_MS = 250;
/** Subflow reconciliation (parked parents of finished children) every this many timer polls. */
const RECONCILE_EVERY_TICKS = 8;
const PURGE_EVERY_MS = 10 * 60_000;

export class RunWorkConsumer {
  private consumer?: Closeable;
  private sweeper?: NodeJS.Timeout;
  private timers?: NodeJS.Timeout;
  private purger?: NodeJS.Timeout;
  private readonly active = new Set<Promise<unknown>>();
  /** Slots promised to runs being created here (see claim()). */
  private claimed = 0;
  private stopped = false;

  constructor(
    private readonly kit: ServiceKit<OrchestratorConfig>,
    private readonly repo: RunRepository,
    private readonly maintenance: RunMaintenance,
    private readonly executor: ExecuteRun,
  ) {}

  /**
   * Start executing a run this replica just queued, unless it is at capacity
   * (RUNS_IN_FLIGHT executions) or stopping; returns whether it started. The
   * run's work item covers a refusal, a lost lease race or a crash.
   */
  dispatchLocal(runId: string, leased?: LeasedRun): boolean {
    if (!leased && (this.stopped || this.active.size + this.claimed >= this.kit.config.RUNS_IN_FLIGHT)) return false;
    const work = this.executor
      .execute(runId, () => {}, leased)
      .then(async (result) => {
        this.kit.log.debug({ runId, result }, 'run executed locally');
        // Stopping (shutdown): the run was released; a new work item lets another replica go on at once.
        if (result === 'stopped') await this.repo.enqueue(runId, `work:${runId}:stopped:${Date.now()}`);
      })
      .catch((err) => this.kit.log.warn({ err, runId }, 'local execution failed; the work item or the sweeper takes the run over'))
      .finally(() => this.active.delete(work));
    this.active.add(work);
    return true;
  }

  /**
   * An execution slot for a run being created here: the run is created
   * already leased to this replica and starts at once (RunRepository.create);
   * null when the replica is at capacity or stopping.
   */
  claim(): LocalClaim | null {
    if (this.stopped || this.active.size + this.claimed >= this.kit.config.RUNS_IN_FLIGHT) return null;
    this.claimed++;
    let open = true;
    const close = () => {
      if (open) this.claimed--;
      open = false;
    };
    return {
      owner: this.kit.config.SERVICE_INSTANCE_ID,
      leaseMs: this.kit.config.RUN_LEASE_MS,
      start: (leased) => {
        close();
        this.dispatchLocal(leased.run.id, leased);
      },
      abandon: close,
    };
  }

  /** Starts the runs whose work items this process commits (see the header), from the outbox's committed rows. */
  dispatchCommitted(): void {
    const prefix = this.kit.subjects.runWork('');
    this.kit.relay.onCommitted((rows) => {
      for (const row of rows) {
        const runId = row.subject.startsWith(prefix) ? (row.payload as { runId?: unknown } | null)?.runId : undefined;
        if (typeof runId === 'string') this.dispatchLocal(runId);
      }
    });
  }

  async start(): Promise<void> {
    const { RUN_LEASE_MS, RUNS_IN_FLIGHT } = this.kit.config;
    this.consumer = await this.kit.bus.consume(
      this.kit.subjects.runWorkAll(),
      { durable: 'orchestrator-runs', ackWaitMs: RUN_LEASE_MS, maxInFlight: RUNS_IN_FLIGHT },
      async (item) => {
        const { runId } = decodeJson<{ runId: string }>(item.data);
        const work = this.executor.execute(runId, () => item.working());
        this.active.add(work);
        try {
          const result = await work;
          if (result === 'stopped') item.nak(0);
          else item.ack();
          this.kit.log.debug({ runId, result, redeliveries: item.redeliveries }, 'run work item handled');
        } finally {
          this.active.delete(work);
        }
      },
    );
    const sweep = () => {
      this.sweepOnce().catch((err) => this.kit.log.warn({ err }, 'orphan sweep failed'));
      this.sweeper = setTimeout(sweep, Math.floor(RUN_LEASE_MS / 2 + Math.random() * (RUN_LEASE_MS / 4)));
      this.sweeper.unref();
    };
    sweep();
    // Durable timers (delays, approval timeouts) live in node_states; any replica fires them.
    let tick = 0;
    const fire = () => {
      this.maintenance.dueTimers(100).catch((err) => this.kit.log.warn({ err }, 'timer poll failed'));
      if (tick++ % RECONCILE_EVERY_TICKS === 0) {
        this.maintenance
          .strandedParents(100)
          .then((ids) => ids.length && this.kit.log.info({ count: ids.length }, 're-queued parents of finished subflows'))
          .catch((err) => this.kit.log.warn({ err }, 'subflow reconciliation failed'));
      }
      this.timers = setTimeout(fire, TIMER_POLL_MS);
      this.timers.unref();
    };
    fire();
    // Retention: outputs of long-finished runs, published outbox rows.
    const purge = () => {
      const retentionMs = this.kit.config.NODE_OUTPUT_RETENTION_HOURS * 3600_000;
      Promise.all([this.maintenance.purgeOutputs(retentionMs), new PgOutboxStore(this.kit.db, this.kit.schema).purge(24 * 3600_000)])
        .then(([n]) => n && this.kit.log.info({ purgedOutputs: n }, 'retention purge'))
        .catch((err) => this.kit.log.warn({ err }, 'retention purge failed'));
      this.purger = setTimeout(purge, PURGE_EVERY_MS);
      this.purger.unref();
    };
    this.purger = setTimeout(purge, 5_000);
    this.purger.unref();
  }

  /** Re-enqueue runs nobody holds; the msgId limits this to once per lease period per run. */
  async sweepOnce(): Promise<number> {
    const lease = this.kit.config.RUN_LEASE_MS;
    const orphans = await this.maintenance.orphans(lease, 100);
    const period = Math.floor(Date.now() / lease);
    for (const runId of orphans) await this.repo.enqueue(runId, `work:${runId}:sweep:${period}`);
    if (orphans.length) this.kit.log.info({ count: orphans.length }, 're-enqueued orphaned runs');
    const children = await this.maintenance.cancelOrphanChildren(100);
    if (children.length) this.kit.log.info({ count: children.length }, 'cancelled subflow runs whose parent finished');
    return orphans.length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearTimeout(this.sweeper);
    if (this.timers) clearTimeout(this.timers);
    if (this.purger) clearTimeout(this.purger);
    this.executor.stop();
    await this.consumer?.close();
    await Promise.allSettled([...this.active]);
  }
}
