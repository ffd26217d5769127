/**
 * Typed gRPC clients for calling other services, built on the Nest client so
 * the generated `XServiceClient` interfaces apply; calls become promises with a
 * deadline, and errors come back as AppError with the peer's detail.
 */
import { ClientProxyFactory, Transport, type ClientGrpc } from '@nestjs/microservices';
import { grpcLoaderOptions, protoFiles, type ProtoPackage } from '@af/contracts';
import { Metadata, type Client as GrpcJsBaseClient } from '@grpc/grpc-js';
import { firstValueFrom, throwError, timeout, type Observable } from 'rxjs';
import { AppError, fromGrpcError } from '../errors.js';
import { GRPC_MAX_MESSAGE_BYTES, PACKAGE_NAMES } from './grpc-server.js';
import { PRINCIPAL_TOKEN_METADATA, type PrincipalSigner } from '../auth/service-auth.js';

/** A grpc-js client of one service: its methods by name (camelCase and the proto's own), as grpc-js builds them. */
export type GrpcJsClient = GrpcJsBaseClient & Record<string, (...args: never[]) => unknown>;

export interface GrpcClientOptions {
  /**
   * Signs every call: the `af-principal-token` metadata is minted from the
   * request's `principal` (or the caller's own `system:<service>` identity
   * when the request has none). `null` only for peers outside the system
   * (capability agents, plugins), which must never receive our tokens.
   */
  auth: PrincipalSigner | null;
  /** How long a call waits for the channel to be ready (default 15 s). */
  readyWaitMs?: number;
}

/**
 * Every call waits for the channel to be ready (up to `readyWaitMs`) instead
 * of failing at once while a restarted peer comes back; reconnects are quick.
 */
export function createGrpcClient<T extends object>(pkg: ProtoPackage, service: string, address: string, options: GrpcClientOptions): T {
  return createGrpcClientWithChannel<T>(pkg, service, address, options).client;
}

/**
 * createGrpcClient's client and the grpc-js client under it (same channel),
 * for streaming calls made without the unary wrapper (no deadline, no
 * wait-for-ready: a long-lived stream manages its own lifetime).
 */
export function createGrpcClientWithChannel<T extends object>(
  pkg: ProtoPackage,
  service: string,
  address: string,
  options: GrpcClientOptions,
): { client: T; raw: GrpcJsClient } {
  const { auth, readyWaitMs = 15_000 } = options;
  const client = ClientProxyFactory.create({
    transport: Transport.GRPC,
    options: {
      package: PACKAGE_NAMES[pkg],
      protoPath: protoFiles(pkg),
      url: address,
      loader: { ...grpcLoaderOptions, includeDirs: [...grpcLoaderOptions.includeDirs] },
      // A run's view may carry several node outputs of up to NODE_OUTPUT_MAX_BYTES (1 MiB) each.
      maxReceiveMessageLength: GRPC_MAX_MESSAGE_BYTES,
      maxSendMessageLength: GRPC_MAX_MESSAGE_BYTES,
      channelOptions: {
        'grpc.keepalive_time_ms': 30_000,
        'grpc.initial_reconnect_backoff_ms': 100,
        'grpc.max_reconnect_backoff_ms': 1_000,
      },
    },
  } as never) as unknown as ClientGrpc;
  const raw = client.getService<Record<string, (...args: unknown[]) => unknown>>(service);
  const grpcJs = (client as unknown as { getClientByServiceName(name: string): GrpcJsClient }).getClientByServiceName(service);
  const wrapped = new Proxy(raw, {
    get(target, prop, receiver) {
      const method = Reflect.get(target, prop, receiver);
      if (typeof method !== 'function') return method;
      // Nest passes extra arguments through to grpc-js: (request, metadata, options).
      // grpc-js reads wait-for-ready from the metadata's options.
      return (request: unknown, metadata?: Metadata) => {
        const md = metadata ?? new Metadata();
        if (auth && md.get(PRINCIPAL_TOKEN_METADATA).length === 0) {
          try {
            md.set(PRINCIPAL_TOKEN_METADATA, auth.tokenFor((request as { principal?: { userId: string; teamIds: string[] } } | null)?.principal));
          } catch (err) {
            // Surface as a failed call (what `call` expects), not a synchronous throw.
            return throwError(() => err);
          }
        }
        md.setOptions({ ...md.getOptions(), waitForReady: true });
        return method.call(target, request, md, { deadline: Date.now() + readyWaitMs });
      };
    },
  }) as unknown as T;
  return { client: wrapped, raw: grpcJs };
}

/** Await a unary call with a deadline; failures become AppError. */
export async function call<T>(obs: Observable<T>, deadlineMs = 30_000): Promise<T> {
  try {
    return await firstValueFrom(obs.pipe(timeout(deadlineMs)));
  } catch (err) {
    if ((err as Error)?.name === 'TimeoutError') {
      throw new AppError('DEADLINE_EXCEEDED', `call did not answer within ${deadlineMs} ms`);
    }
    throw fromGrpcError(err);
  }
}
