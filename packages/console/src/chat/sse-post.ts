/**
 * Server-Sent Events over a POST (the chat stream takes a JSON body and the
 * bearer header, which `EventSource` cannot send): `fetch`, then the body
 * read as it arrives and cut into frames.
 */
import { ApiError, getToken } from '../api/client';

export interface SseMessage {
  event: string;
  data: string;
  id?: string;
}

/** Splits SSE text into complete messages; what is left (an unfinished message) is returned as `rest`. */
export function parseSse(buffer: string): { messages: SseMessage[]; rest: string } {
  const messages: SseMessage[] = [];
  const text = buffer.replace(/\r\n?/g, '\n');
  const blocks = text.split('\n\n');
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (!line || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'id') id = value;
    }
    if (data.length) messages.push({ event, data: data.join('\n'), ...(id !== undefined ? { id } : {}) });
  }
  return { messages, rest };
}

/** POSTs `body` to `path` and calls `onMessage` for each frame until the stream ends; an HTTP error rejects with an ApiError. */
export async function postSse(path: string, body: unknown, onMessage: (m: SseMessage) => void, signal?: AbortSignal): Promise<void> {
  const headers: Record<string, string> = { accept: 'text/event-stream', 'content-type': 'application/json' };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body), signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK', 'the gateway could not be reached; check that it is running');
  }
  if (!res.ok || !res.body) {
    let e: any;
    try {
      e = (await res.json())?.error;
    } catch {
      e = undefined;
    }
    throw new ApiError(res.status, e?.code ?? `HTTP_${res.status}`, e?.message ?? `POST ${path} answered ${res.status}`, Array.isArray(e?.violations) ? e.violations : []);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    const { messages, rest } = parseSse(buffer);
    buffer = rest;
    for (const m of messages) onMessage(m);
  }
  const { messages } = parseSse(`${buffer}\n\n`);
  for (const m of messages) onMessage(m);
}
