import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { AppError, httpStatusOf, type Logger } from '@af/service-kit';
import type { Response } from 'express';
import { publicMessage } from '../domain/public-error.js';
import { serviceOf } from '../infra/labelled-clients.js';

/**
 * The only place that knows HTTP statuses: AppError (from our code or a gRPC
 * peer) → status + `{ error: { code, message, violations } }`. A transport
 * failure (no detail from the peer) is answered with a sentence naming the
 * service, never grpc-js text with internal addresses; the detail is logged.
 * Messages and violations are already bounded by AppError.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly log: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) {
      res.end();
      return;
    }
    if (exception instanceof AppError) {
      const status = httpStatusOf(exception.code);
      const service = serviceOf(exception);
      if (status >= 500 || exception.transport) this.log.error({ err: exception, service }, 'request failed');
      if (exception.retryAfterMs !== undefined) res.setHeader('Retry-After', Math.ceil(exception.retryAfterMs / 1000));
      const message = publicMessage(exception, status, service);
      const violations = status >= 500 ? exception.violations.map((v) => ({ ...v, reason: publicMessage({ code: exception.code, transport: exception.transport, message: v.reason }, status, service) })) : exception.violations;
      res.status(status).json({ error: { code: exception.code, message, violations } });
      return;
    }
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const body = exception.getResponse();
      const message = typeof body === 'string' ? body : String((body as { message?: unknown }).message ?? exception.message);
      res.status(status).json({ error: { code: codeForStatus(status), message, violations: [] } });
      return;
    }
    this.log.error({ err: exception }, 'unhandled error');
    res.status(500).json({ error: { code: 'INTERNAL', message: 'internal error', violations: [] } });
  }
}

function codeForStatus(status: number): string {
  if (status === 404) return 'NOT_FOUND';
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 400) return 'INVALID_ARGUMENT';
  if (status === 401) return 'UNAUTHENTICATED';
  if (status === 403) return 'PERMISSION_DENIED';
  return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
}
