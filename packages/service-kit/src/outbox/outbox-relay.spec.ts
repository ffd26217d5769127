import { createLogger } from '../logger.js';
import { OUTBOX_BATCH_SUBJECT, OutboxRelay, outboxMessages, type OutboxRow, type OutboxStore } from './outbox-relay.js';

/** A store in memory; `failMarkOnce` simulates a crash after publishing but before marking. */
class MemoryStore implements OutboxStore {
  rows: Array<OutboxRow & { published: boolean; createdAt: number }> = [];
  busy = false;
  failMarkOnce = false;
  reads = 0;
  marks: string[][] = [];
  failMarks = false;

  add(n: number): OutboxRow[] {
    const added: OutboxRow[] = [];
    for (let i = 0; i < n; i++) {
      const id = String(this.rows.length + 1);
      const row = { id, subject: `af.run.r1.e${id}`, payload: { seq: Number(id) }, msgId: `run:r1:${id}` };
      this.rows.push({ ...row, published: false, createdAt: Date.now() });
      added.push(row);
    }
    return added;
  }

  async withBatch(limit: number, publish: (rows: OutboxRow[]) => Promise<string[]>, minAgeMs = 0): Promise<number> {
    if (this.busy) return -1;
    this.reads++;
    const batch = this.rows.filter((r) => !r.published && r.createdAt <= Date.now() - minAgeMs).slice(0, limit);
    if (!batch.length) return 0;
    const done = await publish(batch);
    if (this.failMarkOnce) {
      this.failMarkOnce = false;
      throw new Error('connection lost before commit');
    }
    for (const r of this.rows) if (done.includes(r.id)) r.published = true;
    return done.length;
  }

  async markPublished(ids: string[]): Promise<void> {
    if (this.failMarks) throw new Error('database went away');
    this.marks.push(ids);
    for (const r of this.rows) if (ids.includes(r.id)) r.published = true;
  }
}

