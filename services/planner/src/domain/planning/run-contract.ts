/**
 * The caller's output contract and goal conditions restated over the run's
 * output, for StartRun: the orchestrator checks the final output keyed by
 * node output key, while the caller speaks of contract properties and facets.
 * The output bindings of the plan say where each property lives
 * (`copyVariants` → `normalize_output` at `/copyVariants`), so the contract
 * becomes `{normalize_output: {copyVariants: <schema>}}`, and a goal
 * condition on facet `handoff_summary` looks at the last node producing it.
 */
import type { FacetCondition, JsonSchema, OutputContract, PlanGraph } from '@af/plan';
import { flexMeta } from './envelope-analysis.js';
import type { OutputBinding } from './plan-assembler.js';

export interface RunGoalCondition {
  facet: string;
  path: string;
  condition: { jsonLogic: unknown; dsl?: string; canonicalDsl?: string };
  /** The facet or property the caller named. */
  target: string;
}

const isRecord = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function runOutputContract(plan: PlanGraph, contract: OutputContract): { schema: JsonSchema; mode: 'json_schema'; hints?: Record<string, unknown>; constraints: unknown[] } {
  const bindings = (plan.metadata.flex as { outputBindings?: OutputBinding[] } | undefined)?.outputBindings ?? [];
  const props = isRecord(contract.schema.properties) ? contract.schema.properties : {};
  const requiredProps = new Set(Array.isArray(contract.schema.required) ? (contract.schema.required as string[]) : []);
  const nodes: Record<string, { type: 'object'; properties: Record<string, unknown>; required: string[] }> = {};
  const top: Record<string, unknown> = {};
  const requiredNodes = new Set<string>();
  for (const b of bindings) {
    const key = plan.nodes.find((n) => n.id === b.nodeId)?.outputKey ?? b.nodeId;
    if (b.pointer === '') {
      top[key] = contract.schema;
      requiredNodes.add(key);
      continue;
    }
    const name = b.pointer.slice(1);
    const entry = (nodes[key] ??= { type: 'object', properties: {}, required: [] });
    entry.properties[name] = props[b.property] ?? {};
    if (requiredProps.has(b.property)) {
      entry.required.push(name);
      requiredNodes.add(key);
    }
  }
  for (const [key, s] of Object.entries(nodes)) top[key] = s.required.length ? s : { type: 'object', properties: s.properties };
  const schema: JsonSchema = { type: 'object', properties: top, ...(requiredNodes.size ? { required: [...requiredNodes] } : {}) };
  return {
    schema,
    mode: 'json_schema',
    ...(contract.hints ? { hints: contract.hints } : {}),
    constraints: contract.constraints.map((c) => ({ constraintId: c.constraintId, constraint: c.constraint, level: c.level, expr: c.expr.jsonLogic })),
  };
}

export function runGoalConditions(plan: PlanGraph, goals: readonly FacetCondition[]): RunGoalCondition[] {
  const bindings = (plan.metadata.flex as { outputBindings?: OutputBinding[] } | undefined)?.outputBindings ?? [];
  return goals.map((g) => {
    const condition = { jsonLogic: g.condition.jsonLogic, ...(g.condition.dsl ? { dsl: g.condition.dsl } : {}), ...(g.condition.canonicalDsl ? { canonicalDsl: g.condition.canonicalDsl } : {}) };
    const bound = bindings.find((b) => b.property === g.facet) ?? bindings.find((b) => b.facet === g.facet && b.property === '');
    const keyOf = (id: string) => plan.nodes.find((n) => n.id === id)?.outputKey ?? id;
    if (bound) return { facet: keyOf(bound.nodeId), path: `${bound.pointer}${g.path}`, condition, target: g.facet };
    // The last node (in plan order) producing the facet, not counting fallbacks.
    const producer = [...plan.nodes].reverse().find((n) => !n.fallbackFor && flexMeta(n)?.outputFacets.includes(g.facet));
    if (producer) return { facet: producer.outputKey ?? producer.id, path: `/${g.facet}${g.path}`, condition, target: g.facet };
    return { facet: g.facet, path: g.path, condition, target: g.facet };
  });
}
