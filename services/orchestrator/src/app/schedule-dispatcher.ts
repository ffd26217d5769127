/**
 * The schedule loop: every replica ticks; each tick claims locked batches of
 * schedules that need a step (schedule.store.ts says why row locks) until
 * none is left, and for each records its due fires, applies the overlap
 * policy and prepares runs; the claim creates its runs in one statement and
 * they execute through the normal run path (queued, work items). Time comes from an injected clock, so tests drive
 * it instead of sleeping.
 */
import { AppError, type Logger } from '@af/service-kit';
import { decideOverlap, type OverlapPolicy } from '../domain/schedules/overlap-policy.js';
import { fireRunId } from '../domain/schedules/fire-run-id.js';
import { dueAt } from '../domain/schedules/jitter.js';
import { shouldPoll } from '../domain/monitors/monitor-cycle.js';
import { advanceSchedule, startRetryDelayMs } from '../domain/schedules/schedule-advance.js';
import { toTiming } from '../domain/schedules/schedule-definition.js';
import type { ClaimCursor, ClaimedSchedule, FireKind, ScheduleStore, StoredFire, StoredSchedule } from '../infra/schedule.store.js';
import type { CreateRunInput } from './run-commands.js';

export type Clock = () => Date;

/**
 * Prepares (and cancels) the runs of fires; the app's run-start checks behind
 * it. A prepared run is created with the rest of its claim's batch.
 */
export interface FireRuns {
  prepare(schedule: StoredSchedule, fire: { fireAt: Date; kind: FireKind; runId: string }): Promise<CreateRunInput & { id: string }>;
  cancel(schedule: StoredSchedule, runId: string): Promise<void>;
}

export interface DispatchOptions {
  clock: Clock;
  /** Schedules locked per transaction. */
  batch: number;
  /** Claiming workers per replica (each takes its own batches). */
  workers: number;
  /** How often a replica ticks. */
  pollMs: number;
  /** How soon a buffered fire is looked at again while its schedule still has active runs. */
  bufferRecheckMs: number;
}

export interface TickReport {
  claimed: number;
  started: number;
  skipped: number;
  buffered: number;
  failed: number;
  missed: number;
  retrying: number;
}

const MAX_PENDING_PER_STEP = 200;
/** The shortest wait between two ticks. */
const MIN_WAKE_MS = 100;

