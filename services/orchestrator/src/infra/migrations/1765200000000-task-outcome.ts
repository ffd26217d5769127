import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a run did, beside its status (domain/task-outcome.ts): `task_status`
 * (complete | partial | error | awaiting_approval; null while running), the
 * step counts and a summary of what failed. Runs that finished before this
 * migration keep null: their outcome was never computed. The index serves
 * ListRuns filtered by task status.
 */
export class TaskOutcome1765200000000 implements MigrationInterface {
  name = 'TaskOutcome1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE runs
        ADD COLUMN task_status text CHECK (task_status IN ('complete','partial','error','awaiting_approval')),
        ADD COLUMN steps_completed int NOT NULL DEFAULT 0,
        ADD COLUMN steps_failed int NOT NULL DEFAULT 0,
        ADD COLUMN steps_skipped int NOT NULL DEFAULT 0,
        ADD COLUMN error_summary text;
      CREATE INDEX runs_user_task_status ON runs (user_id, task_status, created_at DESC) WHERE task_status IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX runs_user_task_status;
      ALTER TABLE runs DROP COLUMN task_status, DROP COLUMN steps_completed, DROP COLUMN steps_failed, DROP COLUMN steps_skipped, DROP COLUMN error_summary;
    `);
  }
}
