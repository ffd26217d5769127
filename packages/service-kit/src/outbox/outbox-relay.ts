/**
 * Transactional outbox (DESIGN §3): a service writes its state and the events
 * describing it in one transaction; this relay publishes committed rows in
 * order and marks them. A crash between publish and mark re-publishes with the
 * same msgId, which the bus drops as a duplicate — so each event lands once.
 */
import type { Logger } from '../logger.js';
import { encodeJson, type EventBus } from '../events/bus.js';

export interface OutboxMessage {
  subject: string;
  payload: unknown;
  /** Stable id used for de-duplication on the bus (e.g. `run:<id>:<seq>`). */
  msgId: string;
}

export interface OutboxRow extends OutboxMessage {
  id: string;
}

export interface OutboxStore {
  /**
   * Hand the oldest unpublished rows to `publish` inside one exclusive batch
   * (one relay at a time per store) and mark the ids it returns as published.
   * Returns how many rows were marked, or -1 if another relay holds the batch.
   */
  withBatch(limit: number, publish: (rows: OutboxRow[]) => Promise<string[]>): Promise<number>;
}

export interface OutboxRelayOptions {
  batchSize?: number;
  /** Poll interval; commits in this process also `kick()` the relay directly. */
  intervalMs?: number;
}

export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;
  private readonly batchSize: number;
  private readonly intervalMs: number;

  constructor(
    private readonly store: OutboxStore,
    private readonly bus: Pick<EventBus, 'publish'>,
    private readonly log: Logger,
    options: OutboxRelayOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 256;
    this.intervalMs = options.intervalMs ?? 250;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Publish soon: called after a transaction that wrote outbox rows commits. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** Publish one batch; returns rows published (-1 when another relay is busy). */
  async runOnce(): Promise<number> {
    return this.store.withBatch(this.batchSize, async (rows) => {
      // Pipelined on one connection: the bus receives them in id order.
      await Promise.all(rows.map((r) => this.bus.publish(r.subject, encodeJson(r.payload), r.msgId)));
      return rows.map((r) => r.id);
    });
  }

  /** Publish until nothing is left (used at shutdown and in tests). */
  async drain(): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      const n = await this.runOnce();
      if (n === 0) return;
      if (n < 0) await new Promise((r) => setTimeout(r, 20));
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    let published = 0;
    this.running = (async () => {
      try {
        published = await this.runOnce();
      } catch (err) {
        this.log.warn({ err }, 'outbox relay batch failed; will retry');
      }
    })();
    await this.running;
    this.running = undefined;
    const more = published >= this.batchSize || this.again;
    this.again = false;
    this.schedule(more ? 0 : this.intervalMs);
  }
}
