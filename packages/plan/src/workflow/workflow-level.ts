/**
 * Compiles one level of a workflow (the top level, or a loop's body) into
 * nodes: expands parallel groups and fallback steps, resolves references and
 * dependencies, and maps each step type to a node kind.
 */
import { collectReferences, ExprError, isBuiltin } from '@af/expr';
import type { PlanNode } from '../ir.js';
import { RESERVED_ROOTS } from '../graph/reference-roots.js';
import { nearestName } from '../issues/nearest-name.js';
import type { StepIssue } from '../issues/plan-issue.js';
import { TRANSFORM_OPERATIONS, type WorkflowStepInput } from './workflow.schema.js';
import { rewriteDataRefs, workflowCondition } from './workflow-references.js';

export interface StepRecord {
  id: string;
  source: string;
  errors: StepIssue[];
  warnings: StepIssue[];
}

/** Shared by every level of one workflow. */
export interface WorkflowContext {
  records: StepRecord[];
  /** Bare roots that name no step (`{{vip_list}}`): the workflow's input variables. */
  inputs: Set<string>;
}

interface Entry {
  step: WorkflowStepInput;
  source: string;
  /** Declared dependencies inherited from an enclosing parallel group. */
  inherited: string[];
  fallbackFor?: string;
}

const LLM_DECISION_SCHEMA = {
  type: 'object',
  properties: { decision: { type: 'string' }, reasoning: { type: 'string' } },
  required: ['decision'],
};
const CONDITIONAL_SCHEMA = { type: 'object', properties: { result: { type: 'boolean' } }, required: ['result'] };

export class WorkflowLevel {
  private readonly entries: Entry[] = [];
  /** Parallel group id → member ids. */
  private readonly groups = new Map<string, string[]>();
  private readonly primaryIds = new Set<string>();
  private readonly fallbackIds = new Set<string>();

  constructor(
    steps: readonly WorkflowStepInput[],
    private readonly base: string,
    private readonly ctx: WorkflowContext,
    /** Ids of enclosing levels a loop body may read (their reads are hoisted to the loop node). */
    private readonly outerIds: ReadonlySet<string>,
    /** Where outer reads are collected (null at the top level). */
    private readonly hoist: Set<string> | null,
  ) {
    const seen = new Set(ctx.records.map((r) => r.id));
    const add = (step: WorkflowStepInput, source: string, inherited: string[], fallbackFor?: string): void => {
      const record: StepRecord = { id: step.id, source, errors: [], warnings: [] };
      if (seen.has(step.id) || this.groups.has(step.id)) record.errors.push({ code: 'duplicate_step', field: 'id', message: `step id '${step.id}' is used twice` });
      seen.add(step.id);
      this.ctx.records.push(record);
      if (step.type === 'parallel_group') {
        const members = step.steps ?? [];
        if (members.length === 0) record.errors.push({ code: 'missing_required', field: 'steps', message: 'a parallel_group needs steps' });
        this.groups.set(step.id, members.map((m) => m.id));
        members.forEach((m, j) => add(m, `${source}.steps[${j}]`, [...inherited, ...(step.dependencies ?? [])]));
        return;
      }
      const entry: Entry = { step, source, inherited };
      if (fallbackFor !== undefined) {
        entry.fallbackFor = fallbackFor;
        this.fallbackIds.add(step.id);
      } else {
        this.primaryIds.add(step.id);
      }
      this.entries.push(entry);
      step.fallbackSteps?.forEach((f, j) => add(f, `${source}.fallbackSteps[${j}]`, inherited, step.id));
    };
    steps.forEach((s, i) => add(s, base ? `${base}[${i}]` : `[${i}]`, []));
  }

  private record(source: string): StepRecord {
    return this.ctx.records.find((r) => r.source === source)!;
  }

  /** Every id a reference may use for `.data` rewriting at this level. */
  private stepIds(): Set<string> {
    return new Set([...this.primaryIds, ...this.fallbackIds, ...this.outerIds]);
  }

