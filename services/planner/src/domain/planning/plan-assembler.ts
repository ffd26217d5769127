/**
 * Draft → PlanGraph (flex spec §5.7 "Story 8.8 Dynamic Assembly Details"),
 * the same for both planners and fully deterministic:
 *
 * 1. branch expansion — with `variantCount` > 1 the nodes producing contract
 *    facets (and everything after them) are cloned per variant behind one
 *    `branch` node (a `route` whose else branch takes every variant);
 * 2. input structuring — envelope inputs that only loosely match a facet are
 *    shaped by one `transformation` node (`structure_inputs`);
 * 3. wiring — each input facet comes from the nearest upstream producer, else
 *    the envelope, else a locked node of the plan being revised;
 * 4. normalisation — a `transformation` node (`normalize_output`) is injected
 *    only when the contract is not already satisfied by one producer;
 * 5. fallback — every terminal node gets retries, an alternate capability
 *    when one exists, and a HITL (`human`) fallback node;
 * 6. contracts — input/output schemas compiled from facets with provenance,
 *    and the merged instruction.
 *
 * Problems found on the way are returned as diagnostics, never thrown.
 */
import {
  FacetCatalogError,
  PlanGraphSchema,
  fnv1a,
  type CompiledFacetSchema,
  type PlanDiagnostic,
  type PlanGraph,
  type PlanNode,
} from '@af/plan';
import { rankCandidates } from './capability-selection.js';
import { flexMeta, type EnvelopeAnalysis } from './envelope-analysis.js';
import { literalText, nodeIdFor } from './node-ids.js';
import { buildPlanNode } from './plan-nodes.js';
import { BRANCH_NODE, NORMALIZE_NODE, STRUCTURE_NODE, type AssembledNode, type AssembledPlan, type AssembleOptions, type OutputBinding } from './assembled-plan.js';
import type { CapabilityView, DraftNode, PlanDraft, PlanningContext } from './types.js';

export { BRANCH_NODE, NORMALIZE_NODE, STRUCTURE_NODE, type AssembledNode, type AssembledPlan, type AssembleOptions, type OutputBinding } from './assembled-plan.js';

const RESERVED = new Set([STRUCTURE_NODE, NORMALIZE_NODE, BRANCH_NODE]);
const NODE_ID = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;
const PLANNER_STAGES = new Set(['structuring', 'execution', 'validation', 'routing']);

const hard = (constraintId: string, cause: PlanDiagnostic['cause'], suggestion: string, extra: Partial<PlanDiagnostic> = {}): PlanDiagnostic => ({
  severity: 'hard',
  status: 'unsatisfied',
  constraintId,
  cause,
  suggestion,
  ...extra,
});

export function assemblePlan(ctx: PlanningContext, analysis: EnvelopeAnalysis, draft: PlanDraft, options: AssembleOptions): AssembledPlan {
  return new Assembler(ctx, analysis, options).run(draft);
}

class Assembler {
  private readonly diagnostics: PlanDiagnostic[] = [];
  private readonly nodes = new Map<string, AssembledNode>();
  private readonly caps = new Map<string, CapabilityView>();
  private readonly planNodes = new Map<string, PlanNode>();

  constructor(
    private readonly ctx: PlanningContext,
    private readonly a: EnvelopeAnalysis,
    private readonly o: AssembleOptions,
  ) {
    for (const c of ctx.capabilities) this.caps.set(c.capabilityId, c);
  }

  run(draft: PlanDraft): AssembledPlan {
    for (const n of this.a.lockedNodes) {
      const meta = flexMeta(n);
      this.nodes.set(n.id, {
        id: n.id,
        stage: (meta?.stage as DraftNode['stage']) ?? 'execution',
        ...(n.capabilityId ? { capabilityId: n.capabilityId } : {}),
        inputFacets: meta?.inputFacets ?? [],
        unsourced: [],
        outputFacets: meta?.outputFacets ?? [],
        dependsOn: [...n.dependsOn],
        locked: true,
        ...(n.fallbackFor ? { fallbackFor: n.fallbackFor } : {}),
      });
    }
    this.readDraft(draft);
    const branchCount = this.expandBranches();
    const structuringInjected = this.injectStructuring();
    this.wireAll();
    const { bindings, normalized } = this.bindOutputs();
    this.addFallbacks(normalized ? [NORMALIZE_NODE] : [...new Set(bindings.map((b) => b.nodeId))]);
    const plan = this.build(bindings, { normalized, structuringInjected, branchCount }, draft.rationale);
    return {
      ...(plan ? { plan } : {}),
      nodes: [...this.nodes.values()],
      bindings,
      diagnostics: this.diagnostics,
      normalizationInjected: normalized,
      structuringInjected,
      branchCount,
      derivedCapabilities: [...this.nodes.values()].filter((n) => n.derivedFrom).map((n) => n.id),
    };
  }

