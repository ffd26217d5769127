/**
 * The EventBus contract: what every bus (JetStream in production and tests,
 * the in-process MemoryBus of `pnpm start`'s embedded mode) must do. Run by
 * src/events/memory-bus.spec.ts and test/integration/jetstream-bus.int-spec.ts.
 */
import { randomBytes } from 'node:crypto';
import { createLogger } from '../src/logger.js';
import { decodeJson, encodeJson, type BusMessage, type EventBus } from '../src/events/bus.js';
import { followRunFrames } from '../src/events/run-frames.js';
import { Subjects } from '../src/events/subjects.js';

export interface BusUnderTest {
  bus: EventBus;
  subjects: Subjects;
  /** Deletes what the bus created (streams); called once after the suite. */
  dispose(): Promise<void>;
}

const log = createLogger('test', 'silent');

/** Resolves when `check` holds, polling every 10 ms; rejects after `ms`. */
async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const frame = (seq: number, type: string) => encodeJson({ seq, type });
const seqs = (ms: BusMessage[]) => ms.map((m) => decodeJson<{ seq: number }>(m.data).seq);

export function busContract(name: string, make: (prefix: string) => Promise<BusUnderTest>): void {
  describe(`EventBus contract: ${name}`, () => {
    let t: BusUnderTest;
    let run = 0;
    const runId = () => `r${++run}`;

    beforeAll(async () => {
      t = await make(`c${randomBytes(4).toString('hex')}`);
    });
    afterAll(async () => t?.dispose());

    it('replays what it retains to a new subscriber, in order, then delivers live messages', async () => {
      const id = runId();
      await t.bus.publish(t.subjects.run(id, 'start'), frame(1, 'start'), `${id}:1`);
      await t.bus.publish(t.subjects.run(id, 'node_start'), frame(2, 'node_start'), `${id}:2`);
      const got: BusMessage[] = [];
      const sub = await t.bus.subscribe(t.subjects.runAll(id), (m) => got.push(m));
      await t.bus.publish(t.subjects.run(id, 'complete'), frame(3, 'complete'), `${id}:3`);
      await until(() => got.length === 3);
      expect(seqs(got)).toEqual([1, 2, 3]);
      expect(got.map((m) => m.subject)).toEqual([t.subjects.run(id, 'start'), t.subjects.run(id, 'node_start'), t.subjects.run(id, 'complete')]);
      await sub.close();
    });

    it('drops a publish whose message id it has seen', async () => {
      const id = runId();
      await t.bus.publish(t.subjects.run(id, 'start'), frame(1, 'start'), `${id}:1`);
      await t.bus.publish(t.subjects.run(id, 'start'), frame(1, 'start'), `${id}:1`);
      await t.bus.publish(t.subjects.run(id, 'log'), frame(2, 'log'), `${id}:2`);
      const got: BusMessage[] = [];
      const sub = await t.bus.subscribe(t.subjects.runAll(id), (m) => got.push(m));
      await until(() => got.length >= 2);
      await new Promise((r) => setTimeout(r, 100));
      expect(seqs(got)).toEqual([1, 2]);
      await sub.close();
    });

    it('closing a subscription twice leaves every other subscriber subscribed', async () => {
      const id = runId();
      const a: BusMessage[] = [];
      const b: BusMessage[] = [];
      const c: BusMessage[] = [];
      const subA = await t.bus.subscribe(t.subjects.runAll(id), (m) => a.push(m));
      const subB = await t.bus.subscribe(t.subjects.runAll(id), (m) => b.push(m));
      const subC = await t.bus.subscribe(t.subjects.runAll(id), (m) => c.push(m));
      await subB.close();
      await subB.close();
      await t.bus.publish(t.subjects.run(id, 'start'), frame(1, 'start'), `${id}:1`);
      await until(() => a.length === 1 && c.length === 1);
      await new Promise((r) => setTimeout(r, 100));
      expect(b).toHaveLength(0);
      await Promise.all([subA.close(), subC.close()]);
    });

    it('delivers a message to every subscriber even when subscribers close while it is delivered', async () => {
      const id = runId();
      const received = new Array<number>(20).fill(0);
      const subs = await Promise.all(
        received.map((_, i) =>
          t.bus.subscribe(t.subjects.runAll(id), () => {
            received[i]!++;
            // Each subscriber closes on its first message, as an SSE stream does on `complete`.
            void subs[i]!.close();
          }),
        ),
      );
      await t.bus.publish(t.subjects.run(id, 'complete'), frame(1, 'complete'), `${id}:1`);
      await until(() => received.every((n) => n === 1));
      await t.bus.publish(t.subjects.run(id, 'log'), frame(2, 'log'), `${id}:2`);
      await new Promise((r) => setTimeout(r, 100));
      expect(received).toEqual(new Array(20).fill(1));
    });

    it('lets every follower of a run reach `complete` while others end', async () => {
      const id = runId();
      const ended: boolean[] = [];
      const followers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          followRunFrames<{ seq: number; type: string }>({
            bus: t.bus, subjects: t.subjects, log, runId: id, afterSeq: 0,
            fetchAfter: async () => [],
            onFrame: () => undefined,
            onEnd: () => (ended[i] = true),
          }),
        ),
      );
      // A follower that ends early and is closed twice must not take anyone's subscription with it.
      await followers[0]!.close();
      await followers[0]!.close();
      for (let seq = 1; seq <= 5; seq++) {
        const type = seq === 5 ? 'complete' : 'node_complete';
        await t.bus.publish(t.subjects.run(id, type), frame(seq, type), `${id}:${seq}`);
      }
      await until(() => ended.filter(Boolean).length === 11);
      expect(ended[0]).toBeUndefined();
    });

    it('hands each work item to one consumer and redelivers what is not acknowledged', async () => {
      const id = runId();
      const deliveries: number[] = [];
      const consumer = await t.bus.consume(
        t.subjects.runWorkAll(),
        { durable: `contract-${randomBytes(3).toString('hex')}`, ackWaitMs: 500, maxInFlight: 2 },
        async (item) => {
          deliveries.push(item.redeliveries);
          if (item.redeliveries === 0) item.nak(50);
          else item.ack();
        },
      );
      await t.bus.publish(t.subjects.runWork(id), encodeJson({ runId: id }), `work:${id}`);
      await until(() => deliveries.length === 2);
      await new Promise((r) => setTimeout(r, 700));
      expect(deliveries).toEqual([0, 1]);
      await consumer.close();
    });
  });
}