  compile(): PlanNode[] {
    const byId = new Map<string, PlanNode>();
    return this.entries.map((e) => {
      const node = this.compileEntry(e);
      const primary = e.fallbackFor !== undefined ? byId.get(e.fallbackFor) : undefined;
      // A fallback runs in its primary's place, so it waits for what the primary waits for.
      if (primary) node.dependsOn = [...new Set([...primary.dependsOn, ...node.dependsOn])];
      byId.set(node.id, node);
      return node;
    });
  }

  /** Resolves a dependency or reference root to node ids at this level, hoisting outer ones. */
  private resolveRoot(root: string, self: string, field: string, rec: StepRecord, declared: boolean, out: Set<string>, hasPath = true, allowSelf = false): void {
    if (root === self && allowSelf) return;
    if (root === self) {
      rec.errors.push({ code: 'unresolved_reference', field, message: `step '${self}' cannot ${declared ? 'depend on' : 'read'} itself` });
      return;
    }
    if (this.primaryIds.has(root)) {
      out.add(root);
      return;
    }
    const members = this.groups.get(root);
    if (members) {
      if (declared) members.forEach((m) => out.add(m));
      else rec.errors.push({ code: 'unresolved_reference', field, message: `parallel_group '${root}' has no output of its own; read one of its steps (${members.join(', ')})`, ...(members[0] ? { suggestedFix: members[0] } : {}) });
      return;
    }
    if (this.fallbackIds.has(root)) {
      rec.errors.push({ code: 'unresolved_reference', field, message: `'${root}' is a fallback step and only runs when its primary fails; depend on the primary step instead` });
      return;
    }
    if (this.outerIds.has(root) && this.hoist) {
      this.hoist.add(root);
      return;
    }
    if (!declared && (isBuiltin(root) || RESERVED_ROOTS.has(root))) return;
    const fix = nearestName(root, [...this.primaryIds, ...this.groups.keys(), ...this.outerIds]);
    if (!declared && !hasPath) {
      // `{{vip_list}}`: a workflow input variable (seed example), declared as a plan input.
      this.ctx.inputs.add(root);
      if (fix) rec.warnings.push({ code: 'implicit_input', field, message: `'{{${root}}}' names no step, so it is read as a workflow input (did you mean step '${fix}'?)`, suggestedFix: fix });
      return;
    }
    const issue: StepIssue = { code: 'nonexistent_step', field, message: `step '${root}' does not exist${fix ? ` (did you mean '${fix}'?)` : ''}` };
    if (fix) issue.suggestedFix = fix;
    rec.errors.push(issue);
  }

  private readRefs(value: unknown, field: string, self: string, rec: StepRecord, out: Set<string>, allowSelf = false): void {
    try {
      for (const ref of collectReferences(value)) {
        this.resolveRoot(ref.root, self, ref.location ? `${field}.${ref.location}` : field, rec, false, out, ref.path.length > 0, allowSelf);
      }
    } catch (e) {
      if (!(e instanceof ExprError)) throw e;
      rec.errors.push({ code: 'unresolved_reference', field: e.path ? `${field}.${e.path}` : field, message: `malformed reference: ${e.message}` });
    }
  }

  private condition(source: string | Record<string, unknown>, field: string, self: string, rec: StepRecord, out: Set<string>): Record<string, unknown> | undefined {
    try {
      const { logic, roots } = workflowCondition(source, this.stepIds());
      for (const root of roots) this.resolveRoot(root, self, field, rec, false, out);
      return { logic };
    } catch (e) {
      if (!(e instanceof ExprError)) throw e;
      rec.errors.push({ code: 'invalid_condition', field, message: e.message });
      return undefined;
    }
  }

