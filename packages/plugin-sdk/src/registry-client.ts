/**
 * The plugin's side of PluginRegistryService (connector-runtime): unary calls
 * with a deadline, failures as PluginError with the registry's detail.
 */
import { Client, credentials, Metadata, type MethodDefinition } from '@grpc/grpc-js';
import { fromServiceError } from './errors.js';
import {
  pluginRegistryService,
  type DeregisterPluginResponse,
  type HeartbeatPluginResponse,
  type RegisterPluginRequest,
  type RegisterPluginResponse,
} from './wire.js';

/** `host:port`, optionally written `grpc://host:port`; IPv6 hosts in brackets. */
export function parseRegistryAddress(value: string): string | undefined {
  const address = value.replace(/^grpc:\/\//, '');
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/.exec(address);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) return undefined;
  return address;
}

export class RegistryClient {
  private readonly client: Client;

  constructor(readonly address: string) {
    this.client = new Client(address, credentials.createInsecure(), {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 2_000,
    });
  }

  register(request: RegisterPluginRequest, deadlineMs = 5_000): Promise<RegisterPluginResponse> {
    return this.unary<RegisterPluginRequest, RegisterPluginResponse>(
      pluginRegistryService.RegisterPlugin!,
      request,
      deadlineMs,
    );
  }

  async heartbeat(name: string, instanceId: string, deadlineMs = 5_000): Promise<boolean> {
    const res = await this.unary<{ name: string; instanceId: string }, HeartbeatPluginResponse>(
      pluginRegistryService.HeartbeatPlugin!,
      { name, instanceId },
      deadlineMs,
    );
    return res.known;
  }

  /** True when the registry removed the instance; false when it did not know it. */
  async deregister(name: string, instanceId: string, deadlineMs = 2_000): Promise<boolean> {
    const res = await this.unary<{ name: string; instanceId: string }, DeregisterPluginResponse>(
      pluginRegistryService.DeregisterPlugin!,
      { name, instanceId },
      deadlineMs,
    );
    return res.removed;
  }

  close(): void {
    this.client.close();
  }

  private unary<Req, Res>(
    method: MethodDefinition<any, any>,
    request: Req,
    deadlineMs: number,
  ): Promise<Res> {
    return new Promise((resolve, reject) => {
      this.client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        request,
        new Metadata(),
        { deadline: Date.now() + deadlineMs },
        (err, res) => (err ? reject(fromServiceError(err)) : resolve(res as Res)),
      );
    });
  }
}
