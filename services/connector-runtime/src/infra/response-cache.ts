/**
 * Optional per-endpoint response cache (opt-in with the endpoint field
 * `cache_ttl_seconds`), shared by every replica through Postgres. Seed §10:
 * when an upstream is rate limiting or down, the caller can fall back to a
 * recent answer instead of nothing.
 *
 * Only successful, complete results are stored: failures are never cached
 * (`put` takes a result, `getOrCall` stores nothing when the call throws), and
 * neither are results that carry warnings (a malformed body turned into an
 * empty result would otherwise hide a transient upstream problem for a TTL).
 * Expiry uses the database clock, so replicas with skewed clocks agree.
 */
import { createHash } from 'node:crypto';
import { sqlRows, type Queryable } from '@af/service-kit';
import { ConnectorError } from '@af/connectors';
import type { EndpointResult } from '@af/connectors';

/** Larger results are not cached (default 2 MiB of JSON). */
export const DEFAULT_MAX_ENTRY_BYTES = 2 * 1024 * 1024;
/** A TTL beyond a year is a mistake, not a cache. */
export const MAX_TTL_MS = 366 * 24 * 3600_000;
const KEY = /^[0-9a-f]{64}$/;

export interface ResponseCacheKeyParts {
  ownerUserId: string;
  connectorId: string;
  /** `definitionHash(def)` of the stored definition: editing the definition changes every key. */
  definitionHash: string;
  endpoint: string;
  inputs: Readonly<Record<string, unknown>> | undefined;
}

/**
 * sha256 (hex) of owner, connector, definition hash, endpoint and the inputs
 * in canonical form (object keys sorted, `undefined` dropped), so the same
 * call always gets the same key whatever order its inputs arrived in, and
 * no two owners ever share an entry.
 */
export function responseCacheKey(parts: ResponseCacheKeyParts): string {
  for (const field of ['ownerUserId', 'connectorId', 'definitionHash', 'endpoint'] as const) {
    if (typeof parts[field] !== 'string' || parts[field] === '') throw ConnectorError.invalid(field, 'must be a non-empty string');
  }
  return sha256(
    canonicalJson([
      'response-cache/v1',
      parts.ownerUserId,
      parts.connectorId,
      parts.definitionHash,
      parts.endpoint,
      parts.inputs ?? {},
    ]),
  );
}

/**
 * sha256 (hex) of a parsed definition in canonical form; once per definition
 * object (definitions are not changed once parsed, and the repository hands
 * back the same object while the stored one is unchanged).
 */
export function definitionHash(definition: unknown): string {
  if (definition === null || typeof definition !== 'object') return sha256(canonicalJson(definition));
  let hash = DEFINITION_HASHES.get(definition);
  if (hash === undefined) {
    hash = sha256(canonicalJson(definition));
    DEFINITION_HASHES.set(definition, hash);
  }
  return hash;
}

const DEFINITION_HASHES = new WeakMap<object, string>();

/** JSON with object keys sorted at every level; otherwise what JSON.stringify gives. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)) ?? 'null';
}

function sortKeys(value: unknown): unknown {
  const v = value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function'
    ? (value as { toJSON(): unknown }).toJSON()
    : value;
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export interface ResponseCacheOptions {
  maxEntryBytes?: number;
}

export class ResponseCache {
  private readonly maxEntryBytes: number;

  /** `db`: the service's DataSource (search_path is its schema). */
  constructor(
    private readonly db: Queryable,
    options: ResponseCacheOptions = {},
  ) {
    this.maxEntryBytes = options.maxEntryBytes ?? DEFAULT_MAX_ENTRY_BYTES;
  }

  /** The stored result for `key` while it has not expired. */
  async get(key: string): Promise<EndpointResult | undefined> {
    requireKey(key);
    const rows = await sqlRows<{ result: string }>(
      this.db,
      'SELECT result FROM response_cache WHERE cache_key = $1 AND expires_at > now()',
      [key],
    );
    const row = rows[0];
    if (!row) return undefined;
    try {
      const parsed: unknown = JSON.parse(row.result);
      return isEndpointResult(parsed) ? parsed : undefined;
    } catch {
      return undefined; // A damaged row is a miss; the next put replaces it.
    }
  }

  /**
   * Stores `result` for `ttlMs`. Returns false, storing nothing, when the
   * result has warnings or is larger than `maxEntryBytes`.
   */
  async put(key: string, result: EndpointResult, ttlMs: number): Promise<boolean> {
    requireKey(key);
    if (!Number.isInteger(ttlMs) || ttlMs <= 0 || ttlMs > MAX_TTL_MS) {
      throw ConnectorError.invalid('ttlMs', `must be a whole number of milliseconds from 1 to ${MAX_TTL_MS}`);
    }
    if (!isEndpointResult(result)) {
      throw ConnectorError.invalid('result', 'must be an endpoint result ({ results: object[], count })');
    }
    if (result.warnings && result.warnings.length > 0) return false;
    const text = JSON.stringify(result);
    if (Buffer.byteLength(text) > this.maxEntryBytes) return false;
    await sqlRows(
      this.db,
      `INSERT INTO response_cache (cache_key, result, expires_at)
       VALUES ($1, $2, now() + ($3::bigint * interval '1 millisecond'))
       ON CONFLICT (cache_key) DO UPDATE
         SET result = EXCLUDED.result, expires_at = EXCLUDED.expires_at, created_at = now()`,
      [key, text, ttlMs],
    );
    return true;
  }

  /** Deletes expired entries; returns how many. Run it periodically. */
  async purgeExpired(): Promise<number> {
    const rows = await sqlRows<{ n: number }>(
      this.db,
      'WITH gone AS (DELETE FROM response_cache WHERE expires_at <= now() RETURNING 1) SELECT count(*)::int AS n FROM gone',
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * The cached result, or `call()`'s result stored for `ttlMs`. A failed call
   * stores nothing and its error is rethrown unchanged. Cache errors go to
   * `onCacheError` when given (the call then proceeds uncached), else they
   * are thrown.
   */
  async getOrCall(
    key: string,
    ttlMs: number,
    call: () => Promise<EndpointResult>,
    options: { onCacheError?: (err: unknown, phase: 'get' | 'put') => void } = {},
  ): Promise<{ result: EndpointResult; cached: boolean }> {
    const hit = await this.guard('get', () => this.get(key), options.onCacheError);
    if (hit) return { result: hit, cached: true };
    const result = await call();
    await this.guard('put', () => this.put(key, result, ttlMs), options.onCacheError);
    return { result, cached: false };
  }

  private async guard<T>(
    phase: 'get' | 'put',
    fn: () => Promise<T>,
    onError: ((err: unknown, phase: 'get' | 'put') => void) | undefined,
  ): Promise<T | undefined> {
    try {
      return await fn();
    } catch (err) {
      if (!onError || err instanceof ConnectorError) throw err;
      onError(err, phase);
      return undefined;
    }
  }
}

function requireKey(key: string): void {
  if (!KEY.test(key)) throw ConnectorError.invalid('key', 'must be a responseCacheKey (64 lowercase hex characters)');
}

function isEndpointResult(value: unknown): value is EndpointResult {
  if (value === null || typeof value !== 'object') return false;
  const r = value as Partial<EndpointResult>;
  return (
    Array.isArray(r.results) &&
    r.results.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x)) &&
    typeof r.count === 'number' &&
    Number.isInteger(r.count) &&
    r.count >= 0
  );
}
