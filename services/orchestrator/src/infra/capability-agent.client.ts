/**
 * The agents behind capability nodes (agentfactory.agent.v1.CapabilityAgentService/Invoke),
 * one gRPC channel per agent address, kept while the process runs; the
 * registry side is capability-directory.client.ts.
 *
 * Agent calls do not wait for a channel to become ready (unlike calls to our
 * own services): an agent that is down answers UNAVAILABLE at once, so the
 * executor can fail over to another instance or an alternate capability.
 *
 * Endpoints are registered by users, so every call goes through the egress
 * policy (`CAPABILITY_EGRESS_ALLOW`, `@af/egress`) first: the endpoint must
 * be a TCP host:port (no `unix:` sockets), its host is resolved HERE and
 * every address must be allowed for the run owner's capability, and the
 * channel dials the checked address itself (`ipv4:`/`ipv6:` target, the
 * hostname kept as the authority) — grpc-js never resolves the name again, so
 * a DNS answer that changes between check and connect (rebinding) cannot
 * switch the target. A refusal is FAILED_PRECONDITION, not retried.
 */
import { promises as dns } from 'node:dns';
import { ClientProxyFactory, Transport, type ClientGrpc } from '@nestjs/microservices';
import { agent, grpcLoaderOptions, protoFiles } from '@af/contracts';
import { CAPABILITY_EGRESS, decideEgress, egressPolicyFrom, egressRefusalMessage, formatHostPort, parseGrpcTarget, type EgressPolicy, type EgressScope } from '@af/egress';
import { AppError, fromGrpcError } from '@af/service-kit';
import type { Observable } from 'rxjs';
import type { AgentAnswer, AgentCall, CapabilityAgents } from '../app/executors/capability.executor.js';

type AgentService = { invoke(request: agent.InvokeRequest, options: { deadline: number }): Observable<agent.InvokeResponse> };

/** Resolves a hostname to every address it has (like `dns.lookup` with `all: true`). */
export type ResolveHost = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export interface CapabilityAgentOptions {
  /** `CAPABILITY_EGRESS_ALLOW`, parsed or as text (throws when invalid). Default: public addresses only. */
  allow?: EgressPolicy | string;
  /** Defaults to the system resolver (`dns.lookup`, all addresses). */
  resolve?: ResolveHost;
}

/** Where one call goes: the checked address, and the name the agent is addressed by. */
interface Dial {
  /** grpc-js target of the checked address: `ipv4:a.b.c.d:port` / `ipv6:[…]:port`. */
  target: string;
  /** `host:port` as registered (the HTTP/2 :authority, and the TLS name if agents ever use TLS). */
  authority: string;
}

/** Channels kept at most (per checked address and authority); the oldest is closed beyond that. */
const MAX_CHANNELS = 256;

const systemResolve: ResolveHost = async (hostname) => dns.lookup(hostname, { all: true });

/** One client per checked agent address; `close()` closes them all. */
export class CapabilityAgentClients implements CapabilityAgents {
  private readonly clients = new Map<string, { proxy: ClientGrpc & { close(): unknown }; service: AgentService }>();
  private readonly policy: EgressPolicy;
  private readonly resolve: ResolveHost;

  constructor(options: CapabilityAgentOptions = {}) {
    const allow = options.allow ?? '';
    this.policy = typeof allow === 'string' ? egressPolicyFrom(allow, CAPABILITY_EGRESS) : allow;
    this.resolve = options.resolve ?? systemResolve;
  }

