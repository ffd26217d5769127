import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Waiting nodes (approvals, delays), paused runs, decisions and durable timers. */
export class Waiting1763900000000 implements MigrationInterface {
  name = 'Waiting1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE runs DROP CONSTRAINT runs_status_check;
      ALTER TABLE runs ADD CONSTRAINT runs_status_check
        CHECK (status IN ('queued','running','completed','failed','cancelled','paused','waiting'));
      ALTER TABLE node_states ADD COLUMN wait_until timestamptz;
      ALTER TABLE node_states ADD COLUMN skip_reason text;
      -- A person's decision on a waiting approval: {decision, instructions, decidedBy, decidedAt}.
      ALTER TABLE node_states ADD COLUMN decision jsonb;
      -- The durable timer index: waiting nodes whose time has come.
      CREATE INDEX node_states_timers ON node_states (wait_until) WHERE status = 'waiting' AND wait_until IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX node_states_timers;
      ALTER TABLE node_states DROP COLUMN decision, DROP COLUMN skip_reason, DROP COLUMN wait_until;
    `);
  }
}
