/**
 * Schedule use cases: create, read, list, replace, delete, pause, resume,
 * run-now, backfill, fires. Only the owner sees a schedule; anyone else gets
 * NOT_FOUND, so schedule ids do not leak.
 */
import { randomUUID } from 'node:crypto';
import { AppError, type FieldViolation } from '@af/service-kit';
import { fireRunId, uuidV5 } from '../domain/schedules/fire-run-id.js';
import { firesBetween } from '../domain/schedules/fire-time.js';
import { OVERLAP_POLICIES, type OverlapPolicy } from '../domain/schedules/overlap-policy.js';
import { firstFire } from '../domain/schedules/schedule-advance.js';
import { parseScheduleDefinition, toTiming, type ScheduleDefinition } from '../domain/schedules/schedule-definition.js';
import type { ScheduleStore, StoredFire, StoredSchedule } from '../infra/schedule.store.js';
import type { Clock } from './schedule-dispatcher.js';
import { parsePlan } from './run-commands.js';
import { DETECTION_ACTIONS, hasDetectionStep } from '../domain/monitors/monitor-config.js';
import { decodePageToken, encodePageToken } from '../domain/page-token.js';
import type { AgentProfiles } from '../infra/agent-profiles.client.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Namespace of schedule ids derived from (owner, idempotency key): a retried create returns the same schedule. */
const CREATE_NAMESPACE = 'c7d5a0f2-9e4b-4f1a-8d63-2b7e1f0c5a48';
export const MAX_BACKFILL_FIRES = 1000;

export interface ScheduleView extends StoredSchedule {
  lastRunStatus: string | null;
}

export class ScheduleCommands {
  constructor(
    private readonly store: ScheduleStore,
    private readonly clock: Clock,
    /** A monitor's stored playbook is compiled when the monitor is saved: one without a detection step is refused then. */
    private readonly loadPlaybook?: (userId: string, playbookId: string, revision?: number) => Promise<unknown>,
    /** A schedule naming an agent profile is saved only when its owner may run the profile (NOT_FOUND otherwise). */
    private readonly agents?: AgentProfiles,
  ) {}

  /** The target's agent profile must exist and be the owner's or shared with one of their teams. */
  private async checkAgentTarget(userId: string, teamIds: readonly string[], def: ScheduleDefinition): Promise<void> {
    const target = def.target;
    if (!('agent_profile_id' in target)) return;
    if (!this.agents) throw new AppError('FAILED_PRECONDITION', 'schedules cannot target agent profiles: PLANNER_URL is not configured for the orchestrator', { retryable: false });
    await this.agents.authorize({ userId, teamIds }, target.agent_profile_id);
  }

  /**
   * Schedules whose target is the agent profile — what keeps the planner from
   * deleting it: the caller's own (id, name) and a count of other users'
   * (members of teams it is shared with), which are not named to the caller.
   */
  async usingAgentProfile(userId: string, agentProfileId: string): Promise<{ own: Array<{ id: string; name: string }>; others: number }> {
    requireUser(userId);
    if (!agentProfileId) throw AppError.invalid('agent_profile_id', 'is required');
    if (agentProfileId.length > 200) throw AppError.invalid('agent_profile_id', 'is longer than 200 characters');
    return this.store.usingAgentProfile(userId, agentProfileId, 20);
  }

  /** The caller's schedules and monitors that run the stored playbook (they keep it from being deleted). */
  async usingPlaybook(userId: string, playbookId: string): Promise<{ own: Array<{ id: string; name: string }>; total: number }> {
    requireUser(userId);
    if (!playbookId) throw AppError.invalid('playbook_id', 'is required');
    if (playbookId.length > 200) throw AppError.invalid('playbook_id', 'is longer than 200 characters');
    return this.store.usingPlaybook(userId, playbookId, 20);
  }

  /** Refuse a monitor whose stored playbook has no detection step (an inline plan is checked by parse()). */
  private async checkMonitorPlaybook(userId: string, def: ScheduleDefinition): Promise<void> {
    const target = def.target;
    if (!def.monitor || !('playbook_id' in target) || !this.loadPlaybook) return;
    const plan = (await this.loadPlaybook(userId, target.playbook_id, target.playbook_revision)) as { nodes?: Array<{ action?: unknown }> };
    const actions = (plan?.nodes ?? []).map((n) => (typeof n.action === 'string' ? n.action : undefined));
    if (!hasDetectionStep(actions)) {
      throw AppError.invalid('target.playbook_id', `playbook '${target.playbook_id}' has no detection step: a monitor needs at least one (${DETECTION_ACTIONS.join(', ')})`);
    }
  }

