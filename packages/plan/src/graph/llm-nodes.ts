/**
 * The nodes of a plan that need a chat model (`llm` nodes, map bodies
 * included): a run with one of them cannot do its job where no model is
 * configured, so validation warns and run start refuses.
 */
import type { PlanNode } from '../ir.js';

export interface LlmNodeRef {
  /** Node id (the playbook step name). */
  id: string;
  /** Where the step sits in its source document (`steps[2]`), when known. */
  source?: string;
  action?: string;
}

/** Every `llm` node, in plan order (a map body's nodes after the map). */
export function llmNodes(nodes: readonly PlanNode[]): LlmNodeRef[] {
  const out: LlmNodeRef[] = [];
  for (const node of nodes) {
    if (node.kind === 'llm') {
      const ref: LlmNodeRef = { id: node.id };
      if (node.source !== undefined) ref.source = node.source;
      if (node.action !== undefined) ref.action = node.action;
      out.push(ref);
    }
    if (node.body?.nodes) out.push(...llmNodes(node.body.nodes));
  }
  return out;
}

/** How to give a service a model, for messages that refuse or warn. */
export const CONFIGURE_MODEL_HINT = 'set LLM_PROVIDER (openai, anthropic or ollama) with LLM_MODEL and LLM_API_KEY / LLM_BASE_URL';
