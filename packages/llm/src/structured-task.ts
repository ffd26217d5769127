/**
 * One LLM call whose answer must match a JSON Schema: native structured output
 * when the model offers it, JSON in text otherwise; Ajv decides, and a failed
 * answer is sent back with the violations until `maxAttempts` is used up.
 */
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { Runnable } from '@langchain/core/runnables';
import { LlmError, StructuredOutputError, type OutputViolation } from './llm-errors.js';
import { messageText, parseJsonText } from './message-text.js';
import { toJsonSchema, type JsonSchema, type StepOutputSchema } from './output-schema.js';
import { validateOutput } from './output-validator.js';
import { repairMessage, structuredTaskMessages } from './task-prompts.js';

export type StructuredMode = 'native' | 'text';

export interface StructuredTaskOptions {
  model: BaseChatModel;
  /** What to do with the context (the step's `instructions`, `prompt`, or a default per action). */
  instructions: string;
  /** The data to work on — the step's resolved inputs. */
  context: unknown;
  /** JSON Schema (as `PlanNode.outputSchema` holds it) or the seed's `{type, fields}` form. */
  outputSchema: JsonSchema | StepOutputSchema;
  /** Model calls allowed in total, first answer included (default 3). */
  maxAttempts?: number;
  /** `auto` (default): native structured output when the model supports it, else JSON in text. */
  mode?: 'auto' | StructuredMode;
  /** Name of the output the provider sees (function / schema name); default `step_output`. */
  schemaName?: string;
  signal?: AbortSignal;
}

export interface StructuredTaskResult<T = unknown> {
  output: T;
  /** Model calls made (1 = the first answer was valid). */
  attempts: number;
  mode: StructuredMode;
}

type Attempt = { ok: true; value: unknown } | { ok: false; shown: unknown; violations: OutputViolation[] };

type NativeRunner = Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: unknown }>;

function nativeRunner(model: BaseChatModel, schema: JsonSchema, name: string): NativeRunner | undefined {
  try {
    return model.withStructuredOutput(schema, { name, includeRaw: true }) as NativeRunner;
  } catch {
    // The model has no structured-output support (no tool calling, no JSON mode): use text.
    return undefined;
  }
}

async function askNative(runner: NativeRunner, messages: BaseMessage[], signal: AbortSignal | undefined): Promise<Attempt> {
  const { raw, parsed } = await runner.invoke(messages, signal ? { signal } : {});
  if (parsed !== null && parsed !== undefined) return { ok: true, value: parsed };
  const text = messageText(raw);
  return { ok: false, shown: text, violations: [{ pointer: '', keyword: 'json', message: text.trim() ? 'the answer was not valid JSON' : 'the answer was empty' }] };
}

async function askText(model: BaseChatModel, messages: BaseMessage[], signal: AbortSignal | undefined): Promise<Attempt> {
  const answer = await model.invoke(messages, signal ? { signal } : {});
  const text = messageText(answer);
  const parsed = parseJsonText(text);
  if (parsed.ok) return { ok: true, value: parsed.value };
  return { ok: false, shown: text, violations: [{ pointer: '', keyword: 'json', message: parsed.reason }] };
}

/**
 * Runs the task; returns the first output that passes the schema, or throws
 * `StructuredOutputError` with the last attempt's violations. Provider errors
 * and aborts propagate unchanged.
 */
export async function runStructuredTask<T = unknown>(options: StructuredTaskOptions): Promise<StructuredTaskResult<T>> {
  const schema = toJsonSchema(options.outputSchema);
  // Compile first: a broken schema is the caller's bug, not something to spend model calls on.
  validateOutput(schema, undefined);
  const maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? 3));
  const wanted = options.mode ?? 'auto';
  const runner = wanted === 'text' ? undefined : nativeRunner(options.model, schema, options.schemaName ?? 'step_output');
  if (wanted === 'native' && !runner) throw new LlmError('tools_unsupported', 'the model does not support native structured output (use mode auto or text)');
  const mode: StructuredMode = runner ? 'native' : 'text';

  const messages = structuredTaskMessages(options.instructions, options.context, schema);
  let last: Extract<Attempt, { ok: false }> | undefined;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    options.signal?.throwIfAborted();
    const prompt = last ? [...messages, repairMessage(last.shown, last.violations)] : messages;
    const answer = runner ? await askNative(runner, prompt, options.signal) : await askText(options.model, prompt, options.signal);
    if (answer.ok) {
      const checked = validateOutput<T>(schema, answer.value);
      if (checked.ok) return { output: checked.value, attempts: attempt, mode };
      last = { ok: false, shown: answer.value, violations: checked.violations };
    } else {
      last = answer;
    }
  }
  throw new StructuredOutputError(last!.violations, maxAttempts, last!.shown);
}
