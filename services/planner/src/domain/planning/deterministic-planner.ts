/**
 * The deterministic planner (no model needed): backward-chains from the goal
 * facets to capabilities that produce them and on to the inputs the envelope
 * supplies, honouring PlannerPolicy (selection, forbidden kinds,
 * optimisation). Required input facets are planned for; optional ones are
 * wired only when already available. Capabilities named in
 * `selection.require` that the chain did not need are added as validation
 * nodes. Output is a draft; the assembler expands branches and compiles it.
 */
import type { FacetCatalog } from '@af/plan';
import { rankCandidates } from './capability-selection.js';
import type { EnvelopeAnalysis } from './envelope-analysis.js';
import { nodeIdFor } from './node-ids.js';
import type { CapabilityView, DraftNode, PlanDraft, PlanningContext } from './types.js';

export function planDeterministically(ctx: PlanningContext, analysis: EnvelopeAnalysis): PlanDraft {
  return new BackwardChainer(ctx, analysis).run();
}

class BackwardChainer {
  private readonly nodes: DraftNode[] = [];
  private readonly producer = new Map<string, string>();
  private readonly inPlan = new Set<string>();
  private readonly ids = new Set<string>();
  private readonly feasibleTrue = new Set<string>();
  private readonly feasibleFalse = new Set<string>();
  private readonly catalog: FacetCatalog;
  private readonly byOutput = new Map<string, CapabilityView[]>();

  constructor(
    private readonly ctx: PlanningContext,
    private readonly a: EnvelopeAnalysis,
  ) {
    this.catalog = ctx.catalog;
    for (const c of a.selectable) for (const f of c.outputFacets) (this.byOutput.get(f) ?? this.byOutput.set(f, []).get(f)!).push(c);
    for (const n of a.lockedNodes) this.ids.add(n.id);
  }

  run(): PlanDraft {
    for (const f of this.a.goalFacets) this.ensure(f, new Set());
    const policy = this.ctx.envelope.policies.planner;
    for (const id of policy.selection.require) {
      const c = this.a.selectable.find((x) => x.capabilityId === id);
      if (c && !this.inPlan.has(id)) this.addNode(c, new Set(), `required by policies.planner.selection.require`);
    }
    const goals = new Set(this.a.goalFacets);
    const required = new Set(policy.selection.require);
    for (const n of this.nodes) {
      if (n.outputFacets.some((f) => goals.has(f))) n.stage = 'execution';
      else if (required.has(n.capabilityId!)) n.stage = 'validation';
    }
    return { nodes: this.nodes, rationale: `Backward-chained from ${this.a.goalFacets.join(', ') || 'no goal facets'} to the envelope's inputs.` };
  }

  private available(f: string): boolean {
    return this.a.sources.has(f) || this.producer.has(f);
  }

  private requiredFacet(f: string): boolean {
    return this.catalog.get(f)?.requiredByDefault ?? true;
  }

  private requiredInputs(c: CapabilityView): string[] {
    return c.inputFacets.filter((f) => this.requiredFacet(f));
  }

  /** Can `f` be sourced without passing through `visiting`? `cut` reports a cycle cut (such a false is not cached). */
  private feasible(f: string, visiting: ReadonlySet<string>, cut: { hit: boolean }): boolean {
    if (this.available(f) || this.feasibleTrue.has(f)) return true;
    if (this.feasibleFalse.has(f)) return false;
    if (visiting.has(f)) {
      cut.hit = true;
      return false;
    }
    const inner = { hit: false };
    const next = new Set(visiting).add(f);
    const ok = (this.byOutput.get(f) ?? []).some((c) => this.requiredInputs(c).every((g) => this.feasible(g, next, inner)));
    if (ok) this.feasibleTrue.add(f);
    else if (!inner.hit) this.feasibleFalse.add(f);
    else cut.hit = true;
    return ok;
  }

  private share(c: CapabilityView, visiting: ReadonlySet<string>): number {
    const req = this.requiredInputs(c);
    if (req.length === 0) return 1;
    return req.filter((g) => this.feasible(g, visiting, { hit: false })).length / req.length;
  }

  private ensure(f: string, visiting: ReadonlySet<string>): void {
    if (this.available(f) || visiting.has(f)) return;
    const next = new Set(visiting).add(f);
    const policy = this.ctx.envelope.policies.planner;
    const scope = this.ctx.envelope.constraints.scope;
    const ranked = rankCandidates(this.byOutput.get(f) ?? [], (c) => this.share(c, next), { policy, ...(scope ? { scope } : {}) });
    const best = ranked[0];
    if (!best) return; // the facet validator reports the missing producer
    const others = ranked.slice(1, 4).map((c) => c.capabilityId);
    this.addNode(best, next, `produces ${f}${others.length ? `; preferred over ${others.join(', ')}` : ''}`);
  }

  private addNode(c: CapabilityView, visiting: ReadonlySet<string>, why: string): void {
    this.inPlan.add(c.capabilityId);
    const id = nodeIdFor(c.capabilityId, this.ids);
    this.ids.add(id);
    const inputFacets: string[] = [];
    const deps = new Set<string>();
    const sourced: string[] = [];
    for (const f of c.inputFacets) {
      const required = this.requiredFacet(f);
      if (required) this.ensure(f, visiting);
      if (this.available(f)) {
        inputFacets.push(f);
        const p = this.producer.get(f);
        if (p) deps.add(p);
        sourced.push(this.describeSource(f));
      } else if (required) {
        inputFacets.push(f);
      }
    }
    this.nodes.push({
      id,
      stage: 'structuring',
      capabilityId: c.capabilityId,
      inputFacets,
      outputFacets: [...c.outputFacets],
      dependsOn: [...deps],
      rationale: `${c.displayName} ${why}.${sourced.length ? ` Inputs: ${sourced.join('; ')}.` : ''}`,
    });
    for (const o of c.outputFacets) if (!this.producer.has(o) && !this.a.sources.has(o)) this.producer.set(o, id);
  }

  private describeSource(f: string): string {
    const s = this.a.sources.get(f);
    if (!s) return `${f} from ${this.producer.get(f)}`;
    if (s.kind === 'input') return `${f} from envelope input ${s.key}`;
    if (s.kind === 'structured') return `${f} structured from envelope input ${s.keys.join(', ')}`;
    return `${f} from completed node ${s.nodeId}`;
  }
}
