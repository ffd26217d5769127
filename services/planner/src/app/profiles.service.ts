/**
 * Agent profile use cases: CRUD, duplicate, templates, playbook attachment
 * (with step-link rule 5 against the profile's connector bindings), team
 * shares and @handle resolution. Every call names the caller; what they may
 * do is decided by domain/profiles/sharing.ts, and a profile they may not
 * see is NOT_FOUND. Create, duplicate and create-from-template de-duplicate
 * by idempotency key; the other changes are idempotent by nature.
 */
import { AppError } from '@af/service-kit';
import { unboundConnectorIssues } from '../domain/profiles/connector-binding-rule.js';
import { parseMention, resolveHandle, unknownHandleMessage, type MentionCandidate } from '../domain/profiles/mention.js';
import { parseHandle, parseProfile, parseProfilePatch, type Parsed, type ProfileFields, type ProfileIssue } from '../domain/profiles/profile.schema.js';
import { accessTo, PROFILE_ACTIONS, sharesFor, type Caller, type ProfileAction } from '../domain/profiles/sharing.js';
import { parseShareSettings } from '../domain/profiles/share-settings.js';
import { findTemplate, PROFILE_TEMPLATES, profileFromTemplate, type ProfileTemplate } from '../domain/profiles/templates.js';
import type { ProfileBindings } from '../infra/profile-bindings.js';
import type { ProfileRepository, StoredProfile, StoredShare } from '../infra/profile.repository.js';
import type { PlaybookUsers, Playbooks } from './playbooks.js';

export interface ProfileView {
  profile: StoredProfile;
  access: 'owner' | 'team';
  teamId?: string;
  permissions: ProfileAction[];
  /** The active shares the caller may see (all for the owner, their teams' for a member). */
  sharedWith: string[];
}

export interface AvailableAgent {
  profile: StoredProfile;
  source: 'own' | 'team';
  teamId?: string;
  /** When it was shared with that team (team agents). */
  sharedAt?: Date;
}

/**
 * What still uses a profile and so refuses its deletion. The planner plugs in
 * the agent's runs that have not ended (its execution log, bootstrap.ts);
 * schedules do not name profiles yet.
 */
export type ProfileUsers = (ownerUserId: string, profileId: string) => Promise<Array<{ kind: string; id: string }>>;

export const noProfileUsers: ProfileUsers = async () => [];

export class ProfilesService {
  constructor(
    private readonly repo: ProfileRepository,
    private readonly playbooks: Pick<Playbooks, 'compileStored'>,
    private readonly bindings: ProfileBindings,
    private readonly users: ProfileUsers = noProfileUsers,
  ) {}

  async create(caller: Caller, body: unknown, idempotencyKey: string): Promise<ProfileView> {
    requireCaller(caller);
    const fields = orThrow(parseProfile(body), 'profile');
    return this.insert(caller, fields, idempotencyKey);
  }

  async get(caller: Caller, id: string): Promise<ProfileView> {
    return (await this.authorize(caller, id, 'view')).view;
  }

  /** The caller's own profiles (by handle), then those shared with their teams. */
  async list(caller: Caller): Promise<ProfileView[]> {
    requireCaller(caller);
    const own = await this.repo.listOwn(caller.userId);
    const views = await Promise.all(own.map(async (p) => this.viewOf(caller, p, await this.repo.shares(p.id))));
    const shared = await this.sharedProfiles(caller);
    const sharedViews = await Promise.all(shared.map(async ({ profile }) => this.viewOf(caller, profile, await this.repo.shares(profile.id))));
    return [...views, ...sharedViews];
  }

  async update(caller: Caller, id: string, body: unknown): Promise<ProfileView> {
    await this.authorize(caller, id, 'edit');
    const patch = orThrow(parseProfilePatch(body), 'profile');
    await this.repo.update(id, patch);
    return this.get(caller, id);
  }