  // 0. the draft as given, with its problems reported
  private readDraft(draft: PlanDraft): void {
    const ids = new Set(this.nodes.keys());
    draft.nodes.forEach((d, i) => {
      const at = `nodes[${i}]`;
      if (!NODE_ID.test(d.id) || RESERVED.has(d.id) || d.id.startsWith('fallback_') || ids.has(d.id)) {
        const why = !NODE_ID.test(d.id) ? 'must be an identifier (letters, digits, _)' : ids.has(d.id) ? 'is used twice' : 'is reserved for planner-managed nodes';
        this.diagnostics.push(hard('structure.node_id', 'schema_incompatible', `${at}.id '${d.id}' ${why}; rename the node`, { nodeId: d.id }));
        return;
      }
      if (!PLANNER_STAGES.has(d.stage)) {
        this.diagnostics.push(hard('structure.stage', 'schema_incompatible', `${d.id}: stage '${d.stage}' is added by the planner itself (branch, transformation, fallback); draft structuring, execution, validation or routing nodes only`, { nodeId: d.id }));
        return;
      }
      ids.add(d.id);
      const node: AssembledNode = { id: d.id, stage: d.stage, inputFacets: [...new Set(d.inputFacets)], requestedInputs: [...new Set(d.inputFacets)], unsourced: [], outputFacets: [...new Set(d.outputFacets)], dependsOn: [...new Set(d.dependsOn)], locked: false };
      if (d.stage !== 'routing') {
        const capId = d.capabilityId ?? d.derivedFrom;
        const cap = capId ? this.caps.get(capId) : undefined;
        if (cap) node.capability = cap;
        if (d.capabilityId) node.capabilityId = d.capabilityId;
        else if (d.derivedFrom) {
          node.derivedFrom = d.derivedFrom;
          node.capabilityId = `${d.derivedFrom}~derived`;
        }
      }
      this.nodes.set(d.id, node);
      this.draftExtras.set(d.id, d);
    });
    for (const n of this.nodes.values()) {
      if (n.locked) continue;
      n.dependsOn = n.dependsOn.filter((dep) => {
        if (this.nodes.has(dep) && dep !== n.id) return true;
        this.diagnostics.push(hard('structure.depends_on', 'schema_incompatible', `${n.id}: dependsOn names '${dep}', which is not a node of the draft`, { nodeId: n.id }));
        return false;
      });
    }
  }

  private readonly draftExtras = new Map<string, DraftNode>();

