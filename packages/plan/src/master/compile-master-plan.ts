/**
 * Master-agent execution plan → PlanGraph (seed multi-agent-rag.md: the
 * Master Agent's `execution_plan` of agent tasks with `depends_on`, run in
 * Kahn stages, then the Composer).
 *
 * Each agent becomes a `capability` node (capabilityId = agent_name) whose
 * inputs are its `AgentInput` fields, with `dependency_outputs` wired from
 * the agents it depends on. An agent with `requires_approval` (or HITL tool
 * names) is gated by an `approval` node; a denial or timeout skips the agent
 * (seed: `task_done=False`) instead of failing the run. A failed agent does
 * not stop the others (`onError: skip`, its partial data still reaches the
 * composer). By default a `composer` llm node waits for every agent.
 */
import { z } from 'zod';
import { validateParsedPlan } from '../graph/validate-plan.js';
import { PlanGraphSchema, type PlanNode } from '../ir.js';
import type { PlanIssue } from '../issues/plan-issue.js';
import { zodIssuesToPlanIssues } from '../issues/zod-issues.js';
import type { CompileResult } from '../playbook/compile-playbook.js';
import { masterPlanSizeIssue } from '../limits/plan-size.js';

const AgentTaskSchema = z.looseObject({
  agent_id: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'must start with a letter or _ and contain only letters, digits, _ . -'),
  agent_name: z.string().min(1),
  task: z.string().min(1),
  entities: z.record(z.string(), z.unknown()).default({}),
  tools: z.array(z.string().min(1)).default([]),
  depends_on: z.array(z.string().min(1)).default([]),
  requires_approval: z.boolean().default(false),
  /** Tools with requires_approval=True the agent may call (HITL). */
  hitl_tools: z.array(z.string().min(1)).default([]),
  retry_config: z
    .strictObject({
      max_retries: z.number().int().min(0).max(100).default(0),
      /** Seconds. */
      timeout: z.number().positive().optional(),
      backoff_multiplier: z.number().min(1).default(2),
    })
    .optional(),
  /** HITL approval timeout in seconds. */
  approval_timeout_seconds: z.number().int().positive().optional(),
});

const MasterPlanSchema = z.looseObject({
  query: z.string().optional(),
  analysis: z.looseObject({ intent: z.string().optional(), entities: z.record(z.string(), z.unknown()).optional() }).optional(),
  execution_plan: z.union([z.array(AgentTaskSchema), z.looseObject({ agents: z.array(AgentTaskSchema) })]),
});

export interface CompileMasterPlanOptions {
  /** Add the composer node that combines every agent's output (default true). */
  composer?: boolean;
  id?: string;
  /** Most agents the plan may have (default: the configured PLAN_MAX_NODES). */
  maxNodes?: number;
}

/** Compiles a master agent's plan (`{analysis, execution_plan}` or a bare agent list). Never throws for bad input. */
export function compileMasterPlan(json: unknown, opts: CompileMasterPlanOptions = {}): CompileResult {
  const input = Array.isArray(json) ? { execution_plan: json } : json;
  const tooMany = masterPlanSizeIssue(input, opts.maxNodes);
  if (tooMany) return fail([tooMany]);
  const parsed = MasterPlanSchema.safeParse(input);
  if (!parsed.success) return fail(zodIssuesToPlanIssues(parsed.error));
  const doc = parsed.data;
  const agents = Array.isArray(doc.execution_plan) ? doc.execution_plan : doc.execution_plan.agents;
  const base = Array.isArray(doc.execution_plan) ? 'execution_plan' : 'execution_plan.agents';
  if (agents.length === 0) return fail([{ code: 'invalid_field', field: base, message: `${base}: the plan needs at least one agent` }]);

  const nodes: PlanNode[] = [];
  agents.forEach((a, i) => {
    const gate = a.requires_approval || a.hitl_tools.length > 0 ? `${a.agent_id}__approval` : undefined;
    if (gate) {
      nodes.push({
        id: gate,
        kind: 'approval',
        action: 'hitl_approval',
        description: `Approve ${a.agent_name}: ${a.task}`,
        inputs: { task: a.task },
        params: { agent_id: a.agent_id, agent_name: a.agent_name, tool_names: a.hitl_tools, on_reject: 'skip', ...(a.approval_timeout_seconds ? { timeout_seconds: a.approval_timeout_seconds } : {}) },
        dependsOn: [...a.depends_on],
        source: `${base}[${i}]`,
      });
    }
    const node: PlanNode = {
      id: a.agent_id,
      kind: 'capability',
      capabilityId: a.agent_name,
      action: a.agent_name,
      description: a.task,
      inputs: {
        task: a.task,
        entities: a.entities,
        dependency_outputs: Object.fromEntries(a.depends_on.map((d) => [d, `{${d}}`])),
      },
      params: { tools: a.tools },
      // A gated agent waits for its gate, which waits for the agent's dependencies.
      dependsOn: gate ? [gate] : [...a.depends_on],
      errorPolicy: {
        onError: 'skip',
        fallback: [],
        rollbackOnError: false,
        ...(a.retry_config && a.retry_config.max_retries > 0
          ? { retry: { maxRetries: a.retry_config.max_retries, backoffMs: 1000, multiplier: a.retry_config.backoff_multiplier, maxBackoffMs: 60_000, retryableCodes: [] } }
          : {}),
        ...(a.retry_config?.timeout ? { timeoutMs: Math.round(a.retry_config.timeout * 1000) } : {}),
      },
      source: `${base}[${i}]`,
    };
    nodes.push(node);
  });
  if (opts.composer !== false) {
    nodes.push({
      id: 'composer',
      kind: 'llm',
      action: 'compose_answer',
      description: 'Combine the agents’ results into one answer with citations',
      inputs: { query: doc.query ?? '', agent_outputs: Object.fromEntries(agents.map((a) => [a.agent_id, `{${a.agent_id}}`])) },
      params: {},
      outputSchema: { type: 'object', properties: { answer: { type: 'string' }, sources: { type: 'array' } }, required: ['answer'] },
      dependsOn: agents.map((a) => a.agent_id),
      source: base,
    });
  }
  const plan = PlanGraphSchema.parse({
    ...(opts.id ? { id: opts.id } : {}),
    provenance: { frontEnd: 'master_agent' },
    executionMode: 'llm_augmented',
    runContext: 'interactive',
    nodes,
    metadata: doc.analysis ? { analysis: doc.analysis } : {},
  });
  const issues = validateParsedPlan(plan);
  if (issues.length > 0) {
    const mapped = issues.map((issue) => {
      const m = /^nodes\[(\d+)\](.*)$/.exec(issue.field);
      const node = m ? plan.nodes[Number(m[1])] : undefined;
      if (!m || !node) return issue;
      // Map IR paths back to the plan's own field names.
      const rest = m[2]!.replace(/^\.dependsOn/, '.depends_on').replace(/^\.id$/, '.agent_id');
      return { ...issue, field: `${node.source ?? base}${rest}` };
    });
    return fail(mapped);
  }
  return { ok: true, plan, results: [], warnings: [] };
}

function fail(errors: PlanIssue[]): CompileResult {
  return { ok: false, errors, results: [], warnings: [] };
}
