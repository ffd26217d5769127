import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `{last_execution_date}`: when a run starts from a stored playbook, the
 * start of the same user's last finished run of that playbook is kept on the
 * run (null for the first one). The index serves that look-up.
 */
export class LastExecution1765100000000 implements MigrationInterface {
  name = 'LastExecution1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE runs ADD COLUMN last_execution_at timestamptz');
    await q.query(
      `CREATE INDEX runs_finished_by_source ON runs (user_id, (plan->'provenance'->>'sourceId'), created_at DESC)
       WHERE status IN ('completed','failed','cancelled')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX runs_finished_by_source');
    await q.query('ALTER TABLE runs DROP COLUMN last_execution_at');
  }
}
