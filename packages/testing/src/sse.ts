/** A minimal Server-Sent Events reader over fetch, for tests and the CLI. */
export interface SseFrame {
  id?: string;
  event?: string;
  data: string;
}

export interface SseResult {
  status: number;
  frames: SseFrame[];
  body?: string;
}

/**
 * Read frames until `until(frame)` is true, the server closes, or the timeout.
 */
export async function readSse(
  url: string,
  headers: Record<string, string>,
  opts: { until?: (f: SseFrame) => boolean; timeoutMs?: number; method?: 'GET' | 'POST'; body?: string } = {},
): Promise<SseResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs ?? 30_000);
  const frames: SseFrame[] = [];
  try {
    const res = await fetch(url, {
      method: opts.method ?? 'GET',
      headers: { accept: 'text/event-stream', ...headers },
      ...(opts.body !== undefined ? { body: opts.body } : {}),
      signal: controller.signal,
    });
    if (!res.ok || !res.body) return { status: res.status, frames, body: await res.text() };
    const decoder = new TextDecoder();
    let buffer = '';
    const reader = res.body.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let idx: number;
      while ((idx = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 2);
        const frame: SseFrame = { data: '' };
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const [field, ...rest] = line.split(':');
          const v = rest.join(':').replace(/^ /, '');
          if (field === 'id') frame.id = v;
          else if (field === 'event') frame.event = v;
          else if (field === 'data') data.push(v);
        }
        if (!data.length && !frame.event) continue;
        frame.data = data.join('\n');
        frames.push(frame);
        if (opts.until?.(frame)) {
          controller.abort();
          return { status: res.status, frames };
        }
      }
    }
    return { status: res.status, frames };
  } catch (err) {
    if ((err as Error).name === 'AbortError') return { status: 0, frames };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * POST a JSON body to a run stream (e.g. `/api/v1/flex/run.stream`) as
 * `token` and collect each frame's JSON until `complete` or a frame `until`
 * accepts; a refused request or a timeout throws.
 */
export async function postRunStream(
  url: string,
  token: string,
  body: unknown,
  opts: { until?: (frame: Record<string, any>) => boolean; timeoutMs?: number } = {},
): Promise<Array<Record<string, any>>> {
  const parse = (f: SseFrame) => JSON.parse(f.data) as Record<string, any>;
  const res = await readSse(url, { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, {
    method: 'POST',
    body: JSON.stringify(body),
    timeoutMs: opts.timeoutMs ?? 60_000,
    until: (f) => {
      const frame = parse(f);
      return frame.type === 'complete' || (opts.until?.(frame) ?? false);
    },
  });
  if (res.status === 0) throw new Error(`${url}: no complete frame within ${opts.timeoutMs ?? 60_000} ms (${res.frames.length} frames)`);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.body ?? ''}`);
  return res.frames.map(parse);
}
