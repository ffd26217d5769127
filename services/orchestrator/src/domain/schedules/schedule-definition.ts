/**
 * A schedule as the API accepts it (snake_case, the seeds' names), parsed
 * with zod; every problem names its field path. `toTiming` turns the stored
 * definition into the Timing the dispatcher evaluates.
 */
import { z } from 'zod';
import { CronSpecError, isTimeZone, parseCron, TimeZoneError } from './cron-spec.js';
import type { Timing } from './fire-time.js';
import { parseDuration } from './interval.js';
import { OVERLAP_POLICIES, type OverlapPolicy } from './overlap-policy.js';
import { TEMPLATE_VARIABLES, unknownPlaceholders } from './query-template.js';
import { MonitorConfigSchema } from '../monitors/monitor-config.js';

export const MIN_INTERVAL_MS = 1000;
export const MAX_JITTER_MS = 24 * 3_600_000;

const duration = (min: number, max: number) =>
  z.union([z.string(), z.number()]).transform((value, ctx) => {
    if (min === 0 && (value === 0 || /^\s*0\s*[smhd]?\s*$/.test(String(value)))) return 0;
    const parsed = parseDuration(value);
    if ('error' in parsed) {
      ctx.addIssue({ code: 'custom', message: parsed.error });
      return z.NEVER;
    }
    if (parsed.ms < min || parsed.ms > max) {
      ctx.addIssue({ code: 'custom', message: `must be between ${min / 1000}s and ${max / 1000}s` });
      return z.NEVER;
    }
    return parsed.ms;
  });

