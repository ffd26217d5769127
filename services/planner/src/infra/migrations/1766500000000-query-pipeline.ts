import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Questions answered by the master agent: chat `query_sessions`, one
 * `query_records` row per question (plan, memory used, run, answer and
 * sources), rolling `conversation_summaries` every three turns, and the
 * user's `user_long_term_memory`. Conversations and their messages are the
 * chat's (`conversations`, `conversation_messages`).
 */
export class QueryPipeline1766500000000 implements MigrationInterface {
  name = 'QueryPipeline1766500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE query_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id text NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        last_active_at timestamptz NOT NULL DEFAULT now(),
        is_active boolean NOT NULL DEFAULT true
      );
      CREATE INDEX idx_query_sessions_user ON query_sessions (user_id);
      CREATE TABLE query_records (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id text NOT NULL,
        session_id uuid NOT NULL REFERENCES query_sessions(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        query text NOT NULL,
        streaming boolean NOT NULL,
        master_plan jsonb NOT NULL,
        memory jsonb NOT NULL,
        run_id text,
        result jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        answered_at timestamptz
      );
      CREATE INDEX idx_query_records_conversation ON query_records (conversation_id, created_at);
      CREATE TABLE conversation_summaries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        summary_text text NOT NULL,
        turns_covered int NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (conversation_id, turns_covered)
      );
      CREATE TABLE user_long_term_memory (
        user_id text PRIMARY KEY,
        critical_facts jsonb NOT NULL DEFAULT '{}',
        preferences jsonb NOT NULL DEFAULT '{}',
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE user_long_term_memory; DROP TABLE conversation_summaries; DROP TABLE query_records; DROP TABLE query_sessions;');
  }
}
