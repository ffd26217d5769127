/**
 * ConstraintValidator / PlanSatisfactionTester (flex spec §5.9.1–§5.9.3):
 * proves symbolically that each output-contract constraint can hold — every
 * facet or contract property it reads has a producer in the plan (or comes
 * from the envelope), and its enforcer capability, when named, is planned.
 * Hard → `missing_producer` / `missing_enforcer`; soft → `unsatisfied_soft`;
 * informational → `advisory` (never scored).
 */
import type { ConstraintSpec, PlanDiagnostic } from '@af/plan';
import type { EnvelopeAnalysis } from '../envelope-analysis.js';
import type { AssembledPlan } from '../plan-assembler.js';
import type { PlanningContext } from '../types.js';

const SNAPSHOT = 'metadata.runContextSnapshot.facets.';

/** Facet named by a canonical variable path, or the contract property it starts with. */
function referencedFacet(path: string, a: EnvelopeAnalysis, ctx: PlanningContext): { facet?: string; root: string } {
  if (path.startsWith(SNAPSHOT)) {
    const facet = path.slice(SNAPSHOT.length).split(/[.[]/)[0]!;
    return { facet, root: facet };
  }
  const root = path.split(/[.[]/)[0]!;
  const bound = a.goalBindings.find((b) => b.property === root);
  if (bound) return { facet: bound.facet, root };
  if (ctx.catalog.has(root)) return { facet: root, root };
  return { root };
}

export function validateConstraints(ctx: PlanningContext, a: EnvelopeAnalysis, assembled: AssembledPlan): PlanDiagnostic[] {
  const produced = new Set(assembled.nodes.flatMap((n) => n.outputFacets));
  const planned = new Set(assembled.nodes.map((n) => n.derivedFrom ?? n.capabilityId).filter(Boolean));
  const out: PlanDiagnostic[] = [];
  for (const c of ctx.envelope.outputContract.constraints) out.push(...check(c));
  return out;

  function check(c: ConstraintSpec): PlanDiagnostic[] {
    const base = { constraint: c.constraint, constraintId: c.constraintId, severity: c.level } as const;
    const missing: string[] = [];
    const unknown: string[] = [];
    const producers: string[] = [];
    for (const v of c.expr.variables) {
      const { facet, root } = referencedFacet(v, a, ctx);
      if (!facet) unknown.push(root);
      else if (!produced.has(facet) && !a.sources.has(facet)) missing.push(facet);
      else producers.push(...assembled.nodes.filter((n) => n.outputFacets.includes(facet)).map((n) => n.id));
    }
    const results: PlanDiagnostic[] = [];
    const unsatisfiedCause = c.level === 'hard' ? 'missing_producer' : c.level === 'soft' ? 'unsatisfied_soft' : 'advisory';
    if (c.level === 'informational') {
      const info: PlanDiagnostic = { ...base, status: 'unknown', cause: 'advisory', ...(c.rationale ? { details: { note: c.rationale } } : {}) };
      if (missing.length) info.suggestion = `nothing produces ${missing.join(', ')} yet`;
      return [info];
    }
    if (unknown.length) {
      results.push({ ...base, status: 'unsatisfied', cause: unsatisfiedCause, suggestion: `'${[...new Set(unknown)].join("', '")}' is neither a facet nor an output-contract property; reference a facet (facets.<name>.…) or a property of the schema` });
    } else if (missing.length) {
      results.push({ ...base, status: 'unsatisfied', cause: unsatisfiedCause, suggestion: `plan a capability that produces ${[...new Set(missing)].join(', ')}` });
    } else {
      results.push({ ...base, status: 'satisfied', cause: unsatisfiedCause, ...(producers.length ? { nodeId: [...new Set(producers)].sort()[0]! } : {}) });
    }
    if (c.enforcer !== undefined) {
      const terminal = assembled.bindings[0]?.nodeId;
      results.push({
        ...base,
        cause: 'missing_enforcer',
        status: planned.has(c.enforcer) ? 'satisfied' : 'unsatisfied',
        capabilityId: c.enforcer,
        suggestion: `Insert ${c.enforcer}${terminal ? ` before ${terminal}` : ''}.`,
      });
    }
    return results.map(clean);
  }
}

function clean(d: PlanDiagnostic): PlanDiagnostic {
  if (d.suggestion === undefined) delete d.suggestion;
  return d;
}