  async create(cmd: { userId: string; teamIds: readonly string[]; definition: unknown; idempotencyKey: string }): Promise<ScheduleView> {
    requireUser(cmd.userId);
    const def = parse(cmd.definition);
    await this.checkMonitorPlaybook(cmd.userId, def);
    await this.checkAgentTarget(cmd.userId, cmd.teamIds, def);
    const id = cmd.idempotencyKey ? uuidV5(`${cmd.userId}:${cmd.idempotencyKey}`, CREATE_NAMESPACE) : randomUUID();
    if (cmd.idempotencyKey) {
      const existing = await this.store.get(id);
      if (existing) return this.view(existing);
    }
    const now = this.clock();
    const first = this.firstFire(id, def, now, now);
    return this.view(await this.store.create({ id, userId: cmd.userId, teamIds: cmd.teamIds, definition: def, createdAt: now, ...first }));
  }

  async get(userId: string, id: string): Promise<ScheduleView> {
    return this.view(await this.owned(userId, id));
  }

  async list(userId: string, pageSize: number, pageToken: string): Promise<{ schedules: ScheduleView[]; nextPageToken: string }> {
    requireUser(userId);
    const size = pageSize === 0 ? 50 : pageSize;
    if (!Number.isInteger(size) || size < 1 || size > 200) throw AppError.invalid('page_size', 'must be between 1 and 200');
    const rows = await this.store.list(userId, size + 1, pageToken ? decodePageToken(pageToken) : null);
    const page = rows.slice(0, size);
    const last = page.at(-1);
    return {
      schedules: await Promise.all(page.map((s) => this.view(s))),
      nextPageToken: rows.length > size && last ? encodePageToken(last) : '',
    };
  }

  /** Replace the definition; the next fire is computed again from now (fires already recorded keep their place). */
  async update(userId: string, id: string, definition: unknown): Promise<ScheduleView> {
    const current = await this.owned(userId, id);
    const def = parse(definition);
    await this.checkMonitorPlaybook(userId, def);
    await this.checkAgentTarget(userId, current.teamIds, def);
    const next = this.firstFire(id, def, current.createdAt, this.clock());
    return this.view((await this.store.update(id, def, next.nextFireAt, next.dueAt)) ?? notFound(id));
  }

  async delete(userId: string, id: string): Promise<void> {
    await this.owned(userId, id);
    await this.store.delete(id);
  }

  async pause(userId: string, id: string): Promise<ScheduleView> {
    const s = await this.owned(userId, id);
    return this.view((await this.store.setPaused(id, true, s.nextFireAt, s.dueAt)) ?? notFound(id));
  }

  /** Fires that fell while paused are not made up for (as Temporal's unpause): the next fire is the first after now. */
  async resume(userId: string, id: string): Promise<ScheduleView> {
    const s = await this.owned(userId, id);
    const next = s.paused ? this.firstFire(id, s.definition, s.createdAt, this.clock(), false) : { nextFireAt: s.nextFireAt, dueAt: s.dueAt };
    return this.view((await this.store.setPaused(id, false, next.nextFireAt, next.dueAt)) ?? notFound(id));
  }

  /** One fire now, under the schedule's overlap policy unless `overlapPolicy` says otherwise. */
  async runNow(userId: string, id: string, overlapPolicy: string): Promise<{ fireAt: Date; runId: string }> {
    await this.owned(userId, id);
    const policy = parseOverlap(overlapPolicy);
    const now = this.clock();
    const [fireAt] = await this.store.queueFires(id, [now], 'manual', now, policy);
    if (!fireAt) throw new AppError('ABORTED', 'a fire was queued for this schedule at the same millisecond; retry', { retryable: true });
    return { fireAt, runId: fireRunId(id, fireAt) };
  }

