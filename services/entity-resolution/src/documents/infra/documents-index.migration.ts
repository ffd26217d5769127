import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The document index: one row per indexed document (status and progress of
 * its ingestion, the version indexed, its description) and its chunks with
 * their text, a PostgreSQL full-text vector (the BM25 side) and the
 * embedding (the embedded vector store's rows). Everything is keyed by owner.
 */
export class DocumentsIndex1766100000000 implements MigrationInterface {
  name = 'DocumentsIndex1766100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE doc_index_documents (
        owner_user_id text NOT NULL,
        document_id uuid NOT NULL,
        version int NOT NULL,
        title text NOT NULL DEFAULT '',
        content_type text NOT NULL DEFAULT '',
        format text,
        folder_path text NOT NULL DEFAULT '',
        status text NOT NULL,
        progress real NOT NULL DEFAULT 0,
        chunks_total int NOT NULL DEFAULT 0,
        chunks_done int NOT NULL DEFAULT 0,
        page_count int NOT NULL DEFAULT 0,
        error_code text,
        error text,
        description text NOT NULL DEFAULT '',
        description_source text,
        years int[] NOT NULL DEFAULT '{}',
        embedder text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_user_id, document_id)
      );
      CREATE TABLE doc_chunks (
        id text PRIMARY KEY,
        owner_user_id text NOT NULL,
        document_id uuid NOT NULL,
        version int NOT NULL,
        ordinal int NOT NULL,
        kind text NOT NULL,
        parent_ordinal int,
        text text NOT NULL,
        section text NOT NULL DEFAULT '',
        page int,
        page_end int,
        is_table boolean NOT NULL DEFAULT false,
        tokens int NOT NULL,
        len int NOT NULL,
        tsv tsvector NOT NULL
      );
      CREATE TABLE doc_vectors (
        id text PRIMARY KEY,
        seq bigserial,
        owner_user_id text NOT NULL,
        document_id uuid NOT NULL,
        vector bytea NOT NULL
      );
      CREATE INDEX doc_vectors_owner ON doc_vectors (owner_user_id, document_id);
      CREATE INDEX doc_chunks_owner_doc ON doc_chunks (owner_user_id, document_id);
      CREATE INDEX doc_chunks_tsv ON doc_chunks USING gin (tsv);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE doc_vectors, doc_chunks, doc_index_documents');
  }
}
