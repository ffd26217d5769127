/**
 * The ActionService contract every serving service runs in its own tests
 * (through real gRPC): the same key twice is one execution, an unknown action
 * is INVALID_ARGUMENT naming it, a deadline is honoured, and ListActions names
 * what Execute serves.
 */
import { randomUUID } from 'node:crypto';
import type { action } from '@af/contracts';

export interface ActionServiceUnderTest {
  execute(req: action.ExecuteRequest): Promise<action.ExecuteResponse>;
  listActions(): Promise<action.ListActionsResponse>;
  /** The principal the calls are made for (the service must know the user where it checks ownership). */
  principal: { userId: string; teamIds: string[] };
  /**
   * A side-effecting action of the service (read-only ones are run again on a
   * repeated key) with inputs that succeed, and a count of its executions
   * (e.g. rows it wrote).
   */
  probe: { action: string; inputs: Record<string, unknown>; params?: Record<string, unknown>; executions(): Promise<number> };
  /** An action call that takes `takesMs` (at least 2,000) or longer, for the deadline check. */
  slow: { action: string; inputs: Record<string, unknown>; params?: Record<string, unknown>; takesMs: number };
}

/** gRPC status name of a rejection from `call()` (AppError) or a raw grpc-js error. */
const codeOf = (err: unknown) => (err as { code?: unknown }).code;

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

export function actionServiceContract(name: string, get: () => ActionServiceUnderTest): void {
  describe(`ActionService contract: ${name}`, () => {
    const request = (over: Partial<action.ExecuteRequest>): action.ExecuteRequest => {
      const t = get();
      const runId = randomUUID();
      return {
        action: t.probe.action,
        inputs: t.probe.inputs,
        params: t.probe.params ?? {},
        idempotencyKey: `${runId}:probe:1`,
        principal: t.principal,
        timeoutMs: 10_000,
        runId,
        nodeId: 'probe',
        attempt: 1,
        ...over,
      };
    };

    it('lists the actions it executes', async () => {
      const t = get();
      const listed = await t.listActions();
      expect(listed.service).not.toBe('');
      expect(listed.actions.map((a) => a.name)).toEqual(expect.arrayContaining([t.probe.action, t.slow.action]));
      for (const a of listed.actions) expect(a.version).not.toBe('');
    });

    it('executes the same idempotency key once and answers a repeat with the first answer', async () => {
      const t = get();
      const before = await t.probe.executions();
      const req = request({});
      const first = await t.execute(req);
      const again = await t.execute(req);
      expect(first.replayed).toBe(false);
      expect(again.replayed).toBe(true);
      expect(again.outputs).toEqual(first.outputs);
      expect((await t.probe.executions()) - before).toBe(1);
      await t.execute({ ...req, idempotencyKey: req.idempotencyKey.replace(/:1$/, ':2'), attempt: 2 });
      expect((await t.probe.executions()) - before).toBe(2);
    });

    it('refuses an unknown action with INVALID_ARGUMENT naming it', async () => {
      const t = get();
      const before = await t.probe.executions();
      const err = await rejection(t.execute(request({ action: 'no_such_action_xyz' })));
      expect(codeOf(err)).toBe('INVALID_ARGUMENT');
      expect(String((err as Error).message)).toContain('no_such_action_xyz');
      expect(await t.probe.executions()).toBe(before);
    });

    it('answers DEADLINE_EXCEEDED by the deadline instead of waiting for a slow action', async () => {
      const t = get();
      const started = Date.now();
      const err = await rejection(
        t.execute(request({ action: t.slow.action, inputs: t.slow.inputs, params: t.slow.params ?? {}, timeoutMs: 200 })),
      );
      expect(codeOf(err)).toBe('DEADLINE_EXCEEDED');
      // Answered at the 200 ms deadline, well before the action itself would have finished.
      expect(t.slow.takesMs).toBeGreaterThanOrEqual(2_000);
      expect(Date.now() - started).toBeLessThan(t.slow.takesMs);
    });
  });
}
