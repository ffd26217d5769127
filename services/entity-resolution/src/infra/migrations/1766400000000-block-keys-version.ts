import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The version of each entity's block keys (BLOCK_KEYS_VERSION when it was
 * keyed). Entities stored before this column are version 0: the service
 * keys them again from their normalised record when it starts, so keys added
 * since (the organisation typo keys) find them too.
 */
export class BlockKeysVersion1766400000000 implements MigrationInterface {
  name = 'BlockKeysVersion1766400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE entities ADD COLUMN block_keys_version int NOT NULL DEFAULT 0;
      CREATE INDEX entities_block_keys_version ON entities (block_keys_version);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX IF EXISTS entities_block_keys_version; ALTER TABLE entities DROP COLUMN IF EXISTS block_keys_version');
  }
}
