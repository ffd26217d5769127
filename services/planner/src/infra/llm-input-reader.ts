/**
 * Reads a playbook's `extract_from: query` inputs from a chat message with
 * the chat model (structured output): one value per input, null when the
 * message does not give it. The values are checked afterwards
 * (acceptModelValue in domain/profiles/input-extraction.ts), so an invented
 * one is dropped and a required input then asked for.
 */
import { runStructuredTask, type BaseChatModel } from '@af/llm';
import type { PlaybookInput } from '../domain/profiles/input-extraction.js';

const TIMEOUT_MS = 30_000;

export type InputReader = (query: string, inputs: readonly PlaybookInput[]) => Promise<Record<string, unknown>>;

export function llmInputReader(model: BaseChatModel): InputReader {
  return async (query, inputs) => {
    const properties = Object.fromEntries(
      inputs.map((i) => [i.name, { description: `${i.type}${i.description ? `: ${i.description}` : ''}${i.enum ? ` (one of ${i.enum.map(String).join(', ')})` : ''}; null when the message does not give it` }]),
    );
    const r = await runStructuredTask<Record<string, unknown>>({
      model,
      instructions:
        'Read the values of these inputs from the user\'s message. Copy names exactly as the message writes them; give dates as YYYY-MM-DD. ' +
        'Use null for an input the message does not give: never guess or invent a value.',
      context: { message: query, inputs: inputs.map((i) => ({ name: i.name, type: i.type, ...(i.description ? { description: i.description } : {}), ...(i.enum ? { enum: i.enum } : {}) })) },
      outputSchema: { type: 'object', properties, additionalProperties: true },
      signal: AbortSignal.timeout(TIMEOUT_MS),
      maxAttempts: 2,
    });
    return r.output ?? {};
  };
}
