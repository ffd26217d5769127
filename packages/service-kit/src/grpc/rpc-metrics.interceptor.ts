import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { tap, type Observable } from 'rxjs';
import { AppError } from '../errors.js';
import type { Metrics } from '../metrics.js';

/** Observes every gRPC handler's duration by method and result code. */
@Injectable()
export class RpcMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: Metrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const method = `${context.getClass().name}.${context.getHandler().name}`;
    const end = this.metrics.rpcDuration.startTimer({ method });
    return next.handle().pipe(
      tap({
        next: () => end({ code: 'OK' }),
        error: (err: unknown) => end({ code: err instanceof AppError ? err.code : 'INTERNAL' }),
      }),
    );
  }
}
