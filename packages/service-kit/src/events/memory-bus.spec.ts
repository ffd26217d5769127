import { busContract } from '../../test/bus-contract.js';
import { encodeJson } from './bus.js';
import { MemoryBus } from './memory-bus.js';
import { Subjects } from './subjects.js';

busContract('MemoryBus', async (prefix) => {
  const subjects = new Subjects(prefix);
  return { bus: new MemoryBus(subjects), subjects, dispose: async () => undefined };
});

describe('MemoryBus limits', () => {
  const subjects = new Subjects('m');

  it('keeps at most about maxEvents events, dropping the oldest', async () => {
    const bus = new MemoryBus(subjects, { maxEvents: 100 });
    for (let i = 1; i <= 1000; i++) await bus.publish(subjects.run('r', 'log'), encodeJson({ seq: i }), `m${i}`);
    expect(bus.retained).toBeGreaterThanOrEqual(100);
    expect(bus.retained).toBeLessThanOrEqual(110);
    const replayed: number[] = [];
    const sub = await bus.subscribe(subjects.runAll('r'), (m) => replayed.push(JSON.parse(new TextDecoder().decode(m.data)).seq));
    expect(replayed.at(-1)).toBe(1000);
    expect(replayed[0]).toBe(1001 - replayed.length);
    await sub.close();
  });

  it('forgets the oldest message ids past maxMsgIds, so a very old id publishes again', async () => {
    const bus = new MemoryBus(subjects, { maxMsgIds: 3 });
    const publish = (id: string) => bus.publish(subjects.run('d', 'log'), encodeJson({ id }), id);
    await publish('a');
    await publish('a');
    expect(bus.retained).toBe(1);
    for (const id of ['b', 'c', 'd']) await publish(id);
    await publish('a');
    expect(bus.retained).toBe(5);
    await publish('d');
    expect(bus.retained).toBe(5);
  });
});
