import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Subflows (child runs linked to the node that waits for them), the run's
 * output contract and goal conditions, and rollback progress.
 */
export class SubflowRollback1764100000000 implements MigrationInterface {
  name = 'SubflowRollback1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE runs ADD COLUMN parent_run_id uuid REFERENCES runs(id) ON DELETE SET NULL;
      ALTER TABLE runs ADD COLUMN parent_node_id text;
      ALTER TABLE runs ADD COLUMN depth int NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN output_contract jsonb;
      ALTER TABLE runs ADD COLUMN goal_condition jsonb;
      ALTER TABLE runs ADD COLUMN goal_condition_results jsonb;
      -- {failedNodeId, error, order[]} once a rollback started; its progress is node_states.rollback_status.
      ALTER TABLE runs ADD COLUMN rollback jsonb;
      CREATE INDEX runs_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;

      ALTER TABLE node_states ADD COLUMN child_run_id uuid;
      ALTER TABLE node_states ADD COLUMN rollback_status text;
      CREATE INDEX node_states_waiting ON node_states (run_id) WHERE status = 'waiting';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX node_states_waiting;
      ALTER TABLE node_states DROP COLUMN rollback_status, DROP COLUMN child_run_id;
      DROP INDEX runs_parent;
      ALTER TABLE runs DROP COLUMN rollback, DROP COLUMN goal_condition_results, DROP COLUMN goal_condition,
        DROP COLUMN output_contract, DROP COLUMN depth, DROP COLUMN parent_node_id, DROP COLUMN parent_run_id;
    `);
  }
}
