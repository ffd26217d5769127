/**
 * The one interface both planners implement (flex spec §5.8): given the
 * request context and, from the second attempt on, the diagnostics of the
 * rejected draft, propose a draft.
 */
import type { DiagnosticBundle } from '@af/plan';
import { planDeterministically } from './deterministic-planner.js';
import type { EnvelopeAnalysis } from './envelope-analysis.js';
import type { PlanDraft, PlanningContext } from './types.js';

export interface DraftRequest {
  ctx: PlanningContext;
  analysis: EnvelopeAnalysis;
  /** 1-based. */
  attempt: number;
  /** What was wrong with the previous draft. */
  feedback?: { draft: PlanDraft; bundle: DiagnosticBundle };
  signal?: AbortSignal;
}

export interface DraftResult {
  draft: PlanDraft;
  /** `llm`, `deterministic`, or `deterministic-fallback` when the model failed. */
  runtime: string;
  model?: string;
  /** Prompt size metrics (LLM planner). */
  prompt?: { systemChars: number; userChars: number; facetRows: number; capabilityRows: number };
  /** Why the model's answer was not used, when it was not. */
  fallbackReason?: string;
}

export interface Planner {
  /** The same request always yields the same draft: retrying after a rejection is pointless. */
  readonly deterministic: boolean;
  readonly runtime: string;
  readonly model?: string;
  draft(request: DraftRequest): Promise<DraftResult>;
}

export class DeterministicPlanner implements Planner {
  readonly deterministic = true;
  readonly runtime = 'deterministic';

  async draft(request: DraftRequest): Promise<DraftResult> {
    return { draft: planDeterministically(request.ctx, request.analysis), runtime: this.runtime };
  }
}
