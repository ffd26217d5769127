import type { BusMessage, Closeable, ConsumeOptions, EventBus, WorkItem } from './bus.js';
import { matches, type Subjects } from './subjects.js';

/** What the in-process bus keeps; JetStream bounds the same things by age and the duplicate window. */
export interface MemoryBusLimits {
  /** Retained events, give or take a tenth (oldest dropped first); followers fill what they miss from the durable log. */
  maxEvents: number;
  /** Message ids remembered for de-duplication (oldest forgotten first). */
  maxMsgIds: number;
}

const DEFAULT_LIMITS: MemoryBusLimits = { maxEvents: 50_000, maxMsgIds: 100_000 };

/**
 * In-process bus for the embedded dev mode only (no NATS server available):
 * same semantics as JetStreamBus within one process — retained events replay
 * to new subscribers, msgId de-duplication, work items redelivered until acked.
 * The same contract tests run against both (bus.contract.ts).
 */
export class MemoryBus implements EventBus {
  private log: BusMessage[] = [];
  /** Insertion-ordered, so the oldest id is the first key. */
  private readonly seen = new Set<string>();
  private readonly subscribers = new Set<{ filter: string; fn: (m: BusMessage) => void }>();
  private readonly workers: Array<{ filter: string; deliver: (m: BusMessage) => void }> = [];
  private readonly pendingWork: BusMessage[] = [];
  private seq = 0;
  private readonly limits: MemoryBusLimits;

  constructor(
    private readonly subjects: Subjects,
    limits: Partial<MemoryBusLimits> = {},
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Events retained now (for tests and metrics). */
  get retained(): number {
    return this.log.length;
  }

  async publish(subject: string, data: Uint8Array, msgId: string): Promise<void> {
    if (this.seen.has(msgId)) return;
    this.remember(msgId);
    const msg = { subject, data, seq: ++this.seq };
    if (this.subjects.streamFor(subject).kind === 'workqueue') {
      const worker = this.workers.find((w) => matches(w.filter, subject));
      if (worker) worker.deliver(msg);
      else this.pendingWork.push(msg);
      return;
    }
    this.retain(msg);
    // A snapshot: a subscriber may close itself (or another) while it handles this message.
    for (const s of [...this.subscribers]) if (this.subscribers.has(s) && matches(s.filter, subject)) s.fn(msg);
  }

  async subscribe(filter: string, onMessage: (m: BusMessage) => void): Promise<Closeable> {
    const entry = { filter, fn: onMessage };
    let open = true;
    for (const m of [...this.log]) {
      if (!open) break;
      if (matches(filter, m.subject)) onMessage(m);
    }
    if (open) this.subscribers.add(entry);
    return {
      // Idempotent: closing twice removes this subscriber only, never another.
      close: async () => {
        open = false;
        this.subscribers.delete(entry);
      },
    };
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
    return {
      close: async () => {
        const i = this.workers.indexOf(entry);
        if (i >= 0) this.workers.splice(i, 1);
      },
    };
  }

  /** Shared by every service of the process; their subscriptions close individually. */
  async close(): Promise<void> {}

  private retain(msg: BusMessage): void {
    this.log.push(msg);
    // Trim in chunks (a tenth of the limit) so dropping stays amortised O(1) per message.
    if (this.log.length > this.limits.maxEvents + Math.floor(this.limits.maxEvents / 10)) {
      this.log = this.log.slice(this.log.length - this.limits.maxEvents);
    }
  }

  private remember(msgId: string): void {
    this.seen.add(msgId);
    if (this.seen.size > this.limits.maxMsgIds) {
      const oldest = this.seen.values().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
  }
}
