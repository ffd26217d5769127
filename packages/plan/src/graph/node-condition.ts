/**
 * Compiles the stored condition of a node or route into a closure, decoding
 * its dialect (`conditionDialect`) — what the orchestrator calls once per
 * node before evaluating it per run.
 */
import { compileCondition, type CompiledCondition } from '@af/expr';
import type { PlanNode } from '../ir.js';
import { conditionSource } from './condition-check.js';

/** The compiled condition of `node`, or undefined when it has none. Throws ExprError / SyntaxError on a bad condition (validatePlan reports those first). */
export function compileNodeCondition(node: Pick<PlanNode, 'condition' | 'conditionDialect'>): CompiledCondition | undefined {
  if (node.condition === undefined) return undefined;
  const dialect = node.conditionDialect ?? 'playbook';
  return compileCondition(conditionSource(node.condition, dialect) as never, { dialect });
}
