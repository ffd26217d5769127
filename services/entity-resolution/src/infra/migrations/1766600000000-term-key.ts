import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each entity's term-frequency key (`tf:…`, also a row of entity_blocks,
 * where it is counted) on the entity itself, so the candidate read can count
 * the candidates' name frequencies in the same statement. Filled for the
 * entities stored before it from their block rows; an entity without one is
 * counted in a statement of its own, as before.
 */
export class TermKey1766600000000 implements MigrationInterface {
  name = 'TermKey1766600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE entities ADD COLUMN tf_key text;
      UPDATE entities e SET tf_key = b.key FROM entity_blocks b WHERE b.owner = e.owner AND b.entity_id = e.id AND b.key LIKE 'tf:%';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE entities DROP COLUMN IF EXISTS tf_key');
  }
}
