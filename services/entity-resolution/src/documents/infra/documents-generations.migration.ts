import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A generation counter per owner and index part (`chunks`: the lexical
 * index, `vectors`: the embedded vector store), bumped by every write. The
 * in-memory indexes compare it (one primary-key read) before a search and
 * reload only when another writer changed the owner's rows.
 */
export class DocumentsIndexGenerations1766100000002 implements MigrationInterface {
  name = 'DocumentsIndexGenerations1766100000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE doc_index_generations (
        owner_user_id text NOT NULL,
        part text NOT NULL,
        generation bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (owner_user_id, part)
      );
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE doc_index_generations');
  }
}