  async invoke(endpoint: string, request: AgentCall, options: { timeoutMs: number; signal: AbortSignal }): Promise<AgentAnswer> {
    const deadline = Date.now() + options.timeoutMs;
    const interrupted = () => new AppError('CANCELLED', 'the node was interrupted', { retryable: false });
    if (options.signal.aborted) throw interrupted();
    const scope = request.principal.userId ? { owner: request.principal.userId, id: request.capabilityId } : undefined;
    const dial = await this.checked(endpoint, scope);
    const { service } = this.client(dial);
    const wire: agent.InvokeRequest = request;
    return new Promise<AgentAnswer>((resolve, reject) => {
      if (options.signal.aborted) return reject(interrupted());
      let settled = false;
      const settle = () => {
        settled = true;
        options.signal.removeEventListener('abort', onAbort);
      };
      // grpc-js takes call options (the deadline) in the metadata position when no Metadata is given.
      const subscription = service.invoke(wire, { deadline }).subscribe({
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

  /**
   * The address to dial for `endpoint`, once the policy allows it: every
   * address its host resolves to must be allowed (a name with one forbidden
   * answer is refused whole, as connectors are), for `scope` — the run
   * owner's capability — or for everyone.
   */
  private async checked(endpoint: string, scope: EgressScope | undefined): Promise<Dial> {
    const parsed = parseGrpcTarget(endpoint);
    if (!parsed.ok) throw refused(endpoint, `the endpoint is not allowed: ${parsed.reason}`);
    const { host, port, literal } = parsed.target;
    const authority = formatHostPort(host, port);
    let found: Array<{ address: string; family: number }>;
    if (literal) {
      found = [{ address: host, family: host.includes(':') ? 6 : 4 }];
    } else {
      try {
        found = await this.resolve(host);
      } catch (err) {
        // As grpc-js reports a name it cannot resolve: the agent may be back (and named) later.
        throw new AppError('UNAVAILABLE', `could not resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { retryable: true, cause: err });
      }
      if (found.length === 0) throw new AppError('UNAVAILABLE', `could not resolve ${host}: no addresses`, { retryable: true });
    }
    for (const { address } of found) {
      const decision = decideEgress(this.policy, { host, port, address, ...(scope ? { scope } : {}) });
      if (!decision.allowed) throw refused(endpoint, egressRefusalMessage(this.policy, authority, decision.reason, decision.allowable));
    }
    const first = found[0]!;
    const target = first.family === 6 || first.address.includes(':') ? `ipv6:[${first.address}]:${port}` : `ipv4:${first.address}:${port}`;
    return { target, authority };
  }

  private client(dial: Dial) {
    const key = `${dial.target} ${dial.authority}`;
    let c = this.clients.get(key);
    if (c) {
      // Map order is the LRU order.
      this.clients.delete(key);
      this.clients.set(key, c);
    } else {
      if (this.clients.size >= MAX_CHANNELS) {
        const [oldest, entry] = this.clients.entries().next().value as [string, { proxy: { close(): unknown } }];
        this.clients.delete(oldest);
        void Promise.resolve(entry.proxy.close()).catch(() => undefined);
      }
      const proxy = ClientProxyFactory.create({
        transport: Transport.GRPC,
        options: {
          package: 'agentfactory.agent.v1',
          protoPath: protoFiles('agent'),
          url: dial.target,
          loader: { ...grpcLoaderOptions, includeDirs: [...grpcLoaderOptions.includeDirs] },
          channelOptions: {
            // The checked address is dialled; the agent is still addressed by the name it registered.
            'grpc.default_authority': dial.authority,
            'grpc.keepalive_time_ms': 30_000,
            'grpc.initial_reconnect_backoff_ms': 100,
            'grpc.max_reconnect_backoff_ms': 1_000,
            'grpc.max_receive_message_length': 8 * 1024 * 1024,
          },
        },
      } as never) as unknown as ClientGrpc & { close(): unknown };
      c = { proxy, service: proxy.getService<AgentService>(agent.CAPABILITY_AGENT_SERVICE_NAME) };
      this.clients.set(key, c);
    }
    return c;
  }
}

/** A refused endpoint: names it and the policy; not retried (the registration or the policy must change). */
function refused(endpoint: string, reason: string): AppError {
  return new AppError('FAILED_PRECONDITION', `capability endpoint ${endpoint}: ${reason}`, { retryable: false });
}
