/**
 * In-process de-duplication of side-effecting calls by idempotency key
 * (`runId:nodeId:attempt`): a repeated key gets the first call's result — or
 * waits for it while it is still running — instead of acting twice. A failed
 * call is forgotten, so the caller's retry runs again.
 *
 * Entries are scoped by tool and by a hash of the caller's config, so two
 * users can never share a result; a key reused with different inputs is
 * refused rather than answered with another call's output.
 */
import { createHash } from 'node:crypto';
import { PluginError } from './errors.js';

export interface IdempotencyOptions {
  /** How long a result is remembered (default 1 hour). */
  ttlMs?: number;
  /** Most results kept; the oldest go first (default 10 000). */
  maxEntries?: number;
}

interface Entry {
  fingerprint: string;
  result: Promise<Record<string, unknown>>;
  expiresAt: number;
}

export class IdempotencyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    options: IdempotencyOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.ttlMs = options.ttlMs ?? 3_600_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Runs `fn` once per (tool, config, key); later calls share its result. */
  run(
    scope: { tool: string; key: string; config: Readonly<Record<string, string>>; inputs: unknown },
    fn: () => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    const id = hash(['v1', scope.tool, scope.key, canonical(scope.config)]);
    const fingerprint = hash([canonical(scope.inputs)]);
    const now = this.now();
    const existing = this.entries.get(id);
    if (existing && existing.expiresAt > now) {
      if (existing.fingerprint !== fingerprint) {
        return Promise.reject(
          new PluginError(
            'FAILED_PRECONDITION',
            `idempotency key "${scope.key}" was already used for tool ${scope.tool} with different inputs`,
          ),
        );
      }
      return existing.result;
    }
    this.evict(now);
    const result = fn();
    this.entries.set(id, { fingerprint, result, expiresAt: now + this.ttlMs });
    result.catch(() => {
      if (this.entries.get(id)?.result === result) this.entries.delete(id);
    });
    return result;
  }

  private evict(now: number): void {
    for (const [id, entry] of this.entries) {
      if (entry.expiresAt <= now) this.entries.delete(id);
    }
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}

function hash(parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex');
}

/** JSON with sorted keys, so `{a, b}` and `{b, a}` are the same inputs. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
