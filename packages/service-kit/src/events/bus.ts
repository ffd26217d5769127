/**
 * The event bus port. Production: NATS JetStream (jetstream-bus.ts). The
 * embedded dev mode (no NATS_URL) uses the in-process memory-bus.ts behind the
 * same interface; tests always use real JetStream.
 */
export interface BusMessage {
  subject: string;
  data: Uint8Array;
  /** Stream sequence (JetStream) or arrival order (memory). */
  seq: number;
}

export interface WorkItem extends BusMessage {
  /** How many times this message was delivered before (0 on first delivery). */
  redeliveries: number;
  ack(): void;
  /** Ask for redelivery, optionally after a delay. */
  nak(delayMs?: number): void;
  /** Extend the ack deadline while work goes on. */
  working(): void;
}

export interface Closeable {
  close(): Promise<void>;
}

export interface ConsumeOptions {
  /** Durable consumer name; replicas sharing it share the work. */
  durable: string;
  /** How long a taken item stays invisible to others without ack or working(). */
  ackWaitMs: number;
  /** Items processed concurrently by this consumer. */
  maxInFlight: number;
}

export interface EventBus {
  /**
   * Publish once: the bus de-duplicates by `msgId` inside its duplicate
   * window, so a relay that re-publishes after a crash does not duplicate.
   */
  publish(subject: string, data: Uint8Array, msgId: string): Promise<void>;
  /** Replay everything retained for `filter` (from the start) and follow new messages. */
  subscribe(filter: string, onMessage: (m: BusMessage) => void): Promise<Closeable>;
  /** Take items from the work queue matching `filter`; each is handled by one consumer. */
  consume(filter: string, opts: ConsumeOptions, handler: (item: WorkItem) => Promise<void>): Promise<Closeable>;
  close(): Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return enc.encode(JSON.stringify(value));
}

export function decodeJson<T = unknown>(data: Uint8Array): T {
  return JSON.parse(dec.decode(data)) as T;
}
