import { OUTBOX_DDL } from '@af/service-kit';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE connectors (
        owner_user_id text NOT NULL,
        id text NOT NULL,
        name text NOT NULL,
        type text NOT NULL,
        version text NOT NULL,
        description text NOT NULL DEFAULT '',
        definition jsonb NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_user_id, id)
      );
      -- AES-256-GCM envelopes (v1.<kid>.<iv>.<tag>.<ct>), bound to their row by AAD.
      CREATE TABLE connector_credentials (
        owner_user_id text NOT NULL,
        connector_id text NOT NULL,
        name text NOT NULL,
        ciphertext text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_user_id, connector_id, name),
        FOREIGN KEY (owner_user_id, connector_id) REFERENCES connectors(owner_user_id, id) ON DELETE CASCADE
      );
      -- One row per idempotency key (runId:nodeId:attempt): a replayed call gets the stored result.
      CREATE TABLE executions (
        idempotency_key text PRIMARY KEY,
        owner_user_id text NOT NULL,
        connector_id text NOT NULL,
        endpoint text NOT NULL,
        status text NOT NULL CHECK (status IN ('in_progress','completed','failed')),
        result jsonb,
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX executions_age ON executions (created_at);
      ${OUTBOX_DDL}
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE executions, connector_credentials, connectors, outbox');
  }
}
