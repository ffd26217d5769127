/**
 * `llm` nodes (seed §5 llm_task): `llm_analyze` and `synthesize_report` ask
 * for output in the node's `outputSchema` (structured output + Ajv, with
 * repair retries); `research_with_tools` runs a bounded tool-calling loop over
 * the run's bound connector endpoints. The other front-ends' llm actions
 * (`llm_decision` from workflow_steps, `compose_answer` from master plans) are
 * structured tasks too. Without a configured model every llm node fails with
 * a clear error — never a made-up answer.
 */
import {
  LlmError,
  StructuredOutputError,
  runResearchTask,
  runStructuredTask,
  type BaseChatModel,
  type JsonSchema,
  type LlmTool,
  type StructuredMode,
  type ToolCallTrace,
} from '@af/llm';
import { AppError } from '@af/service-kit';
import { z } from 'zod';
import type { NodeContext, NodeExecutor } from '../../domain/node-executor.js';

export interface LlmExecutorDeps {
  /** The configured chat model (`createChatModel(llmConfigFromEnv(config))`); undefined when LLM_PROVIDER is none. */
  model?: BaseChatModel;
  /** The tools a run may use — its bound connector endpoints. Names must be 1-64 of `[A-Za-z0-9_-]`. */
  tools?: (ctx: NodeContext) => LlmTool[] | Promise<LlmTool[]>;
  /** Model calls allowed per structured answer, first included (default 3). */
  maxAttempts?: number;
  /** Called after each llm node that succeeded: what it cost (attempts, tool trace — no data). */
  onReport?: (report: LlmNodeReport) => void;
}

export interface LlmNodeReport {
  runId: string;
  nodeId: string;
  action: string;
  attempts: number;
  mode?: StructuredMode;
  rounds?: number;
  stoppedBy?: 'answer' | 'max_rounds';
  trace?: ToolCallTrace[];
}

/** The llm actions this executor runs; register it once for the `llm` kind. */
export const LLM_ACTIONS = ['llm_analyze', 'synthesize_report', 'research_with_tools', 'llm_decision', 'compose_answer'] as const;
type LlmAction = (typeof LLM_ACTIONS)[number];

const MAX_ROUNDS_LIMIT = 20;
// Steps may carry other params (llm_task params are open); only these are read.
const StructuredParams = z.object({
  instructions: z.string().min(1).optional(),
  template: z.string().min(1).optional(),
  prompt: z.string().min(1).optional(),
});
const ResearchParams = z.object({
  tools: z.array(z.string().min(1)).optional(),
  system_prompt: z.string().optional(),
  instructions: z.string().min(1).optional(),
  max_rounds: z.number().int().min(0).max(MAX_ROUNDS_LIMIT).default(3),
});

function parseParams<S extends z.ZodType>(schema: S, ctx: NodeContext): z.infer<S> {
  const parsed = schema.safeParse(ctx.params);
  if (parsed.success) return parsed.data;
  const violations = parsed.error.issues.map((i) => ({ field: ['params', ...i.path.map(String)].join('.'), reason: i.message }));
  throw new AppError('INVALID_ARGUMENT', `node ${ctx.node.id}: ${violations.map((v) => `${v.field}: ${v.reason}`).join('; ')}`, {
    violations,
    retryable: false,
  });
}

/** What the model is told to do, per action, from the step's params. */
function instructionsFor(action: Exclude<LlmAction, 'research_with_tools'>, p: z.infer<typeof StructuredParams>, ctx: NodeContext): string {
  switch (action) {
    case 'llm_analyze':
      return p.instructions ?? 'Analyse the data in the context and report what it shows.';
    case 'synthesize_report': {
      const template = p.template ? ` Follow the report template '${p.template}'.` : '';
      return `Write a report that synthesises the data in the context.${template}${p.instructions ? `\n\n${p.instructions}` : ''}`;
    }
    case 'llm_decision':
      return `${p.prompt ?? ctx.node.description ?? 'Decide what the data in the context calls for.'}\n\nGive your decision and the reasoning behind it.`;
    case 'compose_answer':
      return `${p.instructions ?? 'Combine the agents’ outputs in the context into one answer to the query.'} Cite the sources you used; do not add facts that are not in the context.`;
  }
}

async function researchTools(ctx: NodeContext, deps: LlmExecutorDeps, wanted: string[] | undefined): Promise<LlmTool[]> {
  const available = deps.tools ? await deps.tools(ctx) : [];
  const names = available.map((t) => t.name).join(', ') || 'none';
  if (wanted === undefined) {
    if (available.length) return available;
    throw new AppError('FAILED_PRECONDITION', `node ${ctx.node.id}: research_with_tools needs tools, and no tools are bound to this run`, { retryable: false });
  }
  const byName = new Map(available.map((t) => [t.name, t]));
  const missing = wanted.map((name, i) => ({ name, i })).filter(({ name }) => !byName.has(name));
  if (missing.length) {
    throw new AppError('FAILED_PRECONDITION', `node ${ctx.node.id}: tool(s) ${missing.map((m) => `'${m.name}'`).join(', ')} are not bound to this run (available: ${names})`, {
      violations: missing.map(({ name, i }) => ({ field: `params.tools[${i}]`, reason: `no tool '${name}' is bound to this run (available: ${names})`, code: 'unknown_tool' })),
      retryable: false,
    });
  }
  return [...new Set(wanted)].map((name) => byName.get(name)!);
}

