/**
 * One assembled node → its Plan IR node (DESIGN §1): capability and human
 * nodes with compiled facet contracts, merged instruction, provenance and
 * error policy; the branch (`route` taking every variant); routing nodes
 * (DSL routes); the `llm` transformation nodes; the HITL (`human`) fallback.
 * Flex annotations ride in `params.flex`.
 */
import type { CompiledFacetSchema, FacetProvenance, JsonSchema, PlanNode } from '@af/plan';
import { NORMALIZE_NODE, STRUCTURE_NODE, type AssembledNode, type OutputBinding } from './assembled-plan.js';
import type { EnvelopeAnalysis } from './envelope-analysis.js';
import { mergeInstruction } from './instructions.js';
import { literalText } from './node-ids.js';
import type { DraftNode, PlanningContext } from './types.js';

const DEFAULT_RETRIES = 1;

export interface NodeBuild {
  ctx: PlanningContext;
  a: EnvelopeAnalysis;
  draft: DraftNode | undefined;
  /** The node's wired inputs. */
  inputs: Record<string, unknown>;
  /** Ids of its fallback nodes (alternates, HITL). */
  fallbacks: string[];
  branchTargets: string[];
  bindings: OutputBinding[];
  /** Nodes built so far (a fallback copies its primary's schemas). */
  built: readonly PlanNode[];
  /** Compiles facets into a contract, reporting problems as diagnostics. */
  compile(names: string[], direction: 'input' | 'output' | 'any', field: string): CompiledFacetSchema | undefined;
}

const provenance = (c?: CompiledFacetSchema): FacetProvenance[] => c?.provenance ?? [];

