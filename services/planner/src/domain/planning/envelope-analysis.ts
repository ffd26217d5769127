/**
 * What one planning request starts from, computed once and shared by both
 * planners, the assembler and the validators: goal bindings of the output
 * contract, input bindings of the envelope, the facets already available
 * (envelope inputs, structured inputs, locked nodes of a replan), the goal
 * facets, the variant count and the selectable capabilities.
 */
import { facetAllows, type PlanNode } from '@af/plan';
import { isSelectable } from './capability-selection.js';
import { bindEnvelopeInputs, bindOutputContract, type GoalBinding, type InputBinding, type UnboundProperty } from './contract-binding.js';
import type { CapabilityView, PlanningContext } from './types.js';

/** Where a facet comes from before any planned node runs. */
export type FacetSource =
  | { kind: 'input'; key: string }
  | { kind: 'structured'; keys: string[] }
  | { kind: 'locked'; nodeId: string; outputKey: string };

export interface EnvelopeAnalysis {
  goalBindings: GoalBinding[];
  unboundProperties: UnboundProperty[];
  inputBindings: InputBinding[];
  sources: Map<string, FacetSource>;
  /** Facets the plan must produce: contract bindings, then goal-condition facets of the catalog. */
  goalFacets: string[];
  /** `planner.topology.variantCount`, default 1. */
  variantCount: number;
  /** Active, not forbidden, kind allowed. */
  selectable: CapabilityView[];
  /** Completed nodes of the plan being revised, in their order there. */
  lockedNodes: PlanNode[];
}

/** The flex annotations the assembler stores on each node (`params.flex`). */
export interface FlexNodeMeta {
  stage: string;
  capabilityId?: string;
  derivedFrom?: string;
  agentType?: string;
  inputFacets: string[];
  outputFacets: string[];
  instruction?: string;
  rationale?: string;
  variant?: { index: number; count: number; branchId: string };
}

export function flexMeta(node: PlanNode): FlexNodeMeta | undefined {
  const meta = node.params?.flex;
  return meta && typeof meta === 'object' ? (meta as FlexNodeMeta) : undefined;
}

export function analyzeEnvelope(ctx: PlanningContext): EnvelopeAnalysis {
  const { envelope, catalog } = ctx;
  const policy = envelope.policies.planner;
  const selectable = ctx.capabilities.filter((c) => isSelectable(c, policy));
  const producible = new Set(selectable.flatMap((c) => c.outputFacets));
  const { bindings, unbound } = bindOutputContract(envelope.outputContract, catalog, producible);
  const inputBindings = bindEnvelopeInputs(envelope.inputs, catalog);

  const sources = new Map<string, FacetSource>();
  for (const b of inputBindings) {
    if (b.mode === 'direct' && b.facet && !sources.has(b.facet)) sources.set(b.facet, { kind: 'input', key: b.key });
  }
  for (const b of inputBindings) {
    if (b.mode !== 'structured' || !b.facet || sources.get(b.facet)?.kind === 'input') continue;
    const prev = sources.get(b.facet);
    sources.set(b.facet, { kind: 'structured', keys: prev?.kind === 'structured' ? [...prev.keys, b.key] : [b.key] });
  }

  const lockedNodes: PlanNode[] = [];
  if (ctx.replan) {
    const done = new Set(ctx.replan.completedNodeIds);
    for (const n of ctx.replan.previous.nodes) {
      if (!done.has(n.id)) continue;
      lockedNodes.push(n);
      for (const f of flexMeta(n)?.outputFacets ?? []) if (!sources.has(f) || sources.get(f)!.kind !== 'input') sources.set(f, { kind: 'locked', nodeId: n.id, outputKey: n.outputKey ?? n.id });
    }
  }

  const goalFacets: string[] = [];
  const addGoal = (f: string) => {
    if (!goalFacets.includes(f)) goalFacets.push(f);
  };
  [...bindings].sort((a, b) => Number(b.required) - Number(a.required)).forEach((b) => addGoal(b.facet));
  for (const g of envelope.goalConditions) {
    const f = catalog.get(g.facet);
    if (f && facetAllows(f, 'output')) addGoal(f.name);
  }
  return {
    goalBindings: bindings,
    unboundProperties: unbound,
    inputBindings,
    sources,
    goalFacets,
    variantCount: policy.topology.variantCount ?? 1,
    selectable,
    lockedNodes,
  };
}
