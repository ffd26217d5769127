import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent profiles, their skills (built-in skills and attached playbooks: an
 * `agent_skills` row of type `playbook` names the owner's playbook id) and
 * team shares. Handles are unique per owner; different owners may reuse one.
 */
export class AgentProfiles1765600000000 implements MigrationInterface {
  name = 'AgentProfiles1765600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agent_profiles (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id text NOT NULL,
        name text NOT NULL,
        handle text NOT NULL,
        description text,
        icon text,
        is_active boolean NOT NULL DEFAULT true,
        strategy text NOT NULL DEFAULT 'auto' CHECK (strategy IN ('auto', 'playbook', 'research', 'direct', 'pipeline')),
        model_preference text,
        max_research_rounds integer NOT NULL DEFAULT 3,
        system_prompt_additions text,
        knowledge_config jsonb NOT NULL DEFAULT '{}',
        output_config jsonb NOT NULL DEFAULT '{}',
        default_execution_mode text NOT NULL DEFAULT 'hybrid',
        default_run_context text NOT NULL DEFAULT 'interactive',
        default_approval_policy text NOT NULL DEFAULT 'require',
        journal_config jsonb NOT NULL DEFAULT '{"auto_journal": true, "detail_level": "summary", "retention_days": 90}',
        team_config jsonb NOT NULL DEFAULT '{}',
        idempotency_key text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT agent_profiles_user_handle UNIQUE (user_id, handle)
      );
      CREATE INDEX idx_agent_profiles_active ON agent_profiles (user_id, is_active);
      CREATE UNIQUE INDEX agent_profiles_idempotency ON agent_profiles (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL;

      CREATE TABLE agent_skills (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_profile_id uuid NOT NULL REFERENCES agent_profiles (id) ON DELETE CASCADE,
        skill_type text NOT NULL CHECK (skill_type IN ('built_in', 'playbook')),
        skill_reference text NOT NULL,
        priority integer NOT NULL DEFAULT 0,
        parameters jsonb NOT NULL DEFAULT '{}',
        is_enabled boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (agent_profile_id, skill_type, skill_reference)
      );
      CREATE INDEX idx_agent_skills_playbook ON agent_skills (skill_reference) WHERE skill_type = 'playbook';

      CREATE TABLE agent_team_shares (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_profile_id uuid NOT NULL REFERENCES agent_profiles (id) ON DELETE CASCADE,
        team_id text NOT NULL,
        shared_by text NOT NULL,
        access_level text NOT NULL DEFAULT 'use' CHECK (access_level IN ('use', 'edit')),
        team_file_access boolean NOT NULL DEFAULT false,
        team_post_access boolean NOT NULL DEFAULT false,
        journal_visibility text NOT NULL DEFAULT 'own_and_scheduled' CHECK (journal_visibility IN ('own_only', 'own_and_scheduled', 'full')),
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (agent_profile_id, team_id)
      );
      CREATE INDEX idx_team_shares_team ON agent_team_shares (team_id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE agent_team_shares, agent_skills, agent_profiles');
  }
}
