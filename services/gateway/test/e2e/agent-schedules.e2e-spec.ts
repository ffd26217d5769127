/**
 * Schedules that target an agent profile, end to end (real gateway, planner,
 * orchestrator, connector-runtime, approval, PostgreSQL, NATS; no chat
 * model): the profile is checked when the schedule is saved (the owner's or
 * shared with them, 404 otherwise), a fire asks the agent the rendered
 * `query_template` as a chat message does — the planner picks the attached
 * playbook by its trigger and extracts its input — and the run answers for
 * the agent with run_context `scheduled`; the planner refuses to delete a
 * profile a schedule targets, or a playbook a schedule runs (409 naming the
 * schedule).
 */
import { connectorYaml, fixture, http, registerAndLogin, routeFixtureApi, startFixtureServer, startStack, waitForRun, type FixtureServer, type Stack } from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let alice: string;
let carol: string;
let npId: string;

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const as = (token: string) => ({
  get: (path: string) => http('GET', url(path), { token }),
  post: (path: string, body: unknown = {}) => http('POST', url(path), { token, body }),
  put: (path: string, body: unknown = {}) => http('PUT', url(path), { token, body }),
  del: (path: string) => http('DELETE', url(path), { token }),
});
const P = '/api/agent-factory/profiles';
const S = '/api/agent-factory/schedules';
const definition = (over: Record<string, unknown> = {}) => ({
  name: 'Daily Omidyar check',
  spec: { cron: '0 8 * * *', timezone: 'Europe/Berlin' },
  target: { agent_profile_id: npId },
  query_template: 'investigate the Omidyar Foundation (filings from {last_run_date} to {date})',
  approval_policy: 'auto_approve',
  ...over,
});

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  stack = await startStack({ env: { 'connector-runtime': { CONNECTOR_EGRESS_ALLOW: `127.0.0.1:${api.port}` } } });
  alice = await registerAndLogin(stack, 'agent-sched-alice@example.com');
  carol = await registerAndLogin(stack, 'agent-sched-carol@example.com');
  expect((await as(alice).post('/api/agent-factory/connectors', { yaml: connectorYaml(api.url), credentials: { api_key: 'k-1' } })).status).toBe(201);
  expect((await as(alice).post('/api/agent-factory/playbooks', { yaml: fixture('investigate-org.playbook.yaml') })).status).toBe(201);
  const created = await as(alice).post(`${P}/from-template/nonprofit-investigator`);
  expect(created.status).toBe(201);
  npId = created.body.profile.id;
  expect((await as(alice).put(`/api/agent-factory/connectors/fixture-api/bindings/${npId}`, {})).status).toBe(200);
  expect((await as(alice).post(`${P}/${npId}/playbooks`, { playbook_id: 'investigate-org' })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

it('a fire runs the agent on the rendered query, as a scheduled run of the agent, which completes', async () => {
  const made = await as(alice).post(S, definition());
  expect(made.status).toBe(201);
  expect(made.body.schedule.definition.target).toEqual({ agent_profile_id: npId, inputs: {} });
  const fired = await as(alice).post(`${S}/${made.body.schedule.id}/run-now`, {});
  expect(fired.status).toBe(202);
  // The fire is dispatched on the next tick: its run exists from then on.
  for (const until = Date.now() + 15_000; (await as(alice).get(`/api/v1/runs/${fired.body.run_id}`)).status === 404; await new Promise((r) => setTimeout(r, 100))) {
    if (Date.now() > until) throw new Error(`run ${fired.body.run_id} was not created within 15 s: ${JSON.stringify((await as(alice).get(`${S}/${made.body.schedule.id}/fires`)).body)}`);
  }
  const run = await waitForRun(stack, alice, fired.body.run_id);
  expect(run).toMatchObject({ id: fired.body.run_id, status: 'completed', run_context: 'scheduled', agent_profile_id: npId });
  // The planner picked the attached playbook and extracted its input from the rendered query.
  expect(run.inputs).toMatchObject({ org_name: expect.stringMatching(/Omidyar Foundation/) });
  expect(run.connectors_called.map((c: { endpoint: string }) => c.endpoint)).toEqual(['search_orgs', 'get_filings']);
  const fires = (await as(alice).get(`${S}/${made.body.schedule.id}/fires`)).body.fires;
  expect(fires[0]).toMatchObject({ kind: 'manual', run_id: fired.body.run_id });
  // The run is the agent's: listed among its runs.
  expect((await as(alice).get(`/api/v1/runs?agent_profile_id=${npId}`)).body.runs.map((r: { id: string }) => r.id)).toContain(fired.body.run_id);
  expect((await as(alice).del(`${S}/${made.body.schedule.id}`)).status).toBe(204);
});

it('a profile that does not exist, or is not shared with the caller, is 404; a missing query or an agent monitor is 400', async () => {
  const missing = await as(alice).post(S, definition({ target: { agent_profile_id: '00000000-0000-4000-8000-000000000000' } }));
  expect(missing.status).toBe(404);
  expect(missing.body.error.message).toContain('agent profile');
  expect((await as(carol).post(S, definition())).status).toBe(404);
  const noQuery = await as(alice).post(S, definition({ query_template: '' }));
  expect(noQuery.status).toBe(400);
  expect(noQuery.body.error.message).toContain('query_template');
  const monitor = await as(alice).post(S, { name: 'm', monitor: { interval: '15m' }, target: { agent_profile_id: npId }, query_template: 'x' });
  expect(monitor.status).toBe(400);
  expect(monitor.body.error.message).toContain('target.agent_profile_id');
  const unknownField = await as(alice).post(S, definition({ target: { agent_profile_id: npId, query: 'x' } }));
  expect(unknownField.status).toBe(400);
});

it('deleting a profile a schedule targets is refused with 409 naming the schedule; once the schedule is gone it no longer stands in the way', async () => {
  const made = await as(alice).post(S, definition({ name: 'Weekly digest', spec: { cron: '0 8 * * 1' } }));
  expect(made.status).toBe(201);
  const id = made.body.schedule.id;
  const refused = await as(alice).del(`${P}/${npId}`);
  expect(refused.status).toBe(409);
  expect(refused.body.error.message).toContain(`schedule '${id} (Weekly digest)'`);
  expect((await as(alice).del(`${S}/${id}`)).status).toBe(204);
  const again = await as(alice).del(`${P}/${npId}`);
  // Runs of the agent that are still logged as open may refuse it on their own; no schedule does.
  if (again.status !== 204) expect(again.body.error.message).not.toContain('schedule');
  else expect((await as(alice).get(`${P}/${npId}`)).status).toBe(404);
});

it('deleting a playbook a schedule runs is refused with 409 naming the schedule; another user gets 404', async () => {
  const made = await as(alice).post(S, { name: 'Playbook nightly', spec: { cron: '0 2 * * *' }, target: { playbook_id: 'investigate-org', inputs: { org_name: 'Omidyar Foundation' } } });
  expect(made.status).toBe(201);
  const id = made.body.schedule.id;
  const refused = await as(alice).del('/api/agent-factory/playbooks/investigate-org');
  expect(refused.status).toBe(409);
  expect(refused.body.error.message).toContain(`schedule '${id} (Playbook nightly)'`);
  // Another user's playbook of the same id is theirs alone: carol has none, so hers is 404 and alice's schedule is not named to her.
  const theirs = await as(carol).del('/api/agent-factory/playbooks/investigate-org');
  expect(theirs.status).toBe(404);
  expect(JSON.stringify(theirs.body)).not.toContain(id);
  expect((await as(alice).del(`${S}/${id}`)).status).toBe(204);
  const again = await as(alice).del('/api/agent-factory/playbooks/investigate-org');
  // The agent profile the playbook is attached to may still refuse it on its own; no schedule does.
  if (again.status !== 204) expect(again.body.error.message).not.toContain('schedule');
  else expect((await as(alice).get('/api/agent-factory/playbooks/investigate-org')).status).toBe(404);
});