  /**
   * Deletes the profile with its skills and shares, then the owner's
   * connector bindings to it (`bindingsRemoved`; a note when connector-runtime
   * could not be asked: they then stay until removed with DELETE
   * …/connectors/{id}/bindings/{profile_id}). Team members' own bindings to it
   * are theirs to remove.
   */
  async delete(caller: Caller, id: string): Promise<{ bindingsRemoved: number; notes: string[] }> {
    const { view } = await this.authorize(caller, id, 'delete');
    const users = await this.users(view.profile.user_id, id);
    if (users.length > 0) {
      throw new AppError('FAILED_PRECONDITION', `agent '@${view.profile.handle}' is used by ${users.map((u) => `${u.kind} '${u.id}'`).join(', ')}: remove it from them first`, {
        violations: users.map((u) => ({ field: `${u.kind}s`, reason: `${u.kind} '${u.id}' uses this agent`, code: 'profile_in_use' })),
      });
    }
    if (!(await this.repo.delete(id))) throw AppError.notFound('agent profile', id);
    const cleanup = await this.bindings.removeAll(caller, id);
    return 'removed' in cleanup ? { bindingsRemoved: cleanup.removed, notes: [] } : { bindingsRemoved: 0, notes: [`connector bindings to the profile were not removed: ${cleanup.unavailable}`] };
  }

  /** A copy owned by the caller: fields and skills; not shares or connector bindings. */
  async duplicate(caller: Caller, id: string, body: unknown, idempotencyKey: string): Promise<ProfileView> {
    const { view } = await this.authorize(caller, id, 'view');
    const src = view.profile;
    const overrides = objectBody(body);
    const handle = typeof overrides.handle === 'string' ? overrides.handle : await this.freeHandle(caller.userId, `${src.handle}-copy`);
    const { id: _id, user_id: _u, created_at: _c, updated_at: _up, skills, ...fields } = src;
    const team = { ...fields.team_config };
    delete team.shared_with_teams;
    const copy = orThrow(
      parseProfile({ ...fields, team_config: team, skills: skills.filter((s) => s.skill_type === 'built_in').map(({ id: _i, created_at: _ca, ...s }) => s), name: `${src.name} (copy)`, ...overrides, handle }),
      'profile',
    );
    const created = await this.insert(caller, copy, idempotencyKey);
    // Attached playbooks are the owner's: a copy in someone else's hands gets the built-in skills only.
    if (src.user_id === caller.userId) await this.repo.copyPlaybookSkills(src.id, created.profile.id);
    return this.get(caller, created.profile.id);
  }

  templates(): readonly ProfileTemplate[] {
    return PROFILE_TEMPLATES;
  }

  async fromTemplate(caller: Caller, templateId: string, body: unknown, idempotencyKey: string): Promise<{ view: ProfileView; connectorsToBind: string[]; playbooksToAttach: string[] }> {
    requireCaller(caller);
    const template = findTemplate(templateId);
    if (!template) throw new AppError('NOT_FOUND', `profile template ${templateId} not found (templates: ${PROFILE_TEMPLATES.map((t) => t.id).join(', ')})`);
    const fields = orThrow(parseProfile(profileFromTemplate(template, objectBody(body))), 'profile');
    const view = await this.insert(caller, fields, idempotencyKey);
    return { view, connectorsToBind: [...template.data_sources], playbooksToAttach: [...template.playbooks] };
  }

  /**
   * Attaches the caller's playbook `playbookId`. Step-link rule 5: every
   * connector its steps call must be bound to the profile (INVALID_ARGUMENT
   * naming each step and connector otherwise). When connector-runtime cannot
   * be asked, it is attached with a warning saying the check did not run.
   */
  async attachPlaybook(caller: Caller, profileId: string, playbookId: string, priority: number, parameters: Record<string, unknown>): Promise<{ view: ProfileView; warnings: string[] }> {
    const { view } = await this.authorize(caller, profileId, 'attach');
    if (!playbookId) throw AppError.invalid('playbook_id', 'is required');
    if (!Number.isInteger(priority) || Math.abs(priority) > 1000) throw AppError.invalid('priority', 'must be an integer between -1000 and 1000');
    const { plan } = await this.playbooks.compileStored(caller.userId, playbookId);
    const warnings: string[] = [];
    const bound = await this.bindings.forProfile(caller, profileId);
    if ('unavailable' in bound) warnings.push(`the connectors of playbook '${playbookId}' were not checked against the agent's bindings: ${bound.unavailable}`);
    else {
      const issues = unboundConnectorIssues(plan, view.profile.handle, bound.bindings);
      if (issues.length > 0) {
        throw new AppError('INVALID_ARGUMENT', `playbook '${playbookId}' cannot be attached to '@${view.profile.handle}': ${issues[0]!.message}${issues.length > 1 ? ` (+${issues.length - 1} more)` : ''}`, {
          violations: issues.map((i) => ({ field: i.field, reason: i.message, code: i.code, step: i.step })),
        });
      }
    }
    await this.repo.attachPlaybook(profileId, playbookId, priority, parameters);
    return { view: await this.get(caller, profileId), warnings };
  }

