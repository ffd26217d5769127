/**
 * PlannerValidationService (flex spec §5.9.2): draft → assemble → structural,
 * facet and constraint validators → merged diagnostics. A rejected draft
 * emits `plan_rejected` with the diagnostics and the planner is asked again
 * with them, up to `maxAttempts` (a deterministic planner gets one attempt:
 * it would answer the same); an accepted one emits `plan_generated` with the
 * plan version, trimmed node metadata and the diagnostic buckets.
 */
import { bundleDiagnostics, policyKeys, type DiagnosticBundle, type PlanDiagnostic, type PlanGraph } from '@af/plan';
import { analyzeEnvelope, type EnvelopeAnalysis } from './envelope-analysis.js';
import { assemblePlan, type AssembledPlan } from './plan-assembler.js';
import type { DraftResult, Planner } from './planner.js';
import type { PlanDraft, PlanningContext } from './types.js';
import { validateConstraints } from './validators/constraint-validator.js';
import { validateFacets } from './validators/facet-validator.js';
import { validateStructure } from './validators/structural-validator.js';

export type PlanningEventType = 'plan_requested' | 'plan_rejected' | 'plan_generated';

export interface PlanningEvent {
  type: PlanningEventType;
  payload: Record<string, unknown>;
}

export interface PlanningAttempt {
  attempt: number;
  status: DiagnosticBundle['status'];
  bundle: DiagnosticBundle;
  runtime: string;
  model?: string;
  draft: PlanDraft;
}

export interface PlanningOutcome {
  accepted: boolean;
  plan?: PlanGraph;
  bundle: DiagnosticBundle;
  attempts: PlanningAttempt[];
  events: PlanningEvent[];
  analysis: EnvelopeAnalysis;
}

export interface PlanningOptions {
  maxAttempts: number;
  onEvent?: (e: PlanningEvent) => void;
  /** Planner notes about the envelope (legacy policy keys) shown as informational diagnostics. */
  notes?: Array<{ code: string; field: string; message: string }>;
  signal?: AbortSignal;
}

/** Validates an assembled plan: every validator's diagnostics, unmerged. */
export function validateAssembled(ctx: PlanningContext, analysis: EnvelopeAnalysis, assembled: AssembledPlan): PlanDiagnostic[] {
  return [...assembled.diagnostics, ...validateStructure(ctx, analysis, assembled), ...validateFacets(ctx, analysis, assembled), ...validateConstraints(ctx, analysis, assembled)];
}

