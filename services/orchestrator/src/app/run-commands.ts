/**
 * The orchestrator's request-side use cases: start, read, cancel, list events.
 * Ownership is checked here: another user's run is "not found", never
 * "forbidden", so run ids do not leak.
 */
import { PlanGraphSchema, validatePlan, type PlanGraph } from '@af/plan';
import { AppError, type FieldViolation } from '@af/service-kit';
import type { Run, RunFrame, RunView } from '../domain/run-state.js';
import type { RunRepository } from '../infra/run.repository.js';

const RUN_CONTEXTS = ['interactive', 'background', 'scheduled', 'monitor'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface StartRunCommand {
  userId: string;
  plan: unknown;
  inputs: Record<string, unknown>;
  runContext: string;
  idempotencyKey: string;
}

export class RunCommands {
  constructor(private readonly repo: RunRepository) {}

  async start(cmd: StartRunCommand): Promise<Run> {
    requireUser(cmd.userId);
    const plan = parsePlan(cmd.plan);
    const runContext = cmd.runContext || plan.runContext;
    if (!(RUN_CONTEXTS as readonly string[]).includes(runContext)) {
      throw AppError.invalid('run_context', `must be one of ${RUN_CONTEXTS.join(', ')}`);
    }
    const missing = plan.inputs.filter((i) => i.required && i.default === undefined && cmd.inputs[i.name] === undefined);
    if (missing.length) {
      throw new AppError('INVALID_ARGUMENT', `missing required input(s): ${missing.map((i) => i.name).join(', ')}`, {
        violations: missing.map((i) => ({ field: `inputs.${i.name}`, reason: 'is required', code: 'missing_required' })),
      });
    }
    const { run } = await this.repo.create({
      userId: cmd.userId,
      plan,
      inputs: cmd.inputs,
      runContext,
      idempotencyKey: cmd.idempotencyKey || null,
    });
    return run;
  }

  async get(userId: string, runId: string): Promise<RunView> {
    await this.owned(userId, runId);
    return (await this.repo.view(runId))!;
  }

  async cancel(userId: string, runId: string): Promise<RunView> {
    const run = await this.owned(userId, runId);
    const cancelled = await this.repo.cancel(runId);
    if (!cancelled) throw new AppError('FAILED_PRECONDITION', `run ${runId} is already ${run.status}`);
    return (await this.repo.view(runId))!;
  }

  async events(userId: string, runId: string, afterSeq: number): Promise<RunFrame[]> {
    await this.owned(userId, runId);
    if (!Number.isInteger(afterSeq) || afterSeq < 0) throw AppError.invalid('after_seq', 'must be a non-negative integer');
    return this.repo.events(runId, afterSeq);
  }

  private async owned(userId: string, runId: string): Promise<Run> {
    requireUser(userId);
    if (!UUID.test(runId)) throw AppError.notFound('run', runId);
    const run = await this.repo.get(runId);
    if (!run || run.userId !== userId) throw AppError.notFound('run', runId);
    return run;
  }
}

function requireUser(userId: string): void {
  if (!userId) throw new AppError('UNAUTHENTICATED', 'principal.user_id is required');
}

/** The plan must parse as a PlanGraph and pass structural validation. */
export function parsePlan(raw: unknown): PlanGraph {
  const parsed = PlanGraphSchema.safeParse(raw);
  if (!parsed.success) {
    const violations: FieldViolation[] = parsed.error.issues.map((i) => ({
      field: ['plan', ...i.path].join('.'),
      reason: i.message,
      code: 'invalid_plan',
    }));
    throw new AppError('INVALID_ARGUMENT', `invalid plan: ${violations.map((v) => `${v.field}: ${v.reason}`).join('; ')}`, {
      violations,
    });
  }
  const issues = validatePlan(parsed.data);
  if (issues.length) {
    throw new AppError('INVALID_ARGUMENT', `invalid plan: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, {
      violations: issues.map((i) => ({ field: `plan.${i.field}`, reason: i.message, code: i.code })),
    });
  }
  return parsed.data;
}
