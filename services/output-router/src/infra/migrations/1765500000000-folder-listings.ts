import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Folder listings seen by detect_folder_changes, by owner and the sha256 its
 * `hash` watermark holds: the next check compares the folder with the
 * listing behind the stored watermark, so deletions are reported too. A
 * listing is written once per distinct content (keyed by its hash);
 * listings unused for 90 days are dropped.
 */
export class FolderListings1765500000000 implements MigrationInterface {
  name = 'FolderListings1765500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE folder_listings (
        owner_user_id text NOT NULL,
        hash text NOT NULL,
        listing jsonb NOT NULL,
        last_used_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (owner_user_id, hash)
      );
      CREATE INDEX folder_listings_unused ON folder_listings (last_used_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE folder_listings');
  }
}