export function buildPlanNode(n: AssembledNode, b: NodeBuild): PlanNode {
  const { catalog, envelope } = b.ctx;
  const d = b.draft;
  const base = { id: n.id, dependsOn: n.dependsOn, outputKey: n.id, inputs: b.inputs };
  const retry = { maxRetries: DEFAULT_RETRIES, backoffMs: 1000, multiplier: 2, maxBackoffMs: 60_000, retryableCodes: [] };
  const errorPolicy = { onError: b.fallbacks.length ? ('fallback' as const) : ('stop' as const), retry, fallback: b.fallbacks, rollbackOnError: false };
  const variants = b.a.variantCount;

  if (n.stage === 'branch') {
    const flex = { stage: 'branch', inputFacets: [], outputFacets: [], variantCount: variants, rationale: literalText(`policies.planner.topology.variantCount = ${variants}`) };
    return { ...base, kind: 'route', description: `Branch into ${variants} variants`, params: { flex }, routes: [], elseTo: b.branchTargets };
  }
  if (n.stage === 'routing') {
    const routes = (d?.routes ?? []).map((r) => ({ condition: r.condition, conditionDialect: 'dsl' as const, to: r.to }));
    return { ...base, kind: 'route', params: { flex: { stage: 'routing', inputFacets: [], outputFacets: [], rationale: literalText(d?.rationale ?? '') } }, routes, ...(d?.elseTo ? { elseTo: d.elseTo } : {}) };
  }
  if (n.id === STRUCTURE_NODE) {
    n.outputContract = b.compile(n.outputFacets, 'any', `${n.id}.outputFacets`);
    const keys = b.a.inputBindings.filter((x) => x.mode !== 'direct').map((x) => x.key);
    const instructions = literalText(`Shape the caller's inputs into these facets, using only what the inputs say (leave optional fields out rather than inventing them).\n${mergeInstruction(catalog, envelope, { inputFacets: [], outputFacets: n.outputFacets })}`);
    const flex = { stage: 'transformation', transformation: 'inputs', inputFacets: [], outputFacets: n.outputFacets, provenance: { output: provenance(n.outputContract) } };
    return { ...base, kind: 'llm', action: 'llm_analyze', description: 'Structure envelope inputs into facets', inputs: Object.fromEntries(keys.map((k) => [k, `{input.${k}}`])), params: { instructions, flex }, ...(n.outputContract ? { outputSchema: n.outputContract.schema } : {}), errorPolicy };
  }
  if (n.id === NORMALIZE_NODE) {
    const bound = b.a.goalBindings.filter((g) => b.bindings.some((x) => x.property === g.property));
    const properties = Object.fromEntries(bound.map((g) => [g.property, g.schema]));
    const required = bound.filter((g) => g.required).map((g) => g.property);
    const outputSchema: JsonSchema = { type: 'object', properties, ...(required.length ? { required } : {}) };
    const instructions = literalText(`Combine the produced facets into the caller's output contract. Keep the content; only reshape it.${variants > 1 ? ` There are ${variants} variants: keep them apart, in order.` : ''}\nObjective: ${envelope.objective}`);
    return { ...base, kind: 'llm', action: 'llm_analyze', description: 'Normalise outputs to the caller contract', params: { instructions, flex: { stage: 'transformation', transformation: 'output', inputFacets: n.inputFacets, outputFacets: [], bindings: b.bindings } }, outputSchema, errorPolicy };
  }
  if (n.stage === 'fallback') {
    const target = b.built.find((x) => x.id === n.fallbackFor);
    const escalation = literalText(`${n.fallbackFor} failed after its retries${(target?.errorPolicy?.fallback.length ?? 0) > 1 ? ' and alternates' : ''}: an operator reviews its inputs and supplies its output.`);
    return {
      ...base,
      kind: 'human',
      action: 'hitl_fallback',
      description: `HITL fallback for ${n.fallbackFor}`,
      fallbackFor: n.fallbackFor!,
      params: { instruction: escalation, flex: { stage: 'fallback', inputFacets: n.inputFacets, outputFacets: n.outputFacets, escalation, rationale: 'Every plan ends in a HITL fallback (§5.7 "Fallback wiring").' } },
      ...(target?.inputSchema ? { inputSchema: target.inputSchema } : {}),
      ...(target?.outputSchema ? { outputSchema: target.outputSchema } : {}),
    };
  }
  // Capability nodes, declared or derived (a derived mix is not held to the facets' directions).
  const cap = n.capability;
  const direction = (use: 'input' | 'output') => (n.derivedFrom ? 'any' : use);
  n.inputContract = b.compile(n.inputFacets, direction('input'), `${n.id}.inputFacets`);
  n.outputContract = b.compile(n.outputFacets, direction('output'), `${n.id}.outputFacets`);
  const instruction = mergeInstruction(catalog, envelope, { inputFacets: n.inputFacets, outputFacets: n.outputFacets, ...(d?.instruction ? { instruction: d.instruction } : {}), ...(n.variant ? { variant: n.variant } : {}) });
  const flex = {
    stage: n.stage,
    capabilityId: n.capabilityId,
    ...(n.derivedFrom ? { derivedFrom: n.derivedFrom } : {}),
    agentType: cap?.agentType ?? 'ai',
    inputFacets: n.inputFacets,
    outputFacets: n.outputFacets,
    instruction,
    rationale: literalText(d?.rationale ?? ''),
    provenance: { input: provenance(n.inputContract), output: provenance(n.outputContract) },
    ...(n.variant ? { variant: n.variant } : {}),
    ...(n.fallbackFor ? { alternateFor: n.fallbackFor } : {}),
    ...(envelope.constraints.scope ? { scope: envelope.constraints.scope } : {}),
  };
  return {
    ...base,
    kind: cap?.agentType === 'human' ? 'human' : 'capability',
    action: n.capabilityId!,
    capabilityId: n.derivedFrom ?? n.capabilityId!,
    description: cap?.displayName ?? n.capabilityId!,
    // `instruction` at the top too: the human executor and agents read it there.
    params: { instruction, flex },
    ...(n.inputContract ? { inputSchema: n.inputContract.schema } : {}),
    ...(n.outputContract ? { outputSchema: n.outputContract.schema } : {}),
    ...(n.fallbackFor ? { fallbackFor: n.fallbackFor } : { errorPolicy }),
  };
}
