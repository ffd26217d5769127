import { ConnectorError } from '../../connector-error.js';
import type { ExecutionContext, HttpRequestFn } from '../../connector-type.js';
import { decode, fetchText, withCallScope } from './graphql-rss-web-http.js';
import { failure } from '../../testing.js';

/** An HTTP client that answers from a script instead of the network. */
function fakeHttp(
  answer: (url: string) => { status?: number; body?: Buffer[]; error?: Error },
): HttpRequestFn {
  return (async (url: string) => {
    const a = answer(url);
    if (a.error) throw a.error;
    const chunks = a.body ?? [];
    return {
      statusCode: a.status ?? 200,
      headers: {},
      body: Object.assign(
        (async function* () {
          yield* chunks;
        })(),
        { destroy: () => undefined },
      ),
    };
  }) as unknown as HttpRequestFn;
}

const ctx = (http: HttpRequestFn, extra: Partial<ExecutionContext> = {}): ExecutionContext => ({
  http,
  ...extra,
});


describe('withCallScope', () => {
  const http = fakeHttp(() => ({ body: [Buffer.from('ok')] }));

  it.each([0, -5, Number.NaN])('refuses a timeout of %s ms', async (timeoutMs) => {
    const err = await failure(
      withCallScope(ctx(http, { timeoutMs }), { label: 'c/e', timeoutMs: 1000 }, async () => 1),
    );

    expect(err).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'c/e: the timeout must be a positive number of milliseconds',
    });
  });

  it('CANCELLED without running anything when the signal already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    const body = jest.fn();

    const err = await failure(
      withCallScope(ctx(http, { signal: controller.signal }), { label: 'c/e', timeoutMs: 1000 }, body),
    );

    expect(err.code).toBe('CANCELLED');
    expect(body).not.toHaveBeenCalled();
  });

  it('scrubs secrets from every error that leaves it', async () => {
    const secrets = ['hunter2'];
    const own = await failure(
      withCallScope(ctx(http), { label: 'c/e', timeoutMs: 1000, secrets }, async () => {
        throw new ConnectorError('UPSTREAM_ERROR', 'echo hunter2', {
          violations: [{ field: 'x', reason: 'hunter2' }],
        });
      }),
    );
    expect(own).toMatchObject({
      message: 'echo [REDACTED]',
      violations: [{ field: 'x', reason: '[REDACTED]' }],
    });

    const other = await failure(
      withCallScope(ctx(http), { label: 'c/e', timeoutMs: 1000, secrets }, async () => {
        throw new TypeError('bad hunter2');
      }),
    );
    expect(other).toMatchObject({ code: 'UPSTREAM_ERROR', message: 'c/e: bad [REDACTED]' });
  });

  it('TIMEOUT once the deadline passes, also while sleeping', async () => {
    const err = await failure(
      withCallScope(ctx(http), { label: 'c/e', timeoutMs: 50 }, (scope) => scope.sleep(5000)),
    );

    expect(err).toMatchObject({ code: 'TIMEOUT', message: 'c/e: no complete answer within 50 ms' });
  });
});

describe('fetchText', () => {
  const run = (http: HttpRequestFn, req: Partial<Parameters<typeof fetchText>[1]> = {}) =>
    withCallScope(ctx(http), { label: 'c/e', timeoutMs: 1000, secrets: ['s3cret'] }, (scope) =>
      fetchText(scope, {
        url: 'https://x.test/a?key=s3cret',
        displayUrl: 'https://x.test/a',
        headers: {},
        ...req,
      }),
    );

  it('a network error is UNAVAILABLE naming the display URL and the error code, never the full URL', async () => {
    const error = Object.assign(new Error('connect ECONNREFUSED https://x.test/a?key=s3cret'), {
      code: 'ECONNREFUSED',
    });

    const err = await failure(run(fakeHttp(() => ({ error }))));

    expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(err.message).toBe(
      'c/e: could not reach https://x.test/a: connect ECONNREFUSED https://x.test/a?key=[REDACTED]',
    );
  });

  it('overflow "truncate" keeps the head; "fail" refuses', async () => {
    const http = fakeHttp(() => ({ body: [Buffer.from('abcdef'), Buffer.from('ghij')] }));

    await expect(run(http, { maxBytes: 8, overflow: 'truncate' })).resolves.toMatchObject({
      text: 'abcdefgh',
    });
    expect((await failure(run(http, { maxBytes: 8 }))).message).toBe(
      'c/e: the response is larger than 8 bytes',
    );
  });
});

describe('decode', () => {
  const latin1 = (s: string) => Buffer.from(s, 'latin1');

  it.each([
    ['a Content-Type charset', latin1('caf\u00e9'), { 'content-type': 'text/html; charset=ISO-8859-1' }],
    ['an XML declaration', latin1('<?xml version="1.0" encoding="iso-8859-1"?><a>caf\u00e9</a>'), {}],
    [
      'an HTML meta tag',
      latin1('<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">caf\u00e9'),
      {},
    ],
  ])('follows %s', (_, raw, headers) => {
    expect(decode(raw, headers)).toContain('café');
  });

  it('uses UTF-8 by default, for a BOM, and for unknown labels', () => {
    expect(decode(Buffer.from('café'), {})).toBe('café');
    expect(
      decode(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('x')]), {
        'content-type': 'text/xml',
      }),
    ).toBe('x');
    expect(decode(Buffer.from('café'), { 'content-type': 'text/html; charset=klingon' })).toBe('café');
  });
});
