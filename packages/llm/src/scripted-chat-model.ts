/**
 * A langchain chat model for tests that answers from a script. Unlike
 * `FakeListChatModel` (which wraps around to its first answer and whose
 * `bindTools` copies lose the position) it shares one script between every
 * bound copy, records what it was asked, and fails loudly when the script runs
 * out — a test never passes on an answer nobody wrote.
 */
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type {
  BaseLanguageModelInput,
  StructuredOutputMethodOptions,
  StructuredOutputMethodParams,
} from '@langchain/core/language_models/base';
import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { RunnableLambda, type Runnable } from '@langchain/core/runnables';
import { toJsonSchema as zodToJsonSchema } from '@langchain/core/utils/json_schema';
import { isInteropZodSchema, type InteropZodType } from '@langchain/core/utils/types';
import { LlmError, ScriptExhaustedError } from './llm-errors.js';
import { messageText, parseJsonText } from './message-text.js';
import type { JsonSchema } from './output-schema.js';

export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
  /** Defaults to `call_<call number>_<position>`. */
  id?: string;
}

/**
 * One scripted answer: plain text, a JSON value (sent as its JSON text; what
 * `withStructuredOutput` returns), tool calls (with optional text), a
 * provider failure to simulate, or text in explicit stream chunks (with an
 * optional failure after the last one: a model that breaks mid-stream).
 *
 * Streamed (`.stream()`), plain text and JSON text come word by word (each
 * chunk a word with the whitespace before it); tool calls in one chunk.
 */
export type ScriptedResponse =
  | string
  | { text: string }
  | { json: unknown }
  | { toolCalls: ScriptedToolCall[]; text?: string }
  | { error: string }
  | { chunks: string[]; error?: string };

/** A response, or a function choosing one from what the model was asked. */
export type ScriptStep = ScriptedResponse | ((call: ScriptedCall) => ScriptedResponse);

/** What the model received on one call. */
export interface ScriptedCall {
  /** 1-based position in the script. */
  index: number;
  messages: BaseMessage[];
  /** Names of the tools bound for this call. */
  tools: string[];
  /** The schema asked for through `withStructuredOutput`, when used. */
  structuredOutput?: { name: string; schema: JsonSchema };
}

export interface ScriptedChatModelOptions {
  responses: ScriptStep[];
  /** `false` simulates a model without native structured output (`withStructuredOutput` throws). Default true. */
  structuredOutput?: boolean;
  /** `false` simulates a model without tool calling (`bindTools` throws). Default true. */
  toolCalling?: boolean;
}

export interface ScriptedChatModelCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
  /** Set by `withStructuredOutput`; recorded on the call. */
  scriptedStructuredOutput?: { name: string; schema: JsonSchema };
}

interface ScriptState {
  steps: ScriptStep[];
  calls: ScriptedCall[];
}

function toolName(tool: unknown): string {
  const t = tool as { name?: unknown; function?: { name?: unknown } };
  return String(t?.function?.name ?? t?.name ?? '?');
}

function responseMessage(response: ScriptedResponse, index: number): AIMessage {
  if (typeof response === 'string') return new AIMessage(response);
  if ('chunks' in response) {
    if (response.error !== undefined) throw new Error(response.error);
    return new AIMessage(response.chunks.join(''));
  }
  if ('error' in response) throw new Error(response.error);
  if ('json' in response) return new AIMessage(JSON.stringify(response.json) ?? 'null');
  if ('toolCalls' in response) {
    return new AIMessage({
      content: response.text ?? '',
      tool_calls: response.toolCalls.map((c, k) => ({ type: 'tool_call' as const, id: c.id ?? `call_${index}_${k}`, name: c.name, args: c.args })),
    });
  }
  return new AIMessage(response.text);
}

function renderMessage(m: BaseMessage): string {
  const role = m.type === 'tool' ? `tool(${(m as { name?: string }).name ?? ''})` : m.type;
  const calls = (m as { tool_calls?: Array<{ name: string; args: unknown }> }).tool_calls ?? [];
  const suffix = calls.length ? ` [tool_calls: ${calls.map((c) => `${c.name}(${JSON.stringify(c.args)})`).join(', ')}]` : '';
  return `${role}: ${messageText(m)}${suffix}`;
}

export class ScriptedChatModel extends BaseChatModel<ScriptedChatModelCallOptions> {
  private readonly state: ScriptState;
  private readonly structured: boolean;
  private readonly toolCalling: boolean;

  constructor(options: ScriptedChatModelOptions | ScriptStep[]) {
    super({});
    const o = Array.isArray(options) ? { responses: options } : options;
    this.state = { steps: [...o.responses], calls: [] };
    this.structured = o.structuredOutput ?? true;
    this.toolCalling = o.toolCalling ?? true;
  }

  static override lc_name(): string {
    return 'ScriptedChatModel';
  }

  _llmType(): string {
    return 'scripted';
  }

  /** Every call so far, in order, with the messages it received. */
  get calls(): readonly ScriptedCall[] {
    return this.state.calls;
  }

  /** Each call's messages as `role: text` lines — handy for `toContain` assertions. */
  get prompts(): string[] {
    return this.state.calls.map((c) => c.messages.map(renderMessage).join('\n'));
  }

