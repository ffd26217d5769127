import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What agents did and said: `agent_execution_log` (one row per agent run,
 * open until the run finished: an open row keeps its profile from being
 * deleted), `agent_journal` (the entry written after each run) and the chat
 * history (`conversations`, `conversation_messages`).
 */
export class AgentJournal1766300000000 implements MigrationInterface {
  name = 'AgentJournal1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agent_execution_log (
        run_id text PRIMARY KEY,
        agent_profile_id uuid NOT NULL REFERENCES agent_profiles(id) ON DELETE CASCADE,
        owner_user_id text NOT NULL,
        invoked_by text NOT NULL,
        team_id text,
        query text NOT NULL DEFAULT '',
        strategy text NOT NULL,
        playbook_id text,
        run_context text NOT NULL DEFAULT 'interactive',
        status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'finished')),
        started_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz
      );
      CREATE INDEX idx_execution_log_open ON agent_execution_log (agent_profile_id) WHERE status = 'running';

      CREATE TABLE agent_journal (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_profile_id uuid NOT NULL REFERENCES agent_profiles(id) ON DELETE CASCADE,
        user_id text NOT NULL,
        run_id text,
        summary text NOT NULL,
        summary_source text NOT NULL DEFAULT 'engine' CHECK (summary_source IN ('engine', 'llm', 'action')),
        detail_entries jsonb NOT NULL DEFAULT '[]',
        run_context text NOT NULL DEFAULT 'interactive',
        invoked_by text NOT NULL,
        team_id text,
        strategy text,
        playbook_id text,
        entities_mentioned jsonb NOT NULL DEFAULT '[]',
        steps_completed integer NOT NULL DEFAULT 0,
        entities_discovered integer NOT NULL DEFAULT 0,
        outputs_produced jsonb NOT NULL DEFAULT '[]',
        connectors_called jsonb NOT NULL DEFAULT '[]',
        task_status text NOT NULL DEFAULT 'complete' CHECK (task_status IN ('complete', 'partial', 'error', 'awaiting_approval')),
        error_summary text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE UNIQUE INDEX agent_journal_run ON agent_journal (run_id) WHERE run_id IS NOT NULL AND summary_source <> 'action';
      CREATE INDEX idx_journal_agent ON agent_journal (agent_profile_id, created_at DESC, id DESC);
      CREATE INDEX idx_journal_entities ON agent_journal USING GIN (entities_mentioned);

      CREATE TABLE conversations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE conversation_messages (
        id bigserial PRIMARY KEY,
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('user', 'agent')),
        content text NOT NULL,
        agent_profile_id uuid,
        run_id text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX idx_conversation_messages ON conversation_messages (conversation_id, id);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE conversation_messages; DROP TABLE conversations; DROP TABLE agent_journal; DROP TABLE agent_execution_log;');
  }
}
