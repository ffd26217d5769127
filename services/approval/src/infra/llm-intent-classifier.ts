/**
 * Tool HITL instruction classifier on the configured chat model (structured
 * output checked by Ajv). Any failure — no model, a provider error, a slow or
 * unusable answer — falls back to `enhance`, the seed's safe default (the
 * agent does both), and is logged without the instruction text.
 */
import { runStructuredTask, type BaseChatModel } from '@af/llm';
import type { Logger } from '@af/service-kit';
import type { IntentClassifier } from '../app/ports.js';
import { CLASSIFIER_INSTRUCTIONS, CLASSIFIER_SCHEMA, type Intent } from '../domain/effective-task.js';

export class LlmIntentClassifier implements IntentClassifier {
  constructor(
    private readonly model: BaseChatModel | undefined,
    private readonly log: Logger,
    private readonly timeoutMs: number,
  ) {}

  async classify(task: string, instructions: string): Promise<{ intent: Intent; source: 'model' | 'fallback'; error?: string }> {
    if (!this.model) return { intent: 'enhance', source: 'fallback' };
    try {
      const r = await runStructuredTask<{ intent: Intent }>({
        model: this.model,
        instructions: CLASSIFIER_INSTRUCTIONS,
        context: { original_task: task, user_instructions: instructions },
        outputSchema: CLASSIFIER_SCHEMA as never,
        maxAttempts: 2,
        schemaName: 'hitl_intent',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      return { intent: r.output.intent, source: 'model' };
    } catch (err) {
      const error = (err as Error)?.message ?? String(err);
      this.log.warn({ error }, 'instruction classification failed; treating the instructions as enhance');
      return { intent: 'enhance', source: 'fallback', error };
    }
  }
}
