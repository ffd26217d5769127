/**
 * The caller's side of ActionService.ExecuteStream: many Execute calls over
 * one long-lived stream to a service, each with its own call id and principal
 * token, so a call costs no HTTP/2 stream with headers and trailers; and the
 * calls (and cancels) issued in one turn of the event loop go as one message,
 * as their answers come back, so a burst of calls (the next steps of many
 * runs, released by one commit) costs one message each way instead of one
 * per call. The stream is opened with a handshake (a call with neither an
 * action nor a cancel, answered at once); until that
 * answer arrives, and after the stream breaks, `ready()` is false and callers
 * use unary Execute. A service that does not serve ExecuteStream
 * (UNIMPLEMENTED) is called through Execute until `reset()`.
 */
import { Metadata, status as GrpcStatusCode, type ClientDuplexStream } from '@grpc/grpc-js';
import type { action } from '@af/contracts';
import { AppError, ERROR_METADATA_KEY, fromGrpcError } from '../errors.js';

export type ExecuteDuplex = ClientDuplexStream<action.ExecuteStreamRequest, action.ExecuteStreamResponse>;

export interface StreamedCall {
  request: action.ExecuteRequest;
  /** The call's principal token. */
  principalToken: string;
  /** How long the caller waits for the answer. */
  waitMs: number;
  signal: AbortSignal;
}

interface Pending {
  resolve: (response: action.ExecuteResponse) => void;
  reject: (err: AppError) => void;
  timer: NodeJS.Timeout;
  /** Gives up on the call (cancel sent), failing it with `err`. */
  giveUp: (err: AppError) => void;
  signal: AbortSignal;
  action: string;
}

/** How long after a broken stream (or a failed handshake) the next one is opened. */
const REOPEN_AFTER_MS = 1_000;
const MAX_CALL_ID = 0xffff_ffff;

export class ActionStream {
  private stream: ExecuteDuplex | undefined;
  private state: 'closed' | 'opening' | 'open' | 'unsupported' = 'closed';
  private readonly pending = new Map<number, Pending>();
  /**
   * The open calls of each caller's signal (a run's, shared by its nodes):
   * one abort listener per signal for as long as it lives, instead of one
   * added and removed per call.
   */
  private readonly bySignal = new WeakMap<AbortSignal, Set<number>>();
  private lastId = 0;
  private reopenAt = 0;
  /** Calls and cancels waiting for the end of this turn of the event loop, to go as one message. */
  private outbox: action.StreamCall[] = [];
  private flushing: NodeJS.Immediate | undefined;

