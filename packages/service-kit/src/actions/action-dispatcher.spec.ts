import { AppError } from '../errors.js';
import { ReceiptSuperseded, type ActionContext, type ActionHandler } from './action-handler.js';
import { ActionDispatcher, type CallControl, type ExecuteAction } from './action-dispatcher.js';
import { MemoryActionRecords } from './action-records.js';

const principal = { userId: 'u1', teamIds: [] };
const call = (over: Partial<ExecuteAction> = {}): ExecuteAction => ({
  action: 'save',
  inputs: { title: 'T' },
  params: {},
  principal,
  idempotencyKey: 'run1:n1:1',
  runId: 'run1',
  nodeId: 'n1',
  attempt: 1,
  timeoutMs: 0,
  ...over,
});

function counting(name: string, fn: (ctx: ActionContext) => Promise<Record<string, unknown>>): ActionHandler & { calls: number } {
  const h = {
    name,
    sideEffects: true,
    calls: 0,
    execute: async (ctx: ActionContext) => {
      h.calls++;
      return fn(ctx);
    },
  };
  return h;
}

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected a rejection');
}

describe('ActionDispatcher', () => {
  it('lists what it serves, sorted, with versions and side effects', () => {
    const d = new ActionDispatcher('svc', [
      { name: 'b', sideEffects: false, version: '2', execute: async () => ({}) },
      { name: 'a', sideEffects: true, execute: async () => ({}) },
    ], new MemoryActionRecords());
    expect(d.list()).toEqual([
      { name: 'a', version: '1', sideEffects: true },
      { name: 'b', version: '2', sideEffects: false },
    ]);
  });

  it('refuses to serve one action twice', () => {
    const h = { name: 'a', sideEffects: false, execute: async () => ({}) };
    expect(() => new ActionDispatcher('svc', [h, h], new MemoryActionRecords())).toThrow('action a is served twice by svc');
  });

  it('runs a call with the handler given its inputs, params and principal', async () => {
    const save = counting('save', async (ctx) => ({ saved: ctx.inputs.title, by: ctx.principal.userId, p: ctx.params.mode }));
    const d = new ActionDispatcher('svc', [save], new MemoryActionRecords());
    await expect(d.execute(call({ params: { mode: 'x' } }))).resolves.toEqual({ outputs: { saved: 'T', by: 'u1', p: 'x' }, replayed: false });
  });

  it('answers the same key twice with one execution and the first answer', async () => {
    let n = 0;
    const save = counting('save', async () => ({ n: ++n }));
    const d = new ActionDispatcher('svc', [save], new MemoryActionRecords());
    const first = await d.execute(call());
    const again = await d.execute(call({ inputs: { title: 'changed' } }));
    expect(first).toEqual({ outputs: { n: 1 }, replayed: false });
    expect(again).toEqual({ outputs: { n: 1 }, replayed: true });
    expect(save.calls).toBe(1);
    await d.execute(call({ idempotencyKey: 'run1:n1:2' }));
    expect(save.calls).toBe(2);
  });

  it('makes a replay that arrives while the first call runs wait for its answer', async () => {
    let release!: () => void;
    const save = counting('save', () => new Promise((r) => (release = () => r({ done: true }))));
    const d = new ActionDispatcher('svc', [save], new MemoryActionRecords(), { pollMs: 5 });
    const first = d.execute(call());
    const second = d.execute(call());
    await new Promise((r) => setTimeout(r, 30));
    release();
    await expect(first).resolves.toEqual({ outputs: { done: true }, replayed: false });
    await expect(second).resolves.toEqual({ outputs: { done: true }, replayed: true });
    expect(save.calls).toBe(1);
  });

  it('remembers a permanent failure and releases the key after a transient one', async () => {
    let fail: AppError = AppError.invalid('inputs.title', 'is too long');
    const save = counting('save', async () => {
      throw fail;
    });
    const d = new ActionDispatcher('svc', [save], new MemoryActionRecords());
    const e1 = await rejection(d.execute(call()));
    const e2 = await rejection(d.execute(call()));
    expect([e1.code, e2.code]).toEqual(['INVALID_ARGUMENT', 'INVALID_ARGUMENT']);
    expect(e2.violations).toEqual([{ field: 'inputs.title', reason: 'is too long' }]);
    expect(save.calls).toBe(1);

    fail = new AppError('UNAVAILABLE', 'store down');
    const k = { idempotencyKey: 'run1:n2:1' };
    expect((await rejection(d.execute(call(k)))).code).toBe('UNAVAILABLE');
    expect((await rejection(d.execute(call(k)))).code).toBe('UNAVAILABLE');
    expect(save.calls).toBe(3);
  });

  it('refuses a key reused for another action or by another caller', async () => {
    const d = new ActionDispatcher('svc', [counting('save', async () => ({})), counting('send', async () => ({}))], new MemoryActionRecords());
    await d.execute(call());
    const other = await rejection(d.execute(call({ action: 'send' })));
    expect(other.code).toBe('ALREADY_EXISTS');
    expect(other.message).toContain('was used for action save, not send');
    const stranger = await rejection(d.execute(call({ principal: { userId: 'u2', teamIds: [] } })));
    expect(stranger.code).toBe('ALREADY_EXISTS');
    expect(stranger.message).toContain('belongs to another caller');
  });

  it('fails DEADLINE_EXCEEDED at the deadline and aborts the handler', async () => {
    let aborted = false;
    const slow = counting('save', (ctx) => new Promise((r) => {
      ctx.signal.addEventListener('abort', () => (aborted = true));
      setTimeout(() => r({}), 5_000).unref();
    }));
    const d = new ActionDispatcher('svc', [slow], new MemoryActionRecords());
    const started = Date.now();
    const err = await rejection(d.execute(call({ timeoutMs: 50 })));
    expect(err.code).toBe('DEADLINE_EXCEEDED');
    expect(err.retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(aborted).toBe(true);
  });

  it.each([
    [{ action: '' }, 'INVALID_ARGUMENT', 'action: is required'],
    [{ action: 'sav' }, 'INVALID_ARGUMENT', 'svc serves no action "sav" (it serves: save)'],
    [{ principal: { userId: '', teamIds: [] } }, 'UNAUTHENTICATED', 'principal.user_id is required'],
    [{ idempotencyKey: 'a b' }, 'INVALID_ARGUMENT', 'idempotency_key: must be 1-512 characters without spaces'],
    [{ timeoutMs: -1 }, 'INVALID_ARGUMENT', 'timeout_ms: must be between 0'],
    [{ timeoutMs: 16 * 60_000 }, 'INVALID_ARGUMENT', 'timeout_ms: must be between 0'],
  ])('refuses a bad call %j with %s', async (over, code, message) => {
    const save = counting('save', async () => ({}));
    const d = new ActionDispatcher('svc', [save], new MemoryActionRecords());
    const err = await rejection(d.execute(call(over as Partial<ExecuteAction>)));
    expect(err.code).toBe(code);
    expect(err.message).toContain(message);
    expect(save.calls).toBe(0);
  });

  it('fails INTERNAL, without storing outputs, when a handler answers something other than an object', async () => {
    const bad = counting('save', async () => [1, 2] as unknown as Record<string, unknown>);
    const d = new ActionDispatcher('svc', [bad], new MemoryActionRecords());
    const err = await rejection(d.execute(call()));
    expect(err.code).toBe('INTERNAL');
    expect(err.message).toBe('action save answered an array, not an object of outputs');
  });

  it('runs a read-only action again on a repeated key, writing no record', async () => {
    const records = new MemoryActionRecords();
    const claims = jest.spyOn(records, 'claim');
    const read = counting('search', async () => ({ hits: 1 }));
    read.sideEffects = false;
    const d = new ActionDispatcher('svc', [read], records);
    await expect(d.execute(call({ action: 'search' }))).resolves.toEqual({ outputs: { hits: 1 }, replayed: false });
    await expect(d.execute(call({ action: 'search' }))).resolves.toEqual({ outputs: { hits: 1 }, replayed: false });
    expect(read.calls).toBe(2);
    expect(claims).not.toHaveBeenCalled();
  });

  it('runs a call without a key every time (no replay outside a run)', async () => {
    const save = counting('save', async () => ({}));
    const d = new ActionDispatcher('svc', [save], new MemoryActionRecords());
    await d.execute(call({ idempotencyKey: '' }));
    await d.execute(call({ idempotencyKey: '' }));
    expect(save.calls).toBe(2);
  });
});

describe('ActionDispatcher with an action source', () => {
  const tools = new Map<string, ActionHandler>([['plugin:p.echo', { name: 'plugin:p.echo', sideEffects: true, execute: async (ctx) => ({ echoed: ctx.inputs }) }]]);
  const source = {
    list: async () => [...tools.values()].map((h) => ({ name: h.name, version: '1', sideEffects: h.sideEffects, contract: { category: 'plugin:p' } })),
    find: async (name: string) => tools.get(name),
  };

  it('lists the fixed handlers and the source actions together, sorted', async () => {
    const d = new ActionDispatcher('svc', [{ name: 'z', sideEffects: false, execute: async () => ({}) }], new MemoryActionRecords(), { source });
    expect(d.list().map((a) => a.name)).toEqual(['z']);
    expect(await d.catalog()).toEqual([
      { name: 'plugin:p.echo', version: '1', sideEffects: true, contract: { category: 'plugin:p' } },
      { name: 'z', version: '1', sideEffects: false },
    ]);
  });

  it('runs a source action with the same replay, and names the source actions when refusing an unknown one', async () => {
    const d = new ActionDispatcher('svc', [], new MemoryActionRecords(), { source });
    const first = await d.execute(call({ action: 'plugin:p.echo', inputs: { a: 1 } }));
    expect(first).toEqual({ outputs: { echoed: { a: 1 } }, replayed: false });
    expect(await d.execute(call({ action: 'plugin:p.echo', inputs: { a: 2 } }))).toEqual({ outputs: { echoed: { a: 1 } }, replayed: true });
    const err = await rejection(d.execute(call({ action: 'plugin:p.nope' })));
    expect([err.code, err.message]).toEqual(['INVALID_ARGUMENT', 'action: svc serves no action "plugin:p.nope" (it serves: plugin:p.echo)']);
  });
});

describe('a handler that keeps its own receipt', () => {
  /**
   * `save` "writes" a row and its receipt together (MemoryActionRecords.writeReceipt stands for the
   * handler's transaction); `hang` stops it after the write, as a process that died there would.
   */
  function receipted(records: MemoryActionRecords, opts: { hang?: boolean; fail?: boolean; checkpoint?: boolean } = {}) {
    const rows: string[] = [];
    const seen: Array<ActionContext['receipt']> = [];
    const replays: unknown[] = [];
    const h = Object.assign(
      counting('save', async (ctx) => {
        seen.push(ctx.receipt && { ...ctx.receipt });
        const r = ctx.receipt!;
        const done = [...((r.prior as string[] | undefined) ?? []), `row-${rows.length + 1}`];
        if (!records.writeReceipt(r, done, !opts.checkpoint)) throw new ReceiptSuperseded(r.key);
        rows.push(done.at(-1)!);
        r.completed = !opts.checkpoint;
        if (opts.hang) return new Promise<never>(() => undefined);
        if (opts.fail) throw new AppError('INTERNAL', 'the answer could not be read');
        return { rows: done };
      }),
      {
        replays,
        replay: async (_ctx: ActionContext, receipt: unknown) => {
          replays.push(receipt);
          return { rows: receipt };
        },
      },
    );
    return { h, rows, seen };
  }

  it('stores no answer of its own when the handler completed the call in its write, and answers a replay from the receipt', async () => {
    const records = new MemoryActionRecords();
    const complete = jest.spyOn(records, 'complete');
    const { h, rows, seen } = receipted(records);
    const d = new ActionDispatcher('svc', [h], records);
    expect(await d.execute(call())).toEqual({ outputs: { rows: ['row-1'] }, replayed: false });
    expect(seen).toEqual([{ key: 'run1:n1:1', action: 'save', userId: 'u1', claimed: true, completed: false }]);
    expect(complete).not.toHaveBeenCalled();
    expect(await d.execute(call())).toEqual({ outputs: { rows: ['row-1'] }, replayed: true });
    expect([h.calls, h.replays, rows]).toEqual([1, [['row-1']], ['row-1']]);
  });

  it('answers from the receipt when the process died between its write and its answer (another replica, same key)', async () => {
    const records = new MemoryActionRecords();
    const dying = receipted(records, { hang: true });
    const control: CallControl = {};
    const dead = new ActionDispatcher('svc', [dying.h], records).execute(call(), control).catch((err: AppError) => err.code);
    await new Promise((r) => setImmediate(r));
    const other = receipted(records);
    const out = await new ActionDispatcher('svc', [other.h], records).execute(call());
    expect(out).toEqual({ outputs: { rows: ['row-1'] }, replayed: true });
    expect([dying.h.calls, other.h.calls, dying.rows, other.rows]).toEqual([1, 0, ['row-1'], []]);
    control.cancel!();
    expect(await dead).toBe('CANCELLED');
  });

  it('hands a checkpoint to the call that takes the claim over, which goes on from it', async () => {
    let now = 0;
    const records = new MemoryActionRecords(() => now);
    const first = receipted(records, { hang: true, checkpoint: true });
    const control: CallControl = {};
    const silent = new ActionDispatcher('svc', [first.h], records).execute(call(), control).catch((err: AppError) => err.code);
    await new Promise((r) => setImmediate(r));
    now = 1_000; // the first holder went silent (its heartbeat is 5 s away in real time; stale here after 300 ms of `now`)
    const next = receipted(records);
    const out = await new ActionDispatcher('svc', [next.h], records, { heartbeatMs: 100 }).execute(call());
    expect(next.seen).toEqual([{ key: 'run1:n1:1', action: 'save', userId: 'u1', claimed: true, prior: ['row-1'], completed: false }]);
    expect(out).toEqual({ outputs: { rows: ['row-1', 'row-1'] }, replayed: false });
    control.cancel!();
    expect(await silent).toBe('CANCELLED');
  });

  it('answers from the other holder\'s receipt when that holder finished first (ReceiptSuperseded)', async () => {
    const records = new MemoryActionRecords();
    expect(await records.claim('run1:n1:1', 'save', 'u1', 1)).toEqual({ state: 'claimed' });
    // This call is about to write when the first holder finishes: its write finds the call complete.
    const late = receipted(records);
    const execute = late.h.execute;
    late.h.execute = async (ctx) => {
      records.writeReceipt(ctx.receipt!, ['first'], true);
      return execute(ctx);
    };
    await new Promise((r) => setTimeout(r, 5));
    const out = await new ActionDispatcher('svc', [late.h], records, { heartbeatMs: 1 }).execute(call());
    expect(out).toEqual({ outputs: { rows: ['first'] }, replayed: true });
    expect(late.rows).toEqual([]);
  });

  it('keeps the receipt when the handler fails after its write: the call is answered from it, not failed', async () => {
    const records = new MemoryActionRecords();
    const failing = receipted(records, { fail: true });
    const err = await rejection(new ActionDispatcher('svc', [failing.h], records).execute(call()));
    expect(err.message).toBe('the answer could not be read');
    const again = receipted(records);
    expect(await new ActionDispatcher('svc', [again.h], records).execute(call())).toEqual({ outputs: { rows: ['row-1'] }, replayed: true });
  });

  const claimed = { key: 'run1:n1:1', action: 'save', userId: 'u1', claimed: true, completed: false };

  it('refuses a receipt it cannot answer from (a handler without replay) rather than running again', async () => {
    const records = new MemoryActionRecords();
    await records.claim('run1:n1:1', 'save', 'u1', 1000);
    records.writeReceipt(claimed, ['x'], true);
    const plain = counting('save', async () => ({}));
    const err = await rejection(new ActionDispatcher('svc', [plain], records).execute(call()));
    expect([err.code, plain.calls]).toEqual(['INTERNAL', 0]);
    expect(err.message).toBe('action save has a receipt for idempotency_key run1:n1:1 but cannot answer from one');
  });
});

describe('an optimistic handler (its one write creates the completed record)', () => {
  function optimistic(records: MemoryActionRecords, opts: { failBeforeWrite?: boolean; noWrite?: boolean } = {}) {
    const rows: string[] = [];
    const h = Object.assign(
      counting('save', async (ctx) => {
        const r = ctx.receipt!;
        if (opts.failBeforeWrite) throw new AppError('UNAVAILABLE', 'the database went away', { retryable: true });
        if (opts.noWrite) return { rows: [] };
        const row = `row-${rows.length + 1}`;
        if (!records.writeReceipt(r, { row }, true)) throw new ReceiptSuperseded(r.key);
        rows.push(row);
        r.completed = true;
        return { row };
      }),
      { optimistic: true, replay: async (_ctx: ActionContext, receipt: unknown) => ({ ...(receipt as object), replayed_from: 'receipt' }) },
    );
    return { h, rows };
  }

  it('claims nothing before it runs; a repeat writes nothing and is answered from the receipt', async () => {
    const records = new MemoryActionRecords();
    const claims = jest.spyOn(records, 'claim');
    const complete = jest.spyOn(records, 'complete');
    const { h, rows } = optimistic(records);
    const d = new ActionDispatcher('svc', [h], records);
    expect(await d.execute(call())).toEqual({ outputs: { row: 'row-1' }, replayed: false });
    expect([claims.mock.calls.length, complete.mock.calls.length]).toEqual([0, 0]);
    expect(await d.execute(call())).toEqual({ outputs: { row: 'row-1', replayed_from: 'receipt' }, replayed: true });
    expect(rows).toEqual(['row-1']);
    // The record is still a key's: another user or another action cannot take it over.
    const other = await rejection(d.execute(call({ principal: { userId: 'u2', teamIds: [] } })));
    expect([other.code, other.message]).toEqual(['ALREADY_EXISTS', 'idempotency_key run1:n1:1 belongs to another caller']);
    expect(rows).toEqual(['row-1']);
  });

  it('answers both of two duplicates running at once with the one write', async () => {
    const records = new MemoryActionRecords();
    const { h, rows } = optimistic(records);
    const d = new ActionDispatcher('svc', [h], records);
    const [a, b] = await Promise.all([d.execute(call()), d.execute(call())]);
    expect(rows).toEqual(['row-1']);
    expect([a.outputs.row, b.outputs.row]).toEqual(['row-1', 'row-1']);
    expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
  });

  it('remembers no failure: the key runs again; a call that wrote nothing leaves no record', async () => {
    const records = new MemoryActionRecords();
    const failing = optimistic(records, { failBeforeWrite: true });
    const err = await rejection(new ActionDispatcher('svc', [failing.h], records).execute(call()));
    expect([err.code, err.retryable]).toEqual(['UNAVAILABLE', true]);
    const idle = optimistic(records, { noWrite: true });
    expect(await new ActionDispatcher('svc', [idle.h], records).execute(call())).toEqual({ outputs: { rows: [] }, replayed: false });
    const ok = optimistic(records);
    expect(await new ActionDispatcher('svc', [ok.h], records).execute(call())).toEqual({ outputs: { row: 'row-1' }, replayed: false });
  });
});

describe('MemoryActionRecords', () => {
  it('lets a claim whose holder went silent be taken over', async () => {
    let now = 0;
    const records = new MemoryActionRecords(() => now);
    expect(await records.claim('k', 'a', 'u', 100)).toEqual({ state: 'claimed' });
    now = 50;
    expect(await records.claim('k', 'a', 'u', 100)).toEqual({ state: 'in_progress' });
    now = 200;
    expect(await records.claim('k', 'a', 'u', 100)).toEqual({ state: 'claimed' });
  });
});

describe('cancellation by the caller (CallControl)', () => {
  it("aborts the running action's signal and fails the call CANCELLED; the key may be tried again", async () => {
    let seen: AbortSignal | undefined;
    const h = counting('save', (ctx) => {
      seen = ctx.signal;
      return new Promise(() => undefined);
    });
    const records = new MemoryActionRecords();
    const d = new ActionDispatcher('svc', [h], records);
    const control: CallControl = {};
    const pending = d.execute(call(), control);
    while (!control.cancel) await new Promise((r) => setTimeout(r, 1));
    control.cancelled = true;
    control.cancel();
    const err = await rejection(pending);
    expect([err.code, err.retryable]).toEqual(['CANCELLED', true]);
    expect(seen!.aborted).toBe(true);
    expect(control.cancel).toBeUndefined();
    // Not a final answer: the same key runs again.
    const again = counting('save', async () => ({ ok: true }));
    await expect(new ActionDispatcher('svc', [again], records).execute(call())).resolves.toEqual({ outputs: { ok: true }, replayed: false });
  });

  it('never starts an action its caller gave up on before it ran', async () => {
    const h = counting('save', async () => ({ ok: true }));
    const err = await rejection(new ActionDispatcher('svc', [{ ...h, sideEffects: false }], new MemoryActionRecords()).execute(call(), { cancelled: true }));
    expect(err.code).toBe('CANCELLED');
    expect(h.calls).toBe(0);
  });
});
