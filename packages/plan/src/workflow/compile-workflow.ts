/**
 * `workflow_steps` JSON → PlanGraph (seed workflow-orchestrator-design.md).
 *
 * - action → `tool` (params are wired values, so they become node inputs;
 *   the plugin is a param); llm_decision → `llm` with output
 *   `{decision, reasoning}`; transform → `transform` (action = operation);
 *   delay → `delay`; conditional → `transform` action `evaluate_condition`
 *   whose output is `{result}`; loop → `map` whose body runs loopSteps in
 *   order per item; parallel_group → its steps become sibling nodes.
 * - dependsOn = declared `dependencies` ∪ steps the step reads (the seed's
 *   own example reads steps it does not declare).
 * - executeIf / conditions are stored as JSON-Logic (conditionDialect
 *   `jsonlogic`); `stepX.data…` paths are rewritten to `stepX…`.
 * - retryPolicy, fallbackSteps (nodes with `fallbackFor`), continueOnError,
 *   rollbackAction / rollbackOnError and cacheKey / cacheTTL map to the
 *   node's error and cache policies.
 */
import { ExprError, extractReferences } from '@af/expr';
import { validateParsedPlan } from '../graph/validate-plan.js';
import { PlanGraphSchema, type PlanGraph, type PlanNode } from '../ir.js';
import type { PlanIssue, StepIssue, StepValidationResult } from '../issues/plan-issue.js';
import { zodIssuesToPlanIssues } from '../issues/zod-issues.js';
import type { CompileResult } from '../playbook/compile-playbook.js';
import { WorkflowStepSchema, type WorkflowStepInput } from './workflow.schema.js';
import { WorkflowLevel, type WorkflowContext } from './workflow-level.js';
import { workflowSizeIssue } from '../limits/plan-size.js';
import { storedWorkflowOutput, WorkflowOutputSchema, type WorkflowOutput } from './workflow-output.js';
import { z } from 'zod';

export interface CompileWorkflowOptions {
  /** Plan id / name (default: the agent row's id / agent_name when given). */
  id?: string;
  name?: string;
  /** Most steps (nested steps included) the workflow may have (default: the configured PLAN_MAX_NODES). */
  maxNodes?: number;
}

const AgentRowSchema = z.looseObject({
  id: z.string().optional(),
  agent_name: z.string().optional(),
  workflow_steps: z.array(WorkflowStepSchema).min(1, 'a workflow needs at least one step'),
  output_schema: WorkflowOutputSchema.optional(),
});

/** Compiles a `workflow_steps` array (or an agent row holding one). Never throws for bad input. */
export function compileWorkflowSteps(json: unknown, opts: CompileWorkflowOptions = {}): CompileResult {
  const tooMany = workflowSizeIssue(json, opts.maxNodes);
  if (tooMany) return fail([tooMany]);
  let steps: WorkflowStepInput[];
  let base: string;
  let row: z.infer<typeof AgentRowSchema> | undefined;
  if (Array.isArray(json)) {
    const parsed = z.array(WorkflowStepSchema).min(1, 'a workflow needs at least one step').safeParse(json);
    if (!parsed.success) return fail(zodIssuesToPlanIssues(parsed.error));
    steps = parsed.data;
    base = '';
  } else {
    const parsed = AgentRowSchema.safeParse(json);
    if (!parsed.success) return fail(zodIssuesToPlanIssues(parsed.error));
    row = parsed.data;
    steps = row.workflow_steps;
    base = 'workflow_steps';
  }

  const ctx: WorkflowContext = { records: [], inputs: new Set() };
  const records = ctx.records;
  const level = new WorkflowLevel(steps, base, ctx, new Set(), null);
  let nodes: PlanNode[];
  try {
    nodes = level.compile();
  } catch (e) {
    if (e instanceof ExprError) return fail([{ code: 'invalid_condition', field: base, message: e.message }]);
    throw e;
  }
  const results: StepValidationResult[] = records.map((r) => ({ step: r.id, source: r.source, valid: r.errors.length === 0, errors: r.errors, warnings: r.warnings }));
  const errors: PlanIssue[] = [];
  for (const r of results) for (const e of r.errors) errors.push(toPlanIssue(r, e));
  if (row?.output_schema !== undefined) errors.push(...outputSourceIssues(row.output_schema, nodes));
  if (errors.length > 0) return { ok: false, errors, results, warnings: [] };

  const plan: PlanGraph = PlanGraphSchema.parse({
    ...(opts.id ?? row?.id ? { id: opts.id ?? row?.id } : {}),
    ...(opts.name ?? row?.agent_name ? { name: opts.name ?? row?.agent_name } : {}),
    provenance: { frontEnd: 'workflow_steps', ...(row?.id ? { sourceId: row.id } : {}) },
    executionMode: nodes.some((n) => n.kind === 'llm') ? 'hybrid' : 'deterministic',
    runContext: 'background',
    // The seed's workflows have no approval steps and never pause for one.
    approvalPolicy: 'auto_approve',
    inputs: [...ctx.inputs].map((name) => ({ name, type: 'string', required: false })),
    nodes,
    metadata: row?.output_schema !== undefined ? { output_schema: storedWorkflowOutput(row.output_schema, new Set(nodes.map((n) => n.id))) } : {},
  });
  const structural = validateParsedPlan(plan);
  if (structural.length > 0) {
    const sources = new Map<string, string>();
    const walk = (list: PlanNode[], prefix: string): void =>
      list.forEach((n, i) => {
        sources.set(`${prefix}[${i}]`, n.source ?? `${prefix}[${i}]`);
        if (n.body) walk(n.body.nodes, `${prefix}[${i}].body.nodes`);
      });
    walk(plan.nodes, 'nodes');
    const mapped = structural.map((i) => {
      const m = /^(nodes(?:\[\d+\]\.body\.nodes)*\[\d+\])(.*)$/.exec(i.field);
      if (!m) return i;
      return { ...i, field: `${sources.get(m[1]!) ?? m[1]}${m[2]!.replace(/^\.dependsOn/, '.dependencies')}` };
    });
    return { ok: false, errors: mapped, results, warnings: [] };
  }
  return { ok: true, plan, results, warnings: [] };
}

/** An output field's `source` must read a step of the workflow (`output_schema[i].source`). */
function outputSourceIssues(output: WorkflowOutput, nodes: readonly PlanNode[]): PlanIssue[] {
  if (!Array.isArray(output)) return [];
  const ids = new Set(nodes.map((n) => n.id));
  const issues: PlanIssue[] = [];
  output.forEach((f, i) => {
    if (!f.source) return;
    const field = `output_schema[${i}].source`;
    let roots: string[];
    try {
      roots = extractReferences(f.source.includes('{') ? f.source : `{${f.source}}`).map((r) => r.root);
    } catch (e) {
      issues.push({ code: 'invalid_reference', field, message: `${field}: ${(e as Error).message}` });
      return;
    }
    for (const root of roots) {
      if (!ids.has(root)) issues.push({ code: 'nonexistent_step', field, message: `${field}: '${f.source}' names no step '${root}'` });
    }
  });
  return issues;
}

function fail(errors: PlanIssue[]): CompileResult {
  return { ok: false, errors, results: [], warnings: [] };
}

function toPlanIssue(r: StepValidationResult, e: StepIssue): PlanIssue {
  const issue: PlanIssue = { code: e.code, message: `${r.step}: ${e.message}`, field: e.field ? (r.source ? `${r.source}.${e.field}` : e.field) : r.source, step: r.step };
  if (e.suggestedFix !== undefined) issue.suggestedFix = e.suggestedFix;
  return issue;
}
