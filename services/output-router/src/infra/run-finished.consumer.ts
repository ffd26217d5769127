/**
 * Background and scheduled runs that end become a notification of their
 * owner (who asked, the outcome, a link to the run). Events are the
 * orchestrator's `complete` frames (`af.run.<runId>.complete`); a durable
 * JetStream consumer shared by the replicas handles each once, and the
 * delivery key `run:<runId>:finished` makes a redelivered frame notify once.
 * The in-process bus of the embedded mode only fans out, so there it
 * subscribes.
 */
import { decodeJson, type Closeable, type ServiceKit } from '@af/service-kit';
import { runFinishedNotice } from '../domain/run-finished.js';
import type { DeliveryLog } from './delivery-log.js';
import type { InboxRepository } from './inbox.repository.js';

export class RunFinishedConsumer {
  private sub?: Closeable;

  constructor(
    private readonly kit: ServiceKit,
    private readonly inbox: InboxRepository,
    private readonly deliveries: DeliveryLog,
    private readonly linkBase: string,
  ) {}

  async start(): Promise<void> {
    const p = this.kit.subjects.prefix ? `${this.kit.subjects.prefix}.` : '';
    const filter = `${p}af.run.*.complete`;
    if (this.kit.config.NATS_URL.startsWith('memory:')) {
      this.sub = await this.kit.bus.subscribe(
        filter,
        (m) => void this.handle(m.data).catch((err) => this.kit.log.warn({ err }, 'run end not announced')),
      );
      return;
    }
    this.sub = await this.kit.bus.consume(
      filter,
      { durable: 'output-router-run-finished', ackWaitMs: 30_000, maxInFlight: 16 },
      async (item) => {
        await this.handle(item.data);
        item.ack();
      },
    );
  }

  async stop(): Promise<void> {
    await this.sub?.close();
  }

  /** Notifies the owner of an unattended run's end; answers whether a notification exists for it now. */
  async handle(data: Uint8Array): Promise<boolean> {
    let event: unknown;
    try {
      event = decodeJson<unknown>(data);
    } catch (err) {
      this.kit.log.warn({ err }, 'undecodable run frame');
      return false;
    }
    const n = runFinishedNotice(event, this.linkBase);
    if (!n) return false;
    await this.deliveries.once(`run:${n.runId}:finished`, n.owner, 'notification', async (q) => {
      const row = await this.inbox.notify(
        {
          owner: n.owner,
          title: n.title,
          message: n.message,
          priority: n.priority,
          actionUrl: n.actionUrl,
          actionLabel: 'Open run',
          origin: { runId: n.runId, action: 'run_finished' },
        },
        q,
      );
      return { notification_id: row.id };
    });
    return true;
  }
}
