import { OUTBOX_DDL } from '@af/service-kit';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE runs (
        id uuid PRIMARY KEY,
        user_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued','running','completed','failed','cancelled')),
        run_context text NOT NULL,
        plan jsonb NOT NULL,
        plan_version int NOT NULL DEFAULT 1,
        inputs jsonb NOT NULL DEFAULT '{}',
        error text,
        idempotency_key text,
        last_seq bigint NOT NULL DEFAULT 0,
        lease_owner text,
        lease_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX runs_idempotency ON runs (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE INDEX runs_user ON runs (user_id, created_at DESC);
      CREATE INDEX runs_active ON runs (lease_until) WHERE status IN ('queued','running');

      CREATE TABLE node_states (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        node_id text NOT NULL,
        status text NOT NULL,
        attempt int NOT NULL DEFAULT 0,
        error text,
        started_at timestamptz,
        finished_at timestamptz,
        PRIMARY KEY (run_id, node_id)
      );

      -- Outputs needed to resume and to answer GetRun; kept apart from the
      -- metadata-only event log so they can be purged on their own schedule.
      CREATE TABLE node_outputs (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        node_id text NOT NULL,
        output jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run_id, node_id)
      );

      CREATE TABLE run_events (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq bigint NOT NULL,
        type text NOT NULL,
        node_id text,
        payload jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run_id, seq)
      );
      ${OUTBOX_DDL}
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE run_events, node_outputs, node_states, runs, outbox');
  }
}
