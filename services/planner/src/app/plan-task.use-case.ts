/**
 * PlanTask (flex spec §5.7–§5.9): parse the envelope (field-path errors),
 * normalise its policies, take the live facet catalog and capability
 * registry, and run the planning loop with the chosen planner — LLM when one
 * is configured (or asked for), deterministic otherwise. A replan locks the
 * completed nodes of the previous version.
 */
import { parseTaskEnvelope, planFromWire, PlanGraphSchema, planSizeIssue, PlanWireError, type PlanGraph, type TaskEnvelope } from '@af/plan';
import { AppError, type Logger } from '@af/service-kit';
import { planTask, type PlanningOutcome } from '../domain/planning/planning-loop.js';
import type { Planner } from '../domain/planning/planner.js';
import type { CapabilityRegistry } from './capability-registry.service.js';
import { invalid, type FacetCatalogStore } from './facet-catalog.store.js';
import type { FlexMetrics } from '../infra/flex-metrics.js';

export interface PlanTaskCommand {
  userId: string;
  /** The caller's teams: planning sees their capabilities and facets too. */
  teamIds?: readonly string[];
  envelope: unknown;
  /** Replan: the plan version being revised, as it came off the wire. */
  previousPlan?: unknown;
  completedNodeIds?: string[];
  replanTrigger?: Record<string, unknown>;
  maxAttempts?: number;
  planner?: string;
}

export interface PlanTaskResult {
  outcome: PlanningOutcome;
  envelope: TaskEnvelope;
}

export interface PlanTaskDeps {
  facets: FacetCatalogStore;
  registry: CapabilityRegistry;
  deterministic: Planner;
  llm?: Planner;
  defaultRuntime: 'auto' | 'deterministic' | 'llm';
  maxAttempts: number;
  log: Logger;
  metrics?: FlexMetrics;
}

export class PlanTaskUseCase {
  constructor(private readonly d: PlanTaskDeps) {}

  async execute(cmd: PlanTaskCommand): Promise<PlanTaskResult> {
    if (!cmd.userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
    if (cmd.envelope === undefined || cmd.envelope === null) throw AppError.invalid('envelope', 'is required: a TaskEnvelope');
    const parsed = parseTaskEnvelope(cmd.envelope);
    if (!parsed.ok) {
      throw invalid(
        parsed.issues.map((i) => {
          const field = i.field ? `envelope.${i.field}` : 'envelope';
          const reason = i.field && i.message.startsWith(`${i.field}: `) ? i.message.slice(i.field.length + 2) : i.message.replace(/^\(document\): /, '');
          return { ...i, field, message: `${field}: ${reason}` };
        }),
      );
    }
    const planner = this.choosePlanner(cmd.planner);
    const maxAttempts = cmd.maxAttempts && cmd.maxAttempts > 0 ? Math.min(cmd.maxAttempts, 10) : this.d.maxAttempts;
    const replan = cmd.previousPlan !== undefined ? this.replanContext(cmd) : undefined;
    // Only what the caller may use: its own, its teams' and the shared capabilities and facets.
    const principal = { userId: cmd.userId, teamIds: cmd.teamIds ?? [] };
    const [{ catalog, compiler }, capabilities] = await Promise.all([this.d.facets.snapshot(principal), this.d.registry.views(principal)]);
    const started = Date.now();
    const outcome = await planTask({ envelope: parsed.envelope, catalog, compiler, capabilities, ...(replan ? { replan } : {}) }, planner, { maxAttempts, notes: parsed.notes });
    const tooMany = outcome.plan ? planSizeIssue(outcome.plan) : undefined;
    if (tooMany) throw AppError.invalid('envelope', `the plan for this envelope would have ${tooMany.message}`, tooMany.code);
    // The request as sent travels with the plan, so a replan (by the orchestrator, on a runtime policy) can ask again.
    if (outcome.plan) (outcome.plan.metadata.flex as Record<string, unknown>).envelope = JSON.parse(JSON.stringify(cmd.envelope));
    const runtime = outcome.attempts[outcome.attempts.length - 1]?.runtime ?? planner.runtime;
    const m = this.d.metrics;
    if (m) {
      m.requests.inc({ runtime: planner.runtime });
      m.planningMs.observe({ runtime }, Date.now() - started);
      for (const e of outcome.events) {
        if (e.type === 'plan_rejected') m.rejections.inc({ runtime });
        const prompt = e.payload.prompt as { systemChars: number; userChars: number; facetRows: number; capabilityRows: number } | undefined;
        if (prompt) {
          m.promptChars.observe({ part: 'system' }, prompt.systemChars);
          m.promptChars.observe({ part: 'user' }, prompt.userChars);
          m.promptRows.observe({ table: 'facets' }, prompt.facetRows);
          m.promptRows.observe({ table: 'capabilities' }, prompt.capabilityRows);
        }
      }
      if (outcome.accepted) (replan ? m.updated : m.generated).inc({ runtime });
    }
    this.d.log.info({ accepted: outcome.accepted, attempts: outcome.attempts.length, runtime, planVersion: outcome.plan?.version, status: outcome.bundle.status, score: outcome.bundle.satisfactionScore }, 'flex plan');
    return { outcome, envelope: parsed.envelope };
  }

  private choosePlanner(requested: string | undefined): Planner {
    const want = requested || this.d.defaultRuntime;
    if (want === 'deterministic') return this.d.deterministic;
    if (want === 'llm') {
      if (!this.d.llm) throw new AppError('FAILED_PRECONDITION', 'the LLM planner was asked for but no model is configured (LLM_PROVIDER)');
      return this.d.llm;
    }
    if (want === 'auto') return this.d.llm ?? this.d.deterministic;
    throw AppError.invalid('planner', `must be deterministic or llm, got '${want}'`);
  }

  private replanContext(cmd: PlanTaskCommand) {
    let raw: unknown;
    try {
      raw = planFromWire(cmd.previousPlan as never);
    } catch (e) {
      if (e instanceof PlanWireError) throw AppError.invalid(`previous_plan.${e.field}`, e.reason, 'invalid_plan');
      throw e;
    }
    const tooMany = planSizeIssue(raw);
    if (tooMany) throw AppError.invalid(`previous_plan.${tooMany.field}`, tooMany.message, tooMany.code);
    const parsed = PlanGraphSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw AppError.invalid(`previous_plan.${issue.path.join('.')}`, issue.message, 'invalid_plan');
    }
    const previous: PlanGraph = parsed.data;
    const ids = new Set(previous.nodes.map((n) => n.id));
    const completed = cmd.completedNodeIds ?? [];
    completed.forEach((id, i) => {
      if (!ids.has(id)) throw AppError.invalid(`completed_node_ids[${i}]`, `'${id}' is not a node of previous_plan`);
    });
    return { previous, completedNodeIds: completed, ...(cmd.replanTrigger ? { trigger: cmd.replanTrigger } : {}) };
  }
}
