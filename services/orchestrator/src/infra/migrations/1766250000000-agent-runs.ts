import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent runs (the execution log of an agent profile): the profile a run
 * answers for, who invoked it (the owner or a team member), the team it was
 * shared through, and once finished the connector endpoints it called, the
 * entities its steps reported and what it produced. Runs that are not an
 * agent's keep nulls and empty lists. The index serves ListRuns filtered by
 * agent.
 */
export class AgentRuns1766250000000 implements MigrationInterface {
  name = 'AgentRuns1766250000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE runs
        ADD COLUMN agent_profile_id text,
        ADD COLUMN invoked_by text,
        ADD COLUMN agent_team_id text,
        ADD COLUMN connectors_called jsonb NOT NULL DEFAULT '[]',
        ADD COLUMN entities_discovered int NOT NULL DEFAULT 0,
        ADD COLUMN outputs_produced jsonb NOT NULL DEFAULT '[]';
      CREATE INDEX runs_user_agent ON runs (user_id, agent_profile_id, created_at DESC) WHERE agent_profile_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP INDEX runs_user_agent;
      ALTER TABLE runs DROP COLUMN agent_profile_id, DROP COLUMN invoked_by, DROP COLUMN agent_team_id,
        DROP COLUMN connectors_called, DROP COLUMN entities_discovered, DROP COLUMN outputs_produced;
    `);
  }
}