/** A provider failure: rate limits, 5xx and network errors are worth retrying; auth and bad requests are not. */
function providerError(ctx: NodeContext, err: Error): AppError {
  const e = err as { status?: unknown; status_code?: unknown; response?: { status?: unknown } };
  const status = Number(e.status ?? e.status_code ?? e.response?.status);
  const message = `node ${ctx.node.id}: the LLM provider failed: ${err.message}`;
  if (status === 401 || status === 403) {
    return new AppError('FAILED_PRECONDITION', `${message} (check LLM_API_KEY)`, { retryable: false, cause: err });
  }
  if (Number.isFinite(status) && status >= 400 && status < 500 && status !== 408 && status !== 429) {
    return new AppError('FAILED_PRECONDITION', message, { retryable: false, cause: err });
  }
  return new AppError('UNAVAILABLE', message, { retryable: true, cause: err });
}

function toAppError(ctx: NodeContext, err: unknown, timeout: AbortSignal): unknown {
  if (err instanceof AppError || ctx.signal.aborted) return err; // the engine handles cancellation itself
  if (timeout.aborted) {
    return new AppError('DEADLINE_EXCEEDED', `node ${ctx.node.id}: the LLM step did not finish within ${ctx.timeoutMs} ms`, { cause: err });
  }
  const id = ctx.node.id;
  if (err instanceof StructuredOutputError) {
    return new AppError('INVALID_ARGUMENT', `node ${id}: ${err.message}`, {
      violations: err.violations.map((v) => ({ field: v.pointer || '/', reason: v.message, code: v.keyword })),
      retryable: false,
      cause: err,
    });
  }
  if (err instanceof LlmError) {
    switch (err.code) {
      case 'schema_invalid':
        return new AppError('INVALID_ARGUMENT', `node ${id}: ${err.message}`, { violations: [{ field: 'outputSchema', reason: err.message }], retryable: false, cause: err });
      case 'no_final_answer':
        return new AppError('RESOURCE_EXHAUSTED', `node ${id}: ${err.message}`, { retryable: false, cause: err });
      default:
        return new AppError('FAILED_PRECONDITION', `node ${id}: ${err.message}`, { retryable: false, cause: err });
    }
  }
  return err instanceof Error ? providerError(ctx, err) : err;
}

/** The `llm` node executor. */
export function createLlmExecutor(deps: LlmExecutorDeps): NodeExecutor {
  return async (ctx) => {
    const action = ctx.node.action ?? '';
    if (!(LLM_ACTIONS as readonly string[]).includes(action)) {
      throw new AppError('UNIMPLEMENTED', `node ${ctx.node.id}: llm action '${action}' is not supported (supported: ${LLM_ACTIONS.join(', ')})`, { retryable: false });
    }
    const model = deps.model;
    if (!model) {
      throw new AppError(
        'FAILED_PRECONDITION',
        `node ${ctx.node.id}: no LLM is configured: set LLM_PROVIDER (openai, anthropic or ollama) with LLM_MODEL and LLM_API_KEY / LLM_BASE_URL to run '${action}' steps`,
        { retryable: false },
      );
    }
    // Seed rule 6 makes output_schema mandatory for llm_task; other front-ends may omit it: any object then.
    const outputSchema: JsonSchema = ctx.node.outputSchema ?? { type: 'object' };
    const timeout = AbortSignal.timeout(Math.max(1, ctx.timeoutMs));
    const signal = AbortSignal.any([ctx.signal, timeout]);
    const common = { runId: ctx.runId, nodeId: ctx.node.id, action };
    try {
      if (action === 'research_with_tools') {
        const p = parseParams(ResearchParams, ctx);
        const tools = await researchTools(ctx, deps, p.tools);
        const systemPrompt = [p.system_prompt, p.instructions].filter(Boolean).join('\n\n');
        const r = await runResearchTask({ model, tools, systemPrompt, input: ctx.inputs, maxRounds: p.max_rounds, outputSchema, signal, ...(deps.maxAttempts ? { maxAttempts: deps.maxAttempts } : {}) });
        deps.onReport?.({ ...common, attempts: r.attempts, ...(r.mode ? { mode: r.mode } : {}), rounds: r.rounds, stoppedBy: r.stoppedBy, trace: r.trace });
        return r.output;
      }
      const p = parseParams(StructuredParams, ctx);
      const r = await runStructuredTask({
        model,
        instructions: instructionsFor(action as Exclude<LlmAction, 'research_with_tools'>, p, ctx),
        context: ctx.inputs,
        outputSchema,
        signal,
        ...(deps.maxAttempts ? { maxAttempts: deps.maxAttempts } : {}),
      });
      deps.onReport?.({ ...common, attempts: r.attempts, mode: r.mode });
      return r.output;
    } catch (err) {
      throw toAppError(ctx, err, timeout);
    }
  };
}
