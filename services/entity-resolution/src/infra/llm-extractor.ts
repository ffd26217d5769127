/**
 * `extract_entities` on free text through the configured chat model
 * (LLM_PROVIDER, structured output checked by Ajv in @af/llm). The model is
 * given the texts with their index and field and answers the entities it
 * finds; what it answers is kept only when it names a text it was given and
 * an entity type that was asked for.
 */
import { runStructuredTask, type BaseChatModel } from '@af/llm';
import type { TextEntityExtractor } from '../app/ports.js';

const INSTRUCTIONS =
  'Find the named people and organisations in each text. Answer every entity once per text, with the index and field of the text it is in, ' +
  'its name exactly as written, its type (PERSON or ORG, or another of the requested types) and your confidence between 0 and 1. ' +
  'Do not invent entities that are not in the text.';

const SCHEMA = {
  type: 'object',
  properties: {
    entities: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer', minimum: 0 },
          field: { type: 'string' },
          name: { type: 'string', minLength: 1 },
          type: { type: 'string', minLength: 1 },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
        },
        required: ['index', 'field', 'name', 'type', 'confidence'],
      },
    },
  },
  required: ['entities'],
};

type Answer = { entities: Array<{ index: number; field: string; name: string; type: string; confidence: number }> };

export class LlmEntityExtractor implements TextEntityExtractor {
  constructor(
    private readonly chat: BaseChatModel,
    readonly model: string,
    private readonly timeoutMs = 60_000,
  ) {}

  async extract(
    texts: ReadonlyArray<{ index: number; field: string; text: string }>,
    entityTypes: readonly string[],
  ) {
    if (texts.length === 0) return [];
    const types = entityTypes.length > 0 ? entityTypes : ['PERSON', 'ORG'];
    const r = await runStructuredTask<Answer>({
      model: this.chat,
      instructions: `${INSTRUCTIONS} Requested types: ${types.join(', ')}.`,
      context: { texts },
      outputSchema: SCHEMA as never,
      maxAttempts: 2,
      schemaName: 'extracted_entities',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const given = new Set(texts.map((t) => `${t.index}\u0000${t.field}`));
    return r.output.entities
      .map((e) => ({ ...e, name: e.name.trim(), type: e.type.toUpperCase() }))
      .filter((e) => e.name && types.includes(e.type) && given.has(`${e.index}\u0000${e.field}`));
  }
}
