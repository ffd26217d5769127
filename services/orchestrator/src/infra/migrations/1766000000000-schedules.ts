import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schedules (`agent_schedules`) and their fires. The next fire lives here,
 * not in any replica's memory: `next_fire_at` is the nominal instant (the
 * fire's identity), `due_at` the same plus its jitter (when it is claimed).
 * Each fire becomes a `schedule_fires` row keyed by (schedule, fire time), so
 * a fire is recorded once whatever the number of replicas; its run id is
 * derived from the same pair.
 */
export class Schedules1766000000000 implements MigrationInterface {
  name = 'Schedules1766000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE schedules (
        id uuid PRIMARY KEY,
        user_id text NOT NULL,
        team_ids text[] NOT NULL DEFAULT '{}',
        name text NOT NULL,
        definition jsonb NOT NULL,
        paused boolean NOT NULL DEFAULT false,
        next_fire_at timestamptz,
        due_at timestamptz,
        last_run_at timestamptz,
        last_run_id uuid,
        missed_fires bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query('CREATE INDEX schedules_due ON schedules (due_at) WHERE NOT paused AND due_at IS NOT NULL');
    await q.query('CREATE INDEX schedules_user ON schedules (user_id, created_at, id)');
    await q.query(`
      CREATE TABLE schedule_fires (
        schedule_id uuid NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
        fire_at timestamptz NOT NULL,
        -- scheduled | manual (run-now) | backfill
        kind text NOT NULL,
        -- queued | buffered (waits for the active runs) | started | skipped | missed | failed
        status text NOT NULL,
        -- When a dispatcher should look at it (due time, buffer re-check, retry backoff).
        ready_at timestamptz NOT NULL,
        overlap_policy text,
        run_id uuid,
        attempt int NOT NULL DEFAULT 0,
        reason text,
        dispatched_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (schedule_id, fire_at)
      )`);
    await q.query(`CREATE INDEX schedule_fires_ready ON schedule_fires (ready_at) WHERE status IN ('queued', 'buffered')`);
    await q.query(`CREATE INDEX schedule_fires_started ON schedule_fires (schedule_id) WHERE status = 'started'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE schedule_fires');
    await q.query('DROP TABLE schedules');
  }
}
