import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `active_ms`: the time orchestrators spent executing a run in the leases
 * that ended with the run parked (waiting on a person, a timer or a child
 * run) or stopped. The `complete` frame's `activeMs` is this plus the last
 * lease; its `durationMs` is wall time from the run's start to its finish.
 */
export class ActiveTime1765300000000 implements MigrationInterface {
  name = 'ActiveTime1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE runs ADD COLUMN active_ms bigint NOT NULL DEFAULT 0');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE runs DROP COLUMN active_ms');
  }
}