  /**
   * Queue the schedule's fires in [from, to] (at most MAX_BACKFILL_FIRES).
   * Fires already recorded (run, skipped, …) are not queued again, so a
   * repeated backfill of the same range starts nothing twice.
   */
  async backfill(userId: string, id: string, range: { from: string; to: string; overlapPolicy: string }): Promise<{ queued: Date[]; alreadyRecorded: number }> {
    const s = await this.owned(userId, id);
    const violations: FieldViolation[] = [];
    const from = instant(range.from, 'start_time', violations);
    const to = instant(range.to, 'end_time', violations);
    if (from && to && from.getTime() > to.getTime()) violations.push({ field: 'end_time', reason: 'must not be before start_time' });
    if (from && to && to.getTime() > this.clock().getTime()) violations.push({ field: 'end_time', reason: 'must not be in the future: a backfill replays past fires' });
    if (violations.length) throw new AppError('INVALID_ARGUMENT', violations.map((v) => `${v.field}: ${v.reason}`).join('; '), { violations });
    const policy = parseOverlap(range.overlapPolicy);
    const fires = firesBetween(toTiming(s.definition, s.createdAt), new Date(from!.getTime() - 1), to!, MAX_BACKFILL_FIRES + 1);
    if (fires.length > MAX_BACKFILL_FIRES) throw AppError.invalid('end_time', `the range holds more than ${MAX_BACKFILL_FIRES} fires: backfill it in parts`);
    const queued = await this.store.queueFires(id, fires, 'backfill', this.clock(), policy);
    return { queued, alreadyRecorded: fires.length - queued.length };
  }

  async fires(userId: string, id: string, limit: number): Promise<StoredFire[]> {
    await this.owned(userId, id);
    const size = limit === 0 ? 50 : limit;
    if (!Number.isInteger(size) || size < 1 || size > 500) throw AppError.invalid('limit', 'must be between 1 and 500');
    return this.store.fires(id, size);
  }

  private firstFire(id: string, def: ScheduleDefinition, createdAt: Date, now: Date, refusePast = true): { nextFireAt: Date | null; dueAt: Date | null } {
    const next = firstFire(id, toTiming(def, createdAt), now, def.jitter);
    if (!next.nextFireAt && refusePast && def.spec?.at !== undefined) throw AppError.invalid('spec.at', 'is in the past: a one-off schedule needs a future time');
    return next;
  }

  private async view(s: StoredSchedule): Promise<ScheduleView> {
    return { ...s, lastRunStatus: s.lastRunId ? await this.store.runStatus(s.lastRunId) : null };
  }

  private async owned(userId: string, id: string): Promise<StoredSchedule> {
    requireUser(userId);
    if (!UUID.test(id)) throw AppError.notFound('schedule', id);
    const s = await this.store.get(id);
    if (!s || s.userId !== userId) throw AppError.notFound('schedule', id);
    return s;
  }
}

function parse(raw: unknown): ScheduleDefinition {
  const r = parseScheduleDefinition(raw);
  if ('violations' in r) throw new AppError('INVALID_ARGUMENT', r.violations.map((v) => `${v.field}: ${v.reason}`).join('; '), { violations: r.violations });
  const target = r.definition.target;
  // A monitor's inline plan must have a detection step (a stored playbook's steps are known only when it is compiled, at each fire).
  if (r.definition.monitor && 'plan' in target) {
    const nodes = Array.isArray(target.plan.nodes) ? (target.plan.nodes as Array<{ action?: unknown }>) : [];
    if (!hasDetectionStep(nodes.map((n) => (typeof n.action === 'string' ? n.action : undefined)))) {
      throw AppError.invalid('target.plan.nodes', `a monitor needs at least one detection step (${DETECTION_ACTIONS.join(', ')})`);
    }
  }
  // An inline plan is checked now, with the run's own parser, so a bad one fails here and not at every fire.
  if ('plan' in target) {
    try {
      parsePlan(target.plan);
    } catch (err) {
      if (err instanceof AppError) {
        const violations = err.violations.map((v) => ({ ...v, field: `target.${v.field}` }));
        throw new AppError('INVALID_ARGUMENT', violations.map((v) => `${v.field}: ${v.reason}`).join('; ') || err.message, { violations });
      }
      throw err;
    }
  }
  return r.definition;
}

function parseOverlap(text: string): OverlapPolicy | null {
  if (!text) return null;
  if (!(OVERLAP_POLICIES as readonly string[]).includes(text)) throw AppError.invalid('overlap_policy', `must be one of ${OVERLAP_POLICIES.join(', ')}`);
  return text as OverlapPolicy;
}

function instant(text: string, field: string, violations: FieldViolation[]): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(Date.parse(text))) {
    violations.push({ field, reason: 'must be an ISO 8601 instant, e.g. 2026-03-01T00:00:00Z' });
    return null;
  }
  return new Date(text);
}


function requireUser(userId: string): void {
  if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
}

function notFound(id: string): never {
  throw AppError.notFound('schedule', id);
}
