import { Metadata, status } from '@grpc/grpc-js';
import { ERROR_METADATA_KEY, fromServiceError, PluginError, toServiceError } from './errors.js';

describe('PluginError ⇄ gRPC status', () => {
  it('round-trips code, message, violations and retry-after through af-error-bin', () => {
    const err = new PluginError('RESOURCE_EXHAUSTED', 'slow down', {
      retryAfterMs: 1500,
      violations: [{ field: 'inputs.x', reason: 'too many' }],
    });
    const wire = toServiceError(err);
    expect(wire.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(wire.details).toBe('slow down');
    const detail = JSON.parse((wire.metadata!.get(ERROR_METADATA_KEY)[0] as Buffer).toString('utf8'));
    // The same shape @af/service-kit's AppError.toDetail() has, so connector-runtime restores it.
    expect(detail).toEqual({
      code: 'RESOURCE_EXHAUSTED',
      message: 'slow down',
      violations: [{ field: 'inputs.x', reason: 'too many' }],
      retryable: true,
      retryAfterMs: 1500,
    });
    const back = fromServiceError(wire);
    expect(back).toMatchObject({
      code: 'RESOURCE_EXHAUSTED',
      message: 'slow down',
      retryable: true,
      retryAfterMs: 1500,
      violations: [{ field: 'inputs.x', reason: 'too many' }],
    });
  });

  it('falls back to the status code when there is no (or a broken) detail', () => {
    expect(
      fromServiceError({
        code: status.UNAVAILABLE,
        details: 'No connection established',
        metadata: new Metadata(),
      }),
    ).toMatchObject({
      code: 'UNAVAILABLE',
      message: 'No connection established',
      retryable: true,
    });
    const md = new Metadata();
    md.set(ERROR_METADATA_KEY, Buffer.from('{not json'));
    expect(fromServiceError({ code: status.PERMISSION_DENIED, details: 'no', metadata: md }).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(fromServiceError(new Error('weird')).code).toBe('INTERNAL');
    expect(fromServiceError({ code: 999, details: 'x' }).code).toBe('INTERNAL');
  });

  it('has helpers for the common cases', () => {
    expect(PluginError.invalid('inputs.text', 'is required')).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'inputs.text: is required',
      retryable: false,
    });
    expect(PluginError.unavailable('down', 10)).toMatchObject({
      code: 'UNAVAILABLE',
      retryable: true,
      retryAfterMs: 10,
    });
    expect(PluginError.failedPrecondition('no config')).toMatchObject({
      code: 'FAILED_PRECONDITION',
      retryable: false,
    });
  });
});
