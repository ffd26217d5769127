/**
 * What the master agent is asked: plan which agents answer the question,
 * with `depends_on` between them, given the user's long-term memory and the
 * conversation so far. The answer is the `{analysis, execution_plan}` the
 * master-plan compiler takes.
 */
import type { ConnectorTool, QueryAgent } from './query-agents.js';
import type { LongTermMemory } from './memory.js';

export const MASTER_PLAN_SCHEMA = {
  type: 'object',
  properties: {
    analysis: { type: 'object', properties: { intent: { type: 'string' }, entities: { type: 'object' } } },
    execution_plan: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          agent_id: { type: 'string' },
          agent_name: { type: 'string' },
          task: { type: 'string' },
          entities: { type: 'object' },
          tools: { type: 'array', items: { type: 'string' } },
          depends_on: { type: 'array', items: { type: 'string' } },
        },
        required: ['agent_id', 'agent_name', 'task'],
      },
    },
  },
  required: ['execution_plan'],
} as const;

export function masterInstructions(agents: readonly QueryAgent[], tools: readonly ConnectorTool[]): string {
  const lines = [
    'You are the master agent. Plan which agents answer the user\'s query. Give each agent a unique agent_id (e.g. rag_agent_0), its agent_name, a precise task, extracted entities (date_range, doc_type, names, …) and depends_on (agent_ids whose output it needs). Agents without dependencies run in parallel.',
    'Use the user\'s long-term memory (critical_facts, preferences) and the conversation history to interpret the query.',
    'Agents:',
    ...agents.map((a) => `- ${a.name}: ${a.description}`),
  ];
  if (agents.some((a) => a.name === 'mail_agent')) {
    lines.push('mail_agent tools (list the ones it needs in tools):', ...tools.map((t) => `- ${t.name} (${t.method}): ${t.description}`));
  }
  return lines.join('\n');
}

export function masterContext(query: string, memory: LongTermMemory, history: ReadonlyArray<{ role: string; content: string }>): Record<string, unknown> {
  return { query, long_term_memory: memory, conversation_history: history.slice(-10) };
}
