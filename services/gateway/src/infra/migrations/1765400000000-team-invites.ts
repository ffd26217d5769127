import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Team invitations: a team owner invites an email address; whoever registers
 * with the invitation's token (only its sha256 is stored) for that address
 * joins the team. Under SIGNUP=invite they are the only way to register.
 */
export class TeamInvites1765400000000 implements MigrationInterface {
  name = 'TeamInvites1765400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE team_invites (
        id uuid PRIMARY KEY,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        email text NOT NULL,
        role text NOT NULL,
        token_hash bytea NOT NULL UNIQUE,
        created_by uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        accepted_at timestamptz,
        accepted_by uuid,
        revoked_at timestamptz
      );
      CREATE INDEX team_invites_team ON team_invites (team_id, created_at);
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE team_invites');
  }
}
