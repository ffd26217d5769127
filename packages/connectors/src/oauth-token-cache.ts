/**
 * A process-local `OAuthTokenCache`, for unit tests and single-process tools
 * (the CLI). Refreshes are serialised per key inside this process only; the
 * service uses the Postgres-backed store (`infra/oauth-token.store.ts`),
 * which serialises them across replicas.
 */
import type { OAuthTokenCache, StoredOAuthToken } from './connector-type.js';

/** Whether `token` must be refreshed: missing, or expiring within `bufferMs` of `nowMs`. */
export function tokenNeedsRefresh(
  token: StoredOAuthToken | undefined,
  bufferMs: number,
  nowMs: number,
): boolean {
  if (!token) return true;
  return token.expiresAt !== undefined && token.expiresAt - bufferMs <= nowMs;
}

export class InMemoryOAuthTokenCache implements OAuthTokenCache {
  private readonly tokens = new Map<string, StoredOAuthToken>();
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly now: () => number = Date.now) {}

  async getOrRefresh(
    key: string,
    bufferMs: number,
    refresh: (current: StoredOAuthToken | undefined) => Promise<StoredOAuthToken>,
    options: { force?: boolean } = {},
  ): Promise<StoredOAuthToken> {
    const current = this.tokens.get(key);
    if (!options.force && !tokenNeedsRefresh(current, bufferMs, this.now()))
      return { ...(current as StoredOAuthToken) };
    return this.serialised(key, async () => {
      // Whoever held the lock before us may have refreshed already.
      const latest = this.tokens.get(key);
      if (!options.force && !tokenNeedsRefresh(latest, bufferMs, this.now()))
        return { ...(latest as StoredOAuthToken) };
      const next = await refresh(latest ? { ...latest } : undefined);
      this.tokens.set(key, { ...next });
      return { ...next };
    });
  }

  /** The stored token (a copy), for tests. */
  peek(key: string): StoredOAuthToken | undefined {
    const token = this.tokens.get(key);
    return token ? { ...token } : undefined;
  }

  /** Replaces the stored token, for tests. */
  set(key: string, token: StoredOAuthToken): void {
    this.tokens.set(key, { ...token });
  }

  private async serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }
}
