import { createLogger } from '../logger.js';
import { encodeJson } from './bus.js';
import { MemoryBus } from './memory-bus.js';
import { followRunFrames } from './run-frames.js';
import { Subjects } from './subjects.js';

type F = { seq: number; type: string };
const subjects = new Subjects('t');
const log = createLogger('test', 'silent');
const publish2 = (bus: MemoryBus, f: F) => bus.publish(subjects.run('silent', f.type), encodeJson(f), `run:silent:${f.seq}`);
const publish = (bus: MemoryBus, f: F) => bus.publish(subjects.run('r1', f.type), encodeJson(f), `run:r1:${f.seq}`);

describe('followRunFrames', () => {
  it('delivers each seq once, in order, and ends after complete', async () => {
    const bus = new MemoryBus(subjects);
    const got: number[] = [];
    let ended = false;
    await publish(bus, { seq: 2, type: 'node_start' });
    await followRunFrames<F>({
      bus, subjects, log, runId: 'r1', afterSeq: 0,
      initial: [{ seq: 1, type: 'start' }, { seq: 2, type: 'node_start' }],
      fetchAfter: async () => [],
      onFrame: (f) => got.push(f.seq),
      onEnd: () => (ended = true),
    });
    await publish(bus, { seq: 4, type: 'complete' });
    expect(ended).toBe(false);
    await publish(bus, { seq: 3, type: 'node_complete' });
    await bus.publish(subjects.run('r1', 'log'), encodeJson({ seq: 5, type: 'log' }), 'run:r1:5');
    expect(got).toEqual([1, 2, 3, 4]);
    expect(ended).toBe(true);
  });

  it('starts after afterSeq and fills a persistent gap from the log', async () => {
    const bus = new MemoryBus(subjects);
    const got: number[] = [];
    const fetched: number[] = [];
    const done = new Promise<void>((resolve) =>
      followRunFrames<F>({
        bus, subjects, log, runId: 'r1', afterSeq: 1, gapFillMs: 10,
        fetchAfter: async (seq) => {
          fetched.push(seq);
          return [{ seq: 2, type: 'node_start' }, { seq: 3, type: 'complete' }];
        },
        onFrame: (f) => got.push(f.seq),
        onEnd: resolve,
      }),
    );
    await publish(bus, { seq: 1, type: 'start' });
    await publish(bus, { seq: 3, type: 'complete' });
    await done;
    expect(got).toEqual([2, 3]);
    expect(fetched).toEqual([1]);
  });

  it('reads the durable log when the run goes silent, so a missed terminal frame still ends the follower', async () => {
    const bus = new MemoryBus(subjects);
    const got: number[] = [];
    const fetched: number[] = [];
    // `complete` (seq 2) is in the durable log but never reaches this follower through the bus.
    const log2 = [{ seq: 1, type: 'start' }, { seq: 2, type: 'complete' }];
    const done = new Promise<void>((resolve) =>
      followRunFrames<F>({
        bus, subjects, log, runId: 'silent', afterSeq: 0, idleCheckMs: 20,
        fetchAfter: async (seq) => {
          fetched.push(seq);
          return log2.filter((f) => f.seq > seq);
        },
        onFrame: (f) => got.push(f.seq),
        onEnd: resolve,
      }),
    );
    await publish2(bus, { seq: 1, type: 'start' });
    await done;
    expect(got).toEqual([1, 2]);
    expect(fetched).toEqual([1]);
  });

  it('backs off while the run stays silent and stops reading once closed', async () => {
    const bus = new MemoryBus(subjects);
    const fetchedAt: number[] = [];
    const started = Date.now();
    const follower = await followRunFrames<F>({
      bus, subjects, log, runId: 'waiting', afterSeq: 0, idleCheckMs: 20,
      fetchAfter: async () => {
        fetchedAt.push(Date.now() - started);
        return [];
      },
      onFrame: () => undefined,
      onEnd: () => undefined,
    });
    await new Promise((r) => setTimeout(r, 330));
    await follower.close();
    const calls = fetchedAt.length;
    // 20, 40, 80, 160 ms apart: about 4 reads in 330 ms, not 16.
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(calls).toBeLessThanOrEqual(6);
    await new Promise((r) => setTimeout(r, 200));
    expect(fetchedAt).toHaveLength(calls);
  });
});
