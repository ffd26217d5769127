import { AppError, fromGrpcError, type Logger } from '@af/service-kit';
import { Metadata, status } from '@grpc/grpc-js';
import type { ArgumentsHost } from '@nestjs/common';
import { HttpErrorFilter } from './http-error.filter.js';
import { assertInputsFit } from './validation.js';

function respond(exception: unknown) {
  const out: { status?: number; body?: any; headers: Record<string, unknown> } = { headers: {} };
  const res = {
    headersSent: false,
    setHeader: (k: string, v: unknown) => (out.headers[k] = v),
    status(code: number) {
      out.status = code;
      return this;
    },
    json(body: unknown) {
      out.body = body;
      return this;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost;
  const logged: unknown[] = [];
  const log = { error: (...args: unknown[]) => logged.push(args) } as unknown as Logger;
  new HttpErrorFilter(log).catch(exception, host);
  return { ...out, logged };
}

const transport = (code: number, details: string, service?: string) => {
  const raw = Object.assign(new Error(details), { code, details, metadata: new Metadata() });
  if (service) Object.defineProperty(raw, 'afService', { value: service });
  return fromGrpcError(raw);
};

describe('HttpErrorFilter', () => {
  it('answers a transport failure with a sentence naming the service, and logs the detail', () => {
    const r = respond(transport(status.UNAVAILABLE, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:50051', 'planner'));
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ error: { code: 'UNAVAILABLE', message: 'the planner service is unavailable; try again shortly', violations: [] } });
    expect(r.logged).toHaveLength(1);
  });

  it('maps a gRPC message-size error to 413', () => {
    const r = respond(transport(status.RESOURCE_EXHAUSTED, 'Received message larger than max (5000000 vs 4194304)', 'orchestrator'));
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(r.body.error.message).toBe('a message between services is too large (5000000 bytes; the limit is 4194304) (between the gateway and the orchestrator service)');
  });

  it('scrubs addresses from a peer’s 5xx message and its violations, and leaves 4xx messages as they are', () => {
    const peer = new AppError('INTERNAL', 'database at 10.0.0.7:5432 refused', { violations: [{ field: 'x', reason: 'via localhost:5432' }] });
    const r = respond(peer);
    expect(r.status).toBe(500);
    expect(r.body.error.message).toBe('database at [internal address] refused');
    expect(r.body.error.violations).toEqual([{ field: 'x', reason: 'via [internal address]' }]);
    const bad = respond(AppError.invalid('endpoint', '169.254.169.254:80 is not allowed'));
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe('endpoint: 169.254.169.254:80 is not allowed');
  });

  it('answers anything else with a generic 500', () => {
    const r = respond(new Error('secret detail at 127.0.0.1:5432'));
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: { code: 'INTERNAL', message: 'internal error', violations: [] } });
  });
});

describe('assertInputsFit', () => {
  it('accepts inputs within the limit', () => {
    expect(() => assertInputsFit({ a: 'x'.repeat(100) }, 1024)).not.toThrow();
  });

  it('refuses larger inputs with PAYLOAD_TOO_LARGE naming the field', () => {
    try {
      assertInputsFit({ a: 'x'.repeat(2_000) }, 1024);
      throw new Error('expected an error');
    } catch (e) {
      const err = e as AppError;
      expect(err.code).toBe('PAYLOAD_TOO_LARGE');
      expect(err.message).toBe('inputs is 2008 bytes of JSON; the limit is 1024 bytes (RUN_INPUT_MAX_BYTES)');
      expect(err.violations).toEqual([{ field: 'inputs', reason: 'is 2008 bytes of JSON; the limit is 1024 bytes (RUN_INPUT_MAX_BYTES)', code: 'payload_too_large' }]);
    }
  });
});
