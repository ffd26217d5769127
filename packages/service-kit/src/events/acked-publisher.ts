import { createInbox, headers, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';

/** What JetStream answers a publish with (a PubAck or an API error). */
interface PubAckReply {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; err_code?: number; description?: string };
}

interface Pending {
  subject: string;
  deadline: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

const decoder = new TextDecoder();

/**
 * JetStream publishes with `Nats-Msg-Id`, their acks collected on one
 * wildcard inbox subscription.
 *
 * `js.publish` makes each publish a request of its own: a mux entry, a
 * deferred, a timer, a headers object built from options, and an Error with
 * a stack trace built when the request settles (nats.js `RequestOne.cancel`,
 * even after a success). In a profile of the orchestrator, building that
 * Error alone was a sixth of the CPU it spent publishing. Here a publish is one `nc.publish` with a reply
 * subject naming its slot, and one sweep a second fails the acks that did not
 * come in time. The semantics are js.publish's: resolved when the stream
 * stored the message (or already had its msg id: a duplicate), rejected when
 * no stream takes the subject, when JetStream answers with an error, or when
 * no answer comes within the timeout (e.g. across a reconnect; the caller
 * publishes again under the same msg id).
 */
export class AckedPublisher {
  private readonly prefix = `${createInbox()}.`;
  private readonly pending = new Map<number, Pending>();
  private readonly sub: Subscription;
  private readonly sweep: NodeJS.Timeout;
  private next = 0;
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs = 5000,
  ) {
    if (!(timeoutMs > 0)) throw new RangeError(`timeoutMs: must be a positive number of milliseconds, got ${timeoutMs}`);
    this.sub = nc.subscribe(`${this.prefix}*`, { callback: (err, msg) => (err ? this.failAll(err) : this.settle(msg)) });
    this.sweep = setInterval(() => this.expire(Date.now()), Math.min(1000, timeoutMs));
    this.sweep.unref();
  }

  /** Messages waiting for their ack. */
  get inFlight(): number {
    return this.pending.size;
  }

  publish(subject: string, data: Uint8Array, msgId: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`publish to ${subject}: the publisher is closed`));
    const slot = ++this.next;
    const h = headers();
    h.set('Nats-Msg-Id', msgId);
    return new Promise<void>((resolve, reject) => {
      this.pending.set(slot, { subject, deadline: Date.now() + this.timeoutMs, resolve, reject });
      try {
        this.nc.publish(subject, data, { reply: this.prefix + slot, headers: h });
      } catch (err) {
        this.pending.delete(slot);
        reject(err as Error);
      }
    });
  }

  /** Stop taking publishes; those still waiting for an ack fail. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweep);
    this.failAll(new Error('the publisher closed before JetStream acknowledged'));
    this.sub.unsubscribe();
  }

  private settle(msg: Msg): void {
    const slot = Number(msg.subject.slice(this.prefix.length));
    const p = this.pending.get(slot);
    if (!p) return; // expired already
    this.pending.delete(slot);
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      p.reject(new Error(`publish to ${p.subject}: no JetStream stream takes this subject (no responders)`));
      return;
    }
    let ack: PubAckReply;
    try {
      ack = JSON.parse(decoder.decode(msg.data)) as PubAckReply;
    } catch {
      p.reject(new Error(`publish to ${p.subject}: JetStream's answer is not JSON`));
      return;
    }
    if (ack.error) {
      p.reject(new Error(`publish to ${p.subject}: JetStream refused it: ${ack.error.description ?? 'no description'} (code ${ack.error.err_code ?? ack.error.code})`));
    } else if (!ack.stream) {
      p.reject(new Error(`publish to ${p.subject}: JetStream's answer names no stream`));
    } else {
      p.resolve();
    }
  }

  /** Slots are numbered in publish order and all share one timeout, so the oldest expire first. */
  private expire(now: number): void {
    for (const [slot, p] of this.pending) {
      if (p.deadline > now) return;
      this.pending.delete(slot);
      p.reject(new Error(`publish to ${p.subject}: no JetStream acknowledgement within ${this.timeoutMs} ms`));
    }
  }

  private failAll(err: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(err);
  }
}
