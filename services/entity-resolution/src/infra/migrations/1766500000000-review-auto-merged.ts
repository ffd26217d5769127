import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Review status `auto_merged`: a pending item whose two entities a later
 * merge joined (a bridge, or another review's approval) is closed with it.
 */
export class ReviewAutoMerged1766500000000 implements MigrationInterface {
  name = 'ReviewAutoMerged1766500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE review_queue DROP CONSTRAINT IF EXISTS review_queue_status_check;
      ALTER TABLE review_queue ADD CONSTRAINT review_queue_status_check
        CHECK (status IN ('pending','approved_merge','rejected','skipped','auto_merged'));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE review_queue SET status = 'approved_merge' WHERE status = 'auto_merged';
      ALTER TABLE review_queue DROP CONSTRAINT IF EXISTS review_queue_status_check;
      ALTER TABLE review_queue ADD CONSTRAINT review_queue_status_check
        CHECK (status IN ('pending','approved_merge','rejected','skipped'));
    `);
  }
}
