/**
 * Failed-login counters (table `login_failures`), shared by every gateway
 * replica. One statement per read or write; times are PostgreSQL's clock so
 * replicas with skewed clocks agree.
 */
import { createHash } from 'node:crypto';
import { sqlRows, type ServiceKit } from '@af/service-kit';
import type { FailureCount, ThrottleScope } from '../domain/login-throttle.js';

export interface ThrottleKey {
  scope: ThrottleScope;
  /** The email (lower case) or the client address key. */
  value: string;
}

/** Stored key: scope plus a sha256 of the value, so the table holds no emails or addresses. */
export function storedKey(k: ThrottleKey): string {
  return `${k.scope}:${createHash('sha256').update(k.value).digest('hex')}`;
}

export class LoginFailuresRepository {
  constructor(private readonly kit: ServiceKit) {}

  /** The counters of `keys` (absent = no failures) and the database's clock. */
  async read(keys: ThrottleKey[]): Promise<{ counts: Partial<Record<ThrottleScope, FailureCount>>; now: number }> {
    const rows: Array<{ key: string | null; failures: number | null; last: Date | null; now: Date }> = await sqlRows(
      this.kit.db,
      `SELECT f.key, f.failures, f.last_failure_at AS last, now() AS now
         FROM (SELECT 1) one LEFT JOIN login_failures f ON f.key = ANY($1::text[])`,
      [keys.map(storedKey)],
    );
    const counts: Partial<Record<ThrottleScope, FailureCount>> = {};
    for (const k of keys) {
      const row = rows.find((r) => r.key === storedKey(k));
      if (row?.failures != null && row.last) counts[k.scope] = { failures: row.failures, lastFailureAt: row.last.getTime() };
    }
    return { counts, now: rows[0]!.now.getTime() };
  }

  /**
   * Count one failure for each key; a counter whose last failure is
   * `resetAfterMs` old starts again at 1 (the decay rule of the domain).
   * Returns the counters as they are now, and the database's clock.
   */
  async recordFailure(keys: ThrottleKey[], resetAfterMs: number): Promise<{ counts: Partial<Record<ThrottleScope, FailureCount>>; now: number }> {
    const rows: Array<{ key: string; failures: number; last: Date; now: Date }> = await sqlRows(
      this.kit.db,
      `INSERT INTO login_failures AS f (key, failures, last_failure_at)
       SELECT k, 1, now() FROM unnest($1::text[]) AS k
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN f.last_failure_at <= now() - make_interval(secs => $2::double precision / 1000) THEN 1 ELSE f.failures + 1 END,
         last_failure_at = now()
       RETURNING f.key, f.failures, f.last_failure_at AS last, now() AS now`,
      [keys.map(storedKey), resetAfterMs],
    );
    const counts: Partial<Record<ThrottleScope, FailureCount>> = {};
    for (const k of keys) {
      const row = rows.find((r) => r.key === storedKey(k));
      if (row) counts[k.scope] = { failures: row.failures, lastFailureAt: row.last.getTime() };
    }
    return { counts, now: rows[0]?.now.getTime() ?? Date.now() };
  }

  /** Forget a key's failures (an account after a successful login). */
  async clear(key: ThrottleKey): Promise<void> {
    await sqlRows(this.kit.db, 'DELETE FROM login_failures WHERE key = $1', [storedKey(key)]);
  }

  /** Drop counters that have decayed anyway; returns how many. */
  async prune(resetAfterMs: number): Promise<number> {
    const rows = await sqlRows(
      this.kit.db,
      `DELETE FROM login_failures WHERE last_failure_at <= now() - make_interval(secs => $1::double precision / 1000) RETURNING 1`,
      [resetAfterMs],
    );
    return rows.length;
  }
}