export class ScheduleDispatcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    private readonly store: ScheduleStore,
    private readonly runs: FireRuns,
    private readonly log: Logger,
    private readonly opts: DispatchOptions,
    /** Called with each fire's dispatch lag (ms from due to run start), for metrics and the bench. */
    private readonly observeLag?: (ms: number) => void,
  ) {}

  /** One pass: claim and step every schedule that needs it now. */
  async tick(): Promise<TickReport> {
    const report: TickReport = { claimed: 0, started: 0, skipped: 0, buffered: 0, failed: 0, missed: 0, retrying: 0 };
    const now = this.opts.clock();
    const worker = async () => {
      // Each worker goes on from where its last claim of this tick stopped (the next tick starts over).
      const cursor: ClaimCursor = { after: null };
      // Until a claim comes back short: with SKIP LOCKED an empty claim means the rest is held by others or not due.
      for (let i = 0; i < 10_000 && !this.stopped; i++) {
        const n = await this.store.claim(
          now,
          this.opts.batch,
          (c) => this.step(c, now, report),
          // Committed: the dispatch lag runs to when the runs exist (queued), not to when the tick began.
          (fires) => {
            const at = this.opts.clock().getTime();
            for (const f of fires) this.observeLag?.(Math.max(0, at - f.readyAt.getTime()));
          },
          cursor,
        );
        report.claimed += n;
        if (n < this.opts.batch) break;
      }
    };
    await Promise.all(Array.from({ length: this.opts.workers }, worker));
    return report;
  }

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick()
        .then((r) => {
          if (r.claimed) this.log.debug({ ...r }, 'schedule tick');
        })
        .catch((err) => this.log.error({ err }, 'schedule tick failed'))
        // The next tick at the next due instant when that is sooner than pollMs (a fire due at 09:00 is
        // claimed at 09:00, not up to pollMs later), never sooner than MIN_WAKE_MS (a due schedule another
        // replica holds must not make this one spin).
        .then(() => this.store.nextDueAt())
        .catch((err) => {
          this.log.warn({ err }, 'next schedule due time unknown');
          return null;
        })
        .then((next) => {
          if (this.stopped) return;
          const until = next ? next.getTime() - this.opts.clock().getTime() : this.opts.pollMs;
          this.timer = setTimeout(loop, Math.min(this.opts.pollMs, Math.max(MIN_WAKE_MS, until)));
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private async step(c: ClaimedSchedule, now: Date, report: TickReport): Promise<void> {
    const s = c.schedule;
    const def = s.definition;
    if (s.nextFireAt && s.dueAt && s.dueAt.getTime() <= now.getTime()) {
      const adv = advanceSchedule({ id: s.id, timing: toTiming(def, s.createdAt), nextFireAt: s.nextFireAt, now, catchupWindowMs: def.catchup_window, jitterMs: def.jitter });
      await c.recordFires(adv.fires.map((f) => ({ fireAt: f, readyAt: dueAt(s.id, f, def.jitter) })), 'scheduled', adv);
      report.missed += adv.missed;
      if (adv.missed) this.log.warn({ scheduleId: s.id, missed: adv.missed }, 'schedule fires older than the catch-up window were skipped');
    }
    const pending = await c.pendingFires(MAX_PENDING_PER_STEP);
    if (!pending.length) return;
    let active = await c.activeRuns();
    let bufferedAhead = 0;
    for (const fire of pending) {
      // A fire waiting for its retry keeps its place: later fires do not overtake it.
      if (fire.status === 'queued' && fire.readyAt.getTime() > now.getTime()) break;
      // A monitor polls only inside its active hours (run-now and backfill fires are asked for: they run).
      if (fire.kind === 'scheduled' && !shouldPoll(fire.fireAt, def.monitor?.active_hours ?? null)) {
        await c.setFire(fire.fireAt, { status: 'skipped', reason: 'outside_active_hours', dispatchedAt: now });
        report.skipped++;
        continue;
      }
      const decision = decideOverlap((fire.overlapPolicy as OverlapPolicy | null) ?? def.overlap_policy, active.length, bufferedAhead);
      if (decision.action === 'skip') {
        await c.setFire(fire.fireAt, { status: 'skipped', reason: decision.reason, dispatchedAt: now });
        report.skipped++;
        continue;
      }
      if (decision.action === 'cancel_active') {
        for (const runId of active) await this.runs.cancel(s, runId);
        // A cancel takes effect in the runs table at once; cancel_other still waits if one has not stopped.
        const left = await c.activeRuns();
        active = decision.startNow ? [] : left;
      }
      if (decision.action === 'buffer' || (decision.action === 'cancel_active' && active.length > 0)) {
        await c.setFire(fire.fireAt, { status: 'buffered', readyAt: new Date(now.getTime() + this.opts.bufferRecheckMs) });
        if (fire.status !== 'buffered') report.buffered++;
        bufferedAhead++;
        continue;
      }
      const outcome = await this.startFire(c, fire, now, report);
      if (outcome.started) active = [...active, outcome.started];
      // A fire waiting for its retry holds back the ones after it; a failed one does not.
      else if (outcome.retrying) break;
    }
  }

  /** Prepare the fire's run (created with the claim's batch); on failure retry later (keeping order) or give up. */
  private async startFire(c: ClaimedSchedule, fire: StoredFire, now: Date, report: TickReport): Promise<{ started?: string; retrying?: boolean }> {
    const s = c.schedule;
    const runId = fireRunId(s.id, fire.fireAt);
    try {
      c.startInBatch(fire, await this.runs.prepare(s, { fireAt: fire.fireAt, kind: fire.kind, runId }));
    } catch (err) {
      const retryable = err instanceof AppError ? err.retryable : true;
      const reason = err instanceof Error ? err.message : String(err);
      if (retryable && fire.attempt < s.definition.max_retries) {
        await c.setFire(fire.fireAt, { status: 'queued', attempt: fire.attempt + 1, readyAt: new Date(now.getTime() + startRetryDelayMs(fire.attempt)), reason });
        report.retrying++;
        this.log.warn({ scheduleId: s.id, fireAt: fire.fireAt, attempt: fire.attempt + 1, err }, 'schedule fire could not start its run; retrying');
        return { retrying: true };
      }
      await c.setFire(fire.fireAt, { status: 'failed', reason, dispatchedAt: now });
      report.failed++;
      this.log.warn({ scheduleId: s.id, fireAt: fire.fireAt, err }, 'schedule fire failed to start its run');
      return {};
    }
    report.started++;
    return { started: runId };
  }
}
