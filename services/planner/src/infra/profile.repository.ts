/**
 * SQL for agent profiles, their skills and team shares. Parameterised only;
 * the columns an update may set come from a fixed list. Who may do what is
 * decided by the caller (app/profiles.service.ts) — this file only stores.
 */
import { AppError, sqlRows, type Queryable } from '@af/service-kit';
import type { DataSource } from 'typeorm';
import type { ProfileFields, ProfilePatch, Skill } from '../domain/profiles/profile.schema.js';
import type { TeamShare } from '../domain/profiles/sharing.js';

export interface StoredSkill extends Skill {
  id: string;
  created_at: Date;
}

export interface StoredProfile extends Omit<ProfileFields, 'skills'> {
  id: string;
  user_id: string;
  skills: StoredSkill[];
  created_at: Date;
  updated_at: Date;
}

export interface StoredShare extends TeamShare {
  profileId: string;
  sharedBy: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A profile shared with one of the caller's teams, with the share it comes through. */
export interface SharedProfile {
  profile: StoredProfile;
  share: StoredShare;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (id: string): boolean => UUID.test(id);

const SCALARS = ['name', 'handle', 'description', 'icon', 'is_active', 'strategy', 'model_preference', 'max_research_rounds', 'system_prompt_additions', 'default_execution_mode', 'default_run_context', 'default_approval_policy'] as const;
const JSON_COLUMNS = ['knowledge_config', 'output_config', 'journal_config', 'team_config'] as const;
const COLUMNS = [...SCALARS, ...JSON_COLUMNS] as const;
type Column = (typeof COLUMNS)[number];

export class ProfileRepository {
  constructor(private readonly db: DataSource) {}

  async byIdempotencyKey(userId: string, key: string): Promise<StoredProfile | undefined> {
    const rows = await sqlRows(this.db, 'SELECT * FROM agent_profiles WHERE user_id = $1 AND idempotency_key = $2', [userId, key]);
    return rows[0] ? (await this.withSkills(rows))[0] : undefined;
  }

  /** Inserts a profile and its skills; a handle the owner already uses is ALREADY_EXISTS. */
  async insert(userId: string, fields: ProfileFields, idempotencyKey: string): Promise<StoredProfile> {
    const id = await this.db.transaction(async (m) => {
      const values = COLUMNS.map((c) => columnValue(c, fields[c]));
      const rows = await uniqueHandle(fields.handle, () =>
        sqlRows<{ id: string }>(
          m,
          `INSERT INTO agent_profiles (user_id, idempotency_key, ${COLUMNS.join(', ')}) VALUES ($1, $2, ${COLUMNS.map((_, i) => `$${i + 3}`).join(', ')}) RETURNING id`,
          [userId, idempotencyKey || null, ...values],
        ),
      );
      await this.replaceBuiltIns(m, rows[0]!.id, fields.skills);
      return rows[0]!.id;
    });
    return (await this.get(id))!;
  }

  async get(id: string): Promise<StoredProfile | undefined> {
    if (!isUuid(id)) return undefined;
    const rows = await sqlRows(this.db, 'SELECT * FROM agent_profiles WHERE id = $1', [id]);
    return (await this.withSkills(rows))[0];
  }

  async listOwn(userId: string): Promise<StoredProfile[]> {
    return this.withSkills(await sqlRows(this.db, 'SELECT * FROM agent_profiles WHERE user_id = $1 ORDER BY handle', [userId]));
  }

  /** Profiles shared with any of `teamIds` through an active share, other owners' only. */
  async listSharedWith(userId: string, teamIds: readonly string[]): Promise<SharedProfile[]> {
    if (teamIds.length === 0) return [];
    const rows = await sqlRows(
      this.db,
      `SELECT p.*, row_to_json(s) AS share FROM agent_team_shares s JOIN agent_profiles p ON p.id = s.agent_profile_id
       WHERE s.team_id = ANY($1::text[]) AND s.is_active AND p.user_id <> $2 ORDER BY p.handle, s.created_at, s.team_id`,
      [[...teamIds], userId],
    );
    const profiles = await this.withSkills(rows);
    return rows.map((r, i) => ({ profile: profiles[i]!, share: toShare(r.share) }));
  }

