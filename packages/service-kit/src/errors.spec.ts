import { Metadata, status } from '@grpc/grpc-js';
import { AppError, ERROR_CODES, ERROR_METADATA_KEY, fromGrpcError, grpcStatusOf, httpStatusOf, toGrpcError } from './errors.js';

describe('error mapping', () => {
  it.each([
    ['INVALID_ARGUMENT', status.INVALID_ARGUMENT, 400],
    ['NOT_FOUND', status.NOT_FOUND, 404],
    ['PERMISSION_DENIED', status.PERMISSION_DENIED, 403],
    ['FAILED_PRECONDITION', status.FAILED_PRECONDITION, 409],
    ['UNAVAILABLE', status.UNAVAILABLE, 503],
    ['UNAUTHENTICATED', status.UNAUTHENTICATED, 401],
    ['ALREADY_EXISTS', status.ALREADY_EXISTS, 409],
    ['DEADLINE_EXCEEDED', status.DEADLINE_EXCEEDED, 504],
    ['RESOURCE_EXHAUSTED', status.RESOURCE_EXHAUSTED, 429],
  ] as const)('%s → gRPC %i, HTTP %i', (code, grpc, http) => {
    expect(grpcStatusOf(code)).toBe(grpc);
    expect(httpStatusOf(code)).toBe(http);
  });

  it('maps every code both ways', () => {
    for (const code of ERROR_CODES) {
      const wire = toGrpcError(new AppError(code, 'x'));
      expect(fromGrpcError(wire).code).toBe(code);
    }
  });

  it('round-trips the field-path detail through the af-error-bin trailer', () => {
    const err = new AppError('INVALID_ARGUMENT', 'steps[1].inputs.q: unknown step', {
      violations: [{ field: 'steps[1].inputs.q', reason: 'unknown step', code: 'nonexistent_step', suggestedFix: 'find_org' }],
    });
    const wire = toGrpcError(err);
    expect(wire.code).toBe(status.INVALID_ARGUMENT);
    expect(wire.metadata.get(ERROR_METADATA_KEY)).toHaveLength(1);
    const back = fromGrpcError(wire);
    expect(back).toBeInstanceOf(AppError);
    expect(back.message).toBe(err.message);
    expect(back.violations).toEqual(err.violations);
    expect(back.retryable).toBe(false);
  });

  it('keeps retryability and retry-after', () => {
    const back = fromGrpcError(toGrpcError(new AppError('UNAVAILABLE', 'breaker open', { retryAfterMs: 5000 })));
    expect(back.retryable).toBe(true);
    expect(back.retryAfterMs).toBe(5000);
  });

  it('hides unknown errors behind INTERNAL', () => {
    const wire = toGrpcError(new Error('connection string postgres://admin:hunter2@db'));
    expect(wire.code).toBe(status.INTERNAL);
    expect(wire.message).toBe('internal error');
    expect(JSON.stringify(fromGrpcError(wire).toDetail())).not.toContain('hunter2');
  });

  it('falls back to the status code when a peer sent no detail', () => {
    const back = fromGrpcError({ code: status.NOT_FOUND, details: 'no such thing', metadata: new Metadata() });
    expect(back.code).toBe('NOT_FOUND');
    expect(back.message).toBe('no such thing');
  });

  it('ignores a corrupt detail trailer', () => {
    const md = new Metadata();
    md.set(ERROR_METADATA_KEY, Buffer.from('{not json'));
    expect(fromGrpcError({ code: status.UNAVAILABLE, details: 'down', metadata: md }).code).toBe('UNAVAILABLE');
  });

  it('AppError.invalid names the field', () => {
    const e = AppError.invalid('connection.base_url', 'must be http or https');
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.violations).toEqual([{ field: 'connection.base_url', reason: 'must be http or https' }]);
  });
});
