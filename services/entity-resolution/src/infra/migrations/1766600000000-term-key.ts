import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each entity's term-frequency key (`tf:…`, also a row of entity_blocks,
 * where it is counted) on the entity itself, so the candidate read can count
 * the candidates' name frequencies in the same statement. Adding the column
 * rewrites nothing, so a large graph starts at once: the entities stored
 * before it get their key after the service starts, in batches off the
 * request path (GraphResolution.rekeyStale, found through the partial index),
 * and until then an entity without one is counted in a statement of its own.
 */
export class TermKey1766600000000 implements MigrationInterface {
  name = 'TermKey1766600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE entities ADD COLUMN tf_key text;
      CREATE INDEX entities_without_tf_key ON entities (id) WHERE tf_key IS NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS entities_without_tf_key; ALTER TABLE entities DROP COLUMN IF EXISTS tf_key');
  }
}