export async function planTask(ctx: PlanningContext, planner: Planner, options: PlanningOptions): Promise<PlanningOutcome> {
  const analysis = analyzeEnvelope(ctx);
  const events: PlanningEvent[] = [];
  const emit = (type: PlanningEventType, payload: Record<string, unknown>) => {
    const e = { type, payload };
    events.push(e);
    options.onEvent?.(e);
  };
  const maxAttempts = planner.deterministic ? 1 : Math.max(1, options.maxAttempts);
  const version = ctx.replan ? ctx.replan.previous.version + 1 : 1;
  const notes: PlanDiagnostic[] = (options.notes ?? []).map((n) => ({ severity: 'informational', status: 'unknown', cause: 'advisory', constraintId: `envelope.${n.field}`, suggestion: n.message }));
  const attempts: PlanningAttempt[] = [];
  let feedback: { draft: PlanDraft; bundle: DiagnosticBundle } | undefined;

  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    options.signal?.throwIfAborted();
    emit('plan_requested', {
      attempt,
      maxAttempts,
      planVersion: version,
      plannerRuntime: planner.runtime,
      ...(planner.model ? { plannerModel: planner.model } : {}),
      policyKeys: policyKeys(ctx.envelope.policies),
      capabilitySnapshot: snapshotOf(ctx),
      ...(ctx.replan ? { replan: { previousVersion: ctx.replan.previous.version, lockedNodeIds: analysis.lockedNodes.map((n) => n.id), ...(ctx.replan.trigger ? { trigger: ctx.replan.trigger } : {}) } } : {}),
    });
    const result: DraftResult = await planner.draft({ ctx, analysis, attempt, ...(feedback ? { feedback } : {}), ...(options.signal ? { signal: options.signal } : {}) });
    const assembled = assemblePlan(ctx, analysis, result.draft, { plannerRuntime: result.runtime, ...(result.model ? { plannerModel: result.model } : {}), version, attempt });
    const diagnostics = [...validateAssembled(ctx, analysis, assembled), ...notes];
    if (result.fallbackReason) diagnostics.push({ severity: 'informational', status: 'unknown', cause: 'advisory', constraintId: 'planner.fallback', suggestion: result.fallbackReason });
    const bundle = bundleDiagnostics(diagnostics);
    const accepted = bundle.status !== 'rejected' && assembled.plan !== undefined;
    attempts.push({ attempt, status: accepted ? bundle.status : 'rejected', bundle, runtime: result.runtime, ...(result.model ? { model: result.model } : {}), draft: result.draft });
    const common = { attempt, plannerRuntime: result.runtime, ...(result.model ? { plannerModel: result.model } : {}), ...(result.prompt ? { prompt: result.prompt } : {}) };
    if (!accepted) {
      emit('plan_rejected', { ...common, ...bundle, status: 'rejected', ...(attempt < maxAttempts ? { nextAttempt: attempt + 1 } : {}) });
      feedback = { draft: result.draft, bundle };
      continue;
    }
    const plan = assembled.plan!;
    emit('plan_generated', { ...common, planVersion: version, ...planSummary(plan, assembled, ctx), ...bundle });
    return { accepted: true, plan, bundle, attempts, events, analysis };
  }
  return { accepted: false, bundle: attempts[attempts.length - 1]!.bundle, attempts, events, analysis };
}

function snapshotOf(ctx: PlanningContext) {
  const active = ctx.capabilities.filter((c) => c.status === 'active');
  return {
    total: ctx.capabilities.length,
    active: active.length,
    capabilityIds: active.slice(0, 50).map((c) => c.capabilityId),
    facets: ctx.catalog.size,
    catalogRevision: ctx.catalog.revision,
  };
}

/** Trimmed node metadata for `plan_generated` (§5.9.4, §10.0.1). */
export function planSummary(plan: PlanGraph, assembled: AssembledPlan, ctx: PlanningContext) {
  const enforcesOf = (capabilityId: string | undefined, outputs: string[]) =>
    ctx.envelope.outputContract.constraints.filter((c) => c.enforcer === capabilityId || c.expr.variables.some((v) => outputs.some((f) => v.includes(`.${f}.`) || v === f || v.startsWith(`${f}.`)))).map((c) => c.constraintId);
  return {
    planVersionTag: (plan.metadata.flex as Record<string, unknown>).planVersionTag,
    normalizationInjected: assembled.normalizationInjected,
    structuringInjected: assembled.structuringInjected,
    branchCount: assembled.branchCount,
    derivedCapabilities: assembled.derivedCapabilities,
    outputBindings: assembled.bindings,
    nodes: plan.nodes.map((n) => {
      const a = assembled.nodes.find((x) => x.id === n.id);
      return {
        id: n.id,
        nodeId: n.id,
        kind: n.kind,
        stage: a?.stage,
        label: n.description ?? n.id,
        ...(n.capabilityId ? { capabilityId: n.capabilityId } : {}),
        ...(a?.derivedFrom ? { derived: true } : {}),
        ...(n.fallbackFor ? { fallbackFor: n.fallbackFor } : {}),
        ...(a?.locked ? { locked: true } : {}),
        dependsOn: n.dependsOn,
        provides: a?.outputFacets ?? [],
        enforces: enforcesOf(a?.capabilityId, a?.outputFacets ?? []),
      };
    }),
  };
}
