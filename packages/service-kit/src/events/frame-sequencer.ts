/**
 * Orders run frames for one SSE client: frames arrive from the bus possibly
 * duplicated or out of order (redelivery, replay); the client must get each
 * seq once, in order, starting after its Last-Event-ID.
 */
export interface Frame {
  seq: number;
  type: string;
}

export class FrameSequencer<F extends Frame> {
  private readonly pending = new Map<number, F>();

  constructor(private lastSent: number) {}

  get last(): number {
    return this.lastSent;
  }

  /** Frames that can be sent now, in order. */
  accept(frame: F): F[] {
    if (!Number.isInteger(frame.seq) || frame.seq <= this.lastSent) return [];
    this.pending.set(frame.seq, frame);
    const out: F[] = [];
    for (let next = this.pending.get(this.lastSent + 1); next; next = this.pending.get(this.lastSent + 1)) {
      this.pending.delete(next.seq);
      this.lastSent = next.seq;
      out.push(next);
    }
    return out;
  }

  /** True while frames wait behind a missing seq. */
  hasGap(): boolean {
    return this.pending.size > 0;
  }
}

/** Parse a Last-Event-ID header/query value: absent → 0; otherwise a non-negative integer. */
export function parseLastEventId(value: string | undefined): number | null {
  if (value === undefined || value === '') return 0;
  if (!/^\d{1,15}$/.test(value.trim())) return null;
  return Number(value.trim());
}
