import { Readable } from 'node:stream';
import {
  codeForStatus,
  describeNetworkError,
  errorForStatus,
  parseRetryAfter,
  readBody,
  snippet,
} from './http-failure.js';

describe('codeForStatus', () => {
  it.each([
    [401, 'AUTH_FAILED'],
    [403, 'AUTH_FAILED'],
    [429, 'RATE_LIMIT'],
    [408, 'TIMEOUT'],
    [500, 'UNAVAILABLE'],
    [502, 'UNAVAILABLE'],
    [503, 'UNAVAILABLE'],
    [400, 'INVALID_ARGUMENT'],
    [422, 'INVALID_ARGUMENT'],
    [404, 'NOT_FOUND'],
    [410, 'NOT_FOUND'],
    [409, 'UPSTREAM_ERROR'],
    [418, 'UPSTREAM_ERROR'],
    [302, 'UPSTREAM_ERROR'],
  ])('%i → %s', (status, code) => {
    expect(codeForStatus(status)).toBe(code);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');

  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
  });

  it('never goes negative and ignores garbage', () => {
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('errorForStatus', () => {
  const ctx = {
    label: 'acme/search',
    displayUrl: 'https://acme.test/v1/search',
    bodySnippet: '{"error":"bad"}',
  };

  it('carries status, retryability and Retry-After for rate limits', () => {
    const err = errorForStatus(429, { 'retry-after': '3' }, ctx);

    expect(err).toMatchObject({ code: 'RATE_LIMIT', status: 429, retryable: true, retryAfterMs: 3000 });
    expect(err.message).toBe(
      'acme/search: the upstream is rate limiting requests (HTTP 429 from https://acme.test/v1/search): {"error":"bad"}',
    );
  });

  it('ignores Retry-After on errors that are not retried', () => {
    expect(errorForStatus(401, { 'retry-after': '3' }, ctx)).toMatchObject({
      code: 'AUTH_FAILED',
      retryable: false,
      retryAfterMs: undefined,
    });
  });

  it('keeps Retry-After on 503 and reads the first of repeated headers', () => {
    expect(errorForStatus(503, { 'retry-after': ['2', '9'] }, { ...ctx, bodySnippet: '' })).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
      retryAfterMs: 2000,
      message: 'acme/search: the upstream is unavailable (HTTP 503 from https://acme.test/v1/search)',
    });
  });
});

describe('readBody', () => {
  const body = (...chunks: string[]) => {
    const stream = Readable.from(chunks.map((c) => Buffer.from(c)));
    return stream;
  };

  it('joins the chunks as UTF-8', async () => {
    expect(await readBody(body('he', 'llo ', 'wörld'), 100, 'x', 'fail')).toBe('hello wörld');
  });

  it('fails past the limit in fail mode, naming the label', async () => {
    await expect(readBody(body('12345', '67890'), 8, 'acme/search', 'fail')).rejects.toMatchObject({
      code: 'UPSTREAM_ERROR',
      message: 'acme/search: the response is larger than 8 bytes',
    });
  });

  it('keeps the first bytes in truncate mode', async () => {
    expect(await readBody(body('12345', '67890'), 8, 'x', 'truncate')).toBe('12345678');
  });
});

describe('snippet and describeNetworkError', () => {
  it('collapses whitespace and marks a cut', () => {
    expect(snippet('a \n  b')).toBe('a b');
    expect(snippet('x'.repeat(250))).toBe(`${'x'.repeat(200)}…`);
  });

  it('names the code once', () => {
    expect(describeNetworkError(Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' }))).toBe(
      'ECONNREFUSED connect failed',
    );
    expect(describeNetworkError(Object.assign(new Error('ECONNRESET boom'), { code: 'ECONNRESET' }))).toBe(
      'ECONNRESET boom',
    );
    expect(describeNetworkError({ message: 'outer', cause: { code: 'ENOTFOUND' } })).toBe('ENOTFOUND outer');
    expect(describeNetworkError('plain')).toBe('plain');
  });
});