  async detachPlaybook(caller: Caller, profileId: string, playbookId: string): Promise<ProfileView> {
    await this.authorize(caller, profileId, 'attach');
    if (!(await this.repo.detachPlaybook(profileId, playbookId))) throw new AppError('NOT_FOUND', `playbook ${playbookId} is not attached to agent profile ${profileId}`);
    return this.get(caller, profileId);
  }

  /** Shares with one of the caller's own teams (another team is NOT_FOUND); an existing share changes only in the fields given. */
  async share(caller: Caller, profileId: string, teamId: string, settings: unknown, updateOnly: boolean): Promise<{ share: StoredShare; created: boolean }> {
    await this.authorize(caller, profileId, 'share');
    const team = teamId.trim().toLowerCase();
    if (!team) throw AppError.invalid('team_id', 'is required');
    if (!caller.teamIds.map((t) => t.toLowerCase()).includes(team)) throw AppError.notFound('team', teamId);
    const existing = (await this.repo.shares(profileId)).find((s) => s.teamId === team);
    if (updateOnly && !existing) throw new AppError('NOT_FOUND', `agent profile ${profileId} is not shared with team ${teamId}`);
    const parsed = orThrow(parseShareSettings(settings, existing), 'share');
    return this.repo.upsertShare(profileId, team, caller.userId, parsed);
  }

  async unshare(caller: Caller, profileId: string, teamId: string): Promise<void> {
    await this.authorize(caller, profileId, 'share');
    if (!(await this.repo.deleteShare(profileId, teamId.trim().toLowerCase()))) throw new AppError('NOT_FOUND', `agent profile ${profileId} is not shared with team ${teamId}`);
  }

  /** The owner sees every share; a member the shares of their own teams. */
  async shares(caller: Caller, profileId: string): Promise<StoredShare[]> {
    const { view } = await this.authorize(caller, profileId, 'view');
    const all = await this.repo.shares(profileId);
    if (view.access === 'owner') return all;
    const mine = new Set(caller.teamIds);
    return all.filter((s) => mine.has(s.teamId));
  }

  /** Agents shared with `teamId`, one of the caller's teams (another team is NOT_FOUND). */
  async teamAgents(caller: Caller, teamId: string): Promise<AvailableAgent[]> {
    requireCaller(caller);
    const team = teamId.trim().toLowerCase();
    if (!caller.teamIds.map((t) => t.toLowerCase()).includes(team)) throw AppError.notFound('team', teamId);
    const shared = await this.repo.listSharedWith('', [team]);
    return shared.filter((s) => s.profile.is_active).map((s) => ({ profile: s.profile, source: s.profile.user_id === caller.userId ? 'own' : 'team', teamId: team }));
  }

  /** Own active agents by handle, then active agents shared with the caller's teams (each once). */
  async available(caller: Caller): Promise<AvailableAgent[]> {
    requireCaller(caller);
    const own = (await this.repo.listOwn(caller.userId)).filter((p) => p.is_active).map((profile): AvailableAgent => ({ profile, source: 'own' }));
    const shared = (await this.sharedProfiles(caller)).filter((s) => s.profile.is_active).map((s): AvailableAgent => ({ profile: s.profile, source: 'team', teamId: s.share.teamId, sharedAt: s.share.createdAt }));
    return [...own, ...shared];
  }

  /**
   * `@handle`, `handle`, or a whole message starting with `@handle` (its
   * query is returned). Own agents first, then those shared with the
   * caller's teams; unknown: NOT_FOUND listing the closest handles.
   */
  async resolve(caller: Caller, input: string): Promise<{ agent: AvailableAgent; query: string }> {
    requireCaller(caller);
    const text = input.trim();
    const mention = text.startsWith('@') ? parseMention(text) : undefined;
    const handle = mention?.mentioned ? mention.handle : text.replace(/^@/, '');
    const query = mention?.mentioned ? mention.query : '';
    orThrow(parseHandle(handle), 'handle');
    const agents = await this.available(caller);
    const candidates: MentionCandidate[] = agents.map((a) => ({ profileId: a.profile.id, handle: a.profile.handle, source: a.source, ...(a.teamId ? { teamId: a.teamId } : {}), sharedAt: a.sharedAt?.getTime() ?? 0 }));
    const found = resolveHandle(handle, candidates);
    if (!found.found) {
      throw new AppError('NOT_FOUND', unknownHandleMessage(handle, found.close), {
        violations: [{ field: 'handle', reason: unknownHandleMessage(handle, found.close), code: 'unknown_handle', ...(found.close[0] ? { suggestedFix: found.close[0] } : {}) }],
      });
    }
    const agent = agents.find((a) => a.profile.id === found.candidate.profileId && a.source === found.candidate.source)!;
    return { agent, query };
  }

