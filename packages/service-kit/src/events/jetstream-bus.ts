import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../logger.js';
import { AckedPublisher } from './acked-publisher.js';
import type { BusMessage, Closeable, ConsumeOptions, EventBus, WorkItem } from './bus.js';
import { Subjects } from './subjects.js';

const DUPLICATE_WINDOW_MS = 10 * 60_000;
const EVENTS_MAX_AGE_MS = 7 * 24 * 3600_000;

/** EventBus on NATS JetStream: streams created idempotently, publish with Nats-Msg-Id. */
export class JetStreamBus implements EventBus {
  private readonly publisher: AckedPublisher;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly subjects: Subjects,
    private readonly log: Logger,
  ) {
    this.publisher = new AckedPublisher(nc);
  }

  static async connect(url: string, subjects: Subjects, log: Logger): Promise<JetStreamBus> {
    // noAsyncTraces: a request (JetStream API calls; publishes go through AckedPublisher) would otherwise build two Error objects with stack traces up front.
    const nc = await connect({ servers: url, name: `af-${process.pid}`, maxReconnectAttempts: -1, noAsyncTraces: true });
    const jsm = await jetstreamManager(nc);
    const bus = new JetStreamBus(nc, jetstream(nc), jsm, subjects, log);
    await bus.ensureStreams();
    return bus;
  }

  private async ensureStreams(): Promise<void> {
    for (const spec of this.subjects.streams()) {
      const config = {
        name: spec.name,
        subjects: spec.subjects,
        storage: StorageType.File,
        duplicate_window: nanos(DUPLICATE_WINDOW_MS),
        ...(spec.kind === 'workqueue'
          ? { retention: RetentionPolicy.Workqueue }
          : { retention: RetentionPolicy.Limits, max_age: nanos(EVENTS_MAX_AGE_MS) }),
      };
      let existing: Awaited<ReturnType<typeof this.jsm.streams.info>> | undefined;
      try {
        existing = await this.jsm.streams.info(spec.name);
      } catch {
        existing = undefined;
      }
      if (existing) {
        // A newer release may add subjects (e.g. a new service's events): widen the stream, never narrow it.
        const missing = spec.subjects.filter((s) => !existing.config.subjects?.includes(s));
        if (missing.length > 0) {
          await this.jsm.streams.update(spec.name, { subjects: [...(existing.config.subjects ?? []), ...missing] });
        }
      } else {
        try {
          await this.jsm.streams.add(config);
        } catch (err) {
          // Another replica created it between our info() and add().
          await this.jsm.streams.info(spec.name).catch(() => {
            throw err;
          });
        }
      }
    }
  }

  async publish(subject: string, data: Uint8Array, msgId: string): Promise<void> {
    await this.publisher.publish(subject, data, msgId);
  }

  async subscribe(filter: string, onMessage: (m: BusMessage) => void): Promise<Closeable> {
    const stream = this.subjects.streamFor(filter.replace(/>$/, 'x')).name;
    // An ephemeral consumer with one filter subject works on every JetStream
    // server (ordered consumers' filter_subjects need 2.10+).
    const info = await this.jsm.consumers.add(stream, {
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.All,
      filter_subject: filter,
      inactive_threshold: nanos(60_000),
      mem_storage: true,
    });
    const consumer = await this.js.consumers.get(stream, info.name);
    const messages = await consumer.consume();
    void (async () => {
      for await (const m of messages) onMessage({ subject: m.subject, data: m.data, seq: m.seq });
    })().catch((err) => this.log.warn({ err, filter }, 'subscription ended'));
    return {
      close: async () => {
        await messages.close();
        await this.jsm.consumers.delete(stream, info.name).catch(() => undefined);
      },
    };
  }

  async consume(filter: string, opts: ConsumeOptions, handler: (item: WorkItem) => Promise<void>): Promise<Closeable> {
    const stream = this.subjects.streamFor(filter.replace(/>$/, 'x')).name;
    const config = {
      durable_name: opts.durable,
      ack_policy: AckPolicy.Explicit,
      filter_subject: filter,
      ack_wait: nanos(opts.ackWaitMs),
      max_ack_pending: Math.max(opts.maxInFlight * 4, 64),
    };
    try {
      await this.jsm.consumers.add(stream, config);
    } catch {
      await this.jsm.consumers.update(stream, opts.durable, { ack_wait: config.ack_wait });
    }
    const consumer = await this.js.consumers.get(stream, opts.durable);
    const messages = await consumer.consume({ max_messages: opts.maxInFlight });
    let inFlight = 0;
    const idle: Array<() => void> = [];
    void (async () => {
      for await (const m of messages) {
        while (inFlight >= opts.maxInFlight) await new Promise<void>((r) => idle.push(r));
        inFlight++;
        const item: WorkItem = {
          subject: m.subject,
          data: m.data,
          seq: m.seq,
          redeliveries: Math.max(0, m.info.deliveryCount - 1),
          ack: () => m.ack(),
          nak: (delayMs) => m.nak(delayMs),
          working: () => m.working(),
        };
        handler(item)
          .catch((err) => {
            this.log.error({ err, subject: m.subject }, 'work item failed; redelivering');
            m.nak(1000);
          })
          .finally(() => {
            inFlight--;
            idle.shift()?.();
          });
      }
    })().catch((err) => this.log.warn({ err, filter }, 'consumer ended'));
    return { close: async () => void (await messages.close()) };
  }

  async close(): Promise<void> {
    // Draining lets acks already on their way settle; what is still unacknowledged then fails.
    await this.nc.drain().catch(() => this.nc.close());
    this.publisher.close();
  }
}