/** A bus that de-duplicates by msgId like JetStream's duplicate window. */
class DedupBus {
  stored: Array<{ subject: string; data: string; msgId: string }> = [];
  attempts = 0;
  /** msgIds whose next publish fails (once each). */
  failOnce = new Set<string>();
  async publish(subject: string, data: Uint8Array, msgId: string) {
    this.attempts++;
    if (this.failOnce.delete(msgId)) throw new Error('no stream response');
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

  describe('direct path (publishCommitted)', () => {
    const until = async (cond: () => boolean) => {
      for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
    };

    it('publishes committed rows at once, in order, without reading the store, and marks them in bulk', async () => {
      const store = new MemoryStore();
      const bus = new DedupBus();
      const relay = new OutboxRelay(store, bus, log, { intervalMs: 60_000 });
      relay.publishCommitted(store.add(3));
      relay.publishCommitted(store.add(2));
      await relay.flushDirect();
      expect(bus.stored.map((m) => m.msgId)).toEqual(['run:r1:1', 'run:r1:2', 'run:r1:3', 'run:r1:4', 'run:r1:5']);
      expect(store.reads).toBe(0);
      expect(store.rows.every((r) => r.published)).toBe(true);
      // Marks go in lots: fewer statements than rows.
      expect(store.marks.flat().sort()).toEqual(['1', '2', '3', '4', '5']);
      expect(store.marks.length).toBeLessThanOrEqual(2);
    });

    it('leaves a row whose publish failed to the relay, which takes it at once', async () => {
      const store = new MemoryStore();
      const bus = new DedupBus();
      bus.failOnce.add('run:r1:2');
      const relay = new OutboxRelay(store, bus, log, { intervalMs: 60_000, graceMs: 60_000 });
      relay.start();
      relay.publishCommitted(store.add(3));
      await until(() => bus.stored.length === 3);
      await relay.stop();
      expect(bus.stored.map((m) => m.msgId).sort()).toEqual(['run:r1:1', 'run:r1:2', 'run:r1:3']);
      expect(store.rows.every((r) => r.published)).toBe(true);
    });

    it('the periodic relay leaves young unmarked rows to their committer, then publishes them after the grace period', async () => {
      const store = new MemoryStore();
      const bus = new DedupBus();
      const relay = new OutboxRelay(store, bus, log, { intervalMs: 10, graceMs: 80 });
      store.add(1); // committed by a process that died before publishing
      relay.start();
      await new Promise((r) => setTimeout(r, 40));
      expect(bus.stored).toHaveLength(0);
      await until(() => bus.stored.length === 1);
      await relay.stop();
      expect(bus.stored.map((m) => m.msgId)).toEqual(['run:r1:1']);
    });

    it('a failed mark is only a later re-publish, which the bus drops', async () => {
      const store = new MemoryStore();
      const bus = new DedupBus();
      store.failMarks = true;
      const relay = new OutboxRelay(store, bus, log, { intervalMs: 10, graceMs: 30 });
      relay.start();
      relay.publishCommitted(store.add(2));
      await relay.flushDirect();
      expect(store.rows.some((r) => r.published)).toBe(false);
      store.failMarks = false;
      await until(() => store.rows.every((r) => r.published));
      await relay.stop();
      expect(store.rows.every((r) => r.published)).toBe(true);
      expect(bus.attempts).toBe(4);
      expect(bus.stored.map((m) => m.msgId)).toEqual(['run:r1:1', 'run:r1:2']);
    });

    it('without a store that marks, committed rows go through the relay', async () => {
      const store = new MemoryStore();
      const plain: OutboxStore = { withBatch: (limit, publish, minAgeMs) => store.withBatch(limit, publish, minAgeMs) };
      const bus = new DedupBus();
      const relay = new OutboxRelay(plain, bus, log, { intervalMs: 60_000, graceMs: 60_000 });
      relay.start();
      relay.publishCommitted(store.add(2));
      await until(() => bus.stored.length === 2);
      await relay.stop();
      expect(bus.stored.map((m) => m.msgId)).toEqual(['run:r1:1', 'run:r1:2']);
    });
  });

  it('tells committed-rows listeners of each handed-over lot first; a failing listener does not stop publishing', async () => {
    const store = new MemoryStore();
    const bus = new DedupBus();
    const relay = new OutboxRelay(store, bus, log, { intervalMs: 60_000 });
    const seen: string[][] = [];
    relay.onCommitted(() => {
      throw new Error('listener bug');
    });
    relay.onCommitted((rows) => seen.push(rows.map((r) => r.msgId)));
    relay.publishCommitted(store.add(2));
    expect(seen).toEqual([['run:r1:1', 'run:r1:2']]);
    expect(bus.stored).toHaveLength(0);
    await relay.flushDirect();
    expect(bus.stored).toHaveLength(2);
  });

  describe('batch rows (several messages in one row)', () => {
    const batchRow = (id: string, seqs: number[]): OutboxRow => ({
      id,
      subject: OUTBOX_BATCH_SUBJECT,
      payload: seqs.map((seq) => ({ subject: `af.run.r2.e${seq}`, payload: { seq }, msgId: `run:r2:${seq}` })),
      msgId: `batch:run:r2:${seqs[0]}`,
    });

    it('the relay publishes each message of a batch row, in order, and marks the row', async () => {
      const store = new MemoryStore();
      store.rows.push({ ...batchRow('1', [1, 2, 3]), published: false, createdAt: 0 });
      store.add(1);
      const bus = new DedupBus();
      await new OutboxRelay(store, bus, log).drain();
      expect(bus.stored.map((m) => m.msgId)).toEqual(['run:r2:1', 'run:r2:2', 'run:r2:3', 'run:r1:2']);
      expect(JSON.parse(bus.stored[1]!.data)).toEqual({ seq: 2 });
      expect(store.rows.every((r) => r.published)).toBe(true);
    });

    it('the direct path marks a batch row only when all its messages went out; the relay sends the rest later, once each', async () => {
      const store = new MemoryStore();
      const row = batchRow('1', [1, 2, 3]);
      store.rows.push({ ...row, published: false, createdAt: Date.now() });
      const bus = new DedupBus();
      bus.failOnce.add('run:r2:2');
      const relay = new OutboxRelay(store, bus, log, { intervalMs: 10, graceMs: 30 });
      relay.start();
      relay.publishCommitted(outboxMessages(row).map((m) => ({ ...m, id: row.id })));
      for (let i = 0; i < 100 && !store.rows[0]!.published; i++) await new Promise((r) => setTimeout(r, 5));
      await relay.stop();
      expect(store.rows[0]!.published).toBe(true);
      expect(bus.stored.map((m) => m.msgId).sort()).toEqual(['run:r2:1', 'run:r2:2', 'run:r2:3']);
    });

    it('refuses a malformed batch row, naming it', () => {
      expect(() => outboxMessages({ subject: OUTBOX_BATCH_SUBJECT, payload: { not: 'an array' }, msgId: 'batch:x' })).toThrow('outbox batch row batch:x: payload is not an array');
      expect(() => outboxMessages({ subject: OUTBOX_BATCH_SUBJECT, payload: [{ subject: 'a' }], msgId: 'batch:y' })).toThrow('outbox batch row batch:y: message 0 lacks subject or msgId');
    });
  });
});
