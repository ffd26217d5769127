/**
 * Ingestion off the request path: output-router's outbox publishes
 * `af.document.<id>.created|updated|deleted`; a durable consumer shared by
 * the replicas hands each to IngestDocument (idempotent by version, so a
 * redelivery is harmless). A transient failure is nak'ed and retried with a
 * back-off. The in-process bus of the embedded mode only fans out, so there
 * it subscribes and works one event at a time per process.
 */
import { decodeJson, type Closeable, type ServiceKit } from '@af/service-kit';
import type { DocumentEvent, IngestDocument } from '../app/ingest-document.js';

const TYPES = new Set(['created', 'updated', 'deleted']);

/** The event, or undefined when it is not one this consumer can act on. */
export function parseDocumentEvent(data: Uint8Array): DocumentEvent | undefined {
  let e: Record<string, unknown>;
  try {
    e = decodeJson<Record<string, unknown>>(data);
  } catch {
    return undefined;
  }
  if (!e || typeof e !== 'object') return undefined;
  const { type, documentId, ownerUserId, version } = e;
  if (typeof type !== 'string' || !TYPES.has(type)) return undefined;
  if (typeof documentId !== 'string' || typeof ownerUserId !== 'string' || !ownerUserId) return undefined;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) return undefined;
  return {
    type: type as DocumentEvent['type'],
    documentId,
    ownerUserId,
    version,
    title: typeof e.title === 'string' ? e.title : '',
    contentType: typeof e.contentType === 'string' ? e.contentType : '',
    sizeBytes: typeof e.sizeBytes === 'number' ? e.sizeBytes : 0,
    folderPath: typeof e.folderPath === 'string' ? e.folderPath : '',
  };
}

export class DocumentEventsConsumer {
  private sub?: Closeable;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly kit: ServiceKit,
    private readonly ingest: IngestDocument,
  ) {}

  async start(): Promise<void> {
    const p = this.kit.subjects.prefix ? `${this.kit.subjects.prefix}.` : '';
    const filter = `${p}af.document.*.*`;
    if (this.kit.config.NATS_URL.startsWith('memory:')) {
      this.sub = await this.kit.bus.subscribe(filter, (m) => {
        this.chain = this.chain.then(() => this.handle(m.data)).catch((err) => this.kit.log.warn({ err }, 'document event not handled'));
      });
      return;
    }
    this.sub = await this.kit.bus.consume(filter, { durable: 'entity-resolution-document-index', ackWaitMs: 120_000, maxInFlight: 2 }, async (item) => {
      try {
        await this.handle(item.data);
        item.ack();
      } catch (err) {
        this.kit.log.warn({ err, redeliveries: item.redeliveries }, 'document event failed; retried later');
        item.nak(Math.min(60_000, 1000 * 2 ** Math.min(item.redeliveries, 6)));
      }
    });
  }

  async stop(): Promise<void> {
    await this.sub?.close();
    await this.chain.catch(() => undefined);
  }

  async handle(data: Uint8Array): Promise<void> {
    const e = parseDocumentEvent(data);
    if (!e) {
      this.kit.log.warn('undecodable document event dropped');
      return;
    }
    await this.ingest.execute(e);
  }
}
