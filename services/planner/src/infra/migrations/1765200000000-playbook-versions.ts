import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Playbooks keep every version: `playbooks` is the latest (with its
 * `revision`), `playbook_versions` every version ever stored. Existing
 * playbooks become revision 1.
 */
export class PlaybookVersions1765200000000 implements MigrationInterface {
  name = 'PlaybookVersions1765200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE playbooks ADD COLUMN revision integer NOT NULL DEFAULT 1;
      CREATE TABLE playbook_versions (
        owner_user_id text NOT NULL,
        id text NOT NULL,
        revision integer NOT NULL,
        name text NOT NULL,
        version text NOT NULL,
        yaml text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_user_id, id, revision)
      );
      INSERT INTO playbook_versions (owner_user_id, id, revision, name, version, yaml, created_at)
        SELECT owner_user_id, id, 1, name, version, yaml, updated_at FROM playbooks;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE playbook_versions; ALTER TABLE playbooks DROP COLUMN revision');
  }
}
