/**
 * The LLM planner (flex spec §5.7, §5.8): asks a langchain chat model for a
 * PlanDraft through structured output (Ajv-checked, with repair retries), on
 * the Prompt Blueprint v2. When the model fails (provider error, answers that
 * never match the draft schema) the attempt falls back to the deterministic
 * draft and says why, so a run is never blocked by the model being down.
 */
import { LlmError, runStructuredTask, type BaseChatModel } from '@af/llm';
import { planDeterministically } from '../domain/planning/deterministic-planner.js';
import { buildPlannerPrompt, PLAN_DRAFT_SCHEMA } from '../domain/planning/planner-prompt.js';
import type { DraftRequest, DraftResult, Planner } from '../domain/planning/planner.js';
import type { PlanDraft } from '../domain/planning/types.js';

export interface LlmPlannerOptions {
  model: BaseChatModel;
  /** Model name recorded as `plannerModel` (never a key). */
  modelName: string;
  /** Structured-output repair calls per planner attempt (default 2). */
  repairAttempts?: number;
  /** Use the deterministic draft when the model fails (default true). */
  fallbackToDeterministic?: boolean;
  /** Called with prompt size metrics of every call (`flex.planner.prompt.*`). */
  onPrompt?: (metrics: NonNullable<DraftResult['prompt']>) => void;
}

export class LlmPlanner implements Planner {
  readonly deterministic = false;
  readonly runtime = 'llm';
  readonly model: string;

  constructor(private readonly o: LlmPlannerOptions) {
    this.model = o.modelName;
  }

  async draft(request: DraftRequest): Promise<DraftResult> {
    const prompt = buildPlannerPrompt(request.ctx, request.analysis, request.feedback);
    this.o.onPrompt?.(prompt.metrics);
    try {
      const { output } = await runStructuredTask<PlanDraft>({
        model: this.o.model,
        instructions: prompt.system,
        context: prompt.user,
        outputSchema: PLAN_DRAFT_SCHEMA as unknown as Record<string, unknown>,
        maxAttempts: this.o.repairAttempts ?? 2,
        schemaName: 'plan_draft',
        ...(request.signal ? { signal: request.signal } : {}),
      });
      const draft: PlanDraft = {
        ...(output.rationale ? { rationale: output.rationale } : {}),
        nodes: output.nodes.map((n) => ({ ...n, inputFacets: n.inputFacets ?? [], outputFacets: n.outputFacets ?? [], dependsOn: n.dependsOn ?? [], rationale: n.rationale ?? '' })),
      };
      return { draft, runtime: this.runtime, model: this.model, prompt: prompt.metrics };
    } catch (err) {
      if (request.signal?.aborted || this.o.fallbackToDeterministic === false) throw err;
      const reason = err instanceof LlmError ? `${err.code}: ${err.message}` : `model call failed: ${(err as Error).message}`;
      return {
        draft: planDeterministically(request.ctx, request.analysis),
        runtime: 'deterministic-fallback',
        model: this.model,
        prompt: prompt.metrics,
        fallbackReason: `the LLM planner failed (${reason.slice(0, 500)}); the deterministic draft was used`,
      };
    }
  }
}
