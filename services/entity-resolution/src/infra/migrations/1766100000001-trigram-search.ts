import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fuzzy name and alias search: pg_trgm (trusted since PostgreSQL 13, shipped
 * with the Debian server and the embedded one) and trigram GIN indexes on
 * the canonical name and the folded aliases, so a search for a misspelt name
 * finds the entity without scanning the namespace.
 */
export class TrigramSearch1766100000001 implements MigrationInterface {
  name = 'TrigramSearch1766100000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE INDEX entities_canonical_trgm ON entities USING gin (canonical_name gin_trgm_ops);
      CREATE INDEX entity_aliases_alias_trgm ON entity_aliases USING gin (lower(alias) gin_trgm_ops);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS entities_canonical_trgm, entity_aliases_alias_trgm');
  }
}
