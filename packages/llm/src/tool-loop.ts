/**
 * A bounded tool-calling loop: the model answers or asks for tools; we run
 * them and send back the results, at most `maxRounds` times. A failing tool is
 * an observation for the model (a tool message with the error), not a crash;
 * when the budget is spent the model is told to answer, and if it still asks
 * for tools the loop stops and says so.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage, ToolMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { LlmError } from './llm-errors.js';
import { checkTools, redactArgs, toProviderTool, type LlmTool, type ToolInvokeOptions } from './llm-tool.js';
import { asPromptText, messageText, parseJsonText } from './message-text.js';
import { validateOutput } from './output-validator.js';
import { finalRoundMessage } from './task-prompts.js';

export interface ToolLoopOptions {
  model: BaseChatModel;
  tools: readonly LlmTool[];
  systemPrompt: string;
  /** The task: text, or a value sent as JSON. */
  input: unknown;
  /** Rounds of tool calls allowed (default 3, the seed's `max_rounds`). */
  maxRounds?: number;
  signal?: AbortSignal;
  /** Longer tool results are cut (with a note) before they reach the model; default 20 000. */
  maxToolResultChars?: number;
}

/** One tool call as it happened — arguments with secret-looking keys redacted, no results. */
export interface ToolCallTrace {
  round: number;
  name: string;
  args: unknown;
  durationMs: number;
  ok: boolean;
  error?: string;
  /** Size of the result text sent to the model. */
  resultChars?: number;
}

export interface ToolLoopResult {
  /** The final answer's text ('' when there is none). */
  text: string;
  /** The final answer parsed as JSON, when it is JSON. */
  json?: unknown;
  /** Whether the model gave a final answer (false: it still wanted tools after the budget). */
  answered: boolean;
  /** `answer`: the model finished within the budget; `max_rounds`: the budget was used up first. */
  stoppedBy: 'answer' | 'max_rounds';
  /** Tool rounds run. */
  rounds: number;
  trace: ToolCallTrace[];
  /** The whole conversation, for diagnosis and follow-up shaping. */
  messages: BaseMessage[];
}

const DEFAULT_MAX_ROUNDS = 3;
const DEFAULT_MAX_RESULT_CHARS = 20_000;

function resultText(value: unknown, limit: number): string {
  const text = value === undefined ? '(no result)' : asPromptText(value);
  return text.length > limit ? `${text.slice(0, limit)}\n…[truncated ${text.length - limit} characters]` : text;
}

async function runTool(
  tool: LlmTool | undefined,
  name: string,
  args: Record<string, unknown>,
  available: string,
  options: ToolInvokeOptions,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  if (!tool) return { ok: false, error: `unknown tool '${name}'; available tools: ${available || '(none)'}` };
  const checked = validateOutput(tool.schema, args);
  if (!checked.ok) {
    return { ok: false, error: `invalid arguments: ${checked.violations.map((v) => `${v.pointer || '/'} ${v.message}`).join('; ')}` };
  }
  try {
    return { ok: true, value: await tool.invoke(args, options) };
  } catch (err) {
    // A cancelled run is not an observation for the model.
    if (options.signal?.aborted) throw err;
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** Runs the loop; provider errors and aborts propagate, tool errors do not. */
export async function runToolLoop(options: ToolLoopOptions): Promise<ToolLoopResult> {
  const { model, tools, signal } = options;
  const maxRounds = Math.max(0, Math.floor(options.maxRounds ?? DEFAULT_MAX_ROUNDS));
  const limit = options.maxToolResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  checkTools(tools);
  if (typeof model.bindTools !== 'function') throw new LlmError('tools_unsupported', 'the configured chat model does not support tool calling');
  let bound;
  try {
    bound = model.bindTools(tools.map(toProviderTool));
  } catch (err) {
    throw new LlmError('tools_unsupported', `the configured chat model does not support tool calling: ${(err as Error).message}`, { cause: err });
  }
  const byName = new Map(tools.map((t) => [t.name, t]));
  const available = tools.map((t) => t.name).join(', ');
  const messages: BaseMessage[] = [new SystemMessage(options.systemPrompt), new HumanMessage(asPromptText(options.input))];
  const trace: ToolCallTrace[] = [];
  let rounds = 0;

  for (;;) {
    signal?.throwIfAborted();
    if (rounds === maxRounds) messages.push(finalRoundMessage(maxRounds));
    const ai = (await bound.invoke(messages, signal ? { signal } : {})) as AIMessageChunk;
    messages.push(ai);
    // Calls whose arguments the provider could not parse still need an answer (and count as a round).
    const broken = (ai.invalid_tool_calls ?? []).map((c, k) => ({
      id: c.id ?? `invalid_${rounds + 1}_${k}`,
      name: c.name ?? '?',
      error: `the arguments were not valid JSON${c.error ? ` (${c.error})` : ''}; call the tool again with a JSON object`,
    }));
    const calls = ai.tool_calls ?? [];
    const stoppedBy = rounds === maxRounds ? 'max_rounds' : 'answer';
    if ((calls.length === 0 && broken.length === 0) || rounds === maxRounds) {
      const answered = calls.length === 0 && broken.length === 0;
      const text = answered ? messageText(ai) : '';
      const parsed = answered ? parseJsonText(text) : undefined;
      return { text, ...(parsed?.ok ? { json: parsed.value } : {}), answered, stoppedBy, rounds, trace, messages };
    }
    rounds++;
    for (const [k, call] of calls.entries()) {
      const id = call.id ?? `call_${rounds}_${k}`;
      const started = Date.now();
      const result = await runTool(byName.get(call.name), call.name, call.args ?? {}, available, { ...(signal ? { signal } : {}), sequence: trace.length + 1, callId: id });
      const entry: ToolCallTrace = { round: rounds, name: call.name, args: redactArgs(call.args ?? {}), durationMs: Date.now() - started, ok: result.ok };
      if (result.ok) {
        const content = resultText(result.value, limit);
        entry.resultChars = content.length;
        messages.push(new ToolMessage({ content, tool_call_id: id, name: call.name, status: 'success' }));
      } else {
        entry.error = result.error;
        messages.push(new ToolMessage({ content: `error: ${result.error}`, tool_call_id: id, name: call.name, status: 'error' }));
      }
      trace.push(entry);
    }
    for (const b of broken) {
      trace.push({ round: rounds, name: b.name, args: {}, durationMs: 0, ok: false, error: b.error });
      messages.push(new ToolMessage({ content: `error: ${b.error}`, tool_call_id: b.id, name: b.name, status: 'error' }));
    }
  }
}
