/**
 * Everything one endpoint call goes through, outermost first:
 *
 *   response cache (endpoints with `cache_ttl_seconds`)
 *   └ retries per the seed §10 failure table (`resilient-call.ts`)
 *     └ per attempt: circuit breaker → binding rate limit → connector rate limit
 *       └ the connector type's `execute`, its HTTP through the SSRF guard, with
 *         rate-limit response headers fed back into the shared bucket
 *     └ the result with the call's credentials redacted (`domain/result-redaction.ts`),
 *       so neither the cache nor the idempotency store ever holds an echoed secret
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
  redactResult,
  resultSecrets,
  type ConnectorDefinition,
  type EndpointResult,
  type ExecutionContext,
  type HttpRequestFn,
  type RateLimits,
} from '@af/connectors';
import type { BreakerTicket, CircuitBreaker } from '../infra/circuit-breaker.store.js';
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
  /** What every call of a definition object needs, worked out once (definitions are not changed once parsed). */
  private readonly prepared = new WeakMap<ConnectorDefinition, Prepared>();

  constructor(private readonly deps: CallPipelineDeps) {}

  call(req: PipelineCall): Promise<EndpointResult> {
    // Not async itself: most calls skip the cache, and an async frame that only hands on
    // another promise costs extra turns of the microtask queue on every call.
    let ttlSeconds: number | undefined;
    try {
      ttlSeconds = cacheTtlSeconds(req.def, req.endpoint);
    } catch (err) {
      return Promise.reject(err);
    }
    return !ttlSeconds || req.noCache ? this.withRetries(req) : this.throughCache(req, ttlSeconds);
  }

  private async throughCache(req: PipelineCall, ttlSeconds: number): Promise<EndpointResult> {
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
    const prepared = this.prepare(def);
    const { key, http } = this.forOwner(prepared, def, ownerUserId);
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
        await this.deps.limiter.acquire(key, prepared.limits, { maxWaitMs, label: def.id, ...(req.signal ? { signal: req.signal } : {}) });
      } catch (err) {
        throw new Final(err);
      }
      // The per-call fields before the shared context: V8 copies an object and then adds keys to
      // the copy slowly (microseconds a call); this order is the fast one.
      const ctx: ExecutionContext = {
        http,
        timeoutMs,
        ownerUserId,
        ...(req.idempotencyKey ? { idempotencyKey: req.idempotencyKey } : {}),
        ...(req.signal ? { signal: req.signal } : {}),
        ...this.deps.context,
      };
      const result = await executeEndpoint(def, req.endpoint, req.inputs, req.credentials, ctx);
      await this.record(ticket, def.id);
      // Before the result is cached, stored for idempotent replays or returned: an upstream may echo a credential.
      return redactResult(result, resultSecrets(req.credentials));
    } catch (err) {
      const cause = err instanceof Final ? err.error : err;
      await this.record(ticket, def.id, cause);
      if (err instanceof Final) throw err;
      if (!(err instanceof ConnectorError)) throw new Final(err);
      throw err;
    }
  }

  /** Tells the breaker how the call ended; a failure to do so is logged, never the call's outcome. */
  private async record(ticket: BreakerTicket, connectorId: string, cause?: unknown): Promise<void> {
    try {
      await this.deps.breaker.record(ticket, cause);
    } catch (e) {
      this.deps.log.warn({ err: e, connectorId }, 'could not record a breaker result');
    }
  }

  /** What every call of `def` needs: its own limits (`connection.rate_limit`, checked once) and, per owner, key and HTTP. */
  private prepare(def: ConnectorDefinition): Prepared {
    let prepared = this.prepared.get(def);
    if (!prepared) {
      prepared = { limits: connectorRateLimits(def.connection), owners: new Map() };
      this.prepared.set(def, prepared);
    }
    return prepared;
  }

  /** The bucket and breaker key of the owner's connector, and its HTTP: guarded, rate-limit headers noted. */
  private forOwner(prepared: Prepared, def: ConnectorDefinition, ownerUserId: string): OwnerCalls {
    let calls = prepared.owners.get(ownerUserId);
    if (!calls) {
      const key = connectorKey(ownerUserId, def.id);
      const connectorId = def.id;
      const http = this.deps.limiter.observe(this.deps.egress.forConnector(ownerUserId, connectorId), key, (e) =>
        this.deps.log.warn({ err: e, connectorId }, 'could not note upstream rate-limit headers'),
      );
      calls = { key, http };
      if (prepared.owners.size >= MAX_OWNERS_PER_DEFINITION) prepared.owners.delete(prepared.owners.keys().next().value as string);
      prepared.owners.set(ownerUserId, calls);
    }
    return calls;
  }
}

interface Prepared {
  limits: RateLimits;
  /** By owner (a stored definition has one; a definition under test is called by its author). */
  owners: Map<string, OwnerCalls>;
}

interface OwnerCalls {
  key: string;
  http: HttpRequestFn;
}

const MAX_OWNERS_PER_DEFINITION = 64;

function cacheTtlSeconds(def: ConnectorDefinition, endpoint: string): number | undefined {
  const ep = (def.endpoints as Record<string, { cache_ttl_seconds?: unknown }>)[endpoint];
  const ttl = ep?.cache_ttl_seconds;
  return typeof ttl === 'number' && ttl > 0 ? ttl : undefined;
}
