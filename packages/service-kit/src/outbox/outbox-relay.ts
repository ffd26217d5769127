/**
 * Transactional outbox (DESIGN §3): a service writes its state and the events
 * describing it in one transaction; the rows are published after the commit
 * and marked. A crash between publish and mark re-publishes with the same
 * msgId, which the bus drops as a duplicate — so each event lands once.
 *
 * Two paths publish:
 * - direct: the process that committed rows hands them over
 *   (`publishCommitted`) and they are published at once, pipelined, without
 *   reading them back; their marks are written in bulk, a statement per lot,
 *   as a best-effort write (a lost mark only re-publishes, see above);
 * - the relay: a periodic batch (one relay at a time per store) publishes
 *   rows still unmarked after a grace period — rows whose committer died, or
 *   whose direct publish failed — and, right after `kick()`, any unmarked row.
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

/**
 * The subject of an outbox row that holds several messages (its payload: an
 * array of `{ subject, payload, msgId }`, published one by one), so a
 * statement that emits many messages writes one row. `$` subjects are never
 * published as such.
 */
export const OUTBOX_BATCH_SUBJECT = '$outbox.batch';

/** The messages an outbox row stands for: itself, or the messages of a batch row. */
export function outboxMessages(row: OutboxMessage): OutboxMessage[] {
  if (row.subject !== OUTBOX_BATCH_SUBJECT) return [row];
  if (!Array.isArray(row.payload)) throw new Error(`outbox batch row ${row.msgId}: payload is not an array`);
  return row.payload.map((m: unknown, i: number) => {
    const msg = m as Partial<OutboxMessage> | null;
    if (!msg || typeof msg.subject !== 'string' || typeof msg.msgId !== 'string') throw new Error(`outbox batch row ${row.msgId}: message ${i} lacks subject or msgId`);
    return { subject: msg.subject, payload: msg.payload, msgId: msg.msgId };
  });
}

export interface OutboxStore {
  /**
   * Hand the oldest unpublished rows (at least `minAgeMs` old) to `publish`
   * inside one exclusive batch (one relay at a time per store) and mark the
   * ids it returns as published. Returns how many rows were marked, or -1 if
   * another relay holds the batch.
   */
  withBatch(limit: number, publish: (rows: OutboxRow[]) => Promise<string[]>, minAgeMs?: number): Promise<number>;
  /** Mark rows published by the direct path (best effort: a lost mark only re-publishes). */
  markPublished?(ids: string[]): Promise<void>;
}

export interface OutboxRelayOptions {
  batchSize?: number;
  /** Direct path: published rows are marked once this many wait, or after `markDelayMs` (default 500 / 20 ms). */
  markBatch?: number;
  markDelayMs?: number;
  /** Poll interval of the relay. */
  intervalMs?: number;
  /**
   * Age after which the relay publishes an unmarked row even though its
   * committer may still be publishing it directly (default 2 s).
   */
  graceMs?: number;
}

