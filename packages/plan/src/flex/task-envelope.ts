/**
 * TaskEnvelope and OutputContract (flex spec §5.1, §5.2, §5.9.1, §10.0.1):
 * the canonical request — objective, inputs, constraints, output contract
 * (JSON Schema + constraints), policies, goal conditions, special
 * instructions. Parsed at the boundary: every problem names its field path
 * (`outputContract.constraints[1].expr`), and every condition is compiled.
 */
import { z } from 'zod';
import type { PlanIssue } from '../issues/plan-issue.js';
import { normalizeConditionEnvelope, type ConditionEnvelope } from './condition-envelope.js';
import { schemaProblem, type JsonSchema } from './json-schema.js';
import { normalizeTaskPolicies, type NormalizedTaskPolicies, type PolicyNote } from './policies.js';
import { issuesOf } from './zod-keys.js';

export const CONSTRAINT_LEVELS = ['hard', 'soft', 'informational'] as const;
export type ConstraintLevel = (typeof CONSTRAINT_LEVELS)[number];

const ConstraintSpecSchema = z.strictObject({
  constraintId: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/, 'must be an identifier').optional(),
  /** Human-readable statement of the constraint (shown in diagnostics). */
  constraint: z.string().max(2000).optional(),
  /** JSON-Logic over the output (or DSL text / a {dsl, jsonLogic} envelope). */
  expr: z.unknown(),
  level: z.enum(CONSTRAINT_LEVELS),
  rationale: z.string().max(2000).optional(),
  /** A capability that must be in the plan to enforce the constraint (e.g. a QA review). */
  enforcer: z.string().min(1).max(200).optional(),
});

const OutputContractSchema = z.strictObject({
  mode: z.enum(['json_schema', 'freeform']).default('json_schema'),
  schema: z.record(z.string(), z.unknown()),
  hints: z.record(z.string(), z.unknown()).optional(),
  constraints: z.array(ConstraintSpecSchema).max(100).default([]),
});

const FacetConditionSchema = z.strictObject({
  facet: z.string().min(1).max(200),
  /** JSON-pointer-style path inside the facet (`/variants[0]`); empty = the facet itself. */
  path: z.string().max(500).default(''),
  condition: z.unknown(),
});

export const TaskEnvelopeSchema = z.strictObject({
  objective: z.string().trim().min(1, 'must not be empty').max(8000),
  inputs: z.record(z.string(), z.unknown()).default({}),
  constraints: z
    .looseObject({
      /** Resume a paused/finished run instead of planning anew (§10.0.1). */
      resumeRunId: z.string().min(1).max(200).optional(),
      /** Capability instance scope to prefer (`en`, `writer.fr`). */
      scope: z.string().min(1).max(100).optional(),
    })
    .default({}),
  outputContract: OutputContractSchema,
  policies: z.unknown().optional(),
  goal_condition: z.array(FacetConditionSchema).max(50).default([]),
  specialInstructions: z.array(z.string().trim().min(1).max(2000)).max(50).default([]),
  threadId: z.string().min(1).max(200).optional(),
  /** Caller metadata (correlation ids, persona, UI hints); passed through, never interpreted. */
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export interface ConstraintSpec {
  constraintId: string;
  constraint: string;
  expr: ConditionEnvelope;
  level: ConstraintLevel;
  rationale?: string;
  enforcer?: string;
}

export interface FacetCondition {
  facet: string;
  path: string;
  condition: ConditionEnvelope;
}

export interface OutputContract {
  mode: 'json_schema' | 'freeform';
  schema: JsonSchema;
  hints?: Record<string, unknown>;
  constraints: ConstraintSpec[];
}

/** A parsed, normalised envelope. */
export interface TaskEnvelope {
  objective: string;
  inputs: Record<string, unknown>;
  constraints: Record<string, unknown> & { resumeRunId?: string; scope?: string };
  outputContract: OutputContract;
  policies: NormalizedTaskPolicies;
  goalConditions: FacetCondition[];
  specialInstructions: string[];
  threadId?: string;
  metadata?: Record<string, unknown>;
}

export type EnvelopeParse = { ok: true; envelope: TaskEnvelope; notes: PolicyNote[] } | { ok: false; issues: PlanIssue[] };

const MAX_INPUT_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/** Parses and normalises a TaskEnvelope. Never throws for bad input. */
export function parseTaskEnvelope(raw: unknown): EnvelopeParse {
  const parsed = TaskEnvelopeSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, issues: issuesOf(TaskEnvelopeSchema, parsed.error, '') };
  const e = parsed.data;
  const issues: PlanIssue[] = [];

  for (const key of Object.keys(e.inputs)) {
    if (!MAX_INPUT_KEY.test(key)) issues.push({ code: 'invalid_field', field: `inputs.${key}`, message: `inputs.${key}: input names must be identifiers (letters, digits, _)` });
  }
  const problem = schemaProblem(e.outputContract.schema);
  if (problem) issues.push({ code: 'invalid_schema', field: 'outputContract.schema', message: `outputContract.schema: ${problem}` });

  const constraints: ConstraintSpec[] = [];
  const ids = new Set<string>();
  e.outputContract.constraints.forEach((c, i) => {
    const field = `outputContract.constraints[${i}]`;
    if (c.expr === undefined) return issues.push({ code: 'invalid_field', field: `${field}.expr`, message: `${field}.expr: is required` });
    const expr = normalizeConditionEnvelope(c.expr, `${field}.expr`);
    if (!expr.ok) return issues.push(...expr.issues);
    const constraintId = c.constraintId ?? `constraint_${i + 1}`;
    if (ids.has(constraintId)) return issues.push({ code: 'duplicate_id', field: `${field}.constraintId`, message: `${field}.constraintId: '${constraintId}' is used twice` });
    ids.add(constraintId);
    constraints.push({
      constraintId,
      constraint: c.constraint ?? expr.condition.canonicalDsl ?? JSON.stringify(expr.condition.jsonLogic),
      expr: expr.condition,
      level: c.level,
      ...(c.rationale !== undefined ? { rationale: c.rationale } : {}),
      ...(c.enforcer !== undefined ? { enforcer: c.enforcer } : {}),
    });
  });

  const goalConditions: FacetCondition[] = [];
  e.goal_condition.forEach((g, i) => {
    const field = `goal_condition[${i}]`;
    if (g.condition === undefined) return issues.push({ code: 'invalid_field', field: `${field}.condition`, message: `${field}.condition: is required` });
    const c = normalizeConditionEnvelope(g.condition, `${field}.condition`);
    if (!c.ok) return issues.push(...c.issues);
    goalConditions.push({ facet: g.facet, path: g.path, condition: c.condition });
  });

  const policies = normalizeTaskPolicies(e.policies, 'policies');
  if (!policies.ok) issues.push(...policies.issues);
  if (issues.length || !policies.ok) return { ok: false, issues };

  const envelope: TaskEnvelope = {
    objective: e.objective,
    inputs: e.inputs,
    constraints: e.constraints,
    outputContract: { mode: e.outputContract.mode, schema: e.outputContract.schema, constraints, ...(e.outputContract.hints ? { hints: e.outputContract.hints } : {}) },
    policies: policies.policies,
    goalConditions,
    specialInstructions: e.specialInstructions,
    ...(e.threadId ? { threadId: e.threadId } : {}),
    ...(e.metadata ? { metadata: e.metadata } : {}),
  };
  return { ok: true, envelope, notes: policies.notes };
}
