import { Catch, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { throwError, type Observable } from 'rxjs';
import { AppError, toGrpcError } from '../errors.js';
import type { Logger } from '../logger.js';

/** Every error leaving a gRPC handler becomes a status + `af-error-bin` detail. */
@Catch()
export class GrpcExceptionFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly log: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    if (!(exception instanceof AppError) || exception.code === 'INTERNAL') {
      const handler = host.getArgByIndex(2) as { path?: string } | undefined;
      this.log.error({ err: exception, call: handler?.path }, 'unhandled error in gRPC handler');
    }
    return throwError(() => toGrpcError(exception));
  }
}