export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = true;
  /** The next relay batch takes every unmarked row, however young (after kick()). */
  private eager = false;
  private readonly batchSize: number;
  private readonly intervalMs: number;
  private readonly graceMs: number;
  /** Direct path: rows handed over and not yet sent, ids published and not yet marked. */
  private toSend: OutboxRow[] = [];
  private sending?: Promise<void>;
  private sendScheduled = false;
  private toMark: string[] = [];
  private marking?: Promise<void>;
  private markTimer?: NodeJS.Timeout;
  private readonly markBatch: number;
  private readonly markDelayMs: number;
  private readonly committedListeners: Array<(rows: readonly OutboxRow[]) => void> = [];

  constructor(
    private readonly store: OutboxStore,
    private readonly bus: Pick<EventBus, 'publish'>,
    private readonly log: Logger,
    options: OutboxRelayOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 256;
    this.intervalMs = options.intervalMs ?? 250;
    this.graceMs = options.graceMs ?? 2_000;
    this.markBatch = options.markBatch ?? 500;
    this.markDelayMs = options.markDelayMs ?? 20;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
    await this.flushDirect();
  }

  /** Publish soon: rows were committed that nobody publishes directly (the next batch takes every unmarked row). */
  kick(): void {
    if (this.stopped) return;
    this.eager = true;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /**
   * Publish rows this process just committed (in their id order), now,
   * without reading them back; their marks follow in bulk. Rows whose
   * publish fails are left to the relay. A batch row is handed over as its
   * messages, each with the row's id (the row is marked once all went out).
   */
  publishCommitted(rows: readonly OutboxRow[]): void {
    if (!rows.length) return;
    for (const listener of this.committedListeners) {
      try {
        listener(rows);
      } catch (err) {
        this.log.warn({ err }, 'outbox: a committed-rows listener failed');
      }
    }
    if (!this.store.markPublished) {
      this.kick();
      return;
    }
    for (const r of rows) this.toSend.push(r);
    // After the committer's own continuation (e.g. its next statement) is on its way: publishing is not on its path.
    if (!this.sendScheduled && !this.sending) {
      this.sendScheduled = true;
      setImmediate(() => {
        this.sendScheduled = false;
        this.sending ??= this.send();
      });
    }
  }

  /**
   * Be told of rows this process committed, right after the commit and before
   * they are published (e.g. to start work they describe here at once).
   */
  onCommitted(listener: (rows: readonly OutboxRow[]) => void): void {
    this.committedListeners.push(listener);
  }

  /** Publish one batch; returns rows published (-1 when another relay is busy). */
  async runOnce(minAgeMs = 0): Promise<number> {
    return this.store.withBatch(
      this.batchSize,
      async (rows) => {
        // Pipelined on one connection: the bus receives them in id order (a batch row's messages in their order).
        await Promise.all(rows.flatMap(outboxMessages).map((m) => this.bus.publish(m.subject, encodeJson(m.payload), m.msgId)));
        return rows.map((r) => r.id);
      },
      minAgeMs,
    );
  }

  /** Publish until nothing is left (used at shutdown and in tests). */
  async drain(): Promise<void> {
    await this.flushDirect();
    for (let i = 0; i < 1000; i++) {
      const n = await this.runOnce();
      if (n === 0) return;
      if (n < 0) await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Wait until rows handed over directly are sent and their marks written. */
  async flushDirect(): Promise<void> {
    while (this.sendScheduled || this.sending || this.marking || this.toMark.length) {
      if (this.sendScheduled) await new Promise((r) => setImmediate(r));
      await this.sending;
      if (this.toMark.length && !this.marking) this.startMarking();
      await this.marking;
    }
  }

  /** Marks are written in lots: at once when `markBatch` wait, else after `markDelayMs`. */
  private queueMarks(): void {
    if (this.marking) return;
    if (this.toMark.length >= this.markBatch) this.startMarking();
    else if (!this.markTimer) {
      this.markTimer = setTimeout(() => this.startMarking(), this.markDelayMs);
      this.markTimer.unref();
    }
  }

  private startMarking(): void {
    if (this.markTimer) clearTimeout(this.markTimer);
    this.markTimer = undefined;
    this.marking ??= this.mark();
  }

  /** Direct path: send what was handed over, lot by lot (each pipelined), then queue the marks. */
  private async send(): Promise<void> {
    try {
      while (this.toSend.length) {
        const lot = this.toSend;
        this.toSend = [];
        const results = await Promise.allSettled(lot.map((r) => this.bus.publish(r.subject, encodeJson(r.payload), r.msgId)));
        const failedIds = new Set(lot.filter((_, i) => results[i]!.status === 'rejected').map((r) => r.id));
        if (failedIds.size) {
          this.log.warn({ err: (results.find((x) => x.status === 'rejected') as PromiseRejectedResult).reason, rows: failedIds.size }, 'outbox: direct publish failed; the relay retries');
          this.kick();
        }
        const done = new Set<string>();
        for (const r of lot) if (!failedIds.has(r.id)) done.add(r.id);
        for (const id of done) this.toMark.push(id);
        this.queueMarks();
      }
    } finally {
      this.sending = undefined;
    }
  }

  /** Direct path: mark what was published, one statement per lot. */
  private async mark(): Promise<void> {
    try {
      while (this.toMark.length) {
        const ids = this.toMark;
        this.toMark = [];
        try {
          await this.store.markPublished!(ids);
        } catch (err) {
          // Unmarked rows are published again by the relay after the grace period; the bus drops the duplicates.
          this.log.warn({ err, rows: ids.length }, 'outbox: marking published rows failed');
        }
      }
    } finally {
      this.marking = undefined;
      if (this.toMark.length) this.queueMarks();
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
    const minAgeMs = this.eager ? 0 : this.graceMs;
    this.eager = false;
    this.running = (async () => {
      try {
        published = await this.runOnce(minAgeMs);
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
