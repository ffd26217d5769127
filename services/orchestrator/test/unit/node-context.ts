/**
 * Unit-test helpers for node executors: a NodeContext for a plan node (as
 * the engine builds it, with overrides) and the AppError a call fails with.
 */
import { PlanNodeSchema } from '@af/plan';
import { AppError } from '@af/service-kit';
import type { NodeContext } from '../../src/domain/node-executor.js';

/** The context the engine hands an executor for `node` (parsed as a PlanNode), attempt 1 unless overridden. */
export function nodeContext(node: Record<string, unknown>, over: Partial<NodeContext> = {}): NodeContext {
  const n = PlanNodeSchema.parse(node);
  const attempt = over.attempt ?? 1;
  return {
    runId: 'run-1',
    userId: 'u1',
    node: n,
    instanceId: n.id,
    inputs: n.inputs,
    params: n.params,
    attempt,
    idempotencyKey: `run-1:${n.id}:${attempt}`,
    timeoutMs: 1000,
    signal: new AbortController().signal,
    scope: { vars: {} },
    run: { approvalPolicy: 'require', runContext: 'interactive', depth: 0, dryRun: false },
    resolve: (v) => v,
    ...over,
  };
}

/** The AppError `p` rejects with (a resolution or another error fails the test). */
export async function appErrorOf(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}
