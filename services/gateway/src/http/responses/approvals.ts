/** Answers of the approval queue (/api/agent-factory/approvals, /hitl/respond) and the flex human-task routes. */
import { z } from 'zod';
import { REQUEST_KIND_NAMES, REQUEST_STATUS_NAMES } from '../approval.schemas.js';
import { component, JsonObject, nullableTimestamp, timestamp } from './common.js';

const kind = z.enum([...REQUEST_KIND_NAMES, 'unspecified']);
const status = z.enum([...REQUEST_STATUS_NAMES, 'unspecified']);

export const Approval = component(
  'Approval',
  z.strictObject({
    id: z.string(),
    kind,
    status,
    run_id: z.string().nullable(),
    execution_id: z.string().nullable(),
    node_id: z.string().nullable(),
    step_name: z.string().nullable(),
    run_context: z.string(),
    prompt: z.string(),
    preview_data: z.unknown().meta({ description: 'details.preview, or null' }),
    details: JsonObject,
    capability_id: z.string().nullable(),
    output_schema: JsonObject.nullable(),
    timeout_at: nullableTimestamp,
    notify: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
    responded_at: nullableTimestamp,
    decided_by: z.string().nullable(),
    decided_at: nullableTimestamp,
    decision: z.string().nullable(),
    instructions: z.string().nullable().meta({ description: 'Deprecated for a reject (it repeats `reason`)' }),
    intent: z.string().nullable(),
    effective_task: z.string().nullable(),
    output: z.unknown(),
    answer: z.string().nullable(),
    reason_code: z.string().nullable(),
    reason: z.string().nullable(),
    automatic: z.boolean(),
  }),
  { description: 'A request for a person: approval, clarification or human task, with its resolution' },
);

export const FlexRequest = component(
  'FlexRequest',
  z.strictObject({
    requestId: z.string(),
    taskId: z.string().optional().meta({ description: 'Human tasks: the same id' }),
    kind,
    status,
    runId: z.string().nullable(),
    pendingNodeId: z.string().nullable(),
    capabilityId: z.string().nullable(),
    operatorPrompt: z.string(),
    contractSummary: z.unknown(),
    outputSchema: JsonObject.nullable(),
    dueAt: nullableTimestamp,
    createdAt: timestamp,
    updatedAt: timestamp,
    resolution: z.strictObject({
      decidedBy: z.string(),
      decidedAt: z.string(),
      decision: z.string().optional(),
      instructions: z.string().optional(),
      output: z.unknown().optional(),
      answer: z.string().optional(),
      reasonCode: z.string().optional(),
      reason: z.string().optional(),
    }).nullable(),
  }),
  { description: 'A request for a person in the flex API\'s names (camelCase)' },
);

export const ApprovalAnswer = z.strictObject({ approval: Approval });
export const ApprovalList = z.strictObject({ approvals: z.array(Approval), next_page_token: z.string().nullable() });
export const TaskList = z.strictObject({ tasks: z.array(FlexRequest), nextPageToken: z.string().nullable() });
export const TaskAnswer = z.strictObject({ task: FlexRequest });
export const FlexRequestAnswer = z.strictObject({ request: FlexRequest });
export const RunResumeAnswer = z.strictObject({ runId: z.string(), request: FlexRequest });
export const HitlRespondAnswer = z.strictObject({ status: z.literal('ok'), request_id: z.string(), decision: z.enum(['approved', 'denied']), approval: Approval });