  private children(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const n of this.nodes.values()) for (const d of n.dependsOn) (out.get(d) ?? out.set(d, []).get(d)!).push(n.id);
    return out;
  }

  /** Ancestors nearest first (breadth-first over dependsOn; cycle-safe). */
  private ancestors(id: string): string[] {
    const seen = new Set<string>([id]);
    const order: string[] = [];
    let frontier = [...(this.nodes.get(id)?.dependsOn ?? [])];
    while (frontier.length) {
      const next: string[] = [];
      for (const f of frontier) {
        if (seen.has(f)) continue;
        seen.add(f);
        order.push(f);
        next.push(...(this.nodes.get(f)?.dependsOn ?? []));
      }
      frontier = next;
    }
    return order;
  }

  // 1. branch expansion
  private expandBranches(): number {
    const count = this.a.variantCount;
    if (count <= 1) return 0;
    const goal = new Set(this.a.goalBindings.map((b) => b.facet));
    const roots = [...this.nodes.values()].filter((n) => !n.locked && n.capability && n.outputFacets.some((f) => goal.has(f)));
    if (roots.length === 0) return 0;
    const kids = this.children();
    const inBranch = new Set<string>();
    const stack = roots.map((r) => r.id);
    while (stack.length) {
      const id = stack.pop()!;
      if (inBranch.has(id)) continue;
      inBranch.add(id);
      stack.push(...(kids.get(id) ?? []).filter((k) => !this.nodes.get(k)!.locked));
    }
    const branchDeps = new Set<string>();
    for (const id of inBranch) for (const d of this.nodes.get(id)!.dependsOn) if (!inBranch.has(d)) branchDeps.add(d);
    const originals = [...inBranch].map((id) => this.nodes.get(id)!);
    for (const id of inBranch) this.nodes.delete(id);
    const entry: string[] = [];
    for (let i = 1; i <= count; i++) {
      for (const n of originals) {
        const deps = n.dependsOn.filter((d) => inBranch.has(d)).map((d) => `${d}_v${i}`);
        const isEntry = deps.length === 0;
        if (isEntry) entry.push(`${n.id}_v${i}`);
        this.nodes.set(`${n.id}_v${i}`, { ...n, id: `${n.id}_v${i}`, dependsOn: isEntry ? [BRANCH_NODE] : [...deps, BRANCH_NODE].filter((d, k, all) => all.indexOf(d) === k && (d !== BRANCH_NODE || isEntry)), variant: { index: i, count, branchId: BRANCH_NODE } });
        const extra = this.draftExtras.get(n.id);
        if (extra) this.draftExtras.set(`${n.id}_v${i}`, extra);
      }
    }
    this.nodes.set(BRANCH_NODE, { id: BRANCH_NODE, stage: 'branch', inputFacets: [], unsourced: [], outputFacets: [], dependsOn: [...branchDeps], locked: false });
    this.branchTargets = entry;
    return 1;
  }

  private branchTargets: string[] = [];

  // 2. input structuring
  private injectStructuring(): boolean {
    const needed = new Set<string>();
    for (const n of this.nodes.values()) {
      if (n.locked || !n.capability) continue;
      const anc = this.ancestors(n.id).map((id) => this.nodes.get(id)!);
      for (const f of n.inputFacets) {
        if (anc.some((x) => x.outputFacets.includes(f))) continue;
        if (this.a.sources.get(f)?.kind === 'structured') needed.add(f);
      }
    }
    if (needed.size === 0) return false;
    const facets = [...needed];
    this.nodes.set(STRUCTURE_NODE, { id: STRUCTURE_NODE, stage: 'transformation', inputFacets: [], unsourced: [], outputFacets: facets, dependsOn: [], locked: false });
    for (const n of this.nodes.values()) {
      if (n.locked || !n.capability || n.id === STRUCTURE_NODE) continue;
      const anc = this.ancestors(n.id);
      if (anc.includes(STRUCTURE_NODE)) continue;
      const uses = n.inputFacets.some((f) => needed.has(f) && !anc.some((id) => this.nodes.get(id)!.outputFacets.includes(f)));
      // A branch clone reaches it through the branch node.
      if (uses) (n.variant && !n.dependsOn.includes(BRANCH_NODE) ? this.nodes.get(BRANCH_NODE)! : n.variant ? this.nodes.get(BRANCH_NODE)! : n).dependsOn.push(STRUCTURE_NODE);
    }
    const branch = this.nodes.get(BRANCH_NODE);
    if (branch) branch.dependsOn = [...new Set(branch.dependsOn)];
    return true;
  }

  // 3. wiring
  private readonly wiring = new Map<string, Record<string, unknown>>();

  private sourceRef(nodeId: string, f: string): string | undefined {
    for (const id of this.ancestors(nodeId)) {
      const anc = this.nodes.get(id)!;
      if (anc.outputFacets.includes(f) && !anc.fallbackFor) return `{${this.planKey(id)}.${f}}`;
    }
    const s = this.a.sources.get(f);
    if (!s) return undefined;
    if (s.kind === 'input') return `{input.${s.key}}`;
    if (s.kind === 'locked') {
      const n = this.nodes.get(nodeId)!;
      if (!this.ancestors(nodeId).includes(s.nodeId)) n.dependsOn.push(s.nodeId);
      return `{${s.outputKey}.${f}}`;
    }
    return undefined;
  }

  private planKey(id: string): string {
    const locked = this.a.lockedNodes.find((n) => n.id === id);
    return locked?.outputKey ?? id;
  }

  private wireAll(): void {
    for (const n of this.nodes.values()) {
      if (n.locked || !n.capability) continue;
      const inputs: Record<string, unknown> = {};
      const selected: string[] = [];
      for (const f of n.inputFacets) {
        const ref = this.sourceRef(n.id, f);
        if (ref) {
          inputs[f] = ref;
          selected.push(f);
        } else if (this.ctx.catalog.get(f)?.requiredByDefault !== false) {
          n.unsourced.push(f);
        }
      }
      n.inputFacets = selected;
      this.wiring.set(n.id, inputs);
    }
  }

  // 4. output bindings and normalisation
  private bindOutputs(): { bindings: OutputBinding[]; normalized: boolean } {
    const sinks = new Map<string, string[]>();
    for (const b of this.a.goalBindings) {
      const producers = [...this.nodes.values()].filter((n) => n.outputFacets.includes(b.facet) && !n.fallbackFor && n.stage !== 'transformation');
      const producerIds = new Set(producers.map((p) => p.id));
      // The last producer on each path: no descendant produces the facet again.
      const last = producers.filter((p) => !producers.some((q) => q.id !== p.id && this.ancestors(q.id).includes(p.id)));
      sinks.set(b.property, last.filter((p) => producerIds.has(p.id)).map((p) => p.id));
    }
    const bound = this.a.goalBindings.filter((b) => (sinks.get(b.property) ?? []).length > 0);
    const normalized = bound.some((b) => !b.direct || sinks.get(b.property)!.length > 1);
    if (!normalized) {
      return { bindings: bound.map((b) => ({ property: b.property, facet: b.facet, nodeId: sinks.get(b.property)![0]!, pointer: `/${b.facet}` })), normalized: false };
    }
    const deps = [...new Set(bound.flatMap((b) => sinks.get(b.property)!))];
    const inputs: Record<string, unknown> = {};
    for (const b of bound) {
      const refs = sinks.get(b.property)!.map((id) => `{${this.planKey(id)}.${b.facet}}`);
      inputs[b.property || 'output'] = refs.length === 1 ? refs[0] : refs;
    }
    this.nodes.set(NORMALIZE_NODE, { id: NORMALIZE_NODE, stage: 'transformation', inputFacets: [...new Set(bound.map((b) => b.facet))], unsourced: [], outputFacets: [], dependsOn: deps, locked: false });
    this.wiring.set(NORMALIZE_NODE, inputs);
    return { bindings: bound.map((b) => ({ property: b.property, facet: b.facet, nodeId: NORMALIZE_NODE, pointer: b.property ? `/${b.property}` : '' })), normalized: true };
  }

  // 5. retries, alternates, HITL fallback
  private addFallbacks(terminals: string[]): void {
    const kids = this.children();
    const sinkIds = terminals.length ? terminals : [...this.nodes.values()].filter((n) => !n.locked && !kids.has(n.id) && n.stage !== 'branch').map((n) => n.id);
    for (const n of [...this.nodes.values()]) {
      if (n.locked || !n.capability || n.derivedFrom) continue;
      const alt = this.alternateFor(n);
      if (!alt) continue;
      const id = nodeIdFor(`${n.id}__alt`, new Set(this.nodes.keys()));
      this.nodes.set(id, { id, stage: n.stage, capability: alt, capabilityId: alt.capabilityId, inputFacets: [], unsourced: [], outputFacets: [...alt.outputFacets], dependsOn: [...n.dependsOn], locked: false, fallbackFor: n.id, ...(n.variant ? { variant: n.variant } : {}) });
      const inputs: Record<string, unknown> = {};
      const selected: string[] = [];
      for (const f of alt.inputFacets) {
        const ref = this.sourceRef(id, f);
        if (ref) {
          inputs[f] = ref;
          selected.push(f);
        }
      }
      this.nodes.get(id)!.inputFacets = selected;
      this.wiring.set(id, inputs);
    }
    for (const t of sinkIds) {
      const target = this.nodes.get(t);
      if (!target || target.locked) continue;
      const id = `fallback_${t}`;
      this.nodes.set(id, { id, stage: 'fallback', inputFacets: [...target.inputFacets], unsourced: [], outputFacets: [...target.outputFacets], dependsOn: [...target.dependsOn], locked: false, fallbackFor: t });
      this.wiring.set(id, { ...(this.wiring.get(t) ?? {}) });
    }
  }

  /** Another selectable capability producing the node's outputs from inputs the node already has. */
  private alternateFor(n: AssembledNode): CapabilityView | undefined {
    const have = new Set(n.inputFacets);
    const candidates = this.a.selectable.filter(
      (c) =>
        c.capabilityId !== n.capability!.capabilityId &&
        n.outputFacets.every((f) => c.outputFacets.includes(f)) &&
        c.inputFacets.every((f) => have.has(f) || this.ctx.catalog.get(f)?.requiredByDefault === false),
    );
    const scope = this.ctx.envelope.constraints.scope;
    return rankCandidates(candidates, () => 1, { policy: this.ctx.envelope.policies.planner, ...(scope ? { scope } : {}) })[0];
  }

  // 6. contracts, instructions and the PlanGraph
  private compile(n: AssembledNode, names: string[], direction: 'input' | 'output' | 'any', field: string): CompiledFacetSchema | undefined {
    try {
      return this.ctx.compiler.compileContracts(names, { direction, field });
    } catch (e) {
      if (!(e instanceof FacetCatalogError)) throw e;
      for (const issue of e.issues) {
        this.diagnostics.push(hard(`facet.${issue.code}`, issue.code === 'unknown_facet' ? 'missing_producer' : 'schema_incompatible', `${n.id}: ${issue.message}`, { nodeId: n.id, ...(n.capabilityId ? { capabilityId: n.capabilityId } : {}), details: { field: issue.field } }));
      }
      return undefined;
    }
  }

  private build(bindings: OutputBinding[], flags: { normalized: boolean; structuringInjected: boolean; branchCount: number }, rationale?: string): PlanGraph | undefined {
    const { catalog, envelope } = this.ctx;
    const out: PlanNode[] = [];
    for (const n of this.order()) {
      if (n.locked) {
        out.push(this.a.lockedNodes.find((l) => l.id === n.id)!);
        continue;
      }
      out.push(
        buildPlanNode(n, {
          ctx: this.ctx,
          a: this.a,
          draft: this.draftExtras.get(n.id),
          inputs: this.wiring.get(n.id) ?? {},
          fallbacks: [...this.nodes.values()].filter((x) => x.fallbackFor === n.id).map((x) => x.id),
          branchTargets: this.branchTargets,
          bindings,
          built: out,
          compile: (names, direction, field) => this.compile(n, names, direction, field),
        }),
      );
    }
    if (out.length === 0) {
      // Nothing to build; the validators say why (missing producers). Only an otherwise unexplained empty draft needs its own diagnostic.
      if (this.a.goalBindings.length === 0 && this.a.unboundProperties.length === 0) this.diagnostics.push(hard('structure.empty', 'schema_incompatible', 'the draft has no nodes: plan at least one capability'));
      return undefined;
    }
    const planId = `flex_${fnv1a(JSON.stringify(out.map((x) => [x.id, x.dependsOn, x.capabilityId])))}`;
    const parsed = PlanGraphSchema.safeParse({
      id: planId,
      name: envelope.objective.slice(0, 200),
      version: this.o.version,
      provenance: { frontEnd: 'planner' },
      executionMode: 'hybrid',
      runContext: 'interactive',
      inputs: Object.entries(envelope.inputs).map(([name, v]) => ({ name, type: Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v, required: true })),
      nodes: out,
      metadata: {
        flex: {
          planVersion: this.o.version,
          planVersionTag: `v${this.o.version}-${planId.slice(5)}`,
          plannerRuntime: this.o.plannerRuntime,
          ...(this.o.plannerModel ? { plannerModel: this.o.plannerModel } : {}),
          attempt: this.o.attempt,
          objective: literalText(envelope.objective),
          goalFacets: this.a.goalFacets,
          outputBindings: bindings,
          branchCount: flags.branchCount,
          variantCount: this.a.variantCount,
          normalizationInjected: flags.normalized,
          structuringInjected: flags.structuringInjected,
          derivedCapabilities: [...this.nodes.values()].filter((x) => x.derivedFrom).map((x) => x.id),
          catalogRevision: catalog.revision,
          lockedNodeIds: this.a.lockedNodes.map((l) => l.id),
          ...(rationale ? { rationale: literalText(rationale) } : {}),
        },
      },
    });
    if (!parsed.success) {
      for (const issue of parsed.error.issues.slice(0, 20)) {
        this.diagnostics.push(hard('structure.plan_schema', 'schema_incompatible', `${issue.path.join('.')}: ${issue.message}`));
      }
      return undefined;
    }
    return parsed.data;
  }

  /**
   * Topological order: always the earliest-inserted ready node next, a
   * fallback right after its primary; nodes on a cycle keep their place at the end.
   */
  private order(): AssembledNode[] {
    const all = [...this.nodes.values()];
    const done = new Set<string>();
    const out: AssembledNode[] = [];
    const ready = (n: AssembledNode) => !done.has(n.id) && n.dependsOn.every((d) => done.has(d) || !this.nodes.has(d)) && (!n.fallbackFor || done.has(n.fallbackFor) || !this.nodes.has(n.fallbackFor));
    const place = (n: AssembledNode) => {
      done.add(n.id);
      out.push(n);
      for (const f of all) if (f.fallbackFor === n.id && ready(f)) place(f);
    };
    for (let next = all.find(ready); next; next = all.find(ready)) place(next);
    return [...out, ...all.filter((n) => !done.has(n.id))];
  }
}
