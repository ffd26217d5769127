import type { BusMessage, Closeable, ConsumeOptions, EventBus, WorkItem } from './bus.js';
import { matches, type Subjects } from './subjects.js';

/**
 * In-process bus for the embedded dev mode only (no NATS server available):
 * same semantics as JetStreamBus within one process — retained events replay
 * to new subscribers, msgId de-duplication, work items redelivered until acked.
 */
export class MemoryBus implements EventBus {
  private readonly log: BusMessage[] = [];
  private readonly seen = new Set<string>();
  private readonly subscribers: Array<{ filter: string; fn: (m: BusMessage) => void }> = [];
  private readonly workers: Array<{ filter: string; deliver: (m: BusMessage) => void }> = [];
  private readonly pendingWork: BusMessage[] = [];
  private seq = 0;

  constructor(private readonly subjects: Subjects) {}

  async publish(subject: string, data: Uint8Array, msgId: string): Promise<void> {
    if (this.seen.has(msgId)) return;
    this.seen.add(msgId);
    const msg = { subject, data, seq: ++this.seq };
    if (this.subjects.streamFor(subject).kind === 'workqueue') {
      const worker = this.workers.find((w) => matches(w.filter, subject));
      if (worker) worker.deliver(msg);
      else this.pendingWork.push(msg);
      return;
    }
    this.log.push(msg);
    for (const s of this.subscribers) if (matches(s.filter, subject)) s.fn(msg);
  }

  async subscribe(filter: string, onMessage: (m: BusMessage) => void): Promise<Closeable> {
    for (const m of this.log) if (matches(filter, m.subject)) onMessage(m);
    const entry = { filter, fn: onMessage };
    this.subscribers.push(entry);
    return { close: async () => void this.subscribers.splice(this.subscribers.indexOf(entry), 1) };
  }

  async consume(filter: string, opts: ConsumeOptions, handler: (item: WorkItem) => Promise<void>): Promise<Closeable> {
    const deliver = (m: BusMessage, redeliveries = 0): void => {
      let settled = false;
      const retry = (delay: number) => setTimeout(() => deliver(m, redeliveries + 1), delay).unref();
      const timer = setTimeout(() => !settled && retry(0), opts.ackWaitMs).unref();
      const item: WorkItem = {
        ...m,
        redeliveries,
        ack: () => {
          settled = true;
          clearTimeout(timer);
        },
        nak: (delayMs = 0) => {
          settled = true;
          clearTimeout(timer);
          retry(delayMs);
        },
        working: () => timer.refresh(),
      };
      handler(item).catch(() => item.nak(1000));
    };
    const entry = { filter, deliver: (m: BusMessage) => deliver(m) };
    this.workers.push(entry);
    for (const m of this.pendingWork.splice(0)) if (matches(filter, m.subject)) deliver(m);
    return { close: async () => void this.workers.splice(this.workers.indexOf(entry), 1) };
  }

  /** Shared by every service of the process; their subscriptions close individually. */
  async close(): Promise<void> {}
}
