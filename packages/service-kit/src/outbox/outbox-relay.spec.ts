import { createLogger } from '../logger.js';
import { OutboxRelay, type OutboxRow, type OutboxStore } from './outbox-relay.js';

/** A store in memory; `failMarkOnce` simulates a crash after publishing but before marking. */
class MemoryStore implements OutboxStore {
  rows: Array<OutboxRow & { published: boolean }> = [];
  busy = false;
  failMarkOnce = false;

  add(n: number) {
    for (let i = 0; i < n; i++) {
      const id = String(this.rows.length + 1);
      this.rows.push({ id, subject: `af.run.r1.e${id}`, payload: { seq: Number(id) }, msgId: `run:r1:${id}`, published: false });
    }
  }

  async withBatch(limit: number, publish: (rows: OutboxRow[]) => Promise<string[]>): Promise<number> {
    if (this.busy) return -1;
    const batch = this.rows.filter((r) => !r.published).slice(0, limit);
    if (!batch.length) return 0;
    const done = await publish(batch);
    if (this.failMarkOnce) {
      this.failMarkOnce = false;
      throw new Error('connection lost before commit');
    }
    for (const r of this.rows) if (done.includes(r.id)) r.published = true;
    return done.length;
  }
}

/** A bus that de-duplicates by msgId like JetStream's duplicate window. */
class DedupBus {
  stored: Array<{ subject: string; data: string; msgId: string }> = [];
  attempts = 0;
  async publish(subject: string, data: Uint8Array, msgId: string) {
    this.attempts++;
    if (this.stored.some((m) => m.msgId === msgId)) return;
    this.stored.push({ subject, data: Buffer.from(data).toString(), msgId });
  }
}

const log = createLogger('test', 'silent');

describe('OutboxRelay', () => {
  it('publishes in order with stable message ids', async () => {
    const store = new MemoryStore();
    const bus = new DedupBus();
    store.add(5);
    await new OutboxRelay(store, bus, log, { batchSize: 2 }).drain();
    expect(bus.stored.map((m) => m.msgId)).toEqual(['run:r1:1', 'run:r1:2', 'run:r1:3', 'run:r1:4', 'run:r1:5']);
    expect(JSON.parse(bus.stored[0]!.data)).toEqual({ seq: 1 });
    expect(store.rows.every((r) => r.published)).toBe(true);
  });

  it('re-publishes after a crash between publish and mark, and the bus drops the duplicates', async () => {
    const store = new MemoryStore();
    const bus = new DedupBus();
    store.add(3);
    store.failMarkOnce = true;
    const relay = new OutboxRelay(store, bus, log);
    await expect(relay.runOnce()).rejects.toThrow('connection lost');
    expect(store.rows.some((r) => r.published)).toBe(false);
    await relay.drain();
    expect(bus.attempts).toBe(6);
    expect(bus.stored.map((m) => m.msgId)).toEqual(['run:r1:1', 'run:r1:2', 'run:r1:3']);
  });

  it('leaves the batch to another relay that holds it', async () => {
    const store = new MemoryStore();
    store.add(1);
    store.busy = true;
    expect(await new OutboxRelay(store, new DedupBus(), log).runOnce()).toBe(-1);
    expect(store.rows[0]!.published).toBe(false);
  });

  it('publishes soon after kick() once started, and nothing after stop()', async () => {
    const store = new MemoryStore();
    const bus = new DedupBus();
    const relay = new OutboxRelay(store, bus, log, { intervalMs: 60_000 });
    relay.start();
    await new Promise((r) => setTimeout(r, 20));
    store.add(2);
    relay.kick();
    for (let i = 0; i < 50 && bus.stored.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(bus.stored).toHaveLength(2);
    await relay.stop();
    store.add(1);
    relay.kick();
    await new Promise((r) => setTimeout(r, 30));
    expect(bus.stored).toHaveLength(2);
  });
});
