import { Metadata, status } from '@grpc/grpc-js';
import { boundViolations, fitDetail, MAX_ERROR_DETAIL_BYTES, MAX_VIOLATIONS, truncateText } from './error-bounds.js';
import { AppError, ERROR_METADATA_KEY, fromGrpcError, httpStatusOf, toGrpcError } from './errors.js';

const many = (n: number, reason = 'is wrong') => Array.from({ length: n }, (_, i) => ({ field: `steps[${i}].inputs.q`, reason }));

describe('truncateText', () => {
  it('keeps short text and cuts long text to the limit, saying how much was cut', () => {
    expect(truncateText('abc', 10)).toBe('abc');
    const cut = truncateText('x'.repeat(5_000), 1_000);
    expect(cut.length).toBeLessThanOrEqual(1_000);
    expect(cut).toMatch(/ … \(\d+ more characters\)$/);
  });
});

describe('boundViolations', () => {
  it('keeps up to 100 violations unchanged', () => {
    expect(boundViolations(many(100))).toEqual(many(100));
  });

  it('keeps 99 and a "… and N more" marker past 100', () => {
    const out = boundViolations(many(12_000));
    expect(out).toHaveLength(MAX_VIOLATIONS);
    expect(out.at(-1)).toEqual({ field: '…', reason: '… and 11901 more', code: 'truncated' });
    expect(out[98]!.field).toBe('steps[98].inputs.q');
  });

  it('cuts long fields, reasons and fixes', () => {
    const [v] = boundViolations([{ field: 'f'.repeat(10_000), reason: 'r'.repeat(10_000), suggestedFix: 's'.repeat(10_000) }]);
    expect(v!.field.length).toBeLessThanOrEqual(300);
    expect(v!.reason.length).toBeLessThanOrEqual(1_000);
    expect(v!.suggestedFix!.length).toBeLessThanOrEqual(1_000);
  });
});

describe('AppError bounds', () => {
  it('cuts the message to 1,000 characters and the violations to 100', () => {
    const err = new AppError('INVALID_ARGUMENT', 'steps: '.repeat(50_000), { violations: many(5_000) });
    expect(err.message.length).toBeLessThanOrEqual(1_000);
    expect(err.violations).toHaveLength(100);
    expect(err.violations.at(-1)!.reason).toBe('… and 4901 more');
  });

  it('sends a detail that always fits the trailer budget, and says how many were dropped', () => {
    const err = new AppError('INVALID_ARGUMENT', 'bad', { violations: many(100, 'r'.repeat(900)) });
    const wire = toGrpcError(err);
    const raw = wire.metadata.get(ERROR_METADATA_KEY)[0] as Buffer;
    expect(raw.length).toBeLessThanOrEqual(MAX_ERROR_DETAIL_BYTES);
    const back = fromGrpcError(wire);
    expect(back.violations.length).toBeLessThan(100);
    const marker = back.violations.at(-1)!;
    expect(marker.code).toBe('truncated');
    expect(Number(/and (\d+) more/.exec(marker.reason)![1]) + back.violations.length - 1).toBe(100);
  });

  it('fitDetail adds to an earlier marker instead of losing its count', () => {
    const bounded = boundViolations(many(1_000, 'r'.repeat(900)));
    const fitted = fitDetail({ code: 'INVALID_ARGUMENT', message: 'm', violations: bounded, retryable: false }, 8_192);
    const marker = fitted.violations.at(-1)!;
    expect(Number(/and (\d+) more/.exec(marker.reason)![1]) + fitted.violations.length - 1).toBe(1_000);
  });
});

describe('transport errors', () => {
  const grpcErr = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: new Metadata() });

  it('marks an error without a peer detail as a transport error', () => {
    const e = fromGrpcError(grpcErr(status.UNAVAILABLE, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:50051'));
    expect(e.code).toBe('UNAVAILABLE');
    expect(e.transport).toBe(true);
    expect(e.message).toBe('No connection established. Last error: connect ECONNREFUSED [internal address]');
    expect(fromGrpcError(toGrpcError(new AppError('UNAVAILABLE', 'x'))).transport).toBe(false);
  });

  it.each([
    'Received message larger than max (1900000 vs 1048576)',
    'Sent message larger than max (5000000 vs. 4194304)',
  ])('maps a gRPC message-size error (%s) to PAYLOAD_TOO_LARGE / 413', (details) => {
    const e = fromGrpcError(grpcErr(status.RESOURCE_EXHAUSTED, details));
    expect(e.code).toBe('PAYLOAD_TOO_LARGE');
    expect(httpStatusOf(e.code)).toBe(413);
    expect(e.message).toMatch(/^a message between services is too large \(\d+ bytes; the limit is \d+\)$/);
  });

  it('keeps other RESOURCE_EXHAUSTED errors as 429', () => {
    expect(fromGrpcError(grpcErr(status.RESOURCE_EXHAUSTED, 'Bandwidth exhausted')).code).toBe('RESOURCE_EXHAUSTED');
  });

  it('round-trips PAYLOAD_TOO_LARGE through the trailer', () => {
    const back = fromGrpcError(toGrpcError(AppError.invalid('inputs', 'x')));
    expect(back.code).toBe('INVALID_ARGUMENT');
    const big = fromGrpcError(toGrpcError(new AppError('PAYLOAD_TOO_LARGE', 'inputs: too large', { violations: [{ field: 'inputs', reason: 'too large' }] })));
    expect(big.code).toBe('PAYLOAD_TOO_LARGE');
    expect(big.violations[0]!.field).toBe('inputs');
  });
});
