/**
 * StructuralValidator (flex spec §5.9.3): DAG integrity and node shape — the
 * Plan IR's own validation (ids, dependencies, cycles, references, routes),
 * a HITL fallback at the end, completed nodes of a replan left untouched,
 * and the planner policy's topology (maxDepth, required / forbidden kinds).
 */
import { canonicalJson, validateParsedPlan, type PlanDiagnostic } from '@af/plan';
import type { AssembledPlan } from '../plan-assembler.js';
import type { EnvelopeAnalysis } from '../envelope-analysis.js';
import type { PlanningContext } from '../types.js';

const hard = (constraintId: string, suggestion: string, extra: Partial<PlanDiagnostic> = {}): PlanDiagnostic => ({ severity: 'hard', status: 'unsatisfied', cause: 'schema_incompatible', constraintId, suggestion, ...extra });

export function validateStructure(ctx: PlanningContext, a: EnvelopeAnalysis, assembled: AssembledPlan): PlanDiagnostic[] {
  const out: PlanDiagnostic[] = [];
  const plan = assembled.plan;
  if (!plan) return out;
  for (const issue of validateParsedPlan(plan)) {
    out.push(hard(`structure.${issue.code}`, issue.suggestedFix ? `${issue.message} (fix: ${issue.suggestedFix})` : issue.message, { ...(issue.step ? { nodeId: issue.step } : {}), details: { field: issue.field } }));
  }
  const work = assembled.nodes.filter((n) => !n.fallbackFor && n.stage !== 'branch' && n.stage !== 'routing');
  const hasFallback = assembled.nodes.some((n) => n.stage === 'fallback');
  out.push({
    severity: 'hard',
    status: hasFallback || work.length === 0 ? 'satisfied' : 'unsatisfied',
    cause: 'schema_incompatible',
    constraintId: 'structure.fallback',
    constraint: 'the plan ends in a fallback/HITL node',
    suggestion: 'every plan terminates with a HITL fallback for its terminal node',
  });

  for (const locked of a.lockedNodes) {
    const now = plan.nodes.find((n) => n.id === locked.id);
    if (!now || canonicalJson(now) !== canonicalJson(locked)) {
      out.push(hard('structure.locked_node', `completed node ${locked.id} must stay exactly as in plan version ${ctx.replan!.previous.version}`, { nodeId: locked.id }));
    }
  }

  const topology = ctx.envelope.policies.planner.topology;
  if (topology.maxDepth !== undefined) {
    const depth = longestChain(assembled);
    out.push({
      severity: 'hard',
      status: depth <= topology.maxDepth ? 'satisfied' : 'unsatisfied',
      cause: 'schema_incompatible',
      constraintId: 'policy.topology.maxDepth',
      constraint: `capability chain depth ${depth} <= ${topology.maxDepth}`,
      suggestion: `shorten the longest capability chain to at most ${topology.maxDepth} nodes`,
    });
  }
  const kindsOf = (n: AssembledPlan['nodes'][number]): string[] => [n.stage, n.capability?.agentType, plan.nodes.find((p) => p.id === n.id)?.kind].filter((k): k is NonNullable<typeof k> => !!k);
  for (const kind of topology.requiredKinds) {
    const present = assembled.nodes.some((n) => kindsOf(n).includes(kind));
    out.push({ severity: 'hard', status: present ? 'satisfied' : 'unsatisfied', cause: 'missing_producer', constraintId: `policy.topology.requiredKinds.${kind}`, constraint: `a ${kind} node is present`, suggestion: `add a ${kind} node` });
  }
  for (const kind of topology.forbiddenKinds) {
    for (const n of assembled.nodes.filter((x) => !x.locked && kindsOf(x).includes(kind))) {
      out.push(hard(`policy.topology.forbiddenKinds.${kind}`, `remove ${n.id}: policies forbid ${kind} nodes`, { nodeId: n.id }));
    }
  }
  return out;
}

/** Capability nodes on the longest dependency chain. */
function longestChain(assembled: AssembledPlan): number {
  const byId = new Map(assembled.nodes.map((n) => [n.id, n]));
  const memo = new Map<string, number>();
  const depth = (id: string, guard: Set<string>): number => {
    if (memo.has(id)) return memo.get(id)!;
    if (guard.has(id)) return 0;
    guard.add(id);
    const n = byId.get(id);
    if (!n) return 0;
    const own = n.capability && !n.fallbackFor ? 1 : 0;
    const d = own + Math.max(0, ...n.dependsOn.map((x) => depth(x, guard)));
    guard.delete(id);
    memo.set(id, d);
    return d;
  };
  return Math.max(0, ...assembled.nodes.map((n) => depth(n.id, new Set())));
}
