/**
 * A request to create, checked at the boundary: every problem names its field.
 * Kind-specific rules: a human task needs an output schema that compiles; a
 * tool HITL request names its tools; auto-approval only applies to the kinds
 * decided with approve / reject.
 */
import { compileOutputSchema, type JsonSchema } from '@af/llm';
import { AppError, type FieldViolation } from '@af/service-kit';
import { defaultTimeoutSeconds, DECISION_KINDS, REQUEST_KINDS, RUN_CONTEXTS, type RequestKind, type RunContext } from './request.js';

export const MAX_PROMPT_CHARS = 10_000;
export const MAX_DETAILS_BYTES = 256 * 1024;
/** Thirty days: longer waits belong to a schedule, not a pending request. */
export const MAX_TIMEOUT_SECONDS = 30 * 24 * 3600;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CreateCommand {
  ownerUserId: string;
  kind: string;
  runId: string;
  nodeId: string;
  runContext: string;
  operatorPrompt: string;
  details: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  capabilityId: string;
  teamIds: string[];
  allowTeamDecisions: boolean;
  assigneeUserIds: string[];
  /** 0: the default for the kind. */
  timeoutSeconds: number;
  autoApprove: boolean;
  idempotencyKey: string;
}

export interface NewRequest {
  kind: RequestKind;
  ownerUserId: string;
  runId: string | null;
  nodeId: string | null;
  runContext: RunContext;
  operatorPrompt: string;
  details: Record<string, unknown>;
  outputSchema: Record<string, unknown> | null;
  capabilityId: string | null;
  teamIds: string[];
  allowTeamDecisions: boolean;
  assigneeUserIds: string[];
  timeoutSeconds: number | null;
  /** Background, scheduled and monitor runs: the request goes to the owner's queue with a notification. */
  notify: boolean;
  autoApprove: boolean;
  idempotencyKey: string | null;
}

export interface TimeoutDefaults {
  toolHitlSeconds: number;
  humanTaskSeconds: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks a create command; throws INVALID_ARGUMENT listing every bad field. */
export function parseNewRequest(cmd: CreateCommand, defaults: TimeoutDefaults): NewRequest {
  if (!cmd.ownerUserId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
  const v: FieldViolation[] = [];
  const kind = cmd.kind as RequestKind;
  if (!(REQUEST_KINDS as readonly string[]).includes(cmd.kind)) v.push({ field: 'kind', reason: `must be one of ${REQUEST_KINDS.join(', ')}` });
  const runContext = (cmd.runContext || 'interactive') as RunContext;
  if (!(RUN_CONTEXTS as readonly string[]).includes(runContext)) v.push({ field: 'run_context', reason: `must be one of ${RUN_CONTEXTS.join(', ')}` });
  if (cmd.runId && !UUID.test(cmd.runId)) v.push({ field: 'run_id', reason: 'must be a run id (UUID)' });
  if (cmd.nodeId.length > 500) v.push({ field: 'node_id', reason: 'is longer than 500 characters' });
  if (!cmd.operatorPrompt.trim()) v.push({ field: 'operator_prompt', reason: 'is required: what to ask the person' });
  else if (cmd.operatorPrompt.length > MAX_PROMPT_CHARS) v.push({ field: 'operator_prompt', reason: `is longer than ${MAX_PROMPT_CHARS} characters` });
  if (!isObject(cmd.details)) v.push({ field: 'details', reason: 'must be an object' });
  else if (Buffer.byteLength(JSON.stringify(cmd.details)) > MAX_DETAILS_BYTES) v.push({ field: 'details', reason: `is larger than ${MAX_DETAILS_BYTES} bytes as JSON` });
  const seconds = cmd.timeoutSeconds;
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_TIMEOUT_SECONDS) v.push({ field: 'timeout_seconds', reason: `must be between 0 (the default) and ${MAX_TIMEOUT_SECONDS}` });
  if (cmd.idempotencyKey.length > 500) v.push({ field: 'idempotency_key', reason: 'is longer than 500 characters' });
  for (const [field, list] of [
    ['team_ids', cmd.teamIds],
    ['assignee_user_ids', cmd.assigneeUserIds],
  ] as const) {
    if (list.length > 100) v.push({ field, reason: 'has more than 100 entries' });
    list.forEach((x, i) => !x && v.push({ field: `${field}[${i}]`, reason: 'must not be empty' }));
  }
  if (cmd.allowTeamDecisions && cmd.teamIds.length === 0) v.push({ field: 'team_ids', reason: 'are required when allow_team_decisions is set' });
  if (cmd.autoApprove && !DECISION_KINDS.has(kind)) v.push({ field: 'auto_approve', reason: `applies to approval_gate, tool_hitl and policy_hitl requests, not ${cmd.kind}` });
  if (kind === 'human_task') {
    if (!cmd.outputSchema) v.push({ field: 'output_schema', reason: 'is required for a human task: the JSON Schema its output must satisfy' });
    else {
      try {
        compileOutputSchema(cmd.outputSchema as JsonSchema);
      } catch (err) {
        v.push({ field: 'output_schema', reason: (err as Error).message });
      }
    }
  } else if (cmd.outputSchema) {
    v.push({ field: 'output_schema', reason: 'only applies to human_task requests' });
  }
  if (kind === 'tool_hitl' && isObject(cmd.details)) {
    const tools = cmd.details.tool_names;
    if (tools !== undefined && (!Array.isArray(tools) || tools.some((t) => typeof t !== 'string' || !t))) {
      v.push({ field: 'details.tool_names', reason: 'must be a list of tool names' });
    }
    const task = cmd.details.task_description;
    if (task !== undefined && typeof task !== 'string') v.push({ field: 'details.task_description', reason: 'must be text' });
  }
  if (v.length) throw new AppError('INVALID_ARGUMENT', v.map((x) => `${x.field}: ${x.reason}`).join('; '), { violations: v });
  return {
    kind,
    ownerUserId: cmd.ownerUserId,
    runId: cmd.runId || null,
    nodeId: cmd.nodeId || null,
    runContext,
    operatorPrompt: cmd.operatorPrompt,
    details: cmd.details,
    outputSchema: cmd.outputSchema,
    capabilityId: cmd.capabilityId || null,
    teamIds: [...new Set(cmd.teamIds)],
    allowTeamDecisions: cmd.allowTeamDecisions,
    assigneeUserIds: [...new Set(cmd.assigneeUserIds)],
    timeoutSeconds: seconds > 0 ? seconds : defaultTimeoutSeconds(kind, defaults),
    notify: runContext !== 'interactive',
    autoApprove: cmd.autoApprove,
    idempotencyKey: cmd.idempotencyKey || null,
  };
}
