/**
 * A tool the model may call: a name, a description, a JSON Schema for its
 * arguments and the function that runs it. Provider-neutral; the orchestrator
 * builds these from the run's bound connector endpoints.
 */
import { LlmError } from './llm-errors.js';
import type { JsonSchema } from './output-schema.js';

export interface LlmTool {
  /** Letters, digits, `_` and `-`, at most 64 (what every provider accepts). */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  schema: JsonSchema;
  invoke(args: Record<string, unknown>, options: ToolInvokeOptions): Promise<unknown>;
}

export interface ToolInvokeOptions {
  signal?: AbortSignal;
  /** 1-based position of this call among the loop's tool calls. */
  sequence: number;
  /** The provider's id of the call. */
  callId: string;
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks names (format, uniqueness) before any model call; throws `LlmError('tool_invalid')`. */
export function checkTools(tools: readonly LlmTool[]): void {
  const seen = new Set<string>();
  for (const [i, t] of tools.entries()) {
    if (!TOOL_NAME.test(t.name)) {
      throw new LlmError('tool_invalid', `tools[${i}].name '${t.name}' must be 1-64 letters, digits, _ or -`);
    }
    if (seen.has(t.name)) throw new LlmError('tool_invalid', `tools[${i}].name '${t.name}' is used twice`);
    seen.add(t.name);
  }
}

/** The OpenAI function format, which every langchain provider's `bindTools` accepts. */
export function toProviderTool(tool: LlmTool): { type: 'function'; function: { name: string; description: string; parameters: JsonSchema } } {
  const parameters = tool.schema.type === undefined ? { type: 'object', ...tool.schema } : tool.schema;
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
}

const SECRET_KEY = /pass(word)?|secret|token|api[-_]?key|authori[sz]ation|credential|cookie|private[-_]?key/i;

/** Arguments for a trace: values under secret-looking keys replaced, so a trace is safe to log. */
export function redactArgs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactArgs);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redactArgs(v);
    return out;
  }
  return value;
}
