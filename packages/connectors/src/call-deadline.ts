/**
 * The deadline of one connector call as an AbortSignal for the HTTP client
 * (every request of the call — token requests, pages — shares it).
 *
 * A timer and an AbortController per call cost as much as a tenth of a local
 * request (bench/connectors a), so calls without a caller signal share them:
 * a deadline is rounded UP to a slot (at most `MAX_SLACK_MS`, and at most
 * 1/64 of the timeout, later), and every call whose deadline falls in the
 * same slot uses that slot's one controller and one timer. When the slot's
 * timer fires, every call in it has passed its own deadline, so aborting them
 * all together is exact up to the rounding.
 *
 * A slot also hands its deadline to HTTP requests as an EventEmitter
 * (`requestSignal`, which undici's `request` takes like an AbortSignal):
 * every request adds and removes an abort listener, and on an AbortSignal
 * (an EventTarget) that costs a few microseconds a request.
 *
 * Slot timers never hold the process open by themselves (they are unref'd):
 * a call in flight is waiting on I/O (a socket, a DNS lookup, a database
 * query), which does. A call with a caller signal (cancellation) gets a
 * controller and timer of its own, since the caller's abort must end only
 * that call.
 */
import { EventEmitter, setMaxListeners } from 'node:events';

/** The most a shared deadline fires after the exact one. */
export const MAX_SLACK_MS = 50;

export interface CallDeadline {
  /** Fires when the deadline passes or the caller cancels. */
  readonly signal: AbortSignal;
  /** The same, for HTTP requests (undici's `request` and the SSRF guard take either kind). */
  readonly requestSignal: AbortSignal | DeadlineEmitter;
  /** Whether the deadline (not the caller) ended the call. */
  readonly timedOut: boolean;
  /** The call is over (call it in a `finally`). */
  release(): void;
}

/**
 * A deadline as an EventEmitter: emits `abort` once, then has `aborted` true
 * and the abort's `reason` — what undici's `request` reads of a signal.
 */
export class DeadlineEmitter extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  constructor() {
    super();
    // Every request in flight in the slot listens to it.
    this.setMaxListeners(0);
  }

  /** Fires once; later calls do nothing. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** One shared deadline: the controller every call due in it listens to. */
class Slot implements CallDeadline {
  readonly controller = new AbortController();
  readonly requestSignal = new DeadlineEmitter();
  fired = false;

  constructor() {
    // Every call in flight in the slot listens to its signal (OAuth token requests, plugins).
    setMaxListeners(0, this.controller.signal);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  fire(): void {
    this.fired = true;
    this.controller.abort();
    this.requestSignal.abort(this.controller.signal.reason);
  }

  get timedOut(): boolean {
    return this.fired;
  }

  release(): void {
    // Nothing per call: the slot's timer fires (or not) for all of them.
  }
}

const slots = new Map<number, Slot>();

/** How far a deadline of `timeoutMs` may be rounded up. */
export function deadlineSlackMs(timeoutMs: number): number {
  return Math.min(MAX_SLACK_MS, Math.max(1, Math.floor(timeoutMs / 64)));
}

/**
 * The deadline of a call that may take `timeoutMs` (a positive, finite number
 * of milliseconds) from now, cancelled early by `callerSignal`.
 */
export function startDeadline(timeoutMs: number, callerSignal?: AbortSignal): CallDeadline {
  if (callerSignal) return new OwnDeadline(timeoutMs, callerSignal);
  const slack = deadlineSlackMs(timeoutMs);
  const now = Date.now();
  const fireAt = Math.ceil((now + timeoutMs) / slack) * slack;
  let slot = slots.get(fireAt);
  if (!slot) {
    const created = new Slot();
    const timer = setTimeout(() => {
      slots.delete(fireAt);
      created.fire();
    }, fireAt - now);
    timer.unref?.();
    slots.set(fireAt, created);
    slot = created;
  }
  return slot;
}

/** A deadline of its own, also ended by the caller's signal. */
class OwnDeadline implements CallDeadline {
  private readonly controller = new AbortController();
  private fired = false;
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onCallerAbort = () => this.controller.abort();

  constructor(
    timeoutMs: number,
    private readonly callerSignal: AbortSignal,
  ) {
    this.timer = setTimeout(() => {
      this.fired = true;
      this.controller.abort();
    }, timeoutMs);
    if (callerSignal.aborted) this.controller.abort();
    else callerSignal.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get requestSignal(): AbortSignal {
    return this.controller.signal;
  }

  get timedOut(): boolean {
    return this.fired;
  }

  release(): void {
    clearTimeout(this.timer);
    this.callerSignal.removeEventListener('abort', this.onCallerAbort);
  }
}

/** Shared slots waiting to fire (for tests). */
export function pendingDeadlineSlots(): number {
  return slots.size;
}
