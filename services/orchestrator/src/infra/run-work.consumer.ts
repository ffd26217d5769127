/**
 * Work distribution: runs to execute arrive on the JetStream work queue; any
 * replica takes one. A sweeper re-enqueues runs whose lease lapsed (a dead
 * replica) so nothing depends on a message surviving.
 *
 * A run queued by a request this replica served (StartRun, ResumeRun, …) is
 * also started here at once when the replica has room (`dispatchLocal`),
 * without waiting for its work item to make the trip through the outbox and
 * JetStream; the work item still goes out, and whichever execution takes the
 * lease first runs it — the other finds it taken (or finished) and drops it.
 */
import { decodeJson, PgOutboxStore, type Closeable, type ServiceKit } from '@af/service-kit';
import type { ExecuteRun } from '../app/execute-run.use-case.js';
import type { OrchestratorConfig } from '../config.js';
import type { RunMaintenance } from './run-maintenance.js';
import type { RunRepository } from './run.repository.js';

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
  dispatchLocal(runId: string): boolean {
    if (this.stopped || this.active.size >= this.kit.config.RUNS_IN_FLIGHT) return false;
    const work = this.executor
      .execute(runId)
      .then((result) => this.kit.log.debug({ runId, result }, 'run executed locally'))
      .catch((err) => this.kit.log.warn({ err, runId }, 'local execution failed; the work item or the sweeper takes the run over'))
      .finally(() => this.active.delete(work));
    this.active.add(work);
    return true;
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