  private compileEntry(entry: Entry): PlanNode {
    const { step, source } = entry;
    const rec = this.record(source);
    const type = step.type ?? 'action';
    const deps = new Set<string>();
    for (const [j, d] of [...entry.inherited, ...(step.dependencies ?? [])].entries()) this.resolveRoot(d, step.id, `dependencies[${j}]`, rec, true, deps);
    const params = step.params ?? {};
    this.readRefs(params, 'params', step.id, rec, deps);
    const ids = this.stepIds();
    const node: PlanNode = { id: step.id, kind: 'tool', inputs: rewriteDataRefs(params, ids), params: {}, dependsOn: [], source };
    if (step.description ?? step.name) node.description = step.description ?? step.name!;
    if (entry.fallbackFor !== undefined) node.fallbackFor = entry.fallbackFor;

    const need = (ok: boolean, field: string, message: string): void => {
      if (!ok) rec.errors.push({ code: 'missing_required', field, message });
    };
    switch (type) {
      case 'action':
        need(step.plugin !== undefined, 'plugin', 'an action step needs a plugin');
        need(step.action !== undefined, 'action', 'an action step needs an action');
        node.action = step.action ?? 'action';
        if (step.plugin !== undefined) node.params = { plugin: step.plugin };
        break;
      case 'llm_decision':
        node.kind = 'llm';
        node.action = 'llm_decision';
        node.params = { prompt: step.description ?? step.name ?? step.id };
        node.outputSchema = LLM_DECISION_SCHEMA;
        break;
      case 'transform': {
        node.kind = 'transform';
        const op = params.operation;
        if (typeof op !== 'string' || !(TRANSFORM_OPERATIONS as readonly string[]).includes(op)) {
          const fix = typeof op === 'string' ? nearestName(op, TRANSFORM_OPERATIONS) : undefined;
          rec.errors.push({ code: op === undefined ? 'missing_required' : 'invalid_field', field: 'params.operation', message: `a transform needs params.operation: one of ${TRANSFORM_OPERATIONS.join(', ')}`, ...(fix ? { suggestedFix: fix } : {}) });
        }
        need(params.input !== undefined, 'params.input', 'a transform needs params.input (the data to transform)');
        node.action = typeof op === 'string' ? op : 'transform';
        break;
      }
      case 'delay': {
        node.kind = 'delay';
        node.action = 'delay';
        const d = params.duration;
        if (typeof d !== 'number' || !Number.isFinite(d) || d < 0) rec.errors.push({ code: 'missing_required', field: 'params.duration', message: 'a delay needs params.duration in milliseconds (a number ≥ 0)' });
        node.inputs = {};
        node.params = { durationMs: typeof d === 'number' ? d : 0 };
        break;
      }
      case 'conditional': {
        node.kind = 'transform';
        node.action = 'evaluate_condition';
        node.outputSchema = CONDITIONAL_SCHEMA;
        if (step.condition === undefined) rec.errors.push({ code: 'missing_required', field: 'condition', message: 'a conditional step needs a condition' });
        else {
          const c = this.condition(step.condition, 'condition', step.id, rec, deps);
          if (c) node.params = { condition: c.logic, conditionDialect: 'jsonlogic' };
        }
        break;
      }
      case 'loop':
        this.compileLoop(step, node, rec, deps, ids);
        break;
      default:
        break;
    }
    if (step.executeIf !== undefined) {
      const c = this.condition(step.executeIf, 'executeIf', step.id, rec, deps);
      if (c) {
        node.condition = JSON.stringify(c.logic);
        node.conditionDialect = 'jsonlogic';
      }
    }
    if (step.cacheKey !== undefined || step.cacheTTL !== undefined) {
      if (step.cacheKey === undefined) rec.errors.push({ code: 'missing_required', field: 'cacheKey', message: 'cacheTTL needs a cacheKey' });
      if (step.cacheTTL === undefined) rec.errors.push({ code: 'missing_required', field: 'cacheTTL', message: 'cacheKey needs a cacheTTL (seconds); without it nothing is ever cached' });
      if (step.cacheKey !== undefined) {
        this.readRefs(step.cacheKey, 'cacheKey', step.id, rec, deps);
        node.cache = { key: rewriteDataRefs(step.cacheKey, ids), ttlSeconds: step.cacheTTL ?? 1 };
      }
    }
    this.errorPolicy(step, node, rec, deps, ids);
    node.dependsOn = [...deps];
    return node;
  }