const isoInstant = z.string().refine((s) => /^\d{4}-\d{2}-\d{2}T/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 instant, e.g. 2026-03-08T09:00:00Z');

const SpecSchema = z
  .object({
    cron: z.string().optional(),
    timezone: z.string().default('UTC'),
    interval: duration(MIN_INTERVAL_MS, 366 * 86_400_000).optional(),
    /** Interval schedules: the grid's origin (default: when the schedule is created). */
    start_at: isoInstant.optional(),
    /** One-off schedules: the only fire. */
    at: isoInstant.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const given = (['cron', 'interval', 'at'] as const).filter((k) => spec[k] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({ code: 'custom', message: `exactly one of cron, interval or at is required${given.length ? ` (got ${given.join(', ')})` : ''}` });
      return;
    }
    if (!isTimeZone(spec.timezone)) ctx.addIssue({ code: 'custom', path: ['timezone'], message: new TimeZoneError(spec.timezone).message });
    else if (spec.cron !== undefined) {
      try {
        parseCron(spec.cron, spec.timezone);
      } catch (err) {
        if (!(err instanceof CronSpecError)) throw err;
        ctx.addIssue({ code: 'custom', path: ['cron'], message: `invalid cron '${spec.cron}': ${err.message}` });
      }
    }
  });

const TargetSchema = z.union([
  z.object({ playbook_id: z.string().min(1).max(200), playbook_revision: z.number().int().min(0).default(0), inputs: z.record(z.string(), z.unknown()).default({}) }).strict(),
  z.object({ plan: z.record(z.string(), z.unknown()), inputs: z.record(z.string(), z.unknown()).default({}) }).strict(),
  /** An agent profile answering `query_template` (rendered per fire), as a chat message to it would. */
  z.object({ agent_profile_id: z.string().min(1).max(200), inputs: z.record(z.string(), z.unknown()).default({}) }).strict(),
]);

export const ScheduleDefinitionSchema = z
  .object({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(4000).default(''),
    /** When it fires. A monitor gives `monitor` instead: it polls every monitor.interval. */
    spec: SpecSchema.optional(),
    /** A monitor (run_context `monitor`): interval, active hours, suppress_if_empty. */
    monitor: MonitorConfigSchema.optional(),
    /** The playbook (stored, or an inline plan) each fire runs, with its inputs; or an agent profile asked query_template. */
    target: TargetSchema,
    /** Given to the run as its `query` input, rendered per fire. */
    query_template: z
      .string()
      .max(10_000)
      .default('')
      .superRefine((t, ctx) => {
        const bad = unknownPlaceholders(t);
        if (bad.length) ctx.addIssue({ code: 'custom', message: `unknown placeholder(s) ${bad.map((b) => `{${b}}`).join(', ')}; known: ${TEMPLATE_VARIABLES.map((v) => `{${v}}`).join(', ')}` });
      }),
    /**
     * Scheduled and monitor runs are non-interactive: approvals wait in the
     * approval queue (require) or pass at once (auto_approve). Default:
     * require for schedules, auto_approve for monitors.
     */
    approval_policy: z.enum(['require', 'auto_approve']).optional(),
    overlap_policy: z.enum(OVERLAP_POLICIES, { message: `must be one of ${OVERLAP_POLICIES.join(', ')}` }).default('skip'),
    /** Fires older than this when a replica gets to them (all were down) are skipped as missed. */
    catchup_window: duration(MIN_INTERVAL_MS, 366 * 86_400_000).default(86_400_000),
    jitter: duration(0, MAX_JITTER_MS).default(0),
    /** Attempts to start a fire's run again after a failure to start it (planner down, …). */
    max_retries: z.number().int().min(0).max(10).default(2),
    /** The run fails when it has not finished after this long. */
    timeout_seconds: z.number().int().min(1).max(7 * 86_400).default(300),
    paused: z.boolean().default(false),
  })
  .strict()
  .superRefine((def, ctx) => {
    if ((def.spec === undefined) === (def.monitor === undefined)) ctx.addIssue({ code: 'custom', path: ['spec'], message: 'exactly one of spec (a schedule) or monitor (a monitor) is required' });
    if ('agent_profile_id' in def.target) {
      if (!def.query_template.trim()) ctx.addIssue({ code: 'custom', path: ['query_template'], message: 'is required when the target is an agent profile: it is the query the agent answers at each fire' });
      if (def.monitor) ctx.addIssue({ code: 'custom', path: ['target', 'agent_profile_id'], message: "a monitor runs a playbook with a detection step, not an agent profile: target {playbook_id} or {plan}" });
    }
  })
  .transform((def) => ({ ...def, approval_policy: def.approval_policy ?? (def.monitor ? ('auto_approve' as const) : ('require' as const)) }));

export type ScheduleDefinition = z.output<typeof ScheduleDefinitionSchema>;
export type ScheduleDefinitionInput = z.input<typeof ScheduleDefinitionSchema>;

export interface DefinitionViolation {
  field: string;
  reason: string;
}

/** Parse a definition; violations carry the dotted field path (`spec.cron`, `overlap_policy`). */
export function parseScheduleDefinition(raw: unknown): { definition: ScheduleDefinition } | { violations: DefinitionViolation[] } {
  const parsed = ScheduleDefinitionSchema.safeParse(raw);
  if (parsed.success) return { definition: parsed.data };
  return { violations: parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(definition)', reason: i.message })) };
}

/** The timing of a parsed definition; `createdAt` anchors intervals without start_at. */
export function toTiming(def: ScheduleDefinition, createdAt: Date): Timing {
  if (def.monitor) return { kind: 'interval', everyMs: def.monitor.interval, anchor: createdAt };
  const spec = def.spec!;
  if (spec.cron !== undefined) return { kind: 'cron', cron: parseCron(spec.cron, spec.timezone) };
  if (spec.interval !== undefined) return { kind: 'interval', everyMs: spec.interval, anchor: spec.start_at ? new Date(spec.start_at) : createdAt };
  return { kind: 'once', at: new Date(spec.at!) };
}

/** The zone `{date}` and `{last_run_date}` are written in: the cron's, a monitor's active hours', else UTC. */
export function timeZoneOf(def: ScheduleDefinition): string {
  return def.spec?.timezone ?? def.monitor?.active_hours?.timezone ?? 'UTC';
}

/** Runs of a monitor have run_context `monitor`, of a schedule `scheduled`. */
export function runContextOf(def: ScheduleDefinition): 'monitor' | 'scheduled' {
  return def.monitor ? 'monitor' : 'scheduled';
}

export type { OverlapPolicy };