  async update(id: string, patch: ProfilePatch): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const c of COLUMNS) {
      if (patch[c] === undefined) continue;
      params.push(columnValue(c, patch[c]));
      sets.push(`${c} = $${params.length}`);
    }
    await this.db.transaction(async (m) => {
      if (sets.length) await uniqueHandle(patch.handle ?? '', () => sqlRows(m, `UPDATE agent_profiles SET ${sets.join(', ')}, updated_at = now() WHERE id = $1`, params));
      if (patch.skills) {
        await this.replaceBuiltIns(m, id, patch.skills);
        if (!sets.length) await sqlRows(m, 'UPDATE agent_profiles SET updated_at = now() WHERE id = $1', [id]);
      }
    });
  }

  async delete(id: string): Promise<boolean> {
    const rows = await sqlRows(this.db, 'DELETE FROM agent_profiles WHERE id = $1 RETURNING id', [id]);
    return rows.length > 0;
  }

  /** Adds or updates the playbook skill; true when it was new. */
  async attachPlaybook(profileId: string, playbookId: string, priority: number, parameters: Record<string, unknown>): Promise<boolean> {
    const rows = await sqlRows<{ inserted: boolean }>(
      this.db,
      `INSERT INTO agent_skills (agent_profile_id, skill_type, skill_reference, priority, parameters) VALUES ($1, 'playbook', $2, $3, $4::jsonb)
       ON CONFLICT (agent_profile_id, skill_type, skill_reference) DO UPDATE SET priority = EXCLUDED.priority, parameters = EXCLUDED.parameters, is_enabled = true
       RETURNING (xmax = 0) AS inserted`,
      [profileId, playbookId, priority, JSON.stringify(parameters)],
    );
    await sqlRows(this.db, 'UPDATE agent_profiles SET updated_at = now() WHERE id = $1', [profileId]);
    return rows[0]?.inserted === true;
  }

  async detachPlaybook(profileId: string, playbookId: string): Promise<boolean> {
    const rows = await sqlRows(this.db, "DELETE FROM agent_skills WHERE agent_profile_id = $1 AND skill_type = 'playbook' AND skill_reference = $2 RETURNING id", [profileId, playbookId]);
    return rows.length > 0;
  }

  /** The owner's profiles that have playbook `playbookId` attached (they keep it from being deleted). */
  async profilesUsingPlaybook(userId: string, playbookId: string): Promise<Array<{ id: string; handle: string }>> {
    return sqlRows(
      this.db,
      `SELECT p.id, p.handle FROM agent_skills k JOIN agent_profiles p ON p.id = k.agent_profile_id
       WHERE p.user_id = $1 AND k.skill_type = 'playbook' AND k.skill_reference = $2 ORDER BY p.handle`,
      [userId, playbookId],
    );
  }

  async shares(profileId: string): Promise<StoredShare[]> {
    const rows = await sqlRows(this.db, 'SELECT * FROM agent_team_shares WHERE agent_profile_id = $1 ORDER BY created_at, team_id', [profileId]);
    return rows.map(toShare);
  }

  /** Creates or changes the share of `profileId` with `teamId`; `created` says which. */
  async upsertShare(profileId: string, teamId: string, sharedBy: string, s: Omit<TeamShare, 'teamId'>): Promise<{ share: StoredShare; created: boolean }> {
    const rows = await sqlRows(
      this.db,
      `INSERT INTO agent_team_shares (agent_profile_id, team_id, shared_by, access_level, team_file_access, team_post_access, journal_visibility, is_active)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (agent_profile_id, team_id) DO UPDATE SET access_level = EXCLUDED.access_level, team_file_access = EXCLUDED.team_file_access,
         team_post_access = EXCLUDED.team_post_access, journal_visibility = EXCLUDED.journal_visibility, is_active = EXCLUDED.is_active, updated_at = now()
       RETURNING *, (xmax = 0) AS inserted`,
      [profileId, teamId, sharedBy, s.accessLevel, s.teamFileAccess, s.teamPostAccess, s.journalVisibility, s.isActive],
    );
    return { share: toShare(rows[0]), created: rows[0].inserted === true };
  }

  async deleteShare(profileId: string, teamId: string): Promise<boolean> {
    const rows = await sqlRows(this.db, 'DELETE FROM agent_team_shares WHERE agent_profile_id = $1 AND team_id = $2 RETURNING id', [profileId, teamId]);
    return rows.length > 0;
  }

