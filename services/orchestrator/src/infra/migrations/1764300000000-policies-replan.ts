import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Runtime policies and replans: the run's validated policies, the durable
 * timer of its earliest unfired onTimeout policy, every firing (so a resumed
 * run never fires a policy twice), and every plan version of a run.
 */
export class PoliciesReplan1764300000000 implements MigrationInterface {
  name = 'PoliciesReplan1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE runs ADD COLUMN policies jsonb;
      -- When the earliest onTimeout policy that has not fired is due; a parked run is woken then.
      ALTER TABLE runs ADD COLUMN policy_timer timestamptz;
      CREATE INDEX runs_policy_timer ON runs (policy_timer) WHERE status = 'waiting' AND policy_timer IS NOT NULL;

      CREATE TABLE policy_firings (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        -- <policy id>[@<subject>][/approve|/reject]: one firing per policy and subject.
        key text NOT NULL,
        policy_id text NOT NULL,
        trigger jsonb NOT NULL,
        action jsonb NOT NULL,
        -- pending: a halting action (fail, pause, replan) not applied yet; awaiting_plan: a replan that needs ReplanRun with a plan.
        status text NOT NULL CHECK (status IN ('pending','applied','awaiting_plan')),
        created_at timestamptz NOT NULL DEFAULT now(),
        applied_at timestamptz,
        PRIMARY KEY (run_id, key)
      );

      CREATE TABLE plan_versions (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        version int NOT NULL,
        plan jsonb NOT NULL,
        source text NOT NULL CHECK (source IN ('start','replan')),
        policy_id text,
        rationale text,
        idempotency_key text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (run_id, version)
      );
      CREATE UNIQUE INDEX plan_versions_idempotency ON plan_versions (run_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
      INSERT INTO plan_versions (run_id, version, plan, source, created_at)
        SELECT id, plan_version, plan, 'start', created_at FROM runs;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE plan_versions, policy_firings;
      DROP INDEX runs_policy_timer;
      ALTER TABLE runs DROP COLUMN policy_timer, DROP COLUMN policies;
    `);
  }
}