  constructor(
    /** Opens the stream (a new gRPC call on the service's channel). */
    private readonly open: () => ExecuteDuplex,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether calls go over the stream now; when not, opens one in the background (if none is opening). */
  ready(): boolean {
    if (this.state === 'open') return true;
    if (this.state === 'closed' && this.now() >= this.reopenAt) this.connect();
    return false;
  }

  /** Whether the stream is open (calls go over it). */
  get streaming(): boolean {
    return this.state === 'open';
  }

  /** Calls still open on the stream. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Try ExecuteStream again (after a service that did not serve it may have been upgraded). */
  reset(): void {
    if (this.state === 'unsupported') this.state = 'closed';
  }

  /** Ends the stream; calls still open fail as UNAVAILABLE. */
  close(): void {
    const stream = this.stream;
    this.broken(new AppError('UNAVAILABLE', 'the action stream was closed'), stream);
    stream?.cancel();
  }

  execute(call: StreamedCall): Promise<action.ExecuteResponse> {
    const stream = this.stream;
    if (this.state !== 'open' || !stream) return Promise.reject(new AppError('UNAVAILABLE', 'the action stream is not open'));
    if (call.signal.aborted) return Promise.reject(cancelled(call.request.action));
    const callId = this.nextId();
    return new Promise<action.ExecuteResponse>((resolve, reject) => {
      const giveUp = (err: AppError) => {
        if (!this.settle(callId)) return;
        reject(err);
        // The service aborts the action: nobody waits for its answer any more.
        if (this.stream === stream) this.send({ callId, cancel: true, principalToken: '' });
      };
      const timer = setTimeout(() => giveUp(new AppError('DEADLINE_EXCEEDED', `call did not answer within ${call.waitMs} ms`)), call.waitMs);
      this.pending.set(callId, { resolve, reject, timer, giveUp, signal: call.signal, action: call.request.action });
      this.watch(call.signal, callId);
      this.send({ callId, execute: call.request, principalToken: call.principalToken });
    });
  }

  /** Queues a call or cancel for the stream open now; the queue goes as one message at the end of this turn. */
  private send(call: action.StreamCall): void {
    this.outbox.push(call);
    this.flushing ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushing = undefined;
    const calls = this.outbox;
    this.outbox = [];
    if (calls.length > 0 && this.stream) this.stream.write({ calls });
  }

  private connect(): void {
    let stream: ExecuteDuplex;
    try {
      stream = this.open();
    } catch {
      this.reopenAt = this.now() + REOPEN_AFTER_MS;
      return;
    }
    this.stream = stream;
    this.state = 'opening';
    stream.on('data', (batch: action.ExecuteStreamResponse) => {
      for (const res of batch.answers) {
        if (this.stream !== stream) return;
        if (res.callId === 0 && !res.response && !res.error) {
          this.state = 'open';
          continue;
        }
        const p = this.pending.get(res.callId);
        if (!p || !this.settle(res.callId)) continue;
        if (res.error) p.reject(fromCallError(res.error));
        else p.resolve(res.response ?? { outputs: {}, replayed: false });
      }
    });
    stream.on('error', (err: { code?: number }) => {
      if (this.stream !== stream) return;
      if (err?.code === GrpcStatusCode.UNIMPLEMENTED) {
        this.broken(fromGrpcError(err), stream);
        this.state = 'unsupported';
        return;
      }
      const cause = fromGrpcError(err);
      this.broken(new AppError('UNAVAILABLE', `the stream to the action service broke (${cause.code}: ${cause.message})`, { cause: err, transport: true }), stream);
    });
    // The service ended the stream without an error (it is shutting down): its open calls get no answer here.
    stream.on('status', (s: { code: number }) => {
      if (s.code === GrpcStatusCode.OK) this.broken(new AppError('UNAVAILABLE', 'the action service ended the stream'), stream);
    });
    // The handshake: answered at once by a service that serves ExecuteStream.
    stream.write({ calls: [{ callId: 0, principalToken: '' }] });
  }

  /** The stream broke: every open call fails with `err` (retried per the node's policy, as a unary call to a dying service). */
  private broken(err: AppError, stream: ExecuteDuplex | undefined): void {
    if (stream === undefined || this.stream !== stream) return;
    this.stream = undefined;
    this.state = 'closed';
    // Queued calls were for the broken stream: they fail below with the others.
    this.outbox = [];
    this.reopenAt = this.now() + REOPEN_AFTER_MS;
    const open = [...this.pending.entries()];
    for (const [callId, p] of open) {
      if (this.settle(callId)) p.reject(err);
    }
  }

  /** Forgets a pending call; false when it was already settled. */
  private settle(callId: number): boolean {
    const p = this.pending.get(callId);
    if (!p) return false;
    this.pending.delete(callId);
    clearTimeout(p.timer);
    this.bySignal.get(p.signal)?.delete(callId);
    return true;
  }

  /** Cancels the call when its caller's signal aborts. */
  private watch(signal: AbortSignal, callId: number): void {
    let calls = this.bySignal.get(signal);
    if (!calls) {
      const open = new Set<number>();
      calls = open;
      this.bySignal.set(signal, open);
      signal.addEventListener(
        'abort',
        () => {
          for (const id of [...open]) {
            const p = this.pending.get(id);
            p?.giveUp(cancelled(p.action));
          }
        },
        { once: true },
      );
    }
    calls.add(callId);
  }

  private nextId(): number {
    do {
      this.lastId = this.lastId >= MAX_CALL_ID ? 1 : this.lastId + 1;
    } while (this.pending.has(this.lastId));
    return this.lastId;
  }
}

function cancelled(actionName: string): AppError {
  return new AppError('CANCELLED', `action ${actionName} was cancelled before it answered`);
}

/** A CallError → the AppError a unary Execute answering that status would have given. */
function fromCallError(e: action.CallError): AppError {
  const metadata = new Metadata();
  if (e.detail?.length) metadata.set(ERROR_METADATA_KEY, Buffer.from(e.detail));
  return fromGrpcError({ code: e.code, details: e.message, metadata });
}
