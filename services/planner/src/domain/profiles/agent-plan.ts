/**
 * The plan a `research` or `direct` answer runs as: one llm node.
 *
 * - research: `research_with_tools` over the connector endpoints bound to the
 *   profile (`<connector>__<endpoint>` tools) and the built-in actions it is
 *   offered (research-tools.ts; `team_ids` the teams team tools act on), with
 *   the profile's `max_research_rounds`; with nothing to research with
 *   beyond its journal, the caller is told so.
 * - direct: `llm_analyze`.
 *
 * Both answer in `{answer}`. A profile with `output_config.destinations`
 * gets a trailing `route_output` node `output` that delivers the answer to
 * them once the answer exists (named in the plan's `output_node` metadata,
 * so its routing report is on the run and in its `complete` frame, as a
 * playbook's output block).
 *
 * The profile's system prompt additions and the conversation's recent
 * messages are part of the instructions. Pure.
 */
import { OUTPUT_NODE_METADATA, type PlanGraph, type PlanNode } from '@af/plan';
import { hasResearchSources } from './research-tools.js';

export interface AgentPlanInput {
  strategy: 'research' | 'direct';
  handle: string;
  query: string;
  systemPrompt?: string | null;
  maxRounds?: number;
  /** `<connector>__<endpoint>` names bound to the profile (research). */
  tools: readonly string[];
  /** Built-in actions offered as tools too (research; domain/profiles/research-tools.ts). */
  actions?: readonly string[];
  /** The teams team tools act on (research). */
  teamIds?: readonly string[];
  /** Earlier messages of the conversation, oldest first. */
  history?: ReadonlyArray<{ role: string; content: string }>;
  /** The profile's `output_config.destinations` (checked when the profile was saved). */
  destinations?: readonly unknown[];
}

const HISTORY_MESSAGES = 10;
/** Both answer in `{answer}`: the chat shows it as the final answer. */
const ANSWER_SCHEMA = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
const HISTORY_CHARS = 2_000;

export type AgentPlan = { ok: true; plan: PlanGraph } | { ok: false; reason: string };

export function agentPlan(input: AgentPlanInput): AgentPlan {
  const history = (input.history ?? []).slice(-HISTORY_MESSAGES).map((m) => `${m.role}: ${m.content.slice(0, HISTORY_CHARS)}`);
  const instructions = [
    input.systemPrompt?.trim() ? input.systemPrompt.trim() : undefined,
    history.length ? `Conversation so far:\n${history.join('\n')}` : undefined,
    `Question: ${input.query}`,
  ]
    .filter(Boolean)
    .join('\n\n');
  const base = {
    irVersion: 1 as const,
    version: 1,
    name: `@${input.handle} ${input.strategy}`,
    provenance: { frontEnd: 'planner' as const, sourceId: `agent:${input.handle}` },
    executionMode: 'llm_augmented' as const,
    runContext: 'interactive' as const,
    approvalPolicy: 'require' as const,
    inputs: [],
    metadata: { agent_strategy: input.strategy, ...(input.destinations?.length ? { [OUTPUT_NODE_METADATA]: OUTPUT_NODE } : {}) },
  };
  if (input.strategy === 'research') {
    const actions = input.actions ?? [];
    if (!hasResearchSources(input.tools, actions)) return { ok: false, reason: 'research needs connector endpoints bound to the agent, and none is: bind a connector to it' };
    return {
      ok: true,
      plan: {
        ...base,
        nodes: [
          {
            id: 'research',
            kind: 'llm',
            action: 'research_with_tools',
            description: 'Research the question with the agent\'s connectors',
            inputs: {},
            params: {
              tools: [...input.tools, ...actions],
              ...(input.teamIds?.length ? { team_ids: [...input.teamIds] } : {}),
              instructions, ...(input.systemPrompt?.trim() ? { system_prompt: input.systemPrompt.trim() } : {}), max_rounds: input.maxRounds ?? 3 },
            outputSchema: ANSWER_SCHEMA,
            dependsOn: [],
            outputKey: 'answer',
          },
          ...outputNodes(input, 'research'),
        ],
      },
    };
  }
  return {
    ok: true,
    plan: {
      ...base,
      nodes: [
        {
          id: 'answer',
          kind: 'llm',
          action: 'llm_analyze',
          description: 'Answer the question',
          inputs: {},
          params: { instructions },
          outputSchema: ANSWER_SCHEMA,
          dependsOn: [],
          outputKey: 'answer',
        },
        ...outputNodes(input, 'answer'),
      ],
    },
  };
}

/** The id of the node delivering the answer to the profile's destinations. */
export const OUTPUT_NODE = 'output';

/** The trailing `route_output` node when the profile has destinations; none otherwise. */
function outputNodes(input: AgentPlanInput, after: string): PlanNode[] {
  if (!input.destinations?.length) return [];
  return [
    {
      id: OUTPUT_NODE,
      kind: 'tool',
      action: 'route_output',
      description: "the agent's output_config",
      inputs: { data: '{answer}' },
      params: { destinations: [...input.destinations] },
      dependsOn: [after],
      outputKey: OUTPUT_NODE,
      errorPolicy: { onError: 'stop', fallback: [], rollbackOnError: false },
      source: 'output_config',
    },
  ];
}
