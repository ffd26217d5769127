/**
 * Reference checks of a PlanGraph: every `{root.path}` in a node's inputs,
 * params, condition, routes, cache key and map source must name something the
 * node can see — a plan input, a runtime built-in, or the output of a node it
 * (transitively) depends on. A node that reads an output it does not wait for
 * is a `forward_reference`: the value may not exist yet when it runs.
 */
import { collectReferences, ExprError, extractReferences, normalizeCondition, parsePath, type LocatedReference } from '@af/expr';
import type { PlanNode } from '../ir.js';
import { nearestName } from '../issues/nearest-name.js';
import type { PlanIssue } from '../issues/plan-issue.js';
import { conditionSource, storedConditionError, type ConditionDialect } from './condition-check.js';
import { BUILTIN_SUGGESTIONS, isRuntimeRoot } from './reference-roots.js';

/** Transitive-dependency sets as bitsets, filled in topological order. */
export class AncestorSets {
  private readonly words: number;
  private readonly bits: Uint32Array;
  constructor(size: number) {
    this.words = Math.ceil(size / 32) || 1;
    this.bits = new Uint32Array(size * this.words);
  }
  /** node `i` depends (directly) on `d`: i inherits d's ancestors plus d. */
  addEdge(i: number, d: number): void {
    const w = this.words;
    const bi = i * w;
    const bd = d * w;
    for (let k = 0; k < w; k++) this.bits[bi + k]! |= this.bits[bd + k]!;
    this.bits[bi + (d >>> 5)]! |= 1 << (d & 31);
  }
  has(i: number, ancestor: number): boolean {
    return (this.bits[i * this.words + (ancestor >>> 5)]! & (1 << (ancestor & 31))) !== 0;
  }
}

export interface ReferenceScope {
  /** outputKey → index in the node list being checked. */
  keyIndex: Map<string, number>;
  /** Output keys visible from outside (a map body sees its map node's ancestors). */
  outer: ReadonlySet<string>;
  inputs: ReadonlySet<string>;
  /** Null for nodes on / behind a cycle: ancestry is unknown, only existence is checked. */
  ancestors: AncestorSets | null;
}

function located(value: unknown, prefix: string, field: string, issues: PlanIssue[], step: string): LocatedReference[] {
  try {
    return collectReferences(value).map((r) => ({ ...r, location: r.location ? `${prefix}.${r.location}` : prefix }));
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    const at = e.path ? `${prefix}.${e.path}` : prefix;
    issues.push({ code: 'invalid_reference', field: `${field}.${at}`, step, message: `${step}: ${e.message}` });
    return [];
  }
}

/** Every reference of a node with its location relative to the node (`inputs.query`, `condition`, …). */
export function nodeReferences(node: PlanNode, field: string, issues: PlanIssue[]): LocatedReference[] {
  // A subflow's inline plan is the child's graph: its references are the child's own (validated as a plan of its own).
  const params = node.kind === 'subflow' && node.params.plan !== undefined ? Object.fromEntries(Object.entries(node.params).filter(([k]) => k !== 'plan')) : node.params;
  const refs: LocatedReference[] = [
    ...located(node.inputs, 'inputs', field, issues, node.id),
    ...located(params, 'params', field, issues, node.id),
  ];
  if (node.condition !== undefined && (node.conditionDialect ?? 'playbook') === 'playbook') {
    refs.push(...located(node.condition, 'condition', field, issues, node.id));
  }
  node.routes?.forEach((r, k) => {
    if ((r.conditionDialect ?? 'playbook') === 'playbook') refs.push(...located(r.condition, `routes[${k}].condition`, field, issues, node.id));
  });
  if (node.cache) refs.push(...located(node.cache.key, 'cache.key', field, issues, node.id));
  if (node.body?.itemsFrom !== undefined) {
    const from = node.body.itemsFrom;
    // itemsFrom may be written bare (`step.results`) or braced (`{step.results}`).
    const text = from.includes('{') ? from : `{${from}}`;
    try {
      refs.push(...extractReferences(text).map((r) => ({ ...r, location: 'body.itemsFrom' })));
    } catch (e) {
      if (!(e instanceof ExprError)) throw e;
      issues.push({ code: 'invalid_reference', field: `${field}.body.itemsFrom`, step: node.id, message: `${node.id}: ${e.message}` });
    }
  }
  return refs;
}