  /** Scripted responses not used yet. */
  get remaining(): number {
    return Math.max(0, this.state.steps.length - this.state.calls.length);
  }

  /** Appends responses to the script. */
  push(...steps: ScriptStep[]): this {
    this.state.steps.push(...steps);
    return this;
  }

  /** Records the call and picks its scripted response. */
  private next(messages: BaseMessage[], options: this['ParsedCallOptions']): { response: ScriptedResponse; index: number } {
    options.signal?.throwIfAborted();
    const index = this.state.calls.length + 1;
    const call: ScriptedCall = { index, messages: [...messages], tools: (options.tools ?? []).map(toolName) };
    if (options.scriptedStructuredOutput) call.structuredOutput = options.scriptedStructuredOutput;
    this.state.calls.push(call);
    const step = this.state.steps[index - 1];
    if (step === undefined) throw new ScriptExhaustedError(index, this.state.steps.length);
    return { response: typeof step === 'function' ? step(call) : step, index };
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions'], _runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const { response, index } = this.next(messages, options);
    const message = responseMessage(response, index);
    return { generations: [{ text: messageText(message), message }] };
  }

  /** `.stream()`: text word by word (explicit `chunks` as scripted), tool calls in one chunk. */
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { response, index } = this.next(messages, options);
    let pieces: string[];
    let failure: string | undefined;
    if (typeof response === 'object' && 'chunks' in response) {
      pieces = response.chunks;
      failure = response.error;
    } else {
      const message = responseMessage(response, index);
      if (message.tool_calls?.length) {
        const chunk = new AIMessageChunk({
          content: messageText(message),
          tool_call_chunks: message.tool_calls.map((c, k) => ({ type: 'tool_call_chunk' as const, id: c.id, name: c.name, args: JSON.stringify(c.args), index: k })),
        });
        yield new ChatGenerationChunk({ text: messageText(message), message: chunk });
        return;
      }
      pieces = messageText(message).match(/\s*\S+|\s+$/g) ?? [''];
    }
    for (const text of pieces) {
      // A turn of the event loop between chunks, as a provider's stream has: an abort lands between them.
      await new Promise<void>((resolve) => setImmediate(resolve));
      options.signal?.throwIfAborted();
      yield new ChatGenerationChunk({ text, message: new AIMessageChunk({ content: text }) });
      await runManager?.handleLLMNewToken(text);
    }
    if (failure !== undefined) throw new Error(failure);
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<ScriptedChatModelCallOptions>): Runnable<BaseLanguageModelInput, AIMessageChunk, ScriptedChatModelCallOptions> {
    if (!this.toolCalling) throw new LlmError('tools_unsupported', 'this ScriptedChatModel was built with toolCalling: false');
    // Same instance underneath, so bound copies consume one shared script.
    return this.withConfig({ ...kwargs, tools } as Partial<ScriptedChatModelCallOptions>) as unknown as Runnable<
      BaseLanguageModelInput,
      AIMessageChunk,
      ScriptedChatModelCallOptions
    >;
  }

  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    outputSchema: StructuredOutputMethodParams<RunOutput, false> | InteropZodType<RunOutput> | Record<string, any>,
    config?: StructuredOutputMethodOptions<false>,
  ): Runnable<BaseLanguageModelInput, RunOutput>;
  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    outputSchema: StructuredOutputMethodParams<RunOutput, true> | InteropZodType<RunOutput> | Record<string, any>,
    config?: StructuredOutputMethodOptions<true>,
  ): Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: RunOutput }>;
  override withStructuredOutput<RunOutput extends Record<string, any> = Record<string, any>>(
    outputSchema: StructuredOutputMethodParams<RunOutput, boolean> | InteropZodType<RunOutput> | Record<string, any>,
    config?: StructuredOutputMethodOptions<boolean>,
  ): Runnable<BaseLanguageModelInput, RunOutput> | Runnable<BaseLanguageModelInput, { raw: BaseMessage; parsed: RunOutput }> {
    if (!this.structured) throw new LlmError('tools_unsupported', 'this ScriptedChatModel was built with structuredOutput: false');
    const schema = (isInteropZodSchema(outputSchema) ? zodToJsonSchema(outputSchema) : outputSchema) as JsonSchema;
    const structured = { name: config?.name ?? 'extract', schema };
    const includeRaw = config?.includeRaw === true;
    return RunnableLambda.from(async (input: BaseLanguageModelInput, runConfig) => {
      const raw = await this.invoke(input, { signal: runConfig?.signal, scriptedStructuredOutput: structured } as Partial<ScriptedChatModelCallOptions>);
      // Like the providers: function-calling answers carry the value as tool-call args, JSON modes as text.
      const toolArgs = raw.tool_calls?.[0]?.args;
      const parsed = toolArgs !== undefined ? { ok: true as const, value: toolArgs } : parseJsonText(messageText(raw));
      if (includeRaw) return { raw, parsed: parsed.ok ? (parsed.value as RunOutput) : null };
      if (!parsed.ok) throw new Error(`structured output could not be parsed: ${parsed.reason}`);
      return parsed.value as RunOutput;
    }) as Runnable<BaseLanguageModelInput, any>;
  }
}
