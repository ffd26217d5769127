/**
 * Follow one run's frames: everything the bus retains after `afterSeq`, then
 * live ones — each seq once, in order — ending after the terminal frame. A
 * gap that persists (a frame still in an outbox, or one the bus no longer
 * retains) is filled from the durable event log through `fetchAfter`; so is a
 * silence of `idleCheckMs`, since a missed frame at the end leaves no gap to
 * notice (a lost terminal frame would otherwise leave the follower open).
 * Used by the gateway's SSE stream and the orchestrator's StreamRunEvents.
 */
import type { Logger } from '../logger.js';
import { decodeJson, type Closeable, type EventBus } from './bus.js';
import { FrameSequencer, type Frame } from './frame-sequencer.js';
import type { Subjects } from './subjects.js';

export interface FollowRunOptions<F extends Frame> {
  bus: EventBus;
  subjects: Subjects;
  log: Logger;
  runId: string;
  afterSeq: number;
  /** Frames with seq > `seq` from the durable log. */
  fetchAfter(seq: number): Promise<F[]>;
  /** Frames the caller already read from the log (delivered once subscribed). */
  initial?: F[];
  onFrame(frame: F): void;
  /** After the terminal frame was delivered; the follower is closed by then. */
  onEnd(): void;
  terminalType?: string;
  gapFillMs?: number;
  /**
   * With no frame for this long, read the durable log after the last frame
   * (default 5000); the wait doubles while the run stays silent, up to a minute.
   */
  idleCheckMs?: number;
}

export async function followRunFrames<F extends Frame>(o: FollowRunOptions<F>): Promise<Closeable> {
  const sequencer = new FrameSequencer<F>(o.afterSeq);
  const terminal = o.terminalType ?? 'complete';
  const sub: { current?: Closeable } = {};
  let gapTimer: NodeJS.Timeout | undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const idleFirstMs = o.idleCheckMs ?? 5000;
  let idleMs = idleFirstMs;
  let closed = false;
  const close = async () => {
    closed = true;
    if (gapTimer) clearTimeout(gapTimer);
    if (idleTimer) clearTimeout(idleTimer);
    await sub.current?.close().catch(() => undefined);
  };
  const fill = () =>
    o
      .fetchAfter(sequencer.last)
      .then((frames) => frames.forEach(accept))
      .catch((err) => o.log.warn({ err, runId: o.runId }, 'gap fill failed'));
  const armIdle = (delayMs: number) => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleMs = Math.min(idleMs * 2, 60_000);
      void fill().finally(() => !closed && armIdle(idleMs));
    }, delayMs);
    idleTimer.unref();
  };
  const accept = (frame: F) => {
    if (closed) return;
    if (frame.seq > sequencer.last && idleTimer) {
      // Activity: the silence check starts over at its first delay.
      if (idleMs === idleFirstMs) idleTimer.refresh();
      else armIdle((idleMs = idleFirstMs));
    }
    for (const f of sequencer.accept(frame)) {
      o.onFrame(f);
      if (f.type === terminal) {
        void close();
        o.onEnd();
        return;
      }
    }
    if (sequencer.hasGap() && !gapTimer) {
      gapTimer = setTimeout(() => {
        gapTimer = undefined;
        void fill();
      }, o.gapFillMs ?? 1000);
    }
  };
  sub.current = await o.bus.subscribe(o.subjects.runAll(o.runId), (m) => {
    try {
      accept(decodeJson<F>(m.data));
    } catch (err) {
      o.log.warn({ err, subject: m.subject }, 'undecodable run frame');
    }
  });
  if (closed) await sub.current.close();
  (o.initial ?? []).forEach(accept);
  if (!closed) armIdle(idleMs);
  return { close };
}
