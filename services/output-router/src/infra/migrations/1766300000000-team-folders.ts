import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Team folders: a folder with a `team_id` is shared with that team; its
 * documents (and those of its sub-folders, which inherit the team) are read
 * by the team's members through `read_team_file` / `search_team_files`.
 */
export class TeamFolders1766300000000 implements MigrationInterface {
  name = 'TeamFolders1766300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE folders ADD COLUMN team_id text;
      CREATE INDEX folders_team ON folders (team_id) WHERE team_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX folders_team; ALTER TABLE folders DROP COLUMN team_id`);
  }
}
