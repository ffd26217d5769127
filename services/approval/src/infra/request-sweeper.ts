/**
 * Durable timeouts and stale-request expiry, run by one replica at a time
 * (the leader, by advisory lock — see leader-lock.ts). Deadlines live in
 * PostgreSQL (`requests.timeout_at`), so nothing is lost when a replica dies:
 * the next leader times out whatever came due meanwhile.
 *
 * Stale requests (seed multi-agent-rag "Production Guarantees": orphaned
 * pending rows are expired on start-up): a run's `complete` event expires its
 * pending requests (run-end.consumer.ts); as a reconciliation, the leader
 * asks the orchestrator about the runs of pending requests older than
 * APPROVAL_STALE_CHECK_MS — at start-up and then every that often — and
 * expires those whose run ended or no longer exists.
 */
import type { Logger } from '@af/service-kit';
import { SYSTEM_ACTORS } from '../domain/request.js';
import type { LeaderLock } from './leader-lock.js';
import type { RequestRepository } from './request.repository.js';

/** What the orchestrator says about a run, as the sweeper needs it. */
export type RunState = 'active' | 'ended' | 'gone';

export interface RunStatusSource {
  /** The run's state, asked as its owner; throws when the orchestrator cannot answer. */
  state(ownerUserId: string, runId: string): Promise<{ state: RunState; status: string }>;
}

export interface SweeperOptions {
  intervalMs: number;
  staleCheckMs: number;
  batch?: number;
}

export class RequestSweeper {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private lastStaleCheck = 0;

  constructor(
    private readonly repo: RequestRepository,
    private readonly lock: LeaderLock,
    private readonly log: Logger,
    private readonly runs: RunStatusSource | undefined,
    private readonly options: SweeperOptions,
  ) {}

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick()
        .then(() => undefined)
        .catch((err) => this.log.warn({ err }, 'approval sweep failed'))
        .finally(() => {
          if (this.stopped) return;
          this.timer = setTimeout(loop, this.options.intervalMs);
          this.timer.unref();
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.lock.release();
  }

  /** One round: nothing unless leading; then due timeouts, and the stale check when it is time. */
  async tick(): Promise<{ leader: boolean; timedOut: number; expired: number }> {
    if (!(await this.lock.hold())) return { leader: false, timedOut: 0, expired: 0 };
    const timedOut = await this.timeOutDue();
    let expired = 0;
    if (this.runs && Date.now() - this.lastStaleCheck >= this.options.staleCheckMs) {
      // The first round of a new leader checks at once (start-up cleanup).
      this.lastStaleCheck = Date.now();
      expired = await this.expireStale(this.runs);
    }
    return { leader: true, timedOut, expired };
  }

  private async timeOutDue(): Promise<number> {
    const batch = this.options.batch ?? 100;
    let total = 0;
    for (;;) {
      const done = await this.repo.timeOutDue(batch, SYSTEM_ACTORS.timeout, { reasonCode: 'timeout', reason: 'nobody acted before the request timed out' });
      total += done.length;
      if (done.length) this.log.info({ count: done.length, ids: done.map((r) => r.id) }, 'requests timed out');
      if (done.length < batch) return total;
    }
  }

  /** Pending requests whose run ended or is gone: expired. An orchestrator that cannot answer is asked again next time. */
  private async expireStale(runs: RunStatusSource): Promise<number> {
    let expired = 0;
    for (const { runId, ownerUserId } of await this.repo.runsToCheck(this.options.staleCheckMs, this.options.batch ?? 100)) {
      let answer: { state: RunState; status: string };
      try {
        answer = await runs.state(ownerUserId, runId);
      } catch (err) {
        this.log.warn({ err, runId }, 'could not check the run of pending requests');
        continue;
      }
      if (answer.state === 'active') continue;
      const reason = answer.state === 'gone' ? `run ${runId} no longer exists` : `run ${runId} ended (${answer.status})`;
      const done = await this.repo.expireRun(runId, SYSTEM_ACTORS.runEnded, { reasonCode: 'run_ended', reason });
      if (done.length) this.log.info({ runId, count: done.length, reason }, 'expired stale requests');
      expired += done.length;
    }
    return expired;
  }
}
