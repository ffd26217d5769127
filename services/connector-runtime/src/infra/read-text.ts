/**
 * One request through an undici dispatcher with its answer read whole into a
 * string by a dispatch handler (undici's documented `dispatch` API), instead
 * of `request`'s body stream. A small JSON answer costs a Readable, its
 * buffering and a consumer per response the other way; this way the chunks go
 * straight into a list. Measured on the bench's 4 KB answers: about 10 % less
 * CPU per call than `request` + `body.text()` on the same Agent.
 *
 * Limits as the executor's streamed reads have them (`domain/http-failure.ts`):
 * a 2xx body over `maxBytes` — declared or as it arrives — fails with
 * UPSTREAM_ERROR and ends the connection; other answers keep their first
 * `errorBytes` and drop the rest with the connection. A `signal` (AbortSignal
 * or an EventEmitter that emits `abort`, as undici takes them) ends the request
 * with its reason.
 */
import { errors, type Dispatcher } from 'undici';
import { ConnectorError } from '@af/connectors';
import type { HttpTextLimits, HttpTextResponse } from '@af/connectors';

/** A request's signal as undici takes it: an AbortSignal, or an EventEmitter that emits `abort`. */
export type TextSignal =
  | AbortSignal
  | { readonly aborted: boolean; readonly reason?: unknown; once(event: 'abort', fn: () => void): unknown; off(event: 'abort', fn: () => void): unknown };

type Controller = Parameters<NonNullable<Dispatcher.DispatchHandler['onRequestStart']>>[0];

export function dispatchText(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  limits: HttpTextLimits,
  signal?: TextSignal | null,
): Promise<HttpTextResponse> {
  if (signal?.aborted) return Promise.reject(signal.reason ?? new errors.RequestAbortedError());
  return new Promise<HttpTextResponse>((resolve, reject) => {
    let controller: Controller | undefined;
    let statusCode = 0;
    let headers: HttpTextResponse['headers'] = {};
    let chunks: Buffer[] = [];
    let size = 0;
    let cap = limits.maxBytes;
    let ok = true;
    let settled = false;
    let abortReason: unknown;
    const head = options.method === 'HEAD';

    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      stopListening();
      fn();
    };
    const onAbort = () => {
      abortReason = signal?.reason ?? new errors.RequestAbortedError();
      if (controller) controller.abort(abortReason as Error);
      else finish(() => reject(abortReason));
    };
    const stopListening = () => {
      if (!signal) return;
      if ('removeEventListener' in signal) signal.removeEventListener('abort', onAbort);
      else signal.off('abort', onAbort);
    };
    if (signal) {
      if ('addEventListener' in signal) signal.addEventListener('abort', onAbort, { once: true });
      else signal.once('abort', onAbort);
    }
    /** The answer so far, and the connection closed (the rest is not read). */
    const cut = () => {
      const text = Buffer.concat(chunks, size).toString('utf8');
      finish(() => resolve({ statusCode, headers, text }));
      controller?.abort(new errors.RequestAbortedError('the rest of the body is not needed'));
    };
    const tooLarge = () => {
      finish(() => reject(new ConnectorError('UPSTREAM_ERROR', `${limits.label}: the response is larger than ${limits.maxBytes} bytes`)));
      controller?.abort(new errors.RequestAbortedError('the response is too large'));
    };

    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (abortReason !== undefined) c.abort(abortReason as Error);
      },
      onResponseStart(_c, status, responseHeaders) {
        if (status < 200) return; // 1xx informational: the real answer follows.
        statusCode = status;
        headers = responseHeaders;
        chunks = [];
        size = 0;
        ok = status < 300;
        cap = ok ? limits.maxBytes : limits.errorBytes;
        // A HEAD answer's Content-Length is the resource's size; no body follows.
        if (!ok || head) return;
        const declared = responseHeaders['content-length'];
        const length = typeof declared === 'string' && /^\d{1,15}$/.test(declared) ? Number(declared) : undefined;
        if (length !== undefined && length > limits.maxBytes) tooLarge();
      },
      onResponseData(_c, chunk) {
        if (settled) return;
        if (size + chunk.length > cap) {
          if (ok) return tooLarge();
          chunks.push(chunk.subarray(0, cap - size));
          size = cap;
          return cut();
        }
        chunks.push(chunk);
        size += chunk.length;
      },
      onResponseEnd() {
        if (settled) return;
        const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
        finish(() => resolve({ statusCode, headers, text }));
      },
      onResponseError(_c, err) {
        finish(() => reject(abortReason ?? err));
      },
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (err) {
      finish(() => reject(err));
    }
  });
}
