import { randomUUID } from 'node:crypto';
import { AppError, sqlRows, type ServiceKit } from '@af/service-kit';

export interface User {
  id: string;
  email: string;
  name: string | null;
  passwordHash: string;
  createdAt: Date;
}

export class UsersRepository {
  constructor(private readonly kit: ServiceKit) {}

  /** Create a user with a personal team; ALREADY_EXISTS when the email is taken. */
  async create(email: string, name: string | null, passwordHash: string): Promise<User> {
    return this.kit.transaction(async (m) => {
      const id = randomUUID();
      const rows = await sqlRows(m, 
        `INSERT INTO users (id, email, name, password_hash) VALUES ($1, $2, $3, $4)
         ON CONFLICT (email) DO NOTHING RETURNING *`,
        [id, email, name, passwordHash],
      );
      if (rows.length === 0) {
        throw new AppError('ALREADY_EXISTS', 'email is already registered', {
          violations: [{ field: 'email', reason: 'is already registered' }],
        });
      }
      const teamId = randomUUID();
      await sqlRows(m, 'INSERT INTO teams (id, name, owner_user_id) VALUES ($1, $2, $3)', [teamId, `${name ?? email} (personal)`, id]);
      await sqlRows(m, `INSERT INTO team_memberships (team_id, user_id, role) VALUES ($1, $2, 'owner')`, [teamId, id]);
      return toUser(rows[0]);
    });
  }

  async byEmail(email: string): Promise<User | null> {
    const rows = await sqlRows(this.kit.db, 'SELECT * FROM users WHERE email = $1', [email]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  async byId(id: string): Promise<User | null> {
    const rows = await sqlRows(this.kit.db, 'SELECT * FROM users WHERE id = $1', [id]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  async teamIds(userId: string): Promise<string[]> {
    const rows: Array<{ team_id: string }> = await sqlRows(this.kit.db, 'SELECT team_id FROM team_memberships WHERE user_id = $1', [userId]);
    return rows.map((r) => r.team_id);
  }
}

function toUser(r: Record<string, unknown>): User {
  return {
    id: String(r.id),
    email: String(r.email),
    name: (r.name as string | null) ?? null,
    passwordHash: String(r.password_hash),
    createdAt: r.created_at as Date,
  };
}
