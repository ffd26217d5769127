import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Waits on the approval service: the request a waiting node waits for, when
 * reconciliation last asked about it, and the run's hitlClarifications.
 */
export class ApprovalRequests1764450000000 implements MigrationInterface {
  name = 'ApprovalRequests1764450000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE node_states ADD COLUMN approval_request_id uuid;
      ALTER TABLE node_states ADD COLUMN approval_checked_at timestamptz;
      -- Reconciliation: undecided waits on a request, least recently checked first.
      CREATE INDEX node_states_open_requests ON node_states (approval_checked_at)
        WHERE status = 'waiting' AND approval_request_id IS NOT NULL AND decision IS NULL;

      -- The run's hitlClarifications (flex spec §15.x ClarificationEntry), one per clarify request.
      CREATE TABLE run_clarifications (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        request_id uuid NOT NULL,
        node_id text NOT NULL,
        capability_id text,
        question_id text NOT NULL,
        question text NOT NULL,
        answer text,
        created_at timestamptz NOT NULL,
        answered_at timestamptz,
        PRIMARY KEY (run_id, request_id)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE run_clarifications;
      DROP INDEX node_states_open_requests;
      ALTER TABLE node_states DROP COLUMN approval_checked_at, DROP COLUMN approval_request_id;
    `);
  }
}
