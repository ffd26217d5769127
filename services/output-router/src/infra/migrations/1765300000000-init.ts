import { OUTBOX_DDL } from '@af/service-kit';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The user's workspace: folders, documents with every version, the blobs
 * holding their bytes (the default blob store), exports, notifications,
 * todos, team posts, the workspace-table catalogue, and the delivery log
 * that makes every routed delivery happen once.
 */
export class Init1765300000000 implements MigrationInterface {
  name = 'Init1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE folders (
        id uuid PRIMARY KEY,
        owner_user_id text NOT NULL,
        parent_id uuid REFERENCES folders(id) ON DELETE RESTRICT,
        name text NOT NULL,
        path text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      -- One folder of a name per parent (top level: parent NULL).
      CREATE UNIQUE INDEX folders_name ON folders (owner_user_id, coalesce(parent_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name));

      CREATE TABLE blobs (
        id uuid PRIMARY KEY,
        content bytea NOT NULL,
        size_bytes integer NOT NULL,
        sha256 text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );

      CREATE TABLE documents (
        id uuid PRIMARY KEY,
        owner_user_id text NOT NULL,
        folder_id uuid REFERENCES folders(id) ON DELETE RESTRICT,
        title text NOT NULL,
        content_type text NOT NULL,
        size_bytes integer NOT NULL,
        version integer NOT NULL,
        -- {run_id, node_id, action}
        source jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX documents_owner ON documents (owner_user_id, created_at DESC, id DESC);
      CREATE INDEX documents_folder ON documents (owner_user_id, folder_id, lower(title));

      CREATE TABLE document_versions (
        document_id uuid NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        version integer NOT NULL,
        -- A blob id of the configured blob store (PostgreSQL: blobs.id; S3: the object key).
        blob_key text NOT NULL,
        size_bytes integer NOT NULL,
        content_type text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (document_id, version)
      );

      CREATE TABLE exports (
        id uuid PRIMARY KEY,
        owner_user_id text NOT NULL,
        filename text NOT NULL,
        content_type text NOT NULL,
        blob_key text NOT NULL,
        size_bytes integer NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX exports_owner ON exports (owner_user_id, created_at DESC);

      CREATE TABLE notifications (
        id uuid PRIMARY KEY,
        owner_user_id text NOT NULL,
        title text NOT NULL,
        message text NOT NULL,
        priority text NOT NULL CHECK (priority IN ('low','normal','high','urgent')),
        action_url text NOT NULL DEFAULT '',
        action_label text NOT NULL DEFAULT '',
        source jsonb NOT NULL DEFAULT '{}',
        read_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now())
      );
      CREATE INDEX notifications_owner ON notifications (owner_user_id, created_at DESC, id DESC);

      CREATE TABLE todos (
        id uuid PRIMARY KEY,
        owner_user_id text NOT NULL,
        title text NOT NULL,
        body text NOT NULL DEFAULT '',
        state text NOT NULL CHECK (state IN ('TODO','NEXT','WAITING','DONE')),
        priority text NOT NULL DEFAULT '' CHECK (priority IN ('','A','B','C')),
        deadline date,
        scheduled date,
        tags text[] NOT NULL DEFAULT '{}',
        notes text[] NOT NULL DEFAULT '{}',
        target_file text NOT NULL DEFAULT '',
        completed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX todos_owner ON todos (owner_user_id, state, created_at);

      CREATE TABLE team_posts (
        id uuid PRIMARY KEY,
        team_id text NOT NULL,
        thread_id uuid NOT NULL,
        author_user_id text NOT NULL,
        content text NOT NULL,
        format text NOT NULL CHECK (format IN ('markdown','plain')),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX team_posts_team ON team_posts (team_id, created_at DESC);
      CREATE INDEX team_posts_thread ON team_posts (thread_id, created_at);

      -- Workspace tables live in a per-user schema; this is their catalogue.
      CREATE TABLE workspace_tables (
        owner_user_id text NOT NULL,
        workspace_id text NOT NULL,
        table_name text NOT NULL,
        schema_name text NOT NULL,
        sql_table text NOT NULL,
        -- [{name, type}] in column order, metadata columns excluded.
        columns jsonb NOT NULL,
        upsert_key text,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_user_id, workspace_id, table_name)
      );

      -- One row per delivery key (runId:nodeId:destination): a replay finds it and writes nothing.
      CREATE TABLE deliveries (
        delivery_key text PRIMARY KEY,
        owner_user_id text NOT NULL,
        destination text NOT NULL,
        status text NOT NULL CHECK (status IN ('in_progress','delivered','failed')),
        details jsonb NOT NULL DEFAULT '{}',
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      ${OUTBOX_DDL}
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `DROP TABLE deliveries, workspace_tables, team_posts, todos, notifications, exports, document_versions, documents, blobs, folders, outbox`,
    );
  }
}
