/**
 * `servePlugin`: serves a plugin's ConnectorPluginService over gRPC and keeps
 * it registered with connector-runtime; `stop()` stops heartbeating, lets
 * running calls finish (up to a grace period) and closes the port.
 */
import { hostname } from 'node:os';
import { Server, ServerCredentials, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import type { PluginDefinition } from './define-plugin.js';
import { PluginError, toServiceError } from './errors.js';
import { IdempotencyCache, type IdempotencyOptions } from './idempotency.js';
import { invokeTool } from './invoke.js';
import { createPluginLogger, type Logger } from './log.js';
import { RegistryLink, type Registration, type RegistrationStatus } from './registration.js';
import { parseRegistryAddress, RegistryClient } from './registry-client.js';
import { connectorPluginService, type InvokeRequest, type InvokeResponse } from './wire.js';

export interface ServeOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /**
   * `host:port` connector-runtime dials to reach this plugin. Defaults to
   * host:port, or the machine's hostname when listening on every interface.
   */
  advertiseAddress?: string;
  /** connector-runtime's gRPC address (`host:port`); without it the plugin serves but does not register. */
  registryUrl?: string;
  /** The operator's PLUGIN_REGISTRATION_TOKEN. */
  registrationToken?: string;
  /** Heartbeat at least this often (the registry's interval applies when shorter). */
  heartbeatSeconds?: number;
  /** A pino logger; by default JSON lines on stdout at `logLevel`. */
  logger?: Logger;
  logLevel?: string;
  /** Called on every registration state change (e.g. for a progress line). */
  onStatus?: (status: RegistrationStatus) => void;
  /** How side-effecting results are remembered per idempotency key. */
  idempotency?: IdempotencyOptions;
  /** How long `stop()` waits for running calls before cancelling them (default 10 s). */
  shutdownGraceMs?: number;
  /** Registration retry backoff (ms). */
  registrationRetry?: { initialMs: number; maxMs: number };
}

export interface RunningPlugin {
  readonly plugin: PluginDefinition;
  /** The address registered (`host:port`). */
  readonly address: string;
  readonly port: number;
  /** Registration state; undefined when no registryUrl was given. */
  status(): RegistrationStatus | undefined;
  /** Resolves once registered; rejects when the registry refuses the plugin, or at once when no registryUrl was given. */
  registered(): Promise<Registration>;
  stop(): Promise<void>;
}

export async function servePlugin(
  plugin: PluginDefinition,
  options: ServeOptions = {},
): Promise<RunningPlugin> {
  checkOptions(options);
  const host = options.host ?? '127.0.0.1';
  const log = options.logger ?? createPluginLogger(plugin, options.logLevel ?? 'info');
  const idempotency = new IdempotencyCache(options.idempotency);

  const server = new Server({ 'grpc.max_receive_message_length': 8 * 1024 * 1024 });
  server.addService(connectorPluginService, {
    Invoke: (
      call: ServerUnaryCall<InvokeRequest, InvokeResponse>,
      callback: sendUnaryData<InvokeResponse>,
    ) => {
      const cancelled = new AbortController();
      call.on('cancelled', () => cancelled.abort());
      const req = call.request;
      invokeTool(
        plugin,
        {
          tool: req.tool,
          inputs: req.inputs,
          config: req.config ?? {},
          ...(req.idempotencyKey ? { idempotencyKey: req.idempotencyKey } : {}),
          timeoutMs: req.timeoutMs,
        },
        { log, idempotency, signal: cancelled.signal },
      ).then(
        (output) => callback(null, { output }),
        (err: unknown) =>
          callback(
            toServiceError(err instanceof PluginError ? err : new PluginError('INTERNAL', 'internal error')),
          ),
      );
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `${host.includes(':') ? `[${host}]` : host}:${options.port ?? 0}`,
      ServerCredentials.createInsecure(),
      (err, bound) =>
        err
          ? reject(new Error(`cannot listen on ${host}:${options.port ?? 0}: ${err.message}`))
          : resolve(bound),
    ),
  );
  const wildcard = host === '0.0.0.0' || host === '::';
  const address =
    options.advertiseAddress ?? `${wildcard ? hostname() : host.includes(':') ? `[${host}]` : host}:${port}`;
  if (wildcard && !options.advertiseAddress) {
    log.warn(
      { address },
      'listening on every interface without an advertise address; registering the hostname',
    );
  }
  log.info(
    { address, port, tools: [...plugin.tools.keys()] },
    `plugin ${plugin.name} ${plugin.version} serving`,
  );

  let link: RegistryLink | undefined;
  if (options.registryUrl) {
    link = new RegistryLink(new RegistryClient(parseRegistryAddress(options.registryUrl)!), {
      plugin,
      address,
      registrationToken: options.registrationToken ?? '',
      ...(options.heartbeatSeconds !== undefined ? { heartbeatSeconds: options.heartbeatSeconds } : {}),
      log,
      ...(options.onStatus ? { onStatus: options.onStatus } : {}),
      ...(options.registrationRetry ? { retry: options.registrationRetry } : {}),
    });
    link.start();
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Leave the registry first, so no new calls are sent here while running ones finish.
      await link?.stop();
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          log.warn('calls still running at shutdown; cancelling them');
          server.forceShutdown();
          resolve();
        }, options.shutdownGraceMs ?? 10_000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      log.info(`plugin ${plugin.name} stopped`);
    })());

  return {
    plugin,
    address,
    port,
    status: () => link?.status,
    registered: () =>
      link
        ? link.registered()
        : Promise.reject(
            new PluginError(
              'FAILED_PRECONDITION',
              'no registryUrl was given, so the plugin does not register',
            ),
          ),
    stop,
  };
}

function checkOptions(o: ServeOptions): void {
  const problems: string[] = [];
  if (o.port !== undefined && (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535))
    problems.push('port: must be an integer from 0 to 65535');
  if (o.host !== undefined && (typeof o.host !== 'string' || o.host.trim() === ''))
    problems.push('host: must not be empty');
  if (o.registryUrl !== undefined && !parseRegistryAddress(o.registryUrl))
    problems.push('registryUrl: must be host:port, e.g. connector-runtime:50053');
  if (o.advertiseAddress !== undefined && !parseRegistryAddress(o.advertiseAddress))
    problems.push('advertiseAddress: must be host:port');
  if (o.heartbeatSeconds !== undefined && !(o.heartbeatSeconds > 0))
    problems.push('heartbeatSeconds: must be a positive number');
  if (problems.length > 0) throw new PluginError('INVALID_ARGUMENT', `servePlugin: ${problems.join('; ')}`);
}
