/**
 * Structural validation of a PlanGraph — the gate every plan passes before
 * the orchestrator may run it, whatever front-end produced it: schema, unique
 * ids and output keys, known dependency / fallback / route targets, cycles
 * (with the cycle path), references, conditions, llm output schemas, map
 * bodies, and nodes that can never become ready.
 */
import { PlanGraphSchema, type PlanGraph, type PlanNode } from '../ir.js';
import { nearestName } from '../issues/nearest-name.js';
import type { PlanIssue } from '../issues/plan-issue.js';
import { zodIssuesToPlanIssues } from '../issues/zod-issues.js';
import { findCycle, kahnStages } from './kahn-levels.js';
import { AncestorSets, checkNodeReferences } from './plan-references.js';
import { stronglyConnected } from './strongly-connected.js';
import { planSizeIssue } from '../limits/plan-size.js';

interface GraphContext {
  inputs: ReadonlySet<string>;
  /** Every id seen so far, across map bodies (ids are unique plan-wide). */
  allIds: Set<string>;
}

/**
 * All structural problems of `plan` (empty = the orchestrator may run it).
 * Accepts any value: it is parsed with `PlanGraphSchema` first.
 */
export function validatePlan(plan: unknown, opts: { maxNodes?: number } = {}): PlanIssue[] {
  const tooMany = planSizeIssue(plan, opts.maxNodes);
  if (tooMany) return [tooMany];
  const parsed = PlanGraphSchema.safeParse(plan);
  if (!parsed.success) return zodIssuesToPlanIssues(parsed.error);
  return validateParsedPlan(parsed.data);
}

/** {@link validatePlan} for a plan that already went through `PlanGraphSchema`. */
export function validateParsedPlan(plan: PlanGraph): PlanIssue[] {
  const issues: PlanIssue[] = [];
  const inputs = new Set<string>();
  plan.inputs.forEach((input, i) => {
    if (inputs.has(input.name)) {
      issues.push({ code: 'duplicate_input', field: `inputs[${i}].name`, message: `input '${input.name}' is declared twice` });
    }
    inputs.add(input.name);
  });
  checkGraph(plan.nodes, 'nodes', new Set(), { inputs, allIds: new Set() }, issues);
  return issues;
}

/**
 * A subflow runs a child plan: inline (`params.plan`, validated here as a plan
 * of its own) or a stored playbook (`params.playbook_id`, seed name
 * `workflow_slug`) — exactly one of them.
 */
function checkSubflow(n: PlanNode, f: string, issues: PlanIssue[]): void {
  const inline = n.params.plan;
  const named = n.params.playbook_id ?? n.params.workflow_slug;
  if ((inline === undefined) === (named === undefined)) {
    issues.push({ code: 'invalid_field', field: `${f}.params`, step: n.id, message: `${n.id}: a subflow needs exactly one of params.plan (an inline plan) or params.playbook_id` });
    return;
  }
  if (named !== undefined) {
    if (typeof named !== 'string' || named === '') {
      const key = n.params.playbook_id !== undefined ? 'playbook_id' : 'workflow_slug';
      issues.push({ code: 'invalid_field', field: `${f}.params.${key}`, step: n.id, message: `${n.id}: params.${key} must be a playbook id` });
    }
    return;
  }
  for (const issue of validatePlan(inline)) {
    issues.push({ ...issue, field: `${f}.params.plan.${issue.field}`, step: n.id, message: `${n.id}: child plan: ${issue.message}` });
  }
}

