/**
 * Agent profiles against real PostgreSQL (the profile, skill and share
 * tables, the playbook store). Connector bindings come from a fake port
 * here; the gateway E2E asks the real connector-runtime.
 */
import { ActionDispatcher, PgActionRecords, ServiceKit } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { ProfileMessages } from '../../src/app/profile-messages.js';
import { Playbooks } from '../../src/app/playbooks.js';
import { ProfilesService } from '../../src/app/profiles.service.js';
import { plannerEnvSchema, type PlannerConfig } from '../../src/config.js';
import type { ProfileBinding } from '../../src/domain/profiles/connector-binding-rule.js';
import { plannerMigrations } from '../../src/infra/migrations/index.js';
import type { BindingsAnswer } from '../../src/infra/profile-bindings.js';
import { ProfileRepository } from '../../src/infra/profile.repository.js';
import { Journal } from '../../src/app/journal.js';
import { JournalRepository } from '../../src/infra/journal.repository.js';

let db: TestDatabase;
let kit: ServiceKit<PlannerConfig>;
let playbooks: Playbooks;
let profiles: ProfilesService;
let messages: ProfileMessages;
let bindings: Record<string, ProfileBinding[]> | 'down' = {};
/** Profiles a (fake) schedule still uses. */
const inUse = new Set<string>();

const alice = { userId: 'alice', teamIds: ['t-research'] };
const bob = { userId: 'bob', teamIds: ['t-research'] };
const carol = { userId: 'carol', teamIds: ['t-other'] };

const playbook = `
id: org-filings
name: Org filings
execution_mode: deterministic
triggers:
  - pattern: investigate
inputs:
  - name: org_name
    type: entity_name
    required: true
    extract_from: query
steps:
  - name: find_org
    step_type: tool
    action: call_connector
    connector: fixture-api
    endpoint: search_orgs
    inputs:
      q: "{org_name}"
`;

const boardMap = `
id: board-map
name: Board map
triggers:
  - pattern: board interlocks
    type: semantic
inputs:
  - name: company
    type: entity_name
    required: true
    extract_from: query
  - name: since
    type: date
    extract_from: query
    default: "2020-01-01"
steps:
  - name: search
    step_type: tool
    action: call_connector
    connector: fixture-api
    endpoint: search_orgs
    inputs:
      q: "{company}"
`;

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'planner',
    envSchema: plannerEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: 'memory://planner-profiles-test', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: plannerMigrations,
  });
  playbooks = new Playbooks(kit, (owner, id) => profiles.playbookUsers(owner, id));
  const port = {
    forProfile: async (_p: unknown, id: string): Promise<BindingsAnswer> => (bindings === 'down' ? { unavailable: 'connector-runtime did not answer (UNAVAILABLE)' } : { bindings: bindings[id] ?? [] }),
    removeAll: async (_p: unknown, id: string) => {
      if (bindings === 'down') return { unavailable: 'connector-runtime did not answer (UNAVAILABLE)' };
      const removed = bindings[id]?.length ?? 0;
      delete bindings[id];
      return { removed };
    },
    researchTools: async () => ({ tools: [] }),
  };
  profiles = new ProfilesService(new ProfileRepository(kit.db), playbooks, port, async (_owner, id) => (inUse.has(id) ? [{ kind: 'schedule', id: 'nightly' }] : []));
  messages = new ProfileMessages(profiles, playbooks, false);
  await playbooks.create('alice', playbook, 'pb1');
  await playbooks.create('alice', boardMap, 'pb2');
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

