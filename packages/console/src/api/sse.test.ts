import { describe, expect, it } from 'vitest';
import { followRun, withLastEventId, type EventSourceLike, type RunFrame } from './sse';

/** A stand-in EventSource the test drives: emit frames, drop the connection. */
class FakeSource implements EventSourceLike {
  listeners = new Map<string, Array<(e: MessageEvent) => void>>();
  closed = false;
  constructor(readonly url: string) {}
  addEventListener(type: string, l: (e: MessageEvent) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
  }
  close() {
    this.closed = true;
  }
  emit(type: string, id: string, extra: Partial<RunFrame> = {}) {
    const frame = { type, id, timestamp: '2026-01-01T00:00:00.000Z', payload: {}, runId: 'r1', ...extra };
    for (const l of this.listeners.get(type) ?? []) l({ data: JSON.stringify(frame), lastEventId: id } as MessageEvent);
  }
  fail() {
    for (const l of this.listeners.get('error') ?? []) l({} as MessageEvent);
  }
}

const flush = () => new Promise((r) => setTimeout(r, 0));

function harness() {
  const sources: FakeSource[] = [];
  const tokenPaths: string[] = [];
  const sleeps: number[] = [];
  let n = 0;
  const deps = {
    open: (url: string) => {
      const s = new FakeSource(url);
      sources.push(s);
      return s;
    },
    streamUrl: async (path: string) => {
      tokenPaths.push(path);
      return `${path}?stream_token=t${++n}`;
    },
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
  };
  return { sources, tokenPaths, sleeps, deps };
}

describe('followRun', () => {
  it('opens the stream with a stream token and delivers frames in order', async () => {
    const h = harness();
    const frames: string[] = [];
    followRun('r1', { onFrame: (f) => frames.push(`${f.id}:${f.type}`), deps: h.deps });
    await flush();
    expect(h.sources[0]!.url).toBe('/api/v1/runs/r1/events?stream_token=t1');
    h.sources[0]!.emit('start', '1');
    h.sources[0]!.emit('node_start', '2', { nodeId: 'a' });
    expect(frames).toEqual(['1:start', '2:node_start']);
  });

  it('reconnects after a drop with a new token and lastEventId of the last frame, dropping replayed frames', async () => {
    const h = harness();
    const frames: string[] = [];
    const states: string[] = [];
    const handle = followRun('r1', { onFrame: (f) => frames.push(f.id), onState: (s) => states.push(s), deps: h.deps, backoff: { firstMs: 10, maxMs: 40 } });
    await flush();
    h.sources[0]!.emit('start', '1');
    h.sources[0]!.emit('node_start', '2');
    h.sources[0]!.fail();
    await flush();
    await flush();
    expect(h.sources[0]!.closed).toBe(true);
    expect(h.sources).toHaveLength(2);
    expect(h.sources[1]!.url).toBe('/api/v1/runs/r1/events?stream_token=t2&lastEventId=2');
    expect(h.tokenPaths).toEqual(['/api/v1/runs/r1/events', '/api/v1/runs/r1/events']);
    // A server that replays an old frame: it is not delivered twice.
    h.sources[1]!.emit('node_start', '2');
    h.sources[1]!.emit('node_complete', '3');
    expect(frames).toEqual(['1', '2', '3']);
    expect(handle.lastEventId()).toBe('3');
    expect(states).toContain('reconnecting');
  });

  it('backs off (doubling, capped) while reconnects keep failing, and resets after a frame', async () => {
    const h = harness();
    followRun('r1', { onFrame: () => undefined, deps: h.deps, backoff: { firstMs: 10, maxMs: 40 } });
    await flush();
    for (let i = 0; i < 4; i++) {
      h.sources[i]!.fail();
      await flush();
      await flush();
    }
    expect(h.sleeps).toEqual([10, 20, 40, 40]);
    h.sources[4]!.emit('start', '1');
    h.sources[4]!.fail();
    await flush();
    await flush();
    expect(h.sleeps.at(-1)).toBe(10);
  });

  it('stops after the complete frame and does not reconnect when the server then closes', async () => {
    const h = harness();
    const states: string[] = [];
    followRun('r1', { onFrame: () => undefined, onState: (s) => states.push(s), deps: h.deps });
    await flush();
    h.sources[0]!.emit('complete', '5', { payload: { status: 'completed' } });
    h.sources[0]!.fail();
    await flush();
    expect(h.sources).toHaveLength(1);
    expect(h.sources[0]!.closed).toBe(true);
    expect(states.at(-1)).toBe('ended');
  });

  it('close() ends the stream for good', async () => {
    const h = harness();
    const handle = followRun('r1', { onFrame: () => undefined, deps: h.deps });
    await flush();
    handle.close();
    h.sources[0]!.fail();
    await flush();
    expect(h.sources).toHaveLength(1);
    expect(h.sources[0]!.closed).toBe(true);
  });

  it('withLastEventId appends to a URL with or without a query', () => {
    expect(withLastEventId('/e?stream_token=x', '7')).toBe('/e?stream_token=x&lastEventId=7');
    expect(withLastEventId('/e', '7')).toBe('/e?lastEventId=7');
    expect(withLastEventId('/e', null)).toBe('/e');
  });
});