/** What is wrong with a rollback action (workflow seed rollbackAction, or a connector call, or any node action). */
function rollbackProblems(rollback: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const str = (k: string) => typeof rollback[k] === 'string' && (rollback[k] as string).length > 0;
  const obj = (k: string) => rollback[k] === undefined || (typeof rollback[k] === 'object' && rollback[k] !== null && !Array.isArray(rollback[k]));
  if (rollback.connector !== undefined || rollback.endpoint !== undefined) {
    if (!str('connector')) problems.push('connector must be a non-empty string');
    if (!str('endpoint')) problems.push('endpoint must be a non-empty string');
  } else if (!str('action')) {
    problems.push('needs an action (or connector and endpoint)');
  }
  if (!obj('params')) problems.push('params must be an object');
  if (!obj('inputs')) problems.push('inputs must be an object');
  return problems;
}

function checkGraph(nodes: readonly PlanNode[], base: string, outer: ReadonlySet<string>, ctx: GraphContext, issues: PlanIssue[]): void {
  const idIndex = new Map<string, number>();
  const keyIndex = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (ctx.allIds.has(n.id)) {
      issues.push({ code: 'duplicate_id', field: `${base}[${i}].id`, step: n.id, message: `node id '${n.id}' is used twice`, suggestedFix: `${n.id}_${i + 1}` });
      return;
    }
    idIndex.set(n.id, i);
    ctx.allIds.add(n.id);
    const key = n.outputKey ?? n.id;
    if (keyIndex.has(key) || outer.has(key) || ctx.inputs.has(key)) {
      const clash = ctx.inputs.has(key) ? 'a plan input' : 'another node';
      issues.push({ code: 'duplicate_output_key', field: `${base}[${i}].outputKey`, step: n.id, message: `${n.id}: output key '${key}' is already used by ${clash}` });
    } else {
      keyIndex.set(key, i);
    }
  });

  // Unknown targets; a node with an unknown dependency can never become ready.
  const ids = nodes.map((n) => n.id);
  const poisoned = new Set<string>();
  const targetCheck = (target: string, field: string, node: PlanNode): boolean => {
    if (idIndex.has(target)) return true;
    const fix = nearestName(target, ids);
    const issue: PlanIssue = { code: 'nonexistent_step', field, step: node.id, message: `${node.id}: no node '${target}'${fix ? ` (did you mean '${fix}'?)` : ''}` };
    if (fix) issue.suggestedFix = fix;
    issues.push(issue);
    return false;
  };
  nodes.forEach((n, i) => {
    const f = `${base}[${i}]`;
    n.dependsOn.forEach((d, j) => {
      if (!targetCheck(d, `${f}.dependsOn[${j}]`, n)) poisoned.add(n.id);
    });
    n.errorPolicy?.fallback.forEach((t, j) => targetCheck(t, `${f}.errorPolicy.fallback[${j}]`, n));
    const routeTargets = [...(n.routes ?? []).flatMap((r, k) => r.to.map((t, j) => [t, `${f}.routes[${k}].to[${j}]`] as const)), ...(n.elseTo ?? []).map((t, j) => [t, `${f}.elseTo[${j}]`] as const)];
    for (const [t, field] of routeTargets) {
      if (!targetCheck(t, field, n)) continue;
      const target = nodes[idIndex.get(t)!]!;
      if (!target.dependsOn.includes(n.id)) {
        issues.push({ code: 'invalid_route', field, step: n.id, message: `${n.id}: route target '${t}' must list '${n.id}' in its dependsOn, or it could run before the route is decided`, suggestedFix: `add '${n.id}' to the dependsOn of '${t}'` });
      }
    }
    if (n.kind === 'llm' && !n.outputSchema) {
      issues.push({ code: 'missing_output_schema', field: `${f}.outputSchema`, step: n.id, message: `${n.id}: an llm node must declare an output schema so downstream nodes know its fields` });
    }
    if (n.kind === 'map' && (!n.body || n.body.nodes.length === 0 || n.body.itemsFrom === undefined)) {
      issues.push({ code: 'invalid_field', field: `${f}.body`, step: n.id, message: `${n.id}: a map node needs a body with itemsFrom and at least one node` });
    }
    if (n.kind === 'subflow') checkSubflow(n, f, issues);
    if (n.errorPolicy?.rollback) {
      for (const problem of rollbackProblems(n.errorPolicy.rollback)) {
        issues.push({ code: 'invalid_field', field: `${f}.errorPolicy.rollback`, step: n.id, message: `${n.id}: rollback action ${problem}` });
      }
    }
  });

  const depsOf = (id: string): readonly string[] => nodes[idIndex.get(id) ?? -1]?.dependsOn ?? [];
  const uniqueIds = [...idIndex.keys()];
  const { levels, blocked } = kahnStages(uniqueIds, depsOf);
  const onCycle = new Set<string>();
  if (blocked.length > 0) {
    const position = new Map(uniqueIds.map((id, i) => [id, i] as const));
    const components = stronglyConnected(blocked, depsOf).sort((a, b) => position.get(a[0]!)! - position.get(b[0]!)!);
    for (const component of components) {
      const first = component[0]!;
      const selfLoop = component.length === 1 && depsOf(first).includes(first);
      if (component.length === 1 && !selfLoop) continue;
      component.forEach((id) => onCycle.add(id));
      const cycle = selfLoop ? [first, first] : findCycle(component, depsOf);
      // The closing edge: cycle[0] depends on the last distinct node.
      const head = cycle[0]!;
      const closing = cycle[cycle.length - 2]!;
      issues.push({
        code: 'cycle',
        field: `${base}[${idIndex.get(head)}].dependsOn`,
        step: head,
        message: `circular dependency: ${cycle.join(' → ')}`,
        suggestedFix: `remove '${closing}' from the dependsOn of '${head}'`,
      });
    }
  }

  // Everything downstream of a cycle or an unknown dependency never runs.
  const order = levels.flat();
  const dead = new Set<string>([...onCycle, ...poisoned]);
  for (const id of [...order, ...blocked]) {
    if (dead.has(id)) continue;
    const cause = depsOf(id).find((d) => dead.has(d));
    if (cause !== undefined) dead.add(id);
  }
  // Blocked nodes behind a cycle may need several passes (their order is arbitrary).
  for (let changed = true; changed; ) {
    changed = false;
    for (const id of blocked) {
      if (!dead.has(id) && depsOf(id).some((d) => dead.has(d))) {
        dead.add(id);
        changed = true;
      }
    }
  }
  for (const id of dead) {
    if (onCycle.has(id) || poisoned.has(id)) continue;
    const i = idIndex.get(id)!;
    const cause = depsOf(id).find((d) => dead.has(d))!;
    issues.push({ code: 'unreachable_node', field: `${base}[${i}]`, step: id, message: `${id} can never run: it waits for '${cause}', which is on a cycle or waits for a missing node` });
  }

  // Ancestry in topological order; nodes not placed by Kahn keep empty sets and are skipped.
  const ancestors = new AncestorSets(nodes.length);
  for (const id of order) {
    const i = idIndex.get(id)!;
    for (const d of depsOf(id)) {
      const j = idIndex.get(d);
      if (j !== undefined) ancestors.addEdge(i, j);
    }
  }
  const placed = new Set(order);
  nodes.forEach((n, i) => {
    if (idIndex.get(n.id) !== i) return; // duplicate id: already reported
    const scope = { keyIndex, outer, inputs: ctx.inputs, ancestors: placed.has(n.id) ? ancestors : null };
    checkNodeReferences(nodes, i, `${base}[${i}]`, scope, issues);
    if (n.kind === 'map' && n.body && n.body.nodes.length > 0) {
      // The body sees what its map node sees (its ancestors and the outer scope), never the map's own output.
      const visible = new Set(outer);
      for (const [key, k] of keyIndex) if (placed.has(n.id) && ancestors.has(i, k)) visible.add(key);
      checkGraph(n.body.nodes, `${base}[${i}].body.nodes`, visible, ctx, issues);
    }
  });
}
