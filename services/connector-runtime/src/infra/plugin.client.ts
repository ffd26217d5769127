/**
 * Calls a plugin's ConnectorPluginService.Invoke over gRPC (one client per
 * plugin address, reused). The plugin enforces `timeout_ms` itself and answers
 * DEADLINE_EXCEEDED; our own deadline is a little later so its answer wins.
 * Errors come back as AppError with the plugin's detail (code, field
 * violations, retry-after) restored from `af-error-bin`.
 */
import type { connector } from '@af/contracts';
import { AppError, call, createGrpcClient } from '@af/service-kit';
import { fromEvent, takeUntil } from 'rxjs';

export interface PluginInvokeRequest {
  tool: string;
  inputs: Record<string, unknown>;
  config: Record<string, string>;
  idempotencyKey?: string;
  timeoutMs: number;
}

/** How the app reaches a plugin; the gRPC one in production, fakes in unit tests. */
export interface PluginTransport {
  invoke(
    address: string,
    request: PluginInvokeRequest,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>>;
}

/** Extra time after `timeoutMs` for the plugin's own DEADLINE_EXCEEDED to arrive. */
const ANSWER_GRACE_MS = 2_000;
/** The longest a plugin call may take (the channel deadline; per-call limits are shorter). */
const MAX_CALL_MS = 15 * 60_000;

export class GrpcPluginTransport implements PluginTransport {
  private readonly clients = new Map<string, connector.ConnectorPluginServiceClient>();

  async invoke(
    address: string,
    request: PluginInvokeRequest,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    if (signal?.aborted) throw new AppError('CANCELLED', 'the plugin call was cancelled');
    let client = this.clients.get(address);
    if (!client) {
      client = createGrpcClient<connector.ConnectorPluginServiceClient>(
        'connector',
        'ConnectorPluginService',
        address,
        // Plugins are outside the system: they never receive our principal tokens.
        { auth: null, readyWaitMs: MAX_CALL_MS },
      );
      this.clients.set(address, client);
    }
    const obs = client.invoke({
      tool: request.tool,
      inputs: request.inputs,
      config: request.config,
      idempotencyKey: request.idempotencyKey ?? '',
      timeoutMs: request.timeoutMs,
    });
    try {
      const res = await call(
        signal ? obs.pipe(takeUntil(fromEvent(signal, 'abort'))) : obs,
        request.timeoutMs + ANSWER_GRACE_MS,
      );
      return res.output ?? {};
    } catch (err) {
      // takeUntil completes without a value: firstValueFrom reports "no elements".
      if (signal?.aborted) throw new AppError('CANCELLED', 'the plugin call was cancelled');
      throw err;
    }
  }
}
