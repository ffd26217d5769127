import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which process holds an in-progress execution claim (a random id per
 * process start). With the in-process bus of `pnpm start` there is one
 * process, so a claim another (earlier, dead) process holds is taken over at
 * once instead of after it goes stale.
 */
export class ExecutionClaimer1766400000000 implements MigrationInterface {
  name = 'ExecutionClaimer1766400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE executions ADD COLUMN claimed_by text');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE executions DROP COLUMN IF EXISTS claimed_by');
  }
}
