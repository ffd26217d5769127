/**
 * A run's `complete` frame (`af.run.<runId>.complete`, published by the
 * orchestrator's outbox) expires the run's pending requests: nobody is waiting
 * for them any more. A durable consumer shared by the replicas handles each
 * frame once; the in-process bus of the embedded dev mode only fans events
 * out to subscribers, so there it subscribes instead.
 */
import { decodeJson, type Closeable, type ServiceKit } from '@af/service-kit';
import { SYSTEM_ACTORS } from '../domain/request.js';
import type { RequestRepository } from './request.repository.js';

interface CompleteFrame {
  runId?: unknown;
  payload?: { status?: unknown };
}

export class RunEndConsumer {
  private sub?: Closeable;

  constructor(
    private readonly kit: ServiceKit,
    private readonly repo: RequestRepository,
  ) {}

  async start(): Promise<void> {
    const p = this.kit.subjects.prefix ? `${this.kit.subjects.prefix}.` : '';
    const filter = `${p}af.run.*.complete`;
    if (this.kit.config.NATS_URL.startsWith('memory:')) {
      this.sub = await this.kit.bus.subscribe(filter, (m) => void this.handle(m.data).catch((err) => this.kit.log.warn({ err }, 'run end not handled')));
      return;
    }
    this.sub = await this.kit.bus.consume(filter, { durable: 'approval-run-ends', ackWaitMs: 30_000, maxInFlight: 16 }, async (item) => {
      await this.handle(item.data);
      item.ack();
    });
  }

  async stop(): Promise<void> {
    await this.sub?.close();
  }

  /** Expires the pending requests of the run the frame ended; undecodable frames are dropped with a warning. */
  async handle(data: Uint8Array): Promise<number> {
    let frame: CompleteFrame;
    try {
      frame = decodeJson<CompleteFrame>(data);
    } catch (err) {
      this.kit.log.warn({ err }, 'undecodable run frame');
      return 0;
    }
    const runId = typeof frame.runId === 'string' ? frame.runId : '';
    if (!/^[0-9a-f-]{36}$/i.test(runId)) return 0;
    const status = typeof frame.payload?.status === 'string' ? frame.payload.status : 'ended';
    const done = await this.repo.expireRun(runId, SYSTEM_ACTORS.runEnded, { reasonCode: 'run_ended', reason: `run ${runId} ended (${status})` });
    if (done.length) this.kit.log.info({ runId, count: done.length }, 'expired requests of an ended run');
    return done.length;
  }
}
