import { createLogger } from '../logger.js';
import { encodeJson } from './bus.js';
import { MemoryBus } from './memory-bus.js';
import { followRunFrames } from './run-frames.js';
import { Subjects } from './subjects.js';

type F = { seq: number; type: string };
const subjects = new Subjects('t');
const log = createLogger('test', 'silent');
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
});
