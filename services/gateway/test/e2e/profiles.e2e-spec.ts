/**
 * Agent profiles end to end (real gateway, planner, connector-runtime,
 * PostgreSQL, NATS; one stack for the file): the three templates, duplicate,
 * bindings that need a real profile, attaching a playbook with step-link
 * rule 5, team sharing and @handle resolution, and the bad inputs.
 */
import { profiles } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { connectorYaml, fixture, http, registerAndLogin, routeFixtureApi, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let alice: string;
let bob: string;
let carol: string;
let teamId: string;
const ids: Record<string, string> = {};

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const as = (token: string) => ({
  get: (path: string) => http('GET', url(path), { token }),
  post: (path: string, body: unknown = {}) => http('POST', url(path), { token, body }),
  put: (path: string, body: unknown = {}) => http('PUT', url(path), { token, body }),
  del: (path: string) => http('DELETE', url(path), { token }),
});
const P = '/api/agent-factory/profiles';

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  stack = await startStack({ env: { 'connector-runtime': { CONNECTOR_EGRESS_ALLOW: `127.0.0.1:${api.port}` } } });
  alice = await registerAndLogin(stack, 'profiles-alice@example.com');
  bob = await registerAndLogin(stack, 'profiles-bob@example.com');
  carol = await registerAndLogin(stack, 'profiles-carol@example.com');
  const team = await as(alice).post('/api/v1/teams', { name: 'Research Unit' });
  expect(team.status).toBe(201);
  teamId = team.body.team.id;
  expect((await as(alice).post(`/api/v1/teams/${teamId}/members`, { email: 'profiles-bob@example.com' })).status).toBe(201);
  expect((await as(alice).post('/api/agent-factory/connectors', { yaml: connectorYaml(api.url), credentials: { api_key: 'k-1' } })).status).toBe(201);
  expect((await as(alice).post('/api/agent-factory/playbooks', { yaml: fixture('org-filings.playbook.yaml') })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

describe('templates', () => {
  it('lists the three templates and creates a profile from each', async () => {
    const list = await as(alice).get(`${P}/templates`);
    expect(list.status).toBe(200);
    expect(list.body.templates.map((t: { id: string }) => t.id)).toEqual(['nonprofit-investigator', 'political-finance-tracker', 'corporate-intelligence-analyst']);
    expect(list.body.templates[0]).toMatchObject({ name: 'Nonprofit Investigator', icon: '🔍', data_sources: ['propublica-nonprofit', 'fec-contributions', 'irs-990-xml', 'opensecrets'] });
    for (const t of list.body.templates as Array<{ id: string; name: string; playbooks: string[] }>) {
      const created = await as(alice).post(`${P}/from-template/${t.id}`);
      expect(created.status).toBe(201);
      expect(created.body.profile).toMatchObject({ handle: t.id, name: t.name, strategy: 'auto', access: 'owner', skills: [expect.objectContaining({ skill_type: 'built_in', skill_reference: 'research' })] });
      expect(created.body.playbooks_to_attach).toEqual(t.playbooks);
      ids[t.id] = created.body.profile.id;
    }
    const mine = await as(alice).get(P);
    expect(mine.body.profiles.map((p: { handle: string }) => p.handle)).toEqual(['corporate-intelligence-analyst', 'nonprofit-investigator', 'political-finance-tracker']);
    expect((await as(alice).get(`${P}/${ids['nonprofit-investigator']}`)).body.profile.output_config.destinations[1].config.filename_template).toBe('nonprofit_{date}_{time}.md');
    expect((await as(alice).post(`${P}/from-template/no-such-template`)).status).toBe(404);
  });

  it('duplicates a profile under a free handle, or the one given', async () => {
    const copy = await as(alice).post(`${P}/${ids['nonprofit-investigator']}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body.profile).toMatchObject({ handle: 'nonprofit-investigator-copy', name: 'Nonprofit Investigator (copy)', icon: '🔍' });
    expect(copy.body.profile.id).not.toBe(ids['nonprofit-investigator']);
    const named = await as(alice).post(`${P}/${ids['nonprofit-investigator']}/duplicate`, { handle: 'np-two' });
    expect(named.body.profile.handle).toBe('np-two');
    expect((await as(carol).post(`${P}/${ids['nonprofit-investigator']}/duplicate`)).status).toBe(404);
  });
});

describe('bad inputs', () => {
  it('a duplicate handle is 409; bad handles, an unknown strategy and unknown fields are 400 naming the field', async () => {
    const taken = await as(alice).post(P, { name: 'Again', handle: 'nonprofit-investigator' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.violations).toEqual([expect.objectContaining({ field: 'handle', code: 'handle_taken' })]);
    // Another user may use the same handle.
    expect((await as(carol).post(P, { name: 'Mine', handle: 'nonprofit-investigator' })).status).toBe(201);
    for (const [handle, reason] of [['my agent', 'spaces'], ['@agent', "'@'"], ['Agent', 'lowercase']] as const) {
      const bad = await as(alice).post(P, { name: 'x', handle });
      expect(bad.status).toBe(400);
      expect(bad.body.error.violations).toEqual([expect.objectContaining({ field: 'handle', reason: expect.stringContaining(reason) })]);
    }
    const strategy = await as(alice).post(P, { name: 'x', handle: 'x', strategy: 'telepathy' });
    expect(strategy.status).toBe(400);
    expect(strategy.body.error.violations).toEqual([expect.objectContaining({ field: 'strategy', code: 'unknown_strategy' })]);
    const unknown = await as(alice).post(P, { name: 'x', handle: 'x', sytem_prompt: 'hi' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.violations).toEqual([expect.objectContaining({ field: 'sytem_prompt', code: 'unknown_field' })]);
    const rename = await as(alice).put(`${P}/${ids['corporate-intelligence-analyst']}`, { handle: 'political-finance-tracker' });
    expect(rename.status).toBe(409);
    expect((await as(alice).get(P)).body.profiles.some((p: { handle: string }) => p.handle === 'x')).toBe(false);
  });
});

describe('bindings and playbooks', () => {
  it('binding a connector needs a real profile the caller owns or may use', async () => {
    expect((await as(alice).put('/api/agent-factory/connectors/fixture-api/bindings/not-a-profile', {})).status).toBe(404);
    expect((await as(alice).put('/api/agent-factory/connectors/fixture-api/bindings/00000000-0000-4000-8000-000000000000', {})).status).toBe(404);
    expect((await as(bob).put(`/api/agent-factory/connectors/fixture-api/bindings/${ids['political-finance-tracker']}`, {})).status).toBe(404);
    const bound = await as(alice).put(`/api/agent-factory/connectors/fixture-api/bindings/${ids['political-finance-tracker']}`, {});
    expect(bound.status).toBe(200);
    expect(bound.body.binding).toMatchObject({ agent_profile_id: ids['political-finance-tracker'], connector_id: 'fixture-api', status: 'active' });
  });

  it('attaching a playbook whose connector is not bound is refused naming the step and connector (rule 5)', async () => {
    const refused = await as(alice).post(`${P}/${ids['corporate-intelligence-analyst']}/playbooks`, { playbook_id: 'org-filings' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("step 'find_org' calls connector 'fixture-api', which is not bound to agent '@corporate-intelligence-analyst'");
    expect(refused.body.error.violations).toEqual([
      expect.objectContaining({ field: 'connector', step: 'find_org', code: 'connector_not_bound' }),
      expect.objectContaining({ field: 'connector', step: 'get_filings', code: 'connector_not_bound' }),
    ]);
    expect((await as(alice).get(`${P}/${ids['corporate-intelligence-analyst']}/playbooks`)).body.playbooks).toEqual([]);
  });

  it('attaches a playbook to the profile its connector is bound to; the playbook cannot then be deleted', async () => {
    const attached = await as(alice).post(`${P}/${ids['political-finance-tracker']}/playbooks`, { playbook_id: 'org-filings', priority: 1 });
    expect(attached.status).toBe(201);
    expect(attached.body).toMatchObject({ warnings: [], profile: { playbooks: ['org-filings'] } });
    const listed = await as(alice).get(`${P}/${ids['political-finance-tracker']}/playbooks`);
    expect(listed.body.playbooks).toEqual([expect.objectContaining({ skill_type: 'playbook', skill_reference: 'org-filings', priority: 1 })]);
    const del = await as(alice).del('/api/agent-factory/playbooks/org-filings');
    expect(del.status).toBe(409);
    expect(del.body.error.message).toContain("profile '@political-finance-tracker'");
    expect((await as(alice).post(`${P}/${ids['political-finance-tracker']}/playbooks`, { playbook_id: 'missing' })).status).toBe(404);
    expect((await as(alice).post(`${P}/${ids['political-finance-tracker']}/playbooks`, {})).status).toBe(400);
    expect((await as(bob).post(`${P}/${ids['political-finance-tracker']}/playbooks`, { playbook_id: 'org-filings' })).status).toBe(404);
  });
});

describe('team sharing and @handles', () => {
  it('a team member resolves, reads and runs-by-handle a shared agent; a non-member gets 404', async () => {
    const id = ids['political-finance-tracker']!;
    expect((await as(bob).get('/api/agent-factory/resolve-handle?handle=political-finance-tracker')).status).toBe(404);
    expect((await as(alice).post(`${P}/${id}/share`, { team_id: 'not-my-team' })).status).toBe(404);
    expect((await as(alice).post(`${P}/${id}/share`, { team_id: teamId, access_level: 'root' })).status).toBe(400);
    const shared = await as(alice).post(`${P}/${id}/share`, { team_id: teamId, team_file_access: true });
    expect(shared.status).toBe(201);
    expect(shared.body.share).toMatchObject({ team_id: teamId, access_level: 'use', team_file_access: true, team_post_access: false, journal_visibility: 'own_and_scheduled', is_active: true });
    const changed = await as(alice).put(`${P}/${id}/share/${teamId}`, { journal_visibility: 'full' });
    expect(changed.body.share).toMatchObject({ team_file_access: true, journal_visibility: 'full' });
    expect((await as(alice).get(`${P}/${id}/shares`)).body.shares).toHaveLength(1);

    const resolved = await as(bob).get('/api/agent-factory/resolve-handle?handle=@political-finance-tracker');
    expect(resolved.status).toBe(200);
    expect(resolved.body).toEqual({ agent_profile_id: id, handle: 'political-finance-tracker', name: 'Political Finance Tracker', icon: '🏛️', owner: 'team', team_id: teamId });
    const available = await as(bob).get('/api/agent-factory/available-agents');
    expect(available.body.agents).toEqual([expect.objectContaining({ handle: 'political-finance-tracker', source: 'team', team_id: teamId, team_name: 'Research Unit' })]);
    expect((await as(bob).get(`/api/agent-factory/teams/${teamId}/agents`)).body.agents).toEqual([expect.objectContaining({ agent_profile_id: id })]);
    const seen = await as(bob).get(`${P}/${id}`);
    expect(seen.body.profile).toMatchObject({ access: 'team', team_id: teamId, permissions: ['view', 'run', 'bind'] });
    expect((await as(bob).put(`${P}/${id}`, { description: 'mine now' })).status).toBe(403);
    expect((await as(bob).del(`${P}/${id}`)).status).toBe(403);

    // A member may bind their own connector to the shared agent (the binding serves only their runs).
    expect((await as(bob).post('/api/agent-factory/connectors', { yaml: connectorYaml(api.url), credentials: { api_key: 'k-bob' } })).status).toBe(201);
    expect((await as(bob).put(`/api/agent-factory/connectors/fixture-api/bindings/${id}`, {})).status).toBe(200);

    // Carol is in no team of Alice's: the agent does not exist for her.
    expect((await as(carol).get(`/api/agent-factory/resolve-handle?handle=political-finance-tracker`)).status).toBe(404);
    expect((await as(carol).get(`${P}/${id}`)).status).toBe(404);
    expect((await as(carol).get(`${P}/${id}/shares`)).status).toBe(404);
    expect((await as(carol).put(`/api/agent-factory/connectors/fixture-api/bindings/${id}`, {})).status).toBe(404);
    expect((await as(carol).get(`/api/agent-factory/teams/${teamId}/agents`)).status).toBe(404);
    expect((await as(carol).get('/api/agent-factory/available-agents')).body.agents.map((a: { handle: string }) => a.handle)).toEqual(['nonprofit-investigator']);
  });

  it("PrepareMessage (planner gRPC): a member's @mention picks the shared agent's playbook and asks for a missing input", async () => {
    const planner = createGrpcClient<profiles.AgentProfileServiceClient>('planner', profiles.AGENT_PROFILE_SERVICE_NAME, `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`, {
      auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }),
    });
    const principal = (token: string) => ({ userId: JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sub as string, teamIds: token === bob ? [teamId] : [] });
    const ask = await call(planner.prepareMessage({ principal: principal(bob), message: '@political-finance-tracker filings of Acme', agentProfileId: '', inputs: {} }));
    expect(ask).toMatchObject({ agentProfileId: ids['political-finance-tracker'], query: 'filings of Acme', strategy: 'pipeline', playbookId: 'org-filings', needsModel: false });
    expect(ask.clarify).toMatchObject({ type: 'clarify', questions: [{ input: 'org_name', type: 'string' }] });
    const given = await call(planner.prepareMessage({ principal: principal(bob), message: '@political-finance-tracker filings', agentProfileId: '', inputs: { org_name: 'Acme' } }));
    expect(given.inputs).toEqual({ org_name: 'Acme' });
    // No clarify request: the field is absent (null through the gRPC loader).
    expect(given.clarify ?? null).toBeNull();
    const refused = await call(planner.prepareMessage({ principal: principal(carol), message: '@political-finance-tracker filings', agentProfileId: '', inputs: {} })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('NOT_FOUND');
  });

  it('own agents come first; an unknown handle is 404 listing the close ones', async () => {
    expect((await as(alice).get('/api/agent-factory/resolve-handle?handle=nonprofit-investigator')).body).toMatchObject({ agent_profile_id: ids['nonprofit-investigator'], owner: 'user', team_id: null });
    const unknown = await as(alice).get('/api/agent-factory/resolve-handle?handle=nonprofit-investigatr');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe("no agent '@nonprofit-investigatr' for you; did you mean @nonprofit-investigator, @nonprofit-investigator-copy?");
    expect((await as(alice).get('/api/agent-factory/resolve-handle')).status).toBe(400);
    expect((await as(alice).get('/api/agent-factory/resolve-handle?handle=two%20words')).status).toBe(400);
  });

  it('an edit share lets members change the agent; unsharing hides it again', async () => {
    const id = ids['political-finance-tracker']!;
    expect((await as(alice).put(`${P}/${id}/share/${teamId}`, { access_level: 'edit' })).status).toBe(200);
    const edited = await as(bob).put(`${P}/${id}`, { description: 'edited by a team member' });
    expect(edited.status).toBe(200);
    expect(edited.body.profile.description).toBe('edited by a team member');
    expect((await as(alice).del(`${P}/${id}/share/${teamId}`)).status).toBe(204);
    expect((await as(bob).get(`${P}/${id}`)).status).toBe(404);
    expect((await as(alice).del(`${P}/${id}/share/${teamId}`)).status).toBe(404);
  });

  it('deleting a profile removes it for good, with the owner\'s connector bindings to it', async () => {
    const id = ids['corporate-intelligence-analyst']!;
    expect((await as(alice).put(`/api/agent-factory/connectors/fixture-api/bindings/${id}`, {})).status).toBe(200);
    expect((await as(alice).get(`/api/agent-factory/connectors/bindings?agent_profile_id=${id}`)).body.bindings).toHaveLength(1);
    expect((await as(carol).del(`${P}/${id}`)).status).toBe(404);
    expect((await as(alice).del(`${P}/${id}`)).status).toBe(204);
    expect((await as(alice).get(`${P}/${id}`)).status).toBe(404);
    expect((await as(alice).get(`/api/agent-factory/connectors/bindings?agent_profile_id=${id}`)).body.bindings).toEqual([]);
    expect((await as(alice).put(`/api/agent-factory/connectors/fixture-api/bindings/${id}`, {})).status).toBe(404);
  });

  it('the API document lists the profile routes', async () => {
    const doc = (await http('GET', url('/api/docs'))).body;
    for (const path of [P, `${P}/{id}`, `${P}/templates`, `${P}/{id}/duplicate`, `${P}/{id}/playbooks`, `${P}/{id}/share`, `${P}/{id}/shares`, '/api/agent-factory/resolve-handle', '/api/agent-factory/available-agents']) {
      expect(doc.paths[path]).toBeDefined();
    }
  });
});
