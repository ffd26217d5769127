/**
 * The two remote sides of capability nodes: the planner's capability registry
 * (GetCapability: instances, endpoints, compiled contracts) and the agents
 * themselves (agentfactory.agent.v1.CapabilityAgentService/Invoke), one gRPC
 * channel per agent address, kept while the process runs.
 *
 * Agent calls do not wait for a channel to become ready (unlike calls to our
 * own services): an agent that is down answers UNAVAILABLE at once, so the
 * executor can fail over to another instance or an alternate capability.
 */
import { ClientProxyFactory, Transport, type ClientGrpc } from '@nestjs/microservices';
import { agent, grpcLoaderOptions, planner, protoFiles } from '@af/contracts';
import { AppError, call, createGrpcClient, fromGrpcError, type PrincipalSigner } from '@af/service-kit';
import type { Observable } from 'rxjs';
import type { AgentAnswer, AgentCall, CapabilityAgents, CapabilityDirectory } from '../app/executors/capability.executor.js';
import type { CapabilitySnapshot } from '../domain/capability-dispatch.js';

export function capabilityRegistryClient(address: string, auth: PrincipalSigner): planner.CapabilityRegistryServiceClient {
  return createGrpcClient<planner.CapabilityRegistryServiceClient>('planner', planner.CAPABILITY_REGISTRY_SERVICE_NAME, address, { auth });
}

/** GetCapability as a CapabilityDirectory; NOT_FOUND is "not registered". */
export function capabilityDirectory(client: planner.CapabilityRegistryServiceClient): CapabilityDirectory {
  return {
    async get(capabilityId, timeoutMs) {
      try {
        const { capability } = await call(client.getCapability({ principal: { userId: '', teamIds: [] }, capabilityId }), timeoutMs);
        return capability ? toSnapshot(capability) : undefined;
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return undefined;
        if (err instanceof AppError) throw new AppError(err.code, `the capability registry (planner) could not resolve '${capabilityId}': ${err.message}`, { retryable: err.retryable, cause: err });
        throw err;
      }
    },
  };
}

export function toSnapshot(c: planner.Capability): CapabilitySnapshot {
  return {
    capabilityId: c.capabilityId,
    agentType: c.agentType,
    instances: c.instances.map((i) => ({ instanceId: i.instanceId, scopes: i.scopes, endpoint: i.endpoint, status: i.status, lastSeenAt: i.lastSeenAt })),
    ...(c.inputSchema ? { inputSchema: c.inputSchema as Record<string, unknown> } : {}),
    ...(c.outputSchema ? { outputSchema: c.outputSchema as Record<string, unknown> } : {}),
  };
}

type AgentService = { invoke(request: agent.InvokeRequest, options: { deadline: number }): Observable<agent.InvokeResponse> };

/** One client per agent address; `close()` closes them all. */
export class CapabilityAgentClients implements CapabilityAgents {
  private readonly clients = new Map<string, { proxy: ClientGrpc & { close(): unknown }; service: AgentService }>();

  invoke(endpoint: string, request: AgentCall, options: { timeoutMs: number; signal: AbortSignal }): Promise<AgentAnswer> {
    const { service } = this.client(endpoint);
    const wire: agent.InvokeRequest = request;
    return new Promise<AgentAnswer>((resolve, reject) => {
      const interrupted = () => new AppError('CANCELLED', 'the node was interrupted', { retryable: false });
      if (options.signal.aborted) return reject(interrupted());
      let settled = false;
      const settle = () => {
        settled = true;
        options.signal.removeEventListener('abort', onAbort);
      };
      // grpc-js takes call options (the deadline) in the metadata position when no Metadata is given.
      const subscription = service.invoke(wire, { deadline: Date.now() + options.timeoutMs }).subscribe({
        next: (res) => {
          settle();
          resolve({
            output: (res.output as Record<string, unknown> | undefined) ?? null,
            clarify: res.clarify ? { question: res.clarify.question, questionId: res.clarify.questionId } : null,
            replayed: res.replayed === true,
          });
        },
        error: (err: unknown) => {
          settle();
          reject(fromGrpcError(err));
        },
      });
      function onAbort() {
        subscription.unsubscribe();
        reject(interrupted());
      }
      if (!settled) options.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    for (const { proxy } of this.clients.values()) await Promise.resolve(proxy.close()).catch(() => undefined);
    this.clients.clear();
  }

  private client(endpoint: string) {
    let c = this.clients.get(endpoint);
    if (!c) {
      const proxy = ClientProxyFactory.create({
        transport: Transport.GRPC,
        options: {
          package: 'agentfactory.agent.v1',
          protoPath: protoFiles('agent'),
          url: endpoint,
          loader: { ...grpcLoaderOptions, includeDirs: [...grpcLoaderOptions.includeDirs] },
          channelOptions: {
            'grpc.keepalive_time_ms': 30_000,
            'grpc.initial_reconnect_backoff_ms': 100,
            'grpc.max_reconnect_backoff_ms': 1_000,
            'grpc.max_receive_message_length': 8 * 1024 * 1024,
          },
        },
      } as never) as unknown as ClientGrpc & { close(): unknown };
      c = { proxy, service: proxy.getService<AgentService>(agent.CAPABILITY_AGENT_SERVICE_NAME) };
      this.clients.set(endpoint, c);
    }
    return c;
  }
}
