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
import { DETECTION_ACTIONS, hasDetectionStep } from '../domain/monitors/monitor-config.js';
import { monitorMetadata } from '../domain/monitors/monitor-run.js';
import { renderQueryTemplate } from '../domain/schedules/query-template.js';
import { runContextOf, timeZoneOf } from '../domain/schedules/schedule-definition.js';
import type { PlaybookPlanLoader } from '../infra/planner.client.js';
import type { AgentProfiles } from '../infra/agent-profiles.client.js';
import type { FireRuns } from './schedule-dispatcher.js';
import type { RunCommands } from './run-commands.js';

export function scheduleFireRuns(runs: RunCommands, loadPlaybook: PlaybookPlanLoader, agents?: AgentProfiles): FireRuns {
  return {
    async prepare(schedule, fire) {
      const def = schedule.definition;
      const target = def.target;
      const policies = [
        {
          id: 'schedule_timeout',
          trigger: { kind: 'onTimeout', ms: def.timeout_seconds * 1000 },
          action: { type: 'fail', message: `schedule timeout: the run did not finish within ${def.timeout_seconds}s` },
        },
      ];
      const query = def.query_template ? renderQueryTemplate(def.query_template, { fireAt: fire.fireAt, lastRunAt: schedule.lastRunAt, createdAt: schedule.createdAt, timeZone: timeZoneOf(def) }) : '';
      if ('agent_profile_id' in target) {
        // The agent answers the rendered query as it answers a chat message: the planner picks the strategy and builds the plan, and logs the run under the fire's run id.
        if (!agents) throw new AppError('FAILED_PRECONDITION', 'agent profiles cannot be run: PLANNER_URL is not configured for the orchestrator', { retryable: false });
        const principal = { userId: schedule.userId, teamIds: schedule.teamIds };
        const agent = await agents.prepareRun(principal, { agentProfileId: target.agent_profile_id, query, inputs: target.inputs, runId: fire.runId, runContext: runContextOf(def) });
        const prepared = await runs.prepare({
          userId: schedule.userId,
          teamIds: schedule.teamIds,
          plan: { ...agent.plan, approvalPolicy: def.approval_policy },
          inputs: agent.inputs,
          runContext: runContextOf(def),
          idempotencyKey: fireIdempotencyKey(schedule.id, fire.fireAt),
          runId: fire.runId,
          policies,
          agent: { profileId: agent.agentProfileId, invokedBy: schedule.userId, teamId: agent.teamId },
        });
        return { ...prepared, id: fire.runId };
      }
      const source = 'plan' in target ? target.plan : await loadPlaybook(schedule.userId, target.playbook_id, target.playbook_revision);
      const plan: Record<string, unknown> = { ...(source as Record<string, unknown>), approvalPolicy: def.approval_policy };
      if (def.monitor) {
        // A monitor's cycle: its playbook must (still) have a detection step; the run carries which monitor and fire it is (domain/monitors/monitor-run.ts).
        const nodes = Array.isArray(plan.nodes) ? (plan.nodes as Array<{ action?: unknown }>) : [];
        if (!hasDetectionStep(nodes.map((n) => (typeof n.action === 'string' ? n.action : undefined)))) {
          throw new AppError('FAILED_PRECONDITION', `the monitor's playbook has no detection step (${DETECTION_ACTIONS.join(', ')})`, { retryable: false });
        }
        const metadata = (plan.metadata as Record<string, unknown> | undefined) ?? {};
        plan.metadata = { ...metadata, monitor: monitorMetadata({ monitorId: schedule.id, fireAt: fire.fireAt.toISOString(), suppressIfEmpty: def.monitor.suppress_if_empty }) };
      }
      const inputs: Record<string, unknown> = { ...target.inputs };
      if (def.query_template) inputs.query = query;
      const prepared = await runs.prepare({
        userId: schedule.userId,
        teamIds: schedule.teamIds,
        plan,
        inputs,
        runContext: runContextOf(def),
        idempotencyKey: fireIdempotencyKey(schedule.id, fire.fireAt),
        runId: fire.runId,
        policies,
      });
      return { ...prepared, id: fire.runId };
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
