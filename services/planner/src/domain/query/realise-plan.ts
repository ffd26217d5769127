/**
 * A compiled master plan → the plan the orchestrator runs: each agent's
 * `capability` node becomes the node kind that serves it (see
 * query-agents.ts), keeping its id, dependencies, HITL gate and error policy,
 * so stages, parallelism and denials are the compiler's.
 */
import { PlanGraphSchema, validatePlan, type PlanGraph, type PlanIssue, type PlanNode } from '@af/plan';
import type { LongTermMemory } from './memory.js';

const RAG_RESULTS = 8;
/** The seed's AgentOutput, as much of it as an llm agent writes: whether it did the task, what it found or did, and its data. */
export const AGENT_OUTPUT_SCHEMA = {
  type: 'object',
  properties: { task_done: { type: 'boolean' }, result: { type: 'string' }, data: { type: 'object' } },
  required: ['task_done', 'result'],
};

function realiseNode(node: PlanNode, memory: LongTermMemory, query: string): PlanNode {
  if (node.kind !== 'capability') return node;
  const { capabilityId, ...rest } = node;
  const task = String(node.inputs.task ?? '');
  const dependency_outputs = node.inputs.dependency_outputs ?? {};
  switch (capabilityId) {
    case 'rag_agent':
      return { ...rest, kind: 'tool', action: 'search_documents', inputs: { query: task || query }, params: { max_results: RAG_RESULTS } };
    case 'web_agent':
      return { ...rest, kind: 'tool', action: 'search_web', inputs: { query: task || query }, params: {} };
    case 'mail_agent':
      return {
        ...rest,
        kind: 'llm',
        action: 'research_with_tools',
        outputSchema: AGENT_OUTPUT_SCHEMA,
        inputs: { task, entities: node.inputs.entities ?? {}, dependency_outputs, long_term_memory: memory },
        params: {
          tools: node.params.tools ?? [],
          instructions: `You are the mail agent. Do this task with the mail tools: ${task}. Report what you read or sent; never invent messages.`,
        },
      };
    case 'summary_agent':
      return {
        ...rest,
        kind: 'llm',
        action: 'llm_analyze',
        outputSchema: AGENT_OUTPUT_SCHEMA,
        inputs: { task, dependency_outputs, long_term_memory: memory },
        params: { instructions: `Summarise the dependency outputs for this task: ${task}. Use only what they contain.` },
      };
    default:
      return node;
  }
}

/** The runnable plan, or the issues that keep it from running (validated again after realisation). */
export function realisePlan(compiled: PlanGraph, memory: LongTermMemory, query: string, streaming: boolean): { ok: true; plan: PlanGraph } | { ok: false; errors: PlanIssue[] } {
  const candidate = {
    ...compiled,
    nodes: compiled.nodes.map((n) => realiseNode(n, memory, query)),
    // POST /query has no approval dialog: gated agents are skipped with hitl_skipped_non_streaming.
    metadata: { ...compiled.metadata, query_pipeline: true, ...(streaming ? {} : { non_streaming: true }) },
  };
  const errors = validatePlan(candidate);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, plan: PlanGraphSchema.parse(candidate) };
}
