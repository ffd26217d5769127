/**
 * Bodies and queries of the approval routes: parsed here, documented in
 * /api/docs from the same schemas. The /api/v1/flex ones are strict: an
 * unknown key is a 400 naming it, with the key that was probably meant.
 */
import { z } from 'zod';

export const REQUEST_KIND_NAMES = ['approval_gate', 'tool_hitl', 'policy_hitl', 'human_task', 'clarify'] as const;
export const REQUEST_STATUS_NAMES = ['pending', 'approved', 'rejected', 'timed_out', 'expired', 'declined', 'submitted', 'answered'] as const;
export const DECLINE_REASON_CODES = ['not_qualified', 'insufficient_information', 'out_of_scope', 'conflict_of_interest', 'unavailable', 'other'] as const;

/** `a,b` lists; `all` = no filter. */
const list = <T extends readonly [string, ...string[]]>(values: T, fallback: readonly string[]) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? [...fallback] : v === 'all' ? [] : v.split(',').map((x) => x.trim())))
    .pipe(z.array(z.enum(values)));

const paging = {
  page_size: z.coerce.number().int().min(1).max(200).optional(),
  page_token: z.string().max(500).optional(),
};

export const ListApprovalsQuery = z.object({
  /** Default: everything but human tasks (those are /api/v1/flex/tasks). */
  kind: list(REQUEST_KIND_NAMES, ['approval_gate', 'tool_hitl', 'policy_hitl', 'clarify']),
  status: list(REQUEST_STATUS_NAMES, ['pending']),
  run_id: z.string().uuid('must be a run id').optional(),
  ...paging,
});

export const ListTasksQuery = z.strictObject({
  capabilityId: z.string().min(1).max(200).optional(),
  status: list(REQUEST_STATUS_NAMES, ['pending']),
  runId: z.string().uuid('must be a run id').optional(),
  ...paging,
});

export const ApproveSchema = z.object({ instructions: z.string().max(10_000).optional() });
/** `instructions` is the deprecated name of `reason` here (moved by `deprecatedField` before parsing). */
export const RejectSchema = z.object({ reason: z.string().max(10_000).optional() });

export const DeclineTaskSchema = z.strictObject({
  reasonCode: z.enum(DECLINE_REASON_CODES),
  reason: z.string().max(10_000).optional(),
});

/** Seed spellings of a decision (flex SPA and multi-agent-rag `/hitl/respond`). */
const decision = z.enum(['approve', 'approved', 'reject', 'rejected', 'deny', 'denied']).transform((d) => (d.startsWith('approve') ? ('approve' as const) : ('reject' as const)));

export const HitlResolveSchema = z
  .strictObject({
    requestId: z.string().min(1),
    decision: decision.optional(),
    instructions: z.string().max(10_000).optional(),
    /** Why, with decision reject: stored and returned as the resolution's `reason`. */
    reason: z.string().max(10_000).optional(),
    /** Clarify requests are resolved with an answer instead. */
    answer: z.string().max(10_000).optional(),
  })
  .refine((b) => (b.decision === undefined) !== (b.answer === undefined), { message: 'give exactly one of decision or answer', path: ['decision'] })
  .refine((b) => b.reason === undefined || b.decision === 'reject', { message: 'is only for decision reject', path: ['reason'] });

export const RunResumeSchema = z.strictObject({
  runId: z.string().uuid('must be a run id'),
  /** Which pending request (a human task's taskId is its request id); default: the run's only pending one. */
  requestId: z.string().min(1).optional(),
  taskId: z.string().min(1).optional(),
  nodeId: z.string().min(1).optional(),
  /** When given, must be the run's current plan version (409 otherwise). */
  expectedPlanVersion: z.number().int().positive().optional(),
  /** human_task: the structured output (validated against the task's output schema). */
  output: z.unknown().optional(),
  /** clarify: the answer. */
  answer: z.string().max(10_000).optional(),
  /** approvals: approve | reject. */
  decision: decision.optional(),
  instructions: z.string().max(10_000).optional(),
  /** Why, with decision reject: stored and returned as the resolution's `reason`. */
  reason: z.string().max(10_000).optional(),
}).refine((b) => b.reason === undefined || b.decision === 'reject', { message: 'is only for decision reject', path: ['reason'] });

export const HitlRespondSchema = z.object({
  request_id: z.string().min(1),
  decision: z.enum(['approved', 'denied']),
  instructions: z.string().max(10_000).optional(),
});