  /** Whether `caller` may do `action`: NOT_FOUND when they may not see the profile, PERMISSION_DENIED when they may not do this. */
  async authorize(caller: Caller, id: string, action: ProfileAction): Promise<{ view: ProfileView }> {
    requireCaller(caller);
    if (!PROFILE_ACTIONS.includes(action)) throw AppError.invalid('action', `must be one of ${PROFILE_ACTIONS.join(', ')}`);
    const profile = await this.repo.get(id);
    if (!profile) throw AppError.notFound('agent profile', id);
    const shares = await this.repo.shares(id);
    const access = accessTo(caller, profile.user_id, shares, action);
    if (!access.allowed) {
      if (!access.visible) throw AppError.notFound('agent profile', id);
      throw new AppError('PERMISSION_DENIED', `you may not ${action} agent profile '@${profile.handle}': ${action === 'edit' ? 'it is shared with your team for use only' : 'only its owner may'}`);
    }
    return { view: this.viewOf(caller, profile, shares) };
  }

  /** What keeps a playbook from being deleted: the owner's profiles it is attached to. */
  readonly playbookUsers: PlaybookUsers = async (ownerUserId, id) =>
    (await this.repo.profilesUsingPlaybook(ownerUserId, id)).map((p) => ({ kind: 'profile' as const, id: `@${p.handle}` }));

  private async insert(caller: Caller, fields: ProfileFields, idempotencyKey: string): Promise<ProfileView> {
    const key = idempotencyKey.slice(0, 200);
    const existing = key ? await this.repo.byIdempotencyKey(caller.userId, key) : undefined;
    const profile = existing ?? (await this.repo.insert(caller.userId, fields, key));
    return this.viewOf(caller, profile, existing ? await this.repo.shares(profile.id) : []);
  }

  /** Profiles shared with the caller's teams, each once (the earliest share). */
  private async sharedProfiles(caller: Caller) {
    const seen = new Set<string>();
    return (await this.repo.listSharedWith(caller.userId, caller.teamIds)).filter((s) => !seen.has(s.profile.id) && seen.add(s.profile.id));
  }

  private async freeHandle(userId: string, base: string): Promise<string> {
    const taken = new Set((await this.repo.listOwn(userId)).map((p) => p.handle));
    const stem = base.slice(0, 90);
    for (let n = 1; n < 1000; n++) {
      const h = n === 1 ? stem : `${stem}-${n}`;
      if (!taken.has(h)) return h;
    }
    throw AppError.invalid('handle', 'give a handle for the copy');
  }

  private viewOf(caller: Caller, profile: StoredProfile, shares: readonly StoredShare[]): ProfileView {
    const permissions = PROFILE_ACTIONS.filter((a) => accessTo(caller, profile.user_id, shares, a).allowed);
    const owner = profile.user_id === caller.userId;
    const visible = owner ? shares.filter((s) => s.isActive) : sharesFor(caller, shares);
    const via = owner ? undefined : visible[0]?.teamId;
    return { profile, access: owner ? 'owner' : 'team', ...(via ? { teamId: via } : {}), permissions, sharedWith: visible.map((s) => s.teamId) };
  }
}

function requireCaller(caller: Caller): void {
  if (!caller.userId) throw new AppError('UNAUTHENTICATED', 'a user is required');
}

function objectBody(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw AppError.invalid('(body)', 'must be a JSON object');
  return body as Record<string, unknown>;
}

function orThrow<T>(parsed: Parsed<T>, what: string): T {
  if (parsed.ok) return parsed.value;
  const issues: ProfileIssue[] = parsed.issues;
  const first = issues[0]!;
  throw new AppError('INVALID_ARGUMENT', `invalid ${what}: ${first.field}: ${first.reason}${issues.length > 1 ? ` (+${issues.length - 1} more)` : ''}`, {
    violations: issues.map((i) => ({ field: i.field, reason: i.reason, code: i.code })),
  });
}
