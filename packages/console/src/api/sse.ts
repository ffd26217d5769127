/**
 * Follows a run's event stream (`GET /api/v1/runs/:id/events`) from a browser.
 * `EventSource` cannot send an Authorization header, so each connection first
 * asks `POST /api/auth/stream-token` for a one-stream URL (60 s, open once).
 * When the connection drops before the `complete` frame, it asks for a new
 * URL and reconnects with `lastEventId=<id of the last frame seen>`, so the
 * gateway continues with the next frame; frames seen already are dropped.
 */
import { api } from './client';

export interface RunFrame {
  type: string;
  id: string;
  timestamp: string;
  payload: Record<string, any>;
  runId?: string;
  nodeId?: string;
}

/** The part of `EventSource` used here (a fake in tests). */
export interface EventSourceLike {
  addEventListener(type: string, listener: (e: MessageEvent) => void): void;
  close(): void;
}

export interface StreamDeps {
  /** Opens the URL (default `new EventSource(url)`). */
  open(url: string): EventSourceLike;
  /** A URL for the stream path that needs no header (default: the stream-token route). */
  streamUrl(path: string): Promise<string>;
  /** Waits before reconnecting (default setTimeout). */
  sleep(ms: number): Promise<void>;
}

/** Frame types a run stream carries; a frame of another type arrives as `message` or is ignored. */
export const FRAME_TYPES = [
  'start', 'node_start', 'node_complete', 'node_error', 'log', 'hitl_request', 'validation_error',
  'plan_requested', 'plan_rejected', 'plan_generated', 'plan_updated', 'policy_triggered', 'subflow_started',
  'rollback_started', 'node_rolled_back', 'rollback_complete', 'complete', 'message',
] as const;

export const defaultStreamDeps: StreamDeps = {
  open: (url) => new EventSource(url),
  streamUrl: async (path) => (await api<{ url: string }>('POST', '/api/auth/stream-token', { body: { path } })).url,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

export interface StreamHandle {
  close(): void;
  /** Id of the last frame delivered (what a reconnect resumes after). */
  lastEventId(): string | null;
}

export interface FollowOptions {
  onFrame(frame: RunFrame): void;
  /** Connection state for the page: connecting, live, reconnecting, ended. */
  onState?(state: 'connecting' | 'live' | 'reconnecting' | 'ended'): void;
  deps?: Partial<StreamDeps>;
  /** Reconnect backoff: first wait and cap (ms). */
  backoff?: { firstMs: number; maxMs: number };
}

/** Appends `lastEventId` to a stream URL (which already carries `?stream_token=`). */
export function withLastEventId(url: string, lastId: string | null): string {
  if (lastId === null) return url;
  return `${url}${url.includes('?') ? '&' : '?'}lastEventId=${encodeURIComponent(lastId)}`;
}

export function followRun(runId: string, opts: FollowOptions): StreamHandle {
  const deps: StreamDeps = { ...defaultStreamDeps, ...opts.deps };
  const path = `/api/v1/runs/${encodeURIComponent(runId)}/events`;
  const backoff = opts.backoff ?? { firstMs: 500, maxMs: 5_000 };
  let lastId: string | null = null;
  let current: EventSourceLike | null = null;
  let stopped = false;
  let wait = backoff.firstMs;

  const deliver = (e: MessageEvent) => {
    let frame: RunFrame;
    try {
      frame = JSON.parse(String(e.data)) as RunFrame;
    } catch {
      return;
    }
    const id = frame.id ?? e.lastEventId;
    // A frame at or before the last one seen is a replay after a reconnect.
    if (lastId !== null && id !== undefined && Number(id) <= Number(lastId)) return;
    if (id !== undefined && id !== '') lastId = String(id);
    wait = backoff.firstMs;
    opts.onFrame(frame);
    if (frame.type === 'complete') {
      stopped = true;
      current?.close();
      opts.onState?.('ended');
    }
  };

  const connect = async (): Promise<void> => {
    if (stopped) return;
    opts.onState?.(lastId === null ? 'connecting' : 'reconnecting');
    let url: string;
    try {
      url = withLastEventId(await deps.streamUrl(path), lastId);
    } catch {
      return retry();
    }
    if (stopped) return;
    const es = deps.open(url);
    current = es;
    es.addEventListener('open', () => opts.onState?.('live'));
    for (const t of FRAME_TYPES) es.addEventListener(t, deliver);
    es.addEventListener('error', () => {
      if (current !== es) return;
      es.close();
      current = null;
      void retry();
    });
  };

  const retry = async (): Promise<void> => {
    if (stopped) return;
    opts.onState?.('reconnecting');
    await deps.sleep(wait);
    wait = Math.min(wait * 2, backoff.maxMs);
    return connect();
  };

  void connect();
  return {
    close() {
      stopped = true;
      current?.close();
      current = null;
    },
    lastEventId: () => lastId,
  };
}
