import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which merge decision a merge link belongs to. A split removes one
 * decision's link (`resolution_log.link_owner` of the split says whose) and
 * its reversal puts that decision's link back; a merge is reversible only
 * while its own link is in place, never an equal link a later decision made
 * after a split. Existing links are attributed to the newest live merge
 * decision that made a link of that child into that parent.
 */
export class LinkOwner1766300000000 implements MigrationInterface {
  name = 'LinkOwner1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE entities ADD COLUMN link_log_id uuid;
      ALTER TABLE resolution_log ADD COLUMN link_owner uuid;
      UPDATE entities e SET link_log_id = (
        SELECT l.id FROM resolution_log l
         WHERE l.owner = e.owner AND l.link_child = e.id AND l.link_parent = e.parent_id
           AND l.action IN ('auto_merge', 'user_merge') AND l.reversed_at IS NULL
         ORDER BY l.created_at DESC LIMIT 1)
       WHERE e.parent_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE entities DROP COLUMN IF EXISTS link_log_id; ALTER TABLE resolution_log DROP COLUMN IF EXISTS link_owner');
  }
}