it('creates, reads, lists, updates and deletes a profile; handles are unique per owner', async () => {
  const created = await profiles.create(alice, { name: 'Tracker', handle: 'tracker', skills: [{ skill_type: 'built_in', skill_reference: 'research' }] }, 'k-create');
  expect(created).toMatchObject({ access: 'owner', profile: { handle: 'tracker', strategy: 'auto', skills: [{ skill_type: 'built_in', skill_reference: 'research' }] } });
  expect(created.permissions).toEqual(['view', 'run', 'bind', 'edit', 'attach', 'delete', 'share']);
  // The same idempotency key gives the same profile back.
  expect((await profiles.create(alice, { name: 'Tracker', handle: 'tracker' }, 'k-create')).profile.id).toBe(created.profile.id);
  await expect(profiles.create(alice, { name: 'Other', handle: 'tracker' }, '')).rejects.toMatchObject({ code: 'ALREADY_EXISTS', violations: [{ field: 'handle', code: 'handle_taken' }] });
  // Another owner may use the same handle.
  const bobs = await profiles.create(bob, { name: 'Bob tracker', handle: 'tracker' }, '');
  expect(bobs.profile.id).not.toBe(created.profile.id);

  const updated = await profiles.update(alice, created.profile.id, { description: 'follows money', strategy: 'research', skills: [] });
  expect(updated.profile).toMatchObject({ description: 'follows money', strategy: 'research', skills: [] });
  await profiles.create(alice, { name: 'Second', handle: 'second' }, '');
  await expect(profiles.update(alice, created.profile.id, { handle: 'second' })).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
  await expect(profiles.update(alice, created.profile.id, { strategy: 'magic' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'strategy', code: 'unknown_strategy' }] });

  expect((await profiles.list(alice)).map((v) => v.profile.handle)).toEqual(['second', 'tracker']);
  await expect(profiles.get(carol, created.profile.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(profiles.delete(carol, created.profile.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(profiles.get(alice, 'not-a-uuid')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  inUse.add(created.profile.id);
  await expect(profiles.delete(alice, created.profile.id)).rejects.toMatchObject({
    code: 'FAILED_PRECONDITION',
    message: "agent '@tracker' is used by schedule 'nightly': remove it from them first",
    violations: [{ field: 'schedules', code: 'profile_in_use' }],
  });
  inUse.delete(created.profile.id);
  bindings = { [created.profile.id]: [{ connectorId: 'a', allowedEndpoints: [], status: 'active' }] };
  expect(await profiles.delete(alice, created.profile.id)).toEqual({ bindingsRemoved: 1, notes: [] });
  await expect(profiles.get(alice, created.profile.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  bindings = 'down';
  expect(await profiles.delete(alice, (await profiles.create(alice, { name: 'Gone', handle: 'gone' }, '')).profile.id)).toEqual({ bindingsRemoved: 0, notes: [expect.stringMatching(/were not removed: connector-runtime did not answer/)] });
  bindings = {};
});

it('creates from each template and duplicates with a free handle', async () => {
  for (const t of profiles.templates()) {
    const out = await profiles.fromTemplate(alice, t.id, {}, `tmpl-${t.id}`);
    expect(out.view.profile).toMatchObject({ handle: t.id, name: t.profile.name, icon: t.profile.icon });
    expect(out.connectorsToBind).toEqual(t.data_sources);
    expect(out.playbooksToAttach).toEqual(t.playbooks);
  }
  await expect(profiles.fromTemplate(alice, 'nope', {}, '')).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/nonprofit-investigator/) });
  const src = (await profiles.list(alice)).find((v) => v.profile.handle === 'nonprofit-investigator')!;
  const copy = await profiles.duplicate(alice, src.profile.id, {}, '');
  expect(copy.profile).toMatchObject({ handle: 'nonprofit-investigator-copy', name: 'Nonprofit Investigator (copy)', output_config: src.profile.output_config });
  expect((await profiles.duplicate(alice, src.profile.id, {}, '')).profile.handle).toBe('nonprofit-investigator-copy-2');
  expect((await profiles.duplicate(alice, src.profile.id, { handle: 'np2', name: 'NP 2' }, '')).profile).toMatchObject({ handle: 'np2', name: 'NP 2' });
  await expect(profiles.duplicate(alice, src.profile.id, { handle: 'np 3' }, '')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
});

it('attaches a playbook only when its connectors are bound to the profile (rule 5); an attached playbook is not deleted', async () => {
  const agent = await profiles.create(alice, { name: 'Filings', handle: 'filings' }, '');
  const id = agent.profile.id;
  bindings = {};
  await expect(profiles.attachPlaybook(alice, id, 'org-filings', 0, {})).rejects.toMatchObject({
    code: 'INVALID_ARGUMENT',
    message: expect.stringMatching(/step 'find_org' calls connector 'fixture-api', which is not bound to agent '@filings'/),
    violations: [{ field: 'connector', step: 'find_org', code: 'connector_not_bound' }],
  });
  bindings = { [id]: [{ connectorId: 'fixture-api', allowedEndpoints: [], status: 'active' }] };
  const attached = await profiles.attachPlaybook(alice, id, 'org-filings', 2, { note: 'x' });
  expect(attached.warnings).toEqual([]);
  expect(attached.view.profile.skills).toEqual([expect.objectContaining({ skill_type: 'playbook', skill_reference: 'org-filings', priority: 2, parameters: { note: 'x' } })]);
  await expect(playbooks.delete('alice', 'org-filings')).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringMatching(/profile '@filings'/) });
  await expect(profiles.attachPlaybook(alice, id, 'missing', 0, {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(profiles.attachPlaybook(bob, id, 'org-filings', 0, {})).rejects.toMatchObject({ code: 'NOT_FOUND' });

  await profiles.detachPlaybook(alice, id, 'org-filings');
  await expect(profiles.detachPlaybook(alice, id, 'org-filings')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  bindings = 'down';
  const unchecked = await profiles.attachPlaybook(alice, id, 'org-filings', 0, {});
  expect(unchecked.warnings).toEqual([expect.stringMatching(/were not checked .*did not answer/)]);
  await profiles.detachPlaybook(alice, id, 'org-filings');
});

it('shares with a team: members see, mention and run it; others get NOT_FOUND', async () => {
  const agent = await profiles.create(alice, { name: 'Money Tracker', handle: 'money', icon: '💰' }, '');
  const id = agent.profile.id;
  await expect(profiles.share(alice, id, 't-unknown', {}, false)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(profiles.share(alice, id, 't-research', {}, true)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(profiles.share(alice, id, 't-research', { access_level: 'admin' }, false)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'access_level' }] });
  const { share, created } = await profiles.share(alice, id, 't-research', { team_file_access: true }, false);
  expect(created).toBe(true);
  expect(share).toMatchObject({ teamId: 't-research', sharedBy: 'alice', accessLevel: 'use', teamFileAccess: true, journalVisibility: 'own_and_scheduled' });
  expect(await profiles.share(alice, id, 't-research', { journal_visibility: 'full' }, true)).toMatchObject({ created: false, share: { teamFileAccess: true, journalVisibility: 'full' } });
  await expect(profiles.share(bob, id, 't-research', {}, false)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });

  expect(await profiles.get(bob, id)).toMatchObject({ access: 'team', teamId: 't-research', permissions: ['view', 'run', 'bind'] });
  await expect(profiles.update(bob, id, { description: 'x' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
  await profiles.share(alice, id, 't-research', { access_level: 'edit' }, true);
  expect((await profiles.update(bob, id, { description: 'edited by bob' })).profile.description).toBe('edited by bob');
  await expect(profiles.delete(bob, id)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });

  // Bob's own `tracker` comes first; alice's `money` is reached through the team.
  expect(await profiles.resolve(bob, '@money look at Acme')).toMatchObject({ agent: { source: 'team', teamId: 't-research', profile: { id } }, query: 'look at Acme' });
  expect((await profiles.resolve(bob, 'tracker')).agent).toMatchObject({ source: 'own', profile: { user_id: 'bob' } });
  const available = await profiles.available(bob);
  expect(available.map((a) => [a.profile.handle, a.source])).toEqual([['tracker', 'own'], ['money', 'team']]);
  expect((await profiles.teamAgents(bob, 't-research')).map((a) => a.profile.handle)).toEqual(['money']);
  await expect(profiles.teamAgents(carol, 't-research')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  expect((await profiles.shares(bob, id)).map((s) => s.teamId)).toEqual(['t-research']);

  await expect(profiles.resolve(carol, 'money')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(profiles.get(carol, id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(profiles.resolve(bob, 'mony')).rejects.toMatchObject({ code: 'NOT_FOUND', message: "no agent '@mony' for you; did you mean @money?", violations: [{ field: 'handle', code: 'unknown_handle', suggestedFix: 'money' }] });
  await expect(profiles.resolve(bob, 'my agent')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'handle' }] });

  await profiles.unshare(alice, id, 't-research');
  await expect(profiles.get(bob, id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(profiles.unshare(alice, id, 't-research')).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

it('authorize answers per action for the binding check', async () => {
  const agent = await profiles.create(alice, { name: 'Auth', handle: 'auth' }, '');
  await profiles.share(alice, agent.profile.id, 't-research', {}, false);
  expect((await profiles.authorize(bob, agent.profile.id, 'bind')).view.access).toBe('team');
  await expect(profiles.authorize(carol, agent.profile.id, 'bind')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(profiles.authorize(alice, agent.profile.id, 'fly' as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  await expect(profiles.authorize({ userId: '', teamIds: [] }, agent.profile.id, 'view')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
});

it('prepares a chat message: agent by @handle, strategy by trigger, inputs from the message, clarify when one is missing', async () => {
  const agent = await profiles.create(alice, { name: 'Chat', handle: 'chat', skills: [{ skill_type: 'built_in', skill_reference: 'research' }] }, '');
  const id = agent.profile.id;
  bindings = { [id]: [{ connectorId: 'fixture-api', allowedEndpoints: [], status: 'active' }] };
  await profiles.attachPlaybook(alice, id, 'org-filings', 0, {});
  await profiles.attachPlaybook(alice, id, 'board-map', 0, {});
  const semantic = 'semantic matching unavailable: no embedding model configured';

  const pipeline = await messages.prepare(alice, '@chat Investigate the Omidyar Foundation', '', {});
  expect(pipeline).toMatchObject({ query: 'Investigate the Omidyar Foundation', strategy: 'pipeline', playbookId: 'org-filings', needsModel: false, inputs: { org_name: 'Omidyar Foundation' }, notes: [semantic] });
  expect(pipeline.extracted).toEqual([{ name: 'org_name', value: 'Omidyar Foundation', source: 'query', rule: 'capitalised' }]);
  expect(pipeline.clarify).toBeUndefined();

  const hybrid = await messages.prepare(alice, '@chat: find board interlocks for "Acme Corp"', '', {});
  expect(hybrid).toMatchObject({ strategy: 'playbook', playbookId: 'board-map', inputs: { company: 'Acme Corp', since: '2020-01-01' }, notes: [semantic] });
  expect((await messages.prepare(alice, '@chat find board interlocks', '', { company: 'Given Inc' })).inputs).toEqual({ company: 'Given Inc', since: '2020-01-01' });

  const ask = await messages.prepare(alice, '@chat investigate it please', '', {});
  expect(ask).toMatchObject({ strategy: 'pipeline', inputs: {}, clarify: { type: 'clarify', questions: [{ input: 'org_name', type: 'entity_name' }] } });

  expect(await messages.prepare(alice, '@chat what is new?', '', {})).toMatchObject({ strategy: 'direct', needsModel: true });
  expect(await messages.prepare(alice, 'Investigate Acme Corp', id, {})).toMatchObject({ strategy: 'pipeline', inputs: { org_name: 'Acme Corp' } });

  await expect(messages.prepare(alice, 'hello there', '', {})).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'message', code: 'no_mention' }] });
  await expect(messages.prepare(alice, '@caht hi', '', {})).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('@chat') });

  // A team member runs the shared agent with the owner's playbooks; someone else does not reach it.
  await profiles.share(alice, id, 't-research', {}, false);
  expect(await messages.prepare(bob, '@chat investigate Acme Corp', '', {})).toMatchObject({ profile: { id }, strategy: 'pipeline', inputs: { org_name: 'Acme Corp' } });
  await expect(messages.prepare(carol, '@chat investigate Acme Corp', '', {})).rejects.toMatchObject({ code: 'NOT_FOUND' });
  await expect(messages.prepare(carol, 'investigate Acme Corp', id, {})).rejects.toMatchObject({ code: 'NOT_FOUND' });

  // A forced strategy the profile cannot follow is refused, not guessed.
  const bare = await profiles.create(alice, { name: 'Bare', handle: 'bare', strategy: 'pipeline' }, '');
  await expect(messages.prepare(alice, '@bare go', '', {})).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('no playbook is attached') });
  expect(bare.profile.strategy).toBe('pipeline');
});

it('write_journal_entry writes its entry and its receipt in one transaction: a repeat of the key, or a duplicate at the same time, writes no second entry', async () => {
  const { profile } = await profiles.create(alice, { name: 'Journaled', handle: 'journaled' }, '');
  const repo = new JournalRepository(kit.db);
  await repo.openRun({ run_id: 'run-j1', agent_profile_id: profile.id, owner_user_id: 'alice', invoked_by: 'alice', team_id: null, query: 'q', strategy: 'pipeline', playbook_id: null, run_context: 'interactive' });
  const journal = new Journal(repo, profiles, new ProfileRepository(kit.db));
  const dispatchers = [0, 1, 2].map(() => new ActionDispatcher('planner', journal.actions(), new PgActionRecords(kit.db)));
  const call = (key: string) => ({
    action: 'write_journal_entry',
    inputs: { summary: 'Acme has two filings' },
    params: {},
    principal: alice,
    idempotencyKey: key,
    runId: 'run-j1',
    nodeId: 'note',
    attempt: 1,
    timeoutMs: 0,
  });
  const entries = async () => Number((await kit.db.query(`SELECT count(*) AS n FROM agent_journal WHERE run_id = 'run-j1'`))[0].n);
  const [first, ...others] = await Promise.all(dispatchers.map((d) => d.execute(call('run-j1:note:1'))));
  expect(await entries()).toBe(1);
  for (const o of others) expect(o.outputs).toEqual(first!.outputs);
  expect(await dispatchers[0]!.execute(call('run-j1:note:1'))).toEqual({ outputs: first!.outputs, replayed: true });
  const [row] = await kit.db.query(`SELECT status, outputs, receipt FROM action_executions WHERE idempotency_key = 'run-j1:note:1'`);
  expect(row).toEqual({ status: 'completed', outputs: null, receipt: { journal_entry_id: first!.outputs.journal_entry_id } });
  // Another key is another entry; a bad input writes nothing and records nothing.
  await dispatchers[1]!.execute(call('run-j1:note:2'));
  await expect(dispatchers[1]!.execute({ ...call('run-j1:note:3'), inputs: { summary: ' ' } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('inputs.summary') });
  expect(await entries()).toBe(2);
  expect(await kit.db.query(`SELECT count(*)::int AS n FROM action_executions WHERE idempotency_key = 'run-j1:note:3'`)).toEqual([{ n: 0 }]);
});
