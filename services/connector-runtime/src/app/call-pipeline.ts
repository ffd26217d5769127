/**
 * Everything one endpoint call goes through, outermost first:
 *
 *   response cache (endpoints with `cache_ttl_seconds`)
 *   └ retries per the seed §10 failure table (`resilient-call.ts`)
 *     └ per attempt: circuit breaker → binding rate limit → connector rate limit
 *       └ the connector type's `execute`, its HTTP through the SSRF guard, with
 *         rate-limit response headers fed back into the shared bucket
 *
 * The breaker comes before the limiter so an open breaker never burns
 * tokens; both run again for every retry. The breaker's own refusal and our
 * own limiter's RATE_LIMIT (which already waited as long as allowed) end the
 * call at once instead of being retried.
 */
import type { Logger } from '@af/service-kit';
import {
  bindingKey,
  bindingRateLimits,
  ConnectorError,
  connectorKey,
  connectorRateLimits,
  connectorTimeoutMs,
  executeEndpoint,
  type ConnectorDefinition,
  type EndpointResult,
  type ExecutionContext,
} from '../domain/index.js';
import type { CircuitBreaker } from '../infra/circuit-breaker.store.js';
import type { EgressGuard } from '../infra/guarded-http.js';
import type { RateLimiter } from '../infra/rate-limiter.js';
import { definitionHash, responseCacheKey, type ResponseCache } from '../infra/response-cache.js';
import { callWithRetries } from './resilient-call.js';

export interface CallPipelineDeps {
  egress: EgressGuard;
  limiter: RateLimiter;
  breaker: CircuitBreaker;
  cache: ResponseCache;
  log: Logger;
  /** Longest a call waits for a rate-limit token (RATE_LIMIT_MAX_WAIT_MS). */
  maxWaitMs: number;
  /** Everything else the types need (token store, plugin invoker, SQL runner, …). */
  context: Omit<ExecutionContext, 'http' | 'timeoutMs' | 'signal' | 'idempotencyKey' | 'ownerUserId'>;
}

export interface PipelineCall {
  ownerUserId: string;
  def: ConnectorDefinition;
  endpoint: string;
  inputs: Record<string, unknown>;
  credentials: Record<string, string>;
  /** Set for calls through an agent profile's binding with its own rate limit. */
  binding?: { agentProfileId: string; rateLimitPerMinute: number };
  idempotencyKey?: string;
  /** Skip the response cache (TestConnector: the author wants a live answer). */
  noCache?: boolean;
  signal?: AbortSignal;
}

/** Marks an error the retry loop must pass through untouched. */
class Final extends Error {
  constructor(readonly error: unknown) {
    super('final');
  }
}

export class CallPipeline {
  constructor(private readonly deps: CallPipelineDeps) {}

  async call(req: PipelineCall): Promise<EndpointResult> {
    const ttlSeconds = cacheTtlSeconds(req.def, req.endpoint);
    if (!ttlSeconds || req.noCache) return this.withRetries(req);
    const key = responseCacheKey({
      ownerUserId: req.ownerUserId,
      connectorId: req.def.id,
      definitionHash: definitionHash(req.def),
      endpoint: req.endpoint,
      inputs: req.inputs,
    });
    const { result, cached } = await this.deps.cache.getOrCall(key, ttlSeconds * 1000, () => this.withRetries(req), {
      onCacheError: (err, phase) => this.deps.log.warn({ err, phase, connectorId: req.def.id }, 'response cache unavailable; calling the upstream'),
    });
    if (cached) this.deps.log.debug({ connectorId: req.def.id, endpoint: req.endpoint }, 'served from the response cache');
    return result;
  }

  private async withRetries(req: PipelineCall): Promise<EndpointResult> {
    const { def, endpoint } = req;
    try {
      return await callWithRetries((timeoutMs) => this.attempt(req, timeoutMs), {
        baseTimeoutMs: connectorTimeoutMs(def),
        ...(req.signal ? { signal: req.signal } : {}),
        onRetry: (i) =>
          this.deps.log.warn({ connectorId: def.id, endpoint, attempt: i.attempt, kind: i.kind, delayMs: i.delayMs, code: i.error.code }, 'retrying connector call'),
      });
    } catch (err) {
      throw err instanceof Final ? err.error : err;
    }
  }

  private async attempt(req: PipelineCall, timeoutMs: number): Promise<EndpointResult> {
    const { def, ownerUserId } = req;
    const key = connectorKey(ownerUserId, def.id);
    const maxWaitMs = this.deps.maxWaitMs;
    let ticket;
    try {
      ticket = await this.deps.breaker.admit(key, { label: def.id, trialTimeoutMs: timeoutMs + maxWaitMs });
    } catch (err) {
      throw new Final(err);
    }
    try {
      try {
        if (req.binding && req.binding.rateLimitPerMinute > 0) {
          await this.deps.limiter.acquire(bindingKey(ownerUserId, req.binding.agentProfileId, def.id), bindingRateLimits(req.binding.rateLimitPerMinute), {
            maxWaitMs,
            label: `${def.id} (agent profile ${req.binding.agentProfileId})`,
            ...(req.signal ? { signal: req.signal } : {}),
          });
        }
        await this.deps.limiter.acquire(key, connectorRateLimits(def.connection), { maxWaitMs, label: def.id, ...(req.signal ? { signal: req.signal } : {}) });
      } catch (err) {
        throw new Final(err);
      }
      const http = this.deps.limiter.observe(this.deps.egress.forConnector(def.id), key, (e) => this.deps.log.warn({ err: e, connectorId: def.id }, 'could not note upstream rate-limit headers'));
      const result = await executeEndpoint(def, req.endpoint, req.inputs, req.credentials, {
        ...this.deps.context,
        http,
        timeoutMs,
        ownerUserId,
        ...(req.idempotencyKey ? { idempotencyKey: req.idempotencyKey } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
      });
      await this.deps.breaker.record(ticket).catch((e: unknown) => this.deps.log.warn({ err: e, connectorId: def.id }, 'could not record a breaker result'));
      return result;
    } catch (err) {
      const cause = err instanceof Final ? err.error : err;
      await this.deps.breaker.record(ticket, cause).catch((e: unknown) => this.deps.log.warn({ err: e, connectorId: def.id }, 'could not record a breaker result'));
      if (err instanceof Final) throw err;
      if (!(err instanceof ConnectorError)) throw new Final(err);
      throw err;
    }
  }
}

function cacheTtlSeconds(def: ConnectorDefinition, endpoint: string): number | undefined {
  const ep = (def.endpoints as Record<string, { cache_ttl_seconds?: unknown }>)[endpoint];
  const ttl = ep?.cache_ttl_seconds;
  return typeof ttl === 'number' && ttl > 0 ? ttl : undefined;
}
