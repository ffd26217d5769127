/**
 * FacetValidator (flex spec §5.9.3): every capability node names a registered,
 * active capability (or a derivation the agent's facets cover), uses facets
 * its capability declares in the right direction, has a source for each
 * required input, and the output contract is covered — plus the policy rules
 * that concern capabilities (require / forbid / avoid) and conflicts between
 * policies and the caller's schema (`schema_incompatible`).
 */
import { facetAllows, type PlanDiagnostic } from '@af/plan';
import type { EnvelopeAnalysis } from '../envelope-analysis.js';
import type { AssembledPlan } from '../plan-assembler.js';
import type { PlanningContext } from '../types.js';

export function validateFacets(ctx: PlanningContext, a: EnvelopeAnalysis, assembled: AssembledPlan): PlanDiagnostic[] {
  const out: PlanDiagnostic[] = [];
  const { catalog } = ctx;
  const policy = ctx.envelope.policies.planner;
  const known = new Map(ctx.capabilities.map((c) => [c.capabilityId, c]));

  for (const n of assembled.nodes) {
    if (n.locked || !n.capabilityId) continue;
    const id = n.derivedFrom ?? n.capabilityId;
    const cap = known.get(id);
    const base = { nodeId: n.id, capabilityId: id };
    if (!cap) {
      const near = [...known.keys()].find((k) => k.toLowerCase() === id.toLowerCase());
      out.push({ severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', constraintId: `capability.${id}`, ...base, suggestion: `capability '${id}' is not registered${near ? ` (did you mean '${near}'?)` : ''}; use one from the registry` });
      continue;
    }
    if (cap.status !== 'active') {
      out.push({ severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', constraintId: `capability.${id}`, ...base, suggestion: `capability '${id}' is inactive (no heartbeat); choose an active capability producing ${n.outputFacets.join(', ')}` });
    }
    if (policy.selection.forbid.includes(id)) {
      out.push({ severity: 'hard', status: 'unsatisfied', cause: 'schema_incompatible', constraintId: 'policy.selection.forbid', ...base, suggestion: `policies.planner.selection.forbid excludes ${id}; use another producer` });
    }
    if (policy.selection.avoid.includes(id)) {
      out.push({ severity: 'soft', status: 'unsatisfied', cause: 'unsatisfied_soft', constraintId: 'policy.selection.avoid', ...base, suggestion: `policies.planner.selection.avoid lists ${id}` });
    }
    const mode = n.derivedFrom ? 'derived from the agent of' : 'declared by';
    n.outputFacets.forEach((f) => {
      const facet = catalog.get(f);
      if (!cap.outputFacets.includes(f) && !(n.derivedFrom && facet)) {
        out.push({ severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', constraintId: `facet.${f}`, ...base, suggestion: `${id} does not produce ${f}; its outputs are ${cap.outputFacets.join(', ')}` });
      } else if (facet && !facetAllows(facet, 'output')) {
        out.push({ severity: 'hard', status: 'unsatisfied', cause: 'schema_incompatible', constraintId: `facet.${f}`, ...base, suggestion: `${f} is ${facet.direction}-only and cannot be produced` });
      }
    });
    (n.requestedInputs ?? n.inputFacets).forEach((f) => {
      if (!cap.inputFacets.includes(f) && !n.derivedFrom) {
        out.push({ severity: 'hard', status: 'unsatisfied', cause: 'schema_incompatible', constraintId: `facet.${f}`, ...base, suggestion: `${id} does not consume ${f} (its inputs are ${cap.inputFacets.join(', ') || 'none'}); remove it from inputFacets` });
      }
    });
    if (n.derivedFrom) {
      const covered = [...n.inputFacets, ...n.outputFacets].every((f) => cap.inputFacets.includes(f) || cap.outputFacets.includes(f));
      out.push({ severity: 'informational', status: covered ? 'satisfied' : 'unknown', cause: 'advisory', constraintId: `capability.derived.${n.id}`, ...base, suggestion: `node ${mode} ${id}; its facet mix is ${covered ? 'within' : 'beyond'} what the agent declares — runs with tighter review` });
    }
    for (const f of n.unsourced) {
      out.push({ severity: 'hard', status: 'unsatisfied', cause: 'missing_producer', constraintId: `facet.${f}`, ...base, suggestion: `nothing supplies ${f} to ${n.id}: add it to envelope.inputs or plan a capability that produces it upstream` });
    }
  }

  // The caller's contract.
  for (const p of a.unboundProperties) {
    out.push({ severity: p.required ? 'hard' : 'soft', status: 'unsatisfied', cause: p.required ? 'missing_producer' : 'unsatisfied_soft', constraintId: `contract.${p.property}`, constraint: `outputContract property '${p.property}' is produced`, suggestion: `no facet of the catalog matches '${p.property}'; name its facet in outputContract.hints.facets or with "x-facet"` });
  }
  for (const b of a.goalBindings) {
    const bound = assembled.bindings.find((x) => x.property === b.property);
    out.push({
      severity: b.required ? 'hard' : 'soft',
      status: bound ? 'satisfied' : 'unsatisfied',
      cause: bound ? 'missing_producer' : b.required ? 'missing_producer' : 'unsatisfied_soft',
      constraintId: `contract.${b.property || '(output)'}`,
      constraint: `outputContract property '${b.property}' is produced (facet ${b.facet})`,
      ...(bound ? { nodeId: bound.nodeId } : {}),
      suggestion: bound ? `bound to ${bound.nodeId}${bound.pointer}` : `plan a capability that produces ${b.facet}`,
    });
  }
  for (const g of ctx.envelope.goalConditions) {
    const facet = catalog.get(g.facet);
    const produced = assembled.nodes.some((n) => n.outputFacets.includes(g.facet)) || a.sources.has(g.facet);
    if (!facet && !a.goalBindings.some((b) => b.property === g.facet)) {
      out.push({ severity: 'informational', status: 'unknown', cause: 'advisory', constraintId: `goal.${g.facet}`, constraint: `goal_condition on ${g.facet}`, suggestion: `'${g.facet}' is neither a facet nor a contract property; the goal condition is evaluated on the run output as given` });
      continue;
    }
    out.push({ severity: 'hard', status: produced || !facet ? 'satisfied' : 'unsatisfied', cause: 'missing_producer', constraintId: `goal.${g.facet}`, constraint: `goal_condition on ${g.facet} can be evaluated`, suggestion: `plan a capability that produces ${g.facet}` });
  }

  // Policies against the plan and the schema.
  const inPlan = new Set(assembled.nodes.map((n) => n.derivedFrom ?? n.capabilityId).filter(Boolean));
  for (const id of policy.selection.require) {
    out.push({ severity: 'hard', status: inPlan.has(id) ? 'satisfied' : 'unsatisfied', cause: 'missing_enforcer', constraintId: 'policy.selection.require', capabilityId: id, constraint: `${id} is part of the plan`, suggestion: `insert ${id} into the plan${known.get(id)?.status === 'active' ? '' : ' (it is not an active registered capability)'}` });
  }
  const variants = a.variantCount;
  for (const b of a.goalBindings) {
    const s = b.schema;
    if (s.type !== 'array' || variants <= 1) continue;
    const min = typeof s.minItems === 'number' ? s.minItems : undefined;
    const max = typeof s.maxItems === 'number' ? s.maxItems : undefined;
    const ok = (min === undefined || variants >= min) && (max === undefined || variants <= max);
    out.push({
      severity: 'hard',
      status: ok ? 'satisfied' : 'unsatisfied',
      cause: 'schema_incompatible',
      constraintId: 'policy.topology.variantCount',
      constraint: `variantCount ${variants} fits outputContract.schema.properties.${b.property} (minItems ${min ?? '-'}, maxItems ${max ?? '-'})`,
      suggestion: `make variantCount and the schema agree (variantCount = ${variants}, minItems = ${min ?? 'unset'}, maxItems = ${max ?? 'unset'})`,
    });
  }
  if (variants > 1 && assembled.branchCount === 0) {
    out.push({ severity: 'soft', status: 'unsatisfied', cause: 'unsatisfied_soft', constraintId: 'policy.topology.variantCount', constraint: `${variants} variants`, suggestion: 'no node produces a contract facet, so there was nothing to branch' });
  }
  const maxTokens = policy.optimisation.maxTokens;
  if (maxTokens !== undefined) {
    const tokens = assembled.nodes.filter((n) => !n.fallbackFor && n.capability).reduce((sum, n) => sum + (n.capability!.cost?.estimatedTokens ?? 0), 0);
    out.push({ severity: 'soft', status: tokens <= maxTokens ? 'satisfied' : 'unsatisfied', cause: 'unsatisfied_soft', constraintId: 'policy.optimisation.maxTokens', constraint: `estimated tokens ${tokens} <= ${maxTokens}`, suggestion: 'choose capabilities with smaller token estimates' });
  }
  for (const b of a.inputBindings.filter((x) => x.mode === 'context')) {
    out.push({ severity: 'informational', status: 'unknown', cause: 'advisory', constraintId: `input.${b.key}`, constraint: `envelope input ${b.key}`, suggestion: `inputs.${b.key} matches no facet; it reaches nodes only through the objective and special instructions` });
  }
  return out;
}
