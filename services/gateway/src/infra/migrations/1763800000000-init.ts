import { OUTBOX_DDL } from '@af/service-kit';
import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY,
        email text NOT NULL UNIQUE,
        name text,
        password_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE teams (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        owner_user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE team_memberships (
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('owner','admin','member','viewer')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (team_id, user_id)
      );
      ${OUTBOX_DDL}
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE team_memberships, teams, users, outbox');
  }
}
