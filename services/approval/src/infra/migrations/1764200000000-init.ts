import { OUTBOX_DDL } from '@af/service-kit';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Requests waiting for a person, their audit trail, and the outbox. */
export class Init1764200000000 implements MigrationInterface {
  name = 'Init1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE requests (
        id uuid PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('approval_gate','tool_hitl','policy_hitl','human_task','clarify')),
        status text NOT NULL CHECK (status IN ('pending','approved','rejected','timed_out','expired','declined','submitted','answered')),
        -- Principals are opaque text ids (the gateway's users are UUIDs; other callers may differ).
        owner_user_id text NOT NULL,
        run_id uuid,
        node_id text,
        run_context text NOT NULL CHECK (run_context IN ('interactive','background','scheduled','monitor')),
        operator_prompt text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}',
        output_schema jsonb,
        capability_id text,
        team_ids text[] NOT NULL DEFAULT '{}',
        allow_team_decisions boolean NOT NULL DEFAULT false,
        assignee_user_ids text[] NOT NULL DEFAULT '{}',
        timeout_at timestamptz,
        notify boolean NOT NULL DEFAULT false,
        idempotency_key text,
        -- {decision, instructions, intent, effectiveTask, output, answer, reasonCode, reason, automatic}
        resolution jsonb,
        resolution_key text,
        decided_by text,
        decided_at timestamptz,
        -- When the stale-run sweep last asked the orchestrator about this request's run.
        run_checked_at timestamptz,
        -- Millisecond precision: page tokens carry JavaScript dates.
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT requests_decided CHECK ((status = 'pending') = (decided_at IS NULL))
      );
      CREATE UNIQUE INDEX requests_idempotency ON requests (owner_user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      CREATE INDEX requests_owner ON requests (owner_user_id, created_at DESC, id DESC);
      CREATE INDEX requests_assignees ON requests USING gin (assignee_user_ids);
      CREATE INDEX requests_teams ON requests USING gin (team_ids) WHERE allow_team_decisions;
      -- The durable timer index: pending requests by deadline.
      CREATE INDEX requests_due ON requests (timeout_at) WHERE status = 'pending' AND timeout_at IS NOT NULL;
      CREATE INDEX requests_pending_runs ON requests (run_id, run_checked_at) WHERE status = 'pending' AND run_id IS NOT NULL;

      -- Audit trail: created, every resolution, refused submissions.
      CREATE TABLE request_events (
        id bigserial PRIMARY KEY,
        request_id uuid NOT NULL REFERENCES requests(id) ON DELETE CASCADE,
        type text NOT NULL,
        actor text NOT NULL,
        detail jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX request_events_request ON request_events (request_id, id);
      ${OUTBOX_DDL}
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE request_events, requests, outbox');
  }
}