/**
 * The roots (`step` of `{step.path}`) a node reads in its inputs, params,
 * condition, routes, cache key and map source — including the variables of
 * conditions in the other dialects (JSON-Logic `var` paths of a workflow
 * step's `executeIf` or a conditional's condition, `field`s of object
 * conditions, DSL paths): `{"var": "step3.result"}` reads `step3`.
 * Malformed references and conditions are left out (validation reports them).
 */
export function referencedRoots(node: PlanNode): Set<string> {
  const roots = new Set(nodeReferences(node, node.id, []).map((r) => r.root));
  if (node.condition !== undefined) addConditionRoots(roots, () => conditionSource(node.condition!, node.conditionDialect), node.conditionDialect);
  for (const r of node.routes ?? []) addConditionRoots(roots, () => conditionSource(r.condition, r.conditionDialect), r.conditionDialect);
  // A workflow `conditional` step: its condition is a param, JSON-Logic (an object) unless said otherwise.
  if (node.action === 'evaluate_condition' && node.params.condition !== undefined) {
    const dialect = node.params.conditionDialect ?? (typeof node.params.condition === 'string' ? 'playbook' : 'object');
    if (DIALECTS.has(dialect)) addConditionRoots(roots, () => node.params.condition, dialect as ConditionDialect);
  }
  return roots;
}

const DIALECTS: ReadonlySet<unknown> = new Set<ConditionDialect>(['playbook', 'object', 'jsonlogic', 'dsl']);

/** Adds the roots of the variables a non-playbook condition reads (playbook text is read as `{…}` references already). */
function addConditionRoots(roots: Set<string>, source: () => unknown, dialect: ConditionDialect | undefined): void {
  if ((dialect ?? 'playbook') === 'playbook') return;
  let variables: string[];
  try {
    variables = normalizeCondition(source(), { dialect: dialect! }).variables;
  } catch {
    return;
  }
  for (const v of variables) {
    try {
      roots.add(parsePath(v).root);
    } catch {
      roots.add(v.split(/[.[]/)[0]!);
    }
  }
}

/** Checks the references and conditions of node `i` (its document path is `field`). */
export function checkNodeReferences(nodes: readonly PlanNode[], i: number, field: string, scope: ReferenceScope, issues: PlanIssue[]): void {
  const node = nodes[i]!;
  for (const ref of nodeReferences(node, field, issues)) {
    const where = `${field}.${ref.location}`;
    const k = scope.keyIndex.get(ref.root);
    if (k !== undefined) {
      const target = nodes[k]!;
      if (k === i) {
        issues.push({ code: 'forward_reference', field: where, step: node.id, message: `${node.id}: '{${ref.raw}}' reads the node's own output` });
      } else if (scope.ancestors && !scope.ancestors.has(i, k)) {
        issues.push({
          code: 'forward_reference',
          field: where,
          step: node.id,
          message: `${node.id}: '{${ref.raw}}' reads the output of '${target.id}', which ${node.id} does not depend on, so it may not exist yet`,
          suggestedFix: `add '${target.id}' to dependsOn`,
        });
      }
      continue;
    }
    if (scope.outer.has(ref.root) || scope.inputs.has(ref.root) || isRuntimeRoot(ref.root)) continue;
    const candidates = [...scope.keyIndex.keys(), ...scope.outer, ...scope.inputs, ...BUILTIN_SUGGESTIONS];
    const fix = nearestName(ref.root, candidates);
    const isStep = ref.path.length > 0;
    const issue: PlanIssue = {
      code: isStep ? 'nonexistent_step' : 'unresolved_reference',
      field: where,
      step: node.id,
      message: `${node.id}: '{${ref.raw}}' names ${isStep ? 'no node output' : 'no input, node output or built-in'} '${ref.root}'${fix ? ` (did you mean '${fix}'?)` : ''}`,
    };
    if (fix) issue.suggestedFix = fix;
    issues.push(issue);
  }
  if (node.condition !== undefined) {
    const err = storedConditionError(node.condition, node.conditionDialect);
    if (err) issues.push({ code: 'invalid_condition', field: `${field}.condition`, step: node.id, message: `${node.id}: ${err}` });
  }
  node.routes?.forEach((r, k) => {
    const err = storedConditionError(r.condition, r.conditionDialect);
    if (err) issues.push({ code: 'invalid_condition', field: `${field}.routes[${k}].condition`, step: node.id, message: `${node.id}: ${err}` });
  });
}
