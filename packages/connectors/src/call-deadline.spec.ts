import { DeadlineEmitter, deadlineSlackMs, MAX_SLACK_MS, pendingDeadlineSlots, startDeadline } from './call-deadline.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('startDeadline (shared slots, no caller signal)', () => {
  it('rounds up by at most 1/64 of the timeout and never more than MAX_SLACK_MS', () => {
    expect(deadlineSlackMs(10)).toBe(1);
    expect(deadlineSlackMs(640)).toBe(10);
    expect(deadlineSlackMs(30_000)).toBe(MAX_SLACK_MS);
  });

  it('gives calls due in the same slot one signal, and fires it no earlier than the deadline', async () => {
    let a, b, t0, t1;
    do {
      t0 = Date.now();
      a = startDeadline(6400);
      b = startDeadline(6400);
      t1 = Date.now();
    } while (t0 !== t1);
    expect(a.signal).toBe(b.signal);
    const later = startDeadline(60_000);
    expect(later.signal).not.toBe(a.signal);
    later.release();

    const started = Date.now();

    const quick = startDeadline(40);
    expect(quick.timedOut).toBe(false);
    expect(quick.signal.aborted).toBe(false);
    await new Promise<void>((resolve) =>
      quick.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(39);
    expect(elapsed).toBeLessThan(40 + 1 + 200);
    expect(quick.timedOut).toBe(true);
    expect(a.timedOut).toBe(false);
    quick.release();
    a.release();
    b.release();
  });

  it('shares one slot between many concurrent calls without listener warnings', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const deadlines = Array.from({ length: 50 }, () => startDeadline(60_000));
      const signals = new Set(deadlines.map((d) => d.signal));
      expect(signals.size).toBeLessThanOrEqual(2);
      const listeners = deadlines.map((d) => {
        const fn = () => undefined;
        d.signal.addEventListener('abort', fn);
        return () => d.signal.removeEventListener('abort', fn);
      });
      await sleep(10);
      expect(warnings).toEqual([]);
      listeners.forEach((off) => off());
      deadlines.forEach((d) => d.release());
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('hands requests the same deadline as an EventEmitter: one per slot, aborting with the signal and its reason', async () => {
    const d = startDeadline(30);
    const again = startDeadline(30);
    const emitter = d.requestSignal as DeadlineEmitter;
    expect(emitter).toBeInstanceOf(DeadlineEmitter);
    if (again.signal === d.signal) expect(again.requestSignal).toBe(emitter);
    expect(emitter.aborted).toBe(false);
    expect(emitter.reason).toBeUndefined();
    const heard: unknown[] = [];
    const listeners = Array.from({ length: 30 }, () => () => heard.push(emitter.reason));
    listeners.forEach((fn) => emitter.once('abort', fn));
    emitter.off('abort', listeners[0]!);
    await new Promise<void>((resolve) => d.signal.addEventListener('abort', () => resolve(), { once: true }));
    expect(d.timedOut).toBe(true);
    expect(emitter.aborted).toBe(true);
    expect(emitter.reason).toBe(d.signal.reason);
    expect(heard).toHaveLength(29);
    // it fires once
    emitter.abort(new Error('again'));
    expect(emitter.reason).toBe(d.signal.reason);
    expect(emitter.listenerCount('abort')).toBe(0);
    d.release();
    again.release();
  });

  it('forgets a slot once it has fired', async () => {
    startDeadline(5).release();
    const before = pendingDeadlineSlots();
    expect(before).toBeGreaterThan(0);
    await sleep(30);
    expect(pendingDeadlineSlots()).toBeLessThan(before);
  });
});

describe('startDeadline with a caller signal', () => {
  it('is a deadline of its own: the caller’s abort ends this call only, and is not a timeout', () => {
    const caller = new AbortController();
    const mine = startDeadline(60_000, caller.signal);
    const other = startDeadline(60_000, new AbortController().signal);
    caller.abort();
    expect(mine.signal.aborted).toBe(true);
    expect(mine.timedOut).toBe(false);
    expect(other.signal.aborted).toBe(false);
    mine.release();
    other.release();
  });

  it('times out by itself, and an already aborted caller signal aborts at once', async () => {
    const caller = new AbortController();
    const d = startDeadline(20, caller.signal);
    await sleep(40);
    expect(d).toMatchObject({ timedOut: true });
    expect(d.signal.aborted).toBe(true);
    d.release();

    const gone = new AbortController();
    gone.abort();
    const late = startDeadline(60_000, gone.signal);
    expect(late.signal.aborted).toBe(true);
    expect(late.timedOut).toBe(false);
    late.release();
  });

  it('hands requests its own AbortSignal (the caller’s abort must end this call only)', () => {
    const caller = new AbortController();
    const d = startDeadline(60_000, caller.signal);
    expect(d.requestSignal).toBe(d.signal);
    caller.abort();
    expect((d.requestSignal as AbortSignal).aborted).toBe(true);
    d.release();
  });

  it('release stops its timer and stops listening to the caller', async () => {
    const caller = new AbortController();
    const d = startDeadline(20, caller.signal);
    d.release();
    await sleep(40);
    caller.abort();
    expect(d.timedOut).toBe(false);
    expect(d.signal.aborted).toBe(false);
  });
});
