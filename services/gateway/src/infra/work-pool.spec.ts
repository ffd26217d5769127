import { AppError } from '@af/service-kit';
import { WorkPool, type Runner } from './work-pool.js';

/** A runner whose jobs finish when the test says so. */
class ManualRunner implements Runner<string, string> {
  readonly started: string[] = [];
  private finishers: Array<() => void> = [];
  running = 0;
  maxRunning = 0;

  run(job: string): Promise<string> {
    this.started.push(job);
    this.running += 1;
    this.maxRunning = Math.max(this.maxRunning, this.running);
    return new Promise((resolve) => this.finishers.push(() => {
      this.running -= 1;
      resolve(`done ${job}`);
    }));
  }

  finishOne(): void {
    this.finishers.shift()?.();
  }
}

const tick = () => new Promise((r) => setImmediate(r));

describe('WorkPool', () => {
  it('runs one job per runner and queues the rest in order', async () => {
    const runner = new ManualRunner();
    const pool = new WorkPool([runner], { maxQueued: 10, perOwnerLimit: 10 });
    const a = pool.submit('a', 'x');
    const b = pool.submit('b', 'y');
    expect(runner.started).toEqual(['a']);
    expect(pool.queued).toBe(1);
    runner.finishOne();
    await expect(a).resolves.toBe('done a');
    await tick();
    expect(runner.started).toEqual(['a', 'b']);
    runner.finishOne();
    await expect(b).resolves.toBe('done b');
    expect(runner.maxRunning).toBe(1);
  });

  it('answers UNAVAILABLE (busy, Retry-After) once the queue is full', async () => {
    const runner = new ManualRunner();
    const pool = new WorkPool([runner], { maxQueued: 2, perOwnerLimit: 10 });
    const jobs = ['1', '2', '3'].map((j, i) => pool.submit(j, `owner-${i}`));
    const err = await pool.submit('4', 'owner-4').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', retryAfterMs: 1000, violations: [expect.objectContaining({ code: 'busy' })] });
    for (let i = 0; i < 3; i++) {
      runner.finishOne();
      await tick();
    }
    await expect(Promise.all(jobs)).resolves.toEqual(['done 1', 'done 2', 'done 3']);
    // Room again.
    const again = pool.submit('5', 'owner-4');
    runner.finishOne();
    await expect(again).resolves.toBe('done 5');
  });

  it('limits the jobs of one owner (429 too_many_attempts) while others still get in', async () => {
    const runners = [new ManualRunner(), new ManualRunner()];
    const pool = new WorkPool(runners, { maxQueued: 100, perOwnerLimit: 2 });
    const mine = [pool.submit('m1', 'flooder'), pool.submit('m2', 'flooder')];
    await expect(pool.submit('m3', 'flooder')).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED', retryAfterMs: 1000, violations: [expect.objectContaining({ code: 'too_many_attempts' })] });
    const other = pool.submit('o1', 'someone-else');
    runners.forEach((r) => r.finishOne());
    await Promise.all(mine);
    await tick();
    runners.forEach((r) => r.finishOne());
    await expect(other).resolves.toBe('done o1');
    // The flooder's share is free again.
    const later = pool.submit('m4', 'flooder');
    runners.forEach((r) => r.finishOne());
    await expect(later).resolves.toBe('done m4');
  });

  it('passes a failed job on and keeps the runner', async () => {
    let calls = 0;
    const flaky: Runner<string, string> = { run: async (j) => { calls += 1; if (j === 'bad') throw new Error('boom'); return j; } };
    const pool = new WorkPool([flaky], { maxQueued: 5, perOwnerLimit: 5 });
    await expect(pool.submit('bad', 'x')).rejects.toThrow('boom');
    await expect(pool.submit('good', 'x')).resolves.toBe('good');
    expect(calls).toBe(2);
  });
});
