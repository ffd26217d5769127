import { Init1763800000000 } from './1763800000000-init.js';
import { Waiting1763900000000 } from './1763900000000-waiting.js';
import { NodeCache1764000000000 } from './1764000000000-node-cache.js';
import { SubflowRollback1764100000000 } from './1764100000000-subflow-rollback.js';
import { PoliciesReplan1764300000000 } from './1764300000000-policies-replan.js';
import { ApprovalRequests1764450000000 } from './1764450000000-approval-requests.js';
import { RunTeamIds1765000000000 } from './1765000000000-run-team-ids.js';
import { LastExecution1765100000000 } from './1765100000000-last-execution.js';
import { TaskOutcome1765200000000 } from './1765200000000-task-outcome.js';
import { ActiveTime1765300000000 } from './1765300000000-active-time.js';
import { Schedules1766000000000 } from './1766000000000-schedules.js';
import { MonitorWatermarks1766100000000 } from './1766100000000-monitor-watermarks.js';
import { AgentRuns1766250000000 } from './1766250000000-agent-runs.js';
import { SchedulesDueKeyset1766300000000 } from './1766300000000-schedules-due-keyset.js';

/** Every orchestrator migration, oldest first. */
export const ORCHESTRATOR_MIGRATIONS = [Init1763800000000, Waiting1763900000000, NodeCache1764000000000, SubflowRollback1764100000000, PoliciesReplan1764300000000, ApprovalRequests1764450000000, RunTeamIds1765000000000, LastExecution1765100000000, TaskOutcome1765200000000, ActiveTime1765300000000, Schedules1766000000000, MonitorWatermarks1766100000000, AgentRuns1766250000000, SchedulesDueKeyset1766300000000];
