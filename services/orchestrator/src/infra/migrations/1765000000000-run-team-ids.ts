import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The teams of the principal that started a run (checked by the gateway at
 * StartRun): the run's capability lookups, holders of human capabilities and
 * replans ask the planner as the owner with these teams, so a run only uses
 * capabilities its owner may use. Runs from before carry none.
 */
export class RunTeamIds1765000000000 implements MigrationInterface {
  name = 'RunTeamIds1765000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE runs ADD COLUMN team_ids text[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE runs DROP COLUMN team_ids');
  }
}