  private compileLoop(step: WorkflowStepInput, node: PlanNode, rec: StepRecord, deps: Set<string>, ids: Set<string>): void {
    node.kind = 'map';
    node.action = 'loop';
    const params = step.params ?? {};
    const over = step.iterateOver ?? (typeof params.iterateOver === 'string' ? params.iterateOver : undefined);
    if (over === undefined) rec.errors.push({ code: 'missing_required', field: 'iterateOver', message: 'a loop needs iterateOver (a reference to an array)' });
    const itemsFrom = over === undefined ? undefined : over.includes('{') ? over : `{{${over}}}`;
    if (itemsFrom !== undefined) this.readRefs(itemsFrom, 'iterateOver', step.id, rec, deps);
    const loopSteps = step.loopSteps ?? [];
    if (loopSteps.length === 0) rec.errors.push({ code: 'missing_required', field: 'loopSteps', message: 'a loop needs loopSteps' });
    const hoisted = new Set<string>();
    const body = new WorkflowLevel(loopSteps, `${rec.source}.loopSteps`, this.ctx, new Set([...this.primaryIds, ...this.outerIds]), hoisted);
    const bodyNodes = body.compile();
    // The seed runs a loop's steps one after another for each item.
    bodyNodes.forEach((n, k) => {
      const prev = bodyNodes[k - 1];
      if (prev && !n.fallbackFor && !prev.fallbackFor && !n.dependsOn.includes(prev.id)) n.dependsOn = [...n.dependsOn, prev.id];
    });
    for (const h of hoisted) this.resolveRoot(h, step.id, 'loopSteps', rec, false, deps);
    const maxIterations = step.maxIterations ?? (typeof params.maxIterations === 'number' ? params.maxIterations : 100);
    node.inputs = {};
    node.body = {
      nodes: bodyNodes,
      ...(itemsFrom !== undefined ? { itemsFrom: rewriteDataRefs(itemsFrom, ids) } : {}),
      maxIterations,
      concurrency: 1,
      continueOnError: step.continueOnError ?? false,
    };
  }

  private errorPolicy(step: WorkflowStepInput, node: PlanNode, rec: StepRecord, deps: Set<string>, ids: Set<string>): void {
    const fallback = (step.fallbackSteps ?? []).map((f) => f.id);
    const loop = step.type === 'loop';
    const onError = fallback.length > 0 ? 'fallback' : step.continueOnError && !loop ? 'skip' : 'stop';
    if (fallback.length === 0 && !step.retryPolicy && !step.rollbackAction && !step.rollbackOnError && onError === 'stop') return;
    const policy: NonNullable<PlanNode['errorPolicy']> = { onError, fallback, rollbackOnError: step.rollbackOnError ?? false };
    if (step.retryPolicy) {
      const r = step.retryPolicy;
      policy.retry = { maxRetries: r.maxRetries, backoffMs: r.backoffMs, multiplier: r.backoffMultiplier, maxBackoffMs: 60_000, retryableCodes: r.retryableErrors };
    }
    if (step.rollbackAction) {
      // A rollback may read the step's own output (what it created is what it undoes).
      this.readRefs(step.rollbackAction.params, 'rollbackAction.params', step.id, rec, deps, true);
      policy.rollback = rewriteDataRefs({ ...step.rollbackAction }, ids);
    }
    if (step.rollbackOnError && !step.rollbackAction) {
      rec.warnings.push({ code: 'no_rollback_action', field: 'rollbackOnError', message: 'rollbackOnError is set but the step has no rollbackAction; earlier steps with one are undone' });
    }
    node.errorPolicy = policy;
  }
}
