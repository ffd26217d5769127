import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Rate-limit buckets and circuit breakers shared by every replica
 * (infra/rate-limiter.ts, infra/circuit-breaker.store.ts). One row per key
 * (`connector:<owner>:<id>`, `binding:<owner>:<profile>:<connector>`); rows
 * are created on first use and hold no secrets.
 */
export class Limits1764100000002 implements MigrationInterface {
  name = 'Limits1764100000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      -- One token bucket per limited window (NULL limit = window not limited).
      -- tokens_* go negative while callers wait on reservations.
      -- UNLOGGED: written on every (unleased) call, and soft state — a commit
      -- then waits for no WAL flush (~0.2 ms instead of a disk sync). After a
      -- PostgreSQL crash or failover the table is empty: buckets start full
      -- and upstream blocks are forgotten (the next 429 sets them again).
      CREATE UNLOGGED TABLE rate_limit_buckets (
        key text PRIMARY KEY,
        limit_second double precision, tokens_second double precision,
        limit_minute double precision, tokens_minute double precision,
        limit_hour double precision, tokens_hour double precision,
        limit_day double precision, tokens_day double precision,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        -- Retry-After: nothing goes before this.
        blocked_until timestamptz,
        -- The upstream's own count (X-RateLimit-Remaining) until its reset.
        quota_remaining double precision,
        quota_reset timestamptz
      );
      CREATE TABLE circuit_breakers (
        key text PRIMARY KEY,
        state text NOT NULL DEFAULT 'closed' CHECK (state IN ('closed','open','half_open')),
        failures integer NOT NULL DEFAULT 0,
        open_until timestamptz,
        trial_id text,
        trial_until timestamptz,
        last_failure text,
        updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE rate_limit_buckets, circuit_breakers');
  }
}
