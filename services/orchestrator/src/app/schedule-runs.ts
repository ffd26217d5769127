/**
 * How a fire starts its run: through RunCommands.start, the same path as a
 * run started by a user (plan parsing, action availability, input limits),
 * as a non-interactive `scheduled` run: approvals follow the schedule's
 * approval_policy (queued in the approval service, or auto-approved), and the
 * schedule's timeout becomes an onTimeout runtime policy that fails the run.
 * The run id and idempotency key come from (schedule, fire time), so a
 * dispatch retried after a crash finds the run instead of starting another.
 */
import { AppError } from '@af/service-kit';
import { fireIdempotencyKey } from '../domain/schedules/fire-run-id.js';
import { renderQueryTemplate } from '../domain/schedules/query-template.js';
import { runContextOf, timeZoneOf } from '../domain/schedules/schedule-definition.js';
import type { PlaybookPlanLoader } from '../infra/planner.client.js';
import type { FireRuns } from './schedule-dispatcher.js';
import type { RunCommands } from './run-commands.js';

export function scheduleFireRuns(runs: RunCommands, loadPlaybook: PlaybookPlanLoader): FireRuns {
  return {
    async start(schedule, fire) {
      const def = schedule.definition;
      const target = def.target;
      const source = 'plan' in target ? target.plan : await loadPlaybook(schedule.userId, target.playbook_id, target.playbook_revision);
      const plan = { ...(source as Record<string, unknown>), approvalPolicy: def.approval_policy };
      const inputs: Record<string, unknown> = { ...target.inputs };
      if (def.query_template) {
        inputs.query = renderQueryTemplate(def.query_template, { fireAt: fire.fireAt, lastRunAt: schedule.lastRunAt, createdAt: schedule.createdAt, timeZone: timeZoneOf(def) });
      }
      await runs.start({
        userId: schedule.userId,
        teamIds: schedule.teamIds,
        plan,
        inputs,
        runContext: runContextOf(def),
        idempotencyKey: fireIdempotencyKey(schedule.id, fire.fireAt),
        runId: fire.runId,
        policies: [
          {
            id: 'schedule_timeout',
            trigger: { kind: 'onTimeout', ms: def.timeout_seconds * 1000 },
            action: { type: 'fail', message: `schedule timeout: the run did not finish within ${def.timeout_seconds}s` },
          },
        ],
      });
    },
    async cancel(schedule, runId) {
      try {
        await runs.cancel(schedule.userId, runId);
      } catch (err) {
        // Ended meanwhile: nothing to cancel.
        if (!(err instanceof AppError && (err.code === 'FAILED_PRECONDITION' || err.code === 'NOT_FOUND'))) throw err;
      }
    },
  };
}
