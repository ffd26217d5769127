/** `monitor_config` of a playbook or monitor (interval, active hours, suppress_if_empty), parsed with zod; errors name the field. */
import { z } from 'zod';
import { isTimeZone } from '../schedules/cron-spec.js';
import { parseDuration } from '../schedules/interval.js';
import { parseHhmm } from './active-hours.js';

/** The detection actions a monitor's playbook must use at least one of. */
export const DETECTION_ACTIONS = ['detect_new_data', 'detect_new_files', 'detect_folder_changes', 'detect_new_entities', 'detect_new_team_posts'] as const;

/** Whether any of a playbook's step actions is a detection action. */
export function hasDetectionStep(actions: ReadonlyArray<string | undefined>): boolean {
  return actions.some((a) => a !== undefined && (DETECTION_ACTIONS as readonly string[]).includes(a));
}

const hhmm = z.string().refine((s) => parseHhmm(s) !== null, 'must be HH:MM (24 h), e.g. 08:00');

export const MonitorConfigSchema = z
  .object({
    interval: z.union([z.string(), z.number()]).transform((v, ctx) => {
      const d = parseDuration(v);
      if ('error' in d) {
        ctx.addIssue({ code: 'custom', message: d.error });
        return z.NEVER;
      }
      if (d.ms < 60_000) {
        ctx.addIssue({ code: 'custom', message: 'must be at least 1m' });
        return z.NEVER;
      }
      return d.ms;
    }),
    active_hours: z
      .object({ start: hhmm, end: hhmm, timezone: z.string().refine(isTimeZone, 'unknown time zone: use an IANA name such as Europe/Berlin') })
      .strict()
      .optional(),
    suppress_if_empty: z.boolean().default(true),
  })
  .strict();

export type MonitorConfig = z.output<typeof MonitorConfigSchema>;

/**
 * Parse a monitor: its config, and the actions of its playbook's steps — a
 * monitor without a detection step could never find anything new.
 */
export function parseMonitor(raw: unknown, stepActions: ReadonlyArray<{ step: string; action: string | undefined }>): { config: MonitorConfig } | { violations: Array<{ field: string; reason: string }> } {
  const parsed = MonitorConfigSchema.safeParse(raw);
  const violations = parsed.success ? [] : parsed.error.issues.map((i) => ({ field: ['monitor_config', ...i.path.map(String)].join('.'), reason: i.message }));
  if (!hasDetectionStep(stepActions.map((s) => s.action))) {
    violations.push({ field: 'steps', reason: `a monitor needs at least one detection step (${DETECTION_ACTIONS.join(', ')})` });
  }
  return violations.length || !parsed.success ? { violations } : { config: parsed.data };
}
