/**
 * `research_with_tools`: the tool loop, then an output that matches the step's
 * schema. The model is asked to finish with JSON in that shape; when its final
 * answer is not valid, one structured task turns the findings and tool results
 * into the shape (with its own repair retries) instead of failing the research.
 */
import { LlmError } from './llm-errors.js';
import { messageText } from './message-text.js';
import { toJsonSchema, type JsonSchema, type StepOutputSchema } from './output-schema.js';
import { validateOutput } from './output-validator.js';
import { runStructuredTask, type StructuredMode } from './structured-task.js';
import { researchSystemPrompt } from './task-prompts.js';
import { runToolLoop, type ToolCallTrace, type ToolLoopOptions, type ToolLoopResult } from './tool-loop.js';

export interface ResearchTaskOptions extends ToolLoopOptions {
  /** The step's output schema; without one the output is the answer's JSON object, or `{answer: text}`. */
  outputSchema?: JsonSchema | StepOutputSchema;
  /** Attempts of the shaping task when the final answer does not match (default 3). */
  maxAttempts?: number;
}

export interface ResearchTaskResult<T = unknown> {
  output: T;
  rounds: number;
  stoppedBy: ToolLoopResult['stoppedBy'];
  trace: ToolCallTrace[];
  /** `answer`: the final answer matched as given; `structured_task`: it was reshaped (attempts = its model calls). */
  shapedBy: 'answer' | 'structured_task';
  attempts: number;
  mode?: StructuredMode;
}

function toolResults(loop: ToolLoopResult): Array<{ tool: string; result: string }> {
  return loop.messages.filter((m) => m.type === 'tool').map((m) => ({ tool: String((m as { name?: string }).name ?? ''), result: messageText(m) }));
}

/**
 * Runs the research. Throws `LlmError('no_final_answer')` when the model was
 * still calling tools after `maxRounds`, `StructuredOutputError` when even the
 * shaping task could not produce a valid output.
 */
export async function runResearchTask<T = unknown>(options: ResearchTaskOptions): Promise<ResearchTaskResult<T>> {
  const schema = options.outputSchema === undefined ? undefined : toJsonSchema(options.outputSchema);
  const loop = await runToolLoop({ ...options, systemPrompt: researchSystemPrompt(options.systemPrompt, schema) });
  const base = { rounds: loop.rounds, stoppedBy: loop.stoppedBy, trace: loop.trace };
  if (!loop.answered) {
    throw new LlmError(
      'no_final_answer',
      `the model was still calling tools after max_rounds=${loop.rounds} round(s) and gave no final answer (tools called: ${
        loop.trace.map((t) => t.name).join(', ') || 'none'
      })`,
    );
  }
  if (!schema) {
    const json = loop.json;
    const output = json !== null && typeof json === 'object' && !Array.isArray(json) ? json : { answer: loop.text };
    return { ...base, output: output as T, shapedBy: 'answer', attempts: 0 };
  }
  if (loop.json !== undefined) {
    const checked = validateOutput<T>(schema, loop.json);
    if (checked.ok) return { ...base, output: checked.value, shapedBy: 'answer', attempts: 0 };
  }
  const shaped = await runStructuredTask<T>({
    model: options.model,
    instructions:
      'Turn the research findings and tool results in the context into the required output. ' +
      'Use only information that is in the context; do not invent facts.',
    context: { task: options.input, findings: loop.text, tool_results: toolResults(loop) },
    outputSchema: schema,
    ...(options.maxAttempts !== undefined ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { ...base, output: shaped.output, shapedBy: 'structured_task', attempts: shaped.attempts, mode: shaped.mode };
}
