/** A POST Server-Sent Events reader for tests: frames arrive through an async queue the test pulls from. */
export interface StreamFrame {
  sseId?: string;
  event?: string;
  data: any;
}

export interface PostStream {
  status: number;
  /** The body when the server answered without a stream (an error). */
  body?: any;
  next(timeoutMs?: number): Promise<StreamFrame | undefined>;
  /** Frames until (and including) the first whose type is `type`. */
  until(type: string, timeoutMs?: number): Promise<StreamFrame[]>;
  close(): void;
}

export async function postStream(url: string, token: string, body: unknown): Promise<PostStream> {
  const controller = new AbortController();
  const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(body), signal: controller.signal });
  const close = () => controller.abort();
  if (!res.headers.get('content-type')?.startsWith('text/event-stream') || !res.body) {
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep text
    }
    return { status: res.status, body: parsed, next: async () => undefined, until: async () => [], close };
  }
  const queue: StreamFrame[] = [];
  const waiters: Array<() => void> = [];
  let ended = false;
  const wake = () => waiters.splice(0).forEach((w) => w());
  (async () => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let idx: number;
        while ((idx = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, idx);
          buffer = buffer.slice(idx + 2);
          const frame: StreamFrame = { data: undefined };
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const at = line.indexOf(':');
            const field = line.slice(0, at);
            const v = line.slice(at + 1).replace(/^ /, '');
            if (field === 'id') frame.sseId = v;
            else if (field === 'event') frame.event = v;
            else if (field === 'data') data.push(v);
          }
          if (!data.length) continue;
          frame.data = JSON.parse(data.join('\n'));
          queue.push(frame);
          wake();
        }
      }
    } catch {
      // aborted
    } finally {
      ended = true;
      wake();
    }
  })();
  const next = async (timeoutMs = 30_000): Promise<StreamFrame | undefined> => {
    const deadline = Date.now() + timeoutMs;
    while (!queue.length && !ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('no frame in time');
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    return queue.shift();
  };
  const until = async (type: string, timeoutMs = 60_000) => {
    const out: StreamFrame[] = [];
    for (;;) {
      const f = await next(timeoutMs).catch((e: Error) => {
        throw new Error(`${e.message} waiting for '${type}'; got ${JSON.stringify(out.map((x) => x.data))}`);
      });
      if (!f) throw new Error(`stream ended before a '${type}' frame; got ${JSON.stringify(out.map((x) => x.data))}`);
      out.push(f);
      if (f.data.type === type) return out;
    }
  };
  return { status: res.status, next, until, close };
}