  private async replaceBuiltIns(m: Queryable, profileId: string, skills: readonly Skill[]): Promise<void> {
    await sqlRows(m, "DELETE FROM agent_skills WHERE agent_profile_id = $1 AND skill_type = 'built_in'", [profileId]);
    for (const s of dedupe(skills)) {
      await sqlRows(m, "INSERT INTO agent_skills (agent_profile_id, skill_type, skill_reference, priority, parameters, is_enabled) VALUES ($1, 'built_in', $2, $3, $4::jsonb, $5)", [
        profileId,
        s.skill_reference,
        s.priority,
        JSON.stringify(s.parameters),
        s.is_enabled,
      ]);
    }
  }

  /** Also copies the playbook skills of `fromId` (duplicate). */
  async copyPlaybookSkills(fromId: string, toId: string): Promise<void> {
    await sqlRows(
      this.db,
      `INSERT INTO agent_skills (agent_profile_id, skill_type, skill_reference, priority, parameters, is_enabled)
       SELECT $2, skill_type, skill_reference, priority, parameters, is_enabled FROM agent_skills WHERE agent_profile_id = $1 AND skill_type = 'playbook'
       ON CONFLICT DO NOTHING`,
      [fromId, toId],
    );
  }

  private async withSkills(rows: any[]): Promise<StoredProfile[]> {
    if (rows.length === 0) return [];
    const ids = [...new Set(rows.map((r) => r.id as string))];
    const skills = await sqlRows(this.db, 'SELECT * FROM agent_skills WHERE agent_profile_id = ANY($1::uuid[]) ORDER BY priority DESC, created_at, skill_reference', [ids]);
    return rows.map((r) => toProfile(r, skills.filter((s) => s.agent_profile_id === r.id)));
  }
}

function dedupe(skills: readonly Skill[]): Skill[] {
  const seen = new Map<string, Skill>();
  for (const s of skills) seen.set(s.skill_reference, s);
  return [...seen.values()];
}

function columnValue(c: Column, v: unknown): unknown {
  if ((JSON_COLUMNS as readonly string[]).includes(c)) return JSON.stringify(v ?? {});
  return v ?? null;
}

async function uniqueHandle<T>(handle: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = err as { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } };
    const code = e.driverError?.code ?? e.code;
    const constraint = e.driverError?.constraint ?? e.constraint;
    if (code === '23505' && constraint === 'agent_profiles_user_handle') {
      throw new AppError('ALREADY_EXISTS', `you already have an agent with the handle '${handle}': choose another`, { violations: [{ field: 'handle', reason: `'${handle}' is taken by another of your agents`, code: 'handle_taken' }] });
    }
    throw err;
  }
}

function toProfile(r: any, skills: any[]): StoredProfile {
  const opt = (v: unknown) => (v === null || v === undefined ? undefined : (v as string));
  const p: StoredProfile = {
    id: r.id,
    user_id: r.user_id,
    name: r.name,
    handle: r.handle,
    is_active: r.is_active,
    strategy: r.strategy,
    max_research_rounds: r.max_research_rounds,
    knowledge_config: r.knowledge_config,
    output_config: r.output_config,
    default_execution_mode: r.default_execution_mode,
    default_run_context: r.default_run_context,
    default_approval_policy: r.default_approval_policy,
    journal_config: r.journal_config,
    team_config: r.team_config,
    skills: skills.map((s) => ({ id: s.id, skill_type: s.skill_type, skill_reference: s.skill_reference, priority: s.priority, parameters: s.parameters, is_enabled: s.is_enabled, created_at: s.created_at })),
    created_at: new Date(r.created_at),
    updated_at: new Date(r.updated_at),
  };
  for (const k of ['description', 'icon', 'model_preference', 'system_prompt_additions'] as const) {
    const v = opt(r[k]);
    if (v !== undefined) p[k] = v;
  }
  return p;
}

function toShare(r: any): StoredShare {
  return {
    profileId: r.agent_profile_id,
    teamId: r.team_id,
    sharedBy: r.shared_by,
    accessLevel: r.access_level,
    teamFileAccess: r.team_file_access,
    teamPostAccess: r.team_post_access,
    journalVisibility: r.journal_visibility,
    isActive: r.is_active,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}
