/**
 * Security regressions: what held up under a probe of a running stack with
 * two users, kept that way. Another user's run, execution, event stream,
 * debug view, replan, pause, resume, cancel, connector, binding, playbook and
 * approval (Idempotency-Key replays included) is 404 and changes nothing —
 * each case re-reads the owner's resource afterwards; a member of the owner's
 * team is no closer. Forged JWTs (alg none, HS384 / HS512, alg confusion,
 * tampered, wrong iss / aud, expired, oversized) are 401 and act as nobody.
 * YAML alias bombs and XML DTDs / external entities are refused quickly and
 * read nothing. 200 concurrent run starts all complete. At LOG_LEVEL=debug no
 * service log (nor any table) holds a password, a token or a credential.
 * One stack, the real services as processes, a fixture HTTP API.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { readSse, until } from '@af/testing';
import { connectorYaml, http, routeFixtureApi, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';
import { createProfile } from './profile-fixtures.js';

interface User {
  id: string;
  email: string;
  password: string;
  token: string;
}

const tag = randomBytes(4).toString('hex');
const CONNECTOR_SECRET = `sk-held-a-${tag}`;
const OTHER_CONNECTOR_SECRET = `sk-held-b-${tag}`;
const BINDING_SECRET = `bind-held-${tag}`;
const WRONG_PASSWORD = `not-the-password-${tag}`;
/** Passwords of refused registrations and logins, and a credential an upstream echoes: the error paths. */
const REFUSED_PASSWORDS = [`refused-register-${tag}-pw`, `${'long-'.repeat(60)}${tag}`, `unknown-user-${tag}-pw`];
const ECHOED_SECRET = `sk-echoed-${tag}`;

let api: FixtureServer;
/** A loopback service the connectors must not reach: only the fixture API's port is allowed. */
let internal: FixtureServer;
let stack: Stack;
let alice: User;
let bob: User;
let carol: User;
let teamId: string;
/** Alice's agent profile her connector is bound to. */
let researcher: string;
/** Every token minted or forged here: none may show up in a log. */
const tokens: string[] = [];

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const req = (method: string, path: string, as: User | string | null, body?: unknown, headers?: Record<string, string>) =>
  http(method, url(path), {
    ...(as ? { token: typeof as === 'string' ? as : as.token } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(headers ? { headers } : {}),
  });

async function register(name: string): Promise<User> {
  const email = `${name}-${tag}@example.com`;
  const password = `${name} ${tag} violet kettle orbit`;
  const reg = await http('POST', url('/api/auth/register'), { body: { email, password } });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await http('POST', url('/api/auth/login'), { body: { email, password } });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  tokens.push(login.body.access_token);
  return { id: login.body.user.id as string, email, password, token: login.body.access_token as string };
}

function playbook(id: string, opts: { gated?: boolean; name?: string } = {}): string {
  return [
    `id: ${id}`,
    `name: ${opts.name ?? 'Rank rows, then publish'}`,
    'execution_mode: deterministic',
    'inputs:',
    '  - { name: rows, type: list, required: true }',
    'steps:',
    '  - name: ranked',
    '    step_type: tool',
    '    action: transform_data',
    '    inputs: { data: "{rows}" }',
    '    operations: [{ type: limit, value: 10 }]',
    ...(opts.gated ? ['  - name: confirm', '    step_type: approval', '    prompt: "Publish {ranked.count} row(s)?"', '    on_reject: stop'] : []),
    '  - name: publish',
    '    step_type: tool',
    '    action: transform_data',
    '    inputs: { data: "{ranked.data}" }',
    '    operations: [{ type: limit, value: 1 }]',
    '    output_key: published',
    '',
  ].join('\n');
}

const rows = [{ name: 'Acme' }, { name: 'Globex' }];

async function startRun(as: User, yaml: string, key?: string): Promise<string> {
  const res = await req('POST', '/api/v1/runs', as, { playbook: yaml, inputs: { rows } }, key ? { 'idempotency-key': key } : undefined);
  if (res.status !== 201) throw new Error(`start run: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.run.id;
}

const runOf = async (as: User, runId: string) => (await req('GET', `/api/v1/runs/${runId}`, as)).body.run;
const statusIs = (as: User, runId: string, statuses: string[]) =>
  until(`run ${runId} to be ${statuses.join(' or ')}`, async () => {
    const run = await runOf(as, runId);
    return statuses.includes(run?.status) ? run : undefined;
  }, 30_000);
const pendingApproval = (as: User, runId: string) =>
  until(`the approval of run ${runId}`, async () => (await req('GET', `/api/agent-factory/approvals?run_id=${runId}`, as)).body.approvals?.[0]);

const count = async (sql: string, params: unknown[] = []) => (await stack.db.query<{ n: number }>(sql, params))[0]!.n;
const runsOf = (user: User) => count('SELECT count(*)::int AS n FROM orchestrator.runs WHERE user_id = $1', [user.id]);

/** What the owner sees of a run, and how many events it has: must not move under a stranger's attempts. */
async function runSnapshot(owner: User, runId: string) {
  const { updated_at: _ignored, ...run } = await runOf(owner, runId);
  return { run, events: await count('SELECT count(*)::int AS n FROM orchestrator.run_events WHERE run_id = $1', [runId]) };
}

async function approvalSnapshot(owner: User, id: string) {
  const approval = (await req('GET', `/api/agent-factory/approvals/${id}`, owner)).body.approval;
  const audit = await stack.db.query<{ type: string; actor: string }>('SELECT type, actor FROM approval.request_events WHERE request_id = $1 ORDER BY id', [id]);
  return { approval, audit };
}

function expectNotFound(label: string, res: { status: number; body: any }) {
  expect([label, res.status, res.body?.error?.code]).toEqual([label, 404, 'NOT_FOUND']);
}

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  api.route('GET', '/b/orgs', (r) => ({ json: { data: { items: [{ id: `b-${String(r.query.q)}`, org: { name: 'B' } }] } } }));
  internal = await startFixtureServer();
  internal.route('GET', '/orgs', { json: { data: { items: [{ id: 'internal', org: { name: 'internal data' } }] } } });
  stack = await startStack({ env: { 'connector-runtime': { CONNECTOR_EGRESS_ALLOW: `127.0.0.1:${api.port}` } } });
  alice = await register('alice');
  bob = await register('bob');
  carol = await register('carol');
  const team = await req('POST', '/api/v1/teams', alice, { name: 'Alice desk' });
  expect(team.status).toBe(201);
  teamId = team.body.team.id;
  expect((await req('POST', `/api/v1/teams/${teamId}/members`, alice, { user_id: carol.id })).status).toBe(201);
  const wrong = await http('POST', url('/api/auth/login'), { body: { email: alice.email, password: WRONG_PASSWORD } });
  expect(wrong.status).toBe(401);
  expect((await http('POST', url('/api/auth/register'), { body: { email: 'not-an-email', password: REFUSED_PASSWORDS[0] } })).status).toBe(400);
  expect((await http('POST', url('/api/auth/register'), { body: { email: `long-${tag}@example.com`, password: REFUSED_PASSWORDS[1] } })).status).toBe(400);
  expect((await http('POST', url('/api/auth/login'), { body: { email: `nobody-${tag}@example.com`, password: REFUSED_PASSWORDS[2] } })).status).toBe(401);
  const created = await req('POST', '/api/agent-factory/connectors', alice, { yaml: connectorYaml(api.url), credentials: { api_key: CONNECTOR_SECRET } });
  expect(created.status).toBe(201);
  researcher = await createProfile(stack, alice.token, 'researcher');
  const bound = await req('PUT', `/api/agent-factory/connectors/fixture-api/bindings/${researcher}`, alice, { allowed_endpoints: ['search_orgs'], credentials: { api_key: BINDING_SECRET } });
  expect(bound.status).toBe(200);
  expect((await req('POST', '/api/agent-factory/playbooks', alice, { yaml: playbook('alice-gated', { gated: true }) })).status).toBe(201);
});

afterAll(async () => {
  await stack?.stop();
  await api?.close();
  await internal?.close();
});

describe('another user (and a member of the owner team) gets 404 and changes nothing', () => {
  let done: string;
  let waiting: string;

  beforeAll(async () => {
    done = await startRun(alice, playbook('pure'));
    waiting = await startRun(alice, playbook('gated', { gated: true }));
    expect((await statusIs(alice, done, ['completed', 'failed'])).status).toBe('completed');
    await statusIs(alice, waiting, ['waiting']);
  });

  it('runs, executions, SSE streams and the debug view: 404 like a run that does not exist, and the lists leave them out', async () => {
    const before = { done: await runSnapshot(alice, done), waiting: await runSnapshot(alice, waiting) };
    for (const runId of [done, waiting]) {
      for (const as of [bob, carol]) {
        for (const path of [`/api/v1/runs/${runId}`, `/api/agent-factory/executions/${runId}`, `/api/v1/flex/runs/${runId}`]) {
          expectNotFound(`GET ${path}`, await req('GET', path, as));
        }
        const sse = await readSse(url(`/api/v1/runs/${runId}/events`), { authorization: `Bearer ${as.token}` }, { timeoutMs: 5000 });
        expect([`events of ${runId}`, sse.status]).toEqual([`events of ${runId}`, 404]);
        expect(sse.frames).toEqual([]);
        const sseQuery = await readSse(url(`/api/v1/runs/${runId}/events?lastEventId=0`), { authorization: `Bearer ${as.token}` }, { timeoutMs: 5000 });
        expect(sseQuery.status).toBe(404);
        expectNotFound('run.stream resumeRunId', await req('POST', '/api/v1/flex/run.stream', as, { goal: 'follow', constraints: { resumeRunId: runId } }));
      }
    }
    // The same answer as for an id that was never a run (only the id differs): existence does not leak.
    const stranger = await req('GET', `/api/v1/runs/${done}`, bob);
    const ghostId = randomUUID();
    const ghost = await req('GET', `/api/v1/runs/${ghostId}`, bob);
    expect(stranger.body.error.message.replace(done, '<id>')).toBe(ghost.body.error.message.replace(ghostId, '<id>'));

    for (const path of ['/api/v1/runs', '/api/agent-factory/executions', '/api/v1/runs?status=waiting', '/api/v1/runs?status=completed']) {
      const listed = await req('GET', path, bob);
      expect(listed.status).toBe(200);
      expect(listed.body.runs.map((r: any) => r.id)).not.toContain(done);
      expect(listed.body.runs.map((r: any) => r.id)).not.toContain(waiting);
    }
    expect(await runSnapshot(alice, done)).toEqual(before.done);
    expect(await runSnapshot(alice, waiting)).toEqual(before.waiting);
  });

  it('replan, pause, resume, cancel and policy triggers: 404, the run as it was', async () => {
    const before = { done: await runSnapshot(alice, done), waiting: await runSnapshot(alice, waiting) };
    const attempts: Array<[string, unknown]> = [
      ['pause', undefined],
      ['resume', {}],
      ['resume', { decision: 'approve' }],
      ['resume', { decision: 'reject', node_id: 'confirm', instructions: 'stop it' }],
      ['cancel', undefined],
      ['replan', {}],
      ['replan', { playbook: playbook('gated', { gated: false }), rationale: 'skip the gate' }],
      ['replan', { playbook: playbook('gated', { gated: false }), expected_plan_version: 1 }],
      ['policies/any/trigger', undefined],
    ];
    for (const runId of [waiting, done]) {
      for (const as of [bob, carol]) {
        for (const [action, body] of attempts) {
          expectNotFound(`${action} ${JSON.stringify(body)}`, await req('POST', `/api/v1/runs/${runId}/${action}`, as, body, { 'idempotency-key': `held-${action}` }));
        }
      }
    }
    expect(await runSnapshot(alice, done)).toEqual(before.done);
    expect(await runSnapshot(alice, waiting)).toEqual(before.waiting);
    expect(before.waiting.run).toMatchObject({ status: 'waiting', plan_version: 1 });
  });

  it("a paused run stays paused when another user resumes it; the owner's resume works", async () => {
    const runId = await startRun(alice, playbook('pause-me', { gated: true }));
    await statusIs(alice, runId, ['waiting']);
    const paused = await req('POST', `/api/v1/runs/${runId}/pause`, alice);
    expect(paused.status).toBe(200);
    expect(paused.body.run.status).toBe('paused');
    const before = await runSnapshot(alice, runId);
    for (const as of [bob, carol]) {
      expectNotFound('resume', await req('POST', `/api/v1/runs/${runId}/resume`, as, {}));
      expectNotFound('cancel', await req('POST', `/api/v1/runs/${runId}/cancel`, as));
    }
    expect(await runSnapshot(alice, runId)).toEqual(before);
    const resumed = await req('POST', `/api/v1/runs/${runId}/resume`, alice, {});
    expect(resumed.status).toBe(200);
    expect(resumed.body.run.status).not.toBe('paused');
    expect((await req('POST', `/api/v1/runs/${runId}/cancel`, alice)).status).toBe(200);
  });

  it("approvals: every decision route is 404 for another user, before and after the owner's decision, whatever Idempotency-Key it replays", async () => {
    const approval = await pendingApproval(alice, waiting);
    const key = `approve-${tag}`;
    const strangerAttempts = (as: User) => [
      req('GET', `/api/agent-factory/approvals/${approval.id}`, as),
      req('POST', `/api/agent-factory/approvals/${approval.id}/approve`, as, {}, { 'idempotency-key': key }),
      req('POST', `/api/agent-factory/approvals/${approval.id}/reject`, as, { reason: 'no' }, { 'idempotency-key': key }),
      req('POST', '/api/v1/flex/hitl/resolve', as, { requestId: approval.id, decision: 'approve' }, { 'idempotency-key': key }),
      req('POST', '/hitl/respond', as, { request_id: approval.id, decision: 'denied' }, { 'idempotency-key': key }),
      req('POST', '/api/v1/flex/run.resume', as, { runId: waiting, requestId: approval.id, decision: 'approve' }, { 'idempotency-key': key }),
      req('POST', '/api/v1/flex/run.resume', as, { runId: waiting, decision: 'reject' }, { 'idempotency-key': key }),
    ];
    const pendingBefore = await approvalSnapshot(alice, approval.id);
    expect(pendingBefore.approval.status).toBe('pending');
    for (const as of [bob, carol]) {
      for (const res of await Promise.all(strangerAttempts(as))) expectNotFound('before the decision', res);
      for (const path of [`/api/agent-factory/approvals?run_id=${waiting}`, '/api/agent-factory/approvals?status=all']) {
        expect((await req('GET', path, as)).body.approvals.map((a: any) => a.id)).not.toContain(approval.id);
      }
    }
    // The strangers' calls with the key did not resolve it, nor use the key up.
    expect(await approvalSnapshot(alice, approval.id)).toEqual(pendingBefore);

    const decided = await req('POST', `/api/agent-factory/approvals/${approval.id}/approve`, alice, { instructions: 'go' }, { 'idempotency-key': key });
    expect(decided.status).toBe(200);
    expect(decided.body.approval).toMatchObject({ status: 'approved', decided_by: alice.id });
    const replay = await req('POST', `/api/agent-factory/approvals/${approval.id}/approve`, alice, { instructions: 'go' }, { 'idempotency-key': key });
    expect(replay.status).toBe(200);
    expect(replay.body.approval).toEqual(decided.body.approval);
    const after = await approvalSnapshot(alice, approval.id);

    for (const as of [bob, carol]) {
      for (const res of await Promise.all(strangerAttempts(as))) expectNotFound('replaying the owner key', res);
    }
    expect(await approvalSnapshot(alice, approval.id)).toEqual(after);
    expect(after.audit).toEqual([
      { type: 'created', actor: alice.id },
      { type: 'approved', actor: alice.id },
    ]);
    const run = await statusIs(alice, waiting, ['completed', 'failed']);
    expect(run.status).toBe('completed');
    expect(run.nodes.find((n: any) => n.node_id === 'confirm').output).toMatchObject({ approved: true, decided_by: alice.id });
  });

  it("a run start replaying another user's Idempotency-Key starts the caller's own run and leaves the owner's alone", async () => {
    const key = `start-${tag}`;
    const mine = await startRun(alice, playbook('keyed'), key);
    const before = await runSnapshot(alice, mine);
    const theirs = await req('POST', '/api/v1/runs', bob, { playbook: playbook('keyed-b'), inputs: { rows: [{ name: 'Bob' }] } }, { 'idempotency-key': key });
    expect(theirs.status).toBe(201);
    expect(theirs.body.run.id).not.toBe(mine);
    expect(theirs.body.run.inputs).toEqual({ rows: [{ name: 'Bob' }] });
    expect((await runOf(bob, theirs.body.run.id)).inputs).toEqual({ rows: [{ name: 'Bob' }] });
    expectNotFound('owner run', await req('GET', `/api/v1/runs/${mine}`, bob));
    await statusIs(alice, mine, ['completed']);
    await statusIs(bob, theirs.body.run.id, ['completed']);
    const after = await runSnapshot(alice, mine);
    expect(after.run.inputs).toEqual(before.run.inputs);
    expect(after.run.outputs.published.data).toEqual([{ name: 'Acme' }]);
    // The owner's replay still answers the owner's run.
    const again = await req('POST', '/api/v1/runs', alice, { playbook: playbook('keyed'), inputs: { rows } }, { 'idempotency-key': key });
    expect(again.body.run.id).toBe(mine);
  });

  it("connectors and bindings: 404 for every route, nothing repointed, and another user's run cannot call them", async () => {
    const connectorBefore = (await req('GET', '/api/agent-factory/connectors/fixture-api', alice)).body.connector;
    const bindingsBefore = (await req('GET', '/api/agent-factory/connectors/bindings', alice)).body.bindings;
    expect(bindingsBefore).toEqual([expect.objectContaining({ agent_profile_id: researcher, connector_id: 'fixture-api', credential_names: ['api_key'] })]);
    const hijack = connectorYaml(`${api.url}/b`);
    for (const as of [bob, carol]) {
      const attempts: Array<[string, string, unknown?]> = [
        ['GET', '/api/agent-factory/connectors/fixture-api'],
        ['GET', '/api/agent-factory/connectors/fixture-api/schema'],
        ['PUT', '/api/agent-factory/connectors/fixture-api', { yaml: hijack }],
        ['PUT', '/api/agent-factory/connectors/fixture-api', { yaml: hijack, credentials: { api_key: OTHER_CONNECTOR_SECRET } }],
        ['POST', '/api/agent-factory/connectors/fixture-api/validate', {}],
        ['POST', '/api/agent-factory/connectors/fixture-api/test', { endpoint: 'search_orgs', inputs: { q: 'x' } }],
        ['PUT', `/api/agent-factory/connectors/fixture-api/bindings/${researcher}`, { config_overrides: { base_url: `${api.url}/b` } }],
        ['PUT', '/api/agent-factory/connectors/fixture-api/bindings/intruder', {}],
        ['DELETE', `/api/agent-factory/connectors/fixture-api/bindings/${researcher}`],
        ['DELETE', '/api/agent-factory/connectors/fixture-api'],
      ];
      for (const [method, path, body] of attempts) expectNotFound(`${method} ${path}`, await req(method, path, as, body));
      expect((await req('GET', '/api/agent-factory/connectors', as)).body.connectors).toEqual([]);
      expect((await req('GET', '/api/agent-factory/connectors/bindings', as)).body.bindings).toEqual([]);
    }

    // A run of Bob's naming Alice's connector does not reach it (nor her credential).
    const sentBefore = api.requests.length;
    const callYaml = [
      'id: borrow',
      'name: Borrow a connector',
      'steps:',
      '  - name: orgs',
      '    step_type: tool',
      '    action: call_connector',
      '    connector: fixture-api',
      '    endpoint: search_orgs',
      '    inputs: { q: Stolen }',
      '',
    ].join('\n');
    // A playbook naming it is refused before the run starts: the connector is not Bob's.
    const refused = await req('POST', '/api/v1/runs', bob, { yaml: callYaml, inputs: {} });
    expect(refused.status).toBe(400);
    expect(refused.body.error.violations).toEqual([expect.objectContaining({ code: 'unknown_connector', reason: expect.stringContaining('fixture-api') })]);
    // A raw plan is not checked against connectors up front; at run time the call is still Bob's and finds nothing.
    const plan = { nodes: [{ id: 'orgs', kind: 'tool', action: 'call_connector', params: { connector: 'fixture-api', endpoint: 'search_orgs' }, inputs: { q: 'Stolen' }, dependsOn: [] }] };
    const borrowed = await req('POST', '/api/v1/runs', bob, { plan, inputs: {} });
    expect(borrowed.status).toBe(201);
    const borrowedRun = await statusIs(bob, borrowed.body.run.id, ['completed', 'failed']);
    expect(borrowedRun.nodes).toEqual([expect.objectContaining({ node_id: 'orgs', status: 'failed', output: null, error: 'connector fixture-api not found' })]);
    expect(api.requests.slice(sentBefore)).toEqual([]);

    // Bob's own connector of the same id is his: Alice's is untouched and still calls with her credential.
    const own = await req('POST', '/api/agent-factory/connectors', bob, { yaml: hijack, credentials: { api_key: OTHER_CONNECTOR_SECRET } });
    expect(own.status).toBe(201);
    const bobTest = await req('POST', '/api/agent-factory/connectors/fixture-api/test', bob, { endpoint: 'search_orgs', inputs: { q: 'x' } });
    expect(bobTest.body.result.results).toEqual([{ ein: 'b-x', name: 'B' }]);
    expect(api.requests.at(-1)).toMatchObject({ path: '/b/orgs', query: { api_key: OTHER_CONNECTOR_SECRET } });

    expect((await req('GET', '/api/agent-factory/connectors/fixture-api', alice)).body.connector).toEqual(connectorBefore);
    expect((await req('GET', '/api/agent-factory/connectors/bindings', alice)).body.bindings).toEqual(bindingsBefore);
    const aliceTest = await req('POST', '/api/agent-factory/connectors/fixture-api/test', alice, { endpoint: 'search_orgs', inputs: { q: 'Acme' } });
    expect(aliceTest.body.result.results).toEqual([{ ein: 'ein-acme', name: 'Acme Foundation' }]);
    expect(api.requests.at(-1)).toMatchObject({ path: '/orgs', query: { api_key: CONNECTOR_SECRET, q: 'Acme' } });
  });

  it("playbooks: 404 to read or run, left out of lists, and another user's playbook of the same id is their own", async () => {
    const before = (await req('GET', '/api/agent-factory/playbooks/alice-gated', alice)).body.playbook;
    const bobRuns = await runsOf(bob);
    for (const as of [bob, carol]) {
      expectNotFound('GET playbook', await req('GET', '/api/agent-factory/playbooks/alice-gated', as));
      expectNotFound('run by playbook_id', await req('POST', '/api/v1/runs', as, { playbook_id: 'alice-gated', inputs: { rows } }));
      expect((await req('GET', '/api/agent-factory/playbooks', as)).body.playbooks.map((p: any) => p.id)).not.toContain('alice-gated');
    }
    expect(await runsOf(bob)).toBe(bobRuns);

    const shadow = await req('POST', '/api/agent-factory/playbooks', bob, { yaml: playbook('alice-gated', { name: 'Shadow' }) });
    expect(shadow.status).toBe(201);
    expect((await req('GET', '/api/agent-factory/playbooks/alice-gated', alice)).body.playbook).toEqual(before);
    const run = await req('POST', '/api/v1/runs', alice, { playbook_id: 'alice-gated', inputs: { rows } });
    expect(run.status).toBe(201);
    await statusIs(alice, run.body.run.id, ['waiting']);
    expect((await req('POST', `/api/v1/runs/${run.body.run.id}/cancel`, alice)).status).toBe(200);
  });
});

describe('forged JWTs are 401 and act as nobody', () => {
  const secret = () => new TextEncoder().encode(stack.jwtSecret);
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const raw = (header: unknown, payload: unknown, signature = '') => `${b64(header)}.${b64(payload)}.${signature}`;
  const sign = (payload: Record<string, unknown>, alg = 'HS256', key = secret()) => new SignJWT(payload).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);

  it('re-signing a real token as it is still works (the forgeries below differ in one thing each)', async () => {
    const copy = await sign(decodeJwt(alice.token));
    tokens.push(copy);
    expect((await req('GET', '/api/v1/runs', copy)).status).toBe(200);
  });

  it('alg none, HS384 / HS512, alg confusion, tampered, wrong iss / aud, expired, no subject, oversized: 401 on reads and writes', async () => {
    const claims = decodeJwt(alice.token);
    const now = Math.floor(Date.now() / 1000);
    const [bobHeader, , bobSignature] = bob.token.split('.');
    const forged: Array<[string, string]> = [
      ['alg none, no signature', raw({ alg: 'none', typ: 'JWT' }, claims)],
      ['alg None, no signature', raw({ alg: 'None', typ: 'JWT' }, claims)],
      ['alg none, the real signature kept', raw({ alg: 'none', typ: 'JWT' }, claims, alice.token.split('.')[2])],
      ['HS384 with the real secret', await sign(claims, 'HS384')],
      ['HS512 with the real secret', await sign(claims, 'HS512')],
      ['RS256 header, HMAC signature', raw({ alg: 'RS256', typ: 'JWT' }, claims, alice.token.split('.')[2])],
      ['tampered: Bob re-addressed to Alice', `${bobHeader}.${b64({ ...decodeJwt(bob.token), sub: alice.id })}.${bobSignature}`],
      ['tampered: expiry pushed out', `${alice.token.split('.')[0]}.${b64({ ...claims, exp: now + 86_400 * 365 })}.${alice.token.split('.')[2]}`],
      ['tampered: signature flipped', `${alice.token.slice(0, -2)}${alice.token.endsWith('AA') ? 'BB' : 'AA'}`],
      ['another key', await sign(claims, 'HS256', new TextEncoder().encode(`another-secret-${tag}-another-secret`))],
      ['wrong iss', await sign({ ...claims, iss: 'someone-else' })],
      ['wrong aud', await sign({ ...claims, aud: 'someone-else' })],
      ['no iss nor aud', await sign({ sub: claims.sub, iat: now, exp: now + 600 })],
      ['expired', await sign({ ...claims, iat: now - 7200, exp: now - 3600 })],
      ['not yet valid', await sign({ ...claims, nbf: now + 3600 })],
      ['no subject', await sign({ ...claims, sub: undefined })],
      ['oversized (8 KB)', await sign({ ...claims, pad: 'x'.repeat(6_000) }, 'HS256', new TextEncoder().encode(`another-secret-${tag}-another-secret`))],
      ['oversized, a real header with a huge payload', `${alice.token.split('.')[0]}.${b64({ ...claims, pad: 'y'.repeat(6_000) })}.${alice.token.split('.')[2]}`],
      ['three empty parts', '..'],
      ['not base64', `${alice.token.split('.')[0]}.!!!.${alice.token.split('.')[2]}`],
    ];
    const aliceRuns = await runsOf(alice);
    for (const [label, token] of forged) {
      tokens.push(token);
      for (const [method, path, body] of [
        ['GET', '/api/v1/runs', undefined],
        ['POST', '/api/v1/runs', { playbook: playbook('forged'), inputs: { rows } }],
        ['POST', '/api/agent-factory/connectors', { yaml: connectorYaml(api.url), credentials: { api_key: 'forged' } }],
        ['POST', '/api/v1/teams', { name: 'Forged' }],
      ] as const) {
        const res = await req(method, path, token, body);
        expect([label, method, path, res.status, res.body?.error?.code]).toEqual([label, method, path, 401, 'UNAUTHENTICATED']);
      }
    }
    // A token too large for an HTTP header is refused before it is read.
    const huge = await sign({ ...claims, pad: 'z'.repeat(40_000) });
    const res = await req('GET', '/api/v1/runs', huge);
    expect([401, 431]).toContain(res.status);
    expect(await runsOf(alice)).toBe(aliceRuns);
    expect((await req('GET', '/api/v1/teams', alice)).body.teams.map((t: any) => t.name)).not.toContain('Forged');
    expect((await req('GET', '/api/agent-factory/connectors', alice)).body.connectors.map((c: any) => c.id)).toEqual(['fixture-api']);
    expect((await req('GET', '/healthz', null)).status).toBe(200);
  });
});

describe('YAML alias bombs and XML DTDs are refused quickly and read nothing', () => {
  const aliasBomb = (() => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 0; i < 8; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }
    return lines.join('\n');
  })();
  /** The bomb under extra keys of an otherwise good playbook (`x_a: &a [...]`, `x_b: &b [*a, ...]`, ...). */
  const prefixed = aliasBomb.split('\n').map((l) => `x_${l}`).join('\n');
  const bombInPlaybook = playbook('bomb').replace('inputs:\n', `${prefixed}\ninputs:\n`);

  async function timed<T>(p: Promise<T>): Promise<[T, number]> {
    const t0 = Date.now();
    const r = await p;
    return [r, Date.now() - t0];
  }

  it('playbook YAML: 400 (valid: false) on every route, within seconds, nothing stored or started', async () => {
    const runsBefore = await count('SELECT count(*)::int AS n FROM orchestrator.runs');
    for (const yaml of [aliasBomb, bombInPlaybook]) {
      for (const [path, body] of [
        ['/api/v1/runs', { playbook: yaml, inputs: { rows } }],
        ['/api/agent-factory/playbooks', { yaml }],
      ] as const) {
        const [res, ms] = await timed(req('POST', path, alice, body));
        expect([path, res.status]).toEqual([path, 400]);
        expect(res.body.error.code).toBe('INVALID_ARGUMENT');
        expect(JSON.stringify(res.body.error)).toMatch(/alias/i);
        expect(ms).toBeLessThan(5000);
      }
      const [validated, ms] = await timed(req('POST', '/api/agent-factory/playbooks/validate', alice, { yaml }));
      expect(validated.status).toBe(200);
      expect(validated.body.valid).toBe(false);
      expect(ms).toBeLessThan(5000);
    }
    expect(await count('SELECT count(*)::int AS n FROM orchestrator.runs')).toBe(runsBefore);
    expect((await req('GET', '/api/agent-factory/playbooks', alice)).body.playbooks.map((p: any) => p.id)).not.toContain('bomb');
  });

  it('connector YAML: refused naming the yaml field, within seconds, nothing stored', async () => {
    const connectorBomb = `${connectorYaml(api.url).replace('id: fixture-api', 'id: bomb-api')}\n${prefixed}`;
    for (const yaml of [aliasBomb, connectorBomb]) {
      const [created, ms] = await timed(req('POST', '/api/agent-factory/connectors', bob, { yaml, credentials: { api_key: 'k' } }));
      expect(created.status).toBe(400);
      expect(ms).toBeLessThan(5000);
      const [validated] = await timed(req('POST', '/api/agent-factory/connectors/validate', bob, { yaml }));
      expect(validated.body.valid).toBe(false);
      expect(validated.body.errors).toEqual([expect.objectContaining({ field: 'yaml', reason: expect.stringMatching(/alias/i) })]);
      const [tested] = await timed(req('POST', '/api/agent-factory/connectors/test', bob, { yaml, endpoint: 'search_orgs', inputs: { q: 'x' } }));
      expect(tested.status).toBe(400);
    }
    expect((await req('GET', '/api/agent-factory/connectors/bomb-api', bob)).status).toBe(404);
  });

  it('XML with a DTD (external entity, external DTD, entity expansion) is refused; no file is read and no DTD fetched', async () => {
    const xmlConnector = [
      'id: xml-probe',
      'name: XML probe',
      'type: file_parser',
      'connection: { source: url, accepted_formats: [xml], max_file_size_mb: 1, timeout_seconds: 5 }',
      'endpoints:',
      '  doc:',
      '    parser: xml',
      '    root_element: r',
      '    fields:',
      '      - { xpath: v, field: v }',
      '',
    ].join('\n');
    const documents: Record<string, string> = {
      '/xxe-file.xml': '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r><v>&xxe;</v></r>',
      '/xxe-http.xml': `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "${api.url}/leak">]><r><v>&xxe;</v></r>`,
      '/external-dtd.xml': `<?xml version="1.0"?><!DOCTYPE r SYSTEM "${api.url}/evil.dtd"><r><v>1</v></r>`,
      '/parameter-entity.xml': `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY % p SYSTEM "${api.url}/evil.dtd"> %p;]><r><v>1</v></r>`,
      '/laughs.xml': `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY l "lol">${Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i || ''};`.repeat(10)}">`).join('')}]><r><v>&l9;</v></r>`,
    };
    for (const [path, body] of Object.entries(documents)) api.route('GET', path, { body, headers: { 'content-type': 'application/xml' } });
    api.route('GET', '/ok.xml', { body: '<r><v>fine</v></r>', headers: { 'content-type': 'application/xml' } });
    const ok = await req('POST', '/api/agent-factory/connectors/test', bob, { yaml: xmlConnector, endpoint: 'doc', inputs: { url: `${api.url}/ok.xml` } });
    expect(ok.status).toBe(200);
    expect(ok.body.result.results).toEqual([{ v: 'fine' }]);

    for (const path of Object.keys(documents)) {
      const t0 = Date.now();
      const res = await req('POST', '/api/agent-factory/connectors/test', bob, { yaml: xmlConnector, endpoint: 'doc', inputs: { url: `${api.url}${path}` } });
      expect([path, res.status]).toEqual([path, 400]);
      expect(JSON.stringify(res.body)).toMatch(/DOCTYPE/);
      expect(JSON.stringify(res.body)).not.toMatch(/root:|lollollol/);
      expect(Date.now() - t0).toBeLessThan(5000);
    }
    expect(api.count('GET', '/leak') + api.count('GET', '/evil.dtd')).toBe(0);
  });
});

describe('SSRF through the running service', () => {
  const probe = (baseUrl: string) =>
    req('POST', '/api/agent-factory/connectors/test', bob, {
      yaml: connectorYaml(baseUrl).replace('id: fixture-api', 'id: ssrf-probe'),
      credentials: { api_key: OTHER_CONNECTOR_SECRET },
      endpoint: 'search_orgs',
      inputs: { q: 'x' },
    });

  it('any spelling of a loopback address, a metadata address or localhost is refused (409) and never reached', async () => {
    const port = internal.port;
    const targets = [
      `http://127.0.0.1:${port}`,
      `http://127.1:${port}`,
      `http://0x7f.0.0.1:${port}`,
      `http://0177.0.0.1:${port}`,
      `http://2130706433:${port}`,
      `http://0x7f000001:${port}`,
      `http://[::1]:${port}`,
      `http://[::ffff:127.0.0.1]:${port}`,
      `http://[::ffff:7f00:1]:${port}`,
      `http://localhost:${port}`,
      'http://169.254.169.254/latest',
      'http://2852039166/latest',
      'http://[::ffff:169.254.169.254]/latest',
      'http://10.0.0.1',
    ];
    for (const target of targets) {
      const res = await probe(target);
      expect([target, res.status]).toEqual([target, 409]);
      expect(res.body.error.message).toMatch(/^egress to .* refused: /);
      expect(JSON.stringify(res.body)).not.toContain(OTHER_CONNECTOR_SECRET);
    }
    expect(internal.requests).toEqual([]);
    // The allowed port still answers, through any spelling of its address.
    expect((await probe(`http://127.1:${api.port}`)).status).toBe(200);
  });

  it('a redirect from the allowed API to an internal address in any spelling is refused at the hop', async () => {
    const hops = [`http://127.1:${internal.port}/orgs`, `http://[::ffff:127.0.0.1]:${internal.port}/orgs`, `http://localhost:${internal.port}/orgs`, 'http://0xa9fea9fe/latest/meta-data/'];
    for (const [i, location] of hops.entries()) {
      api.route('GET', `/hop${i}/orgs`, { status: 302, headers: { location } });
      const res = await probe(`${api.url}/hop${i}`);
      expect([location, res.status]).toEqual([location, 409]);
      expect(res.body.error.message).toMatch(/refused/);
    }
    expect(internal.requests).toEqual([]);
  });
});

describe('load', () => {
  it('200 concurrent run starts (two users) all complete', async () => {
    const yaml = playbook('burst');
    const started = await Promise.all(
      Array.from({ length: 200 }, (_, i) => req('POST', '/api/v1/runs', i % 2 ? bob : alice, { playbook: yaml, inputs: { rows: [{ name: `row-${i}` }] } })),
    );
    expect(started.map((r) => r.status)).toEqual(Array(200).fill(201));
    const ids = started.map((r) => r.body.run.id as string);
    expect(new Set(ids).size).toBe(200);
    const counts = await until(
      'all 200 runs to finish',
      async () => {
        const rowsByStatus = await stack.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM orchestrator.runs WHERE id = ANY($1::uuid[]) GROUP BY status', [ids]);
        const byStatus = Object.fromEntries(rowsByStatus.map((r) => [r.status, r.n]));
        return ['queued', 'running', 'waiting'].some((s) => byStatus[s]) ? undefined : byStatus;
      },
      90_000,
      500,
    );
    expect(counts).toEqual({ completed: 200 });
    for (const i of [0, 1, 199]) {
      const run = await runOf(i % 2 ? bob : alice, ids[i]!);
      expect(run.outputs.published.data).toEqual([{ name: `row-${i}` }]);
    }
  }, 150_000);
});

describe('secrets at rest and in logs', () => {
  it('an upstream that echoes the credential back, in an error or a 401, leaves it in no log', async () => {
    const echo = (status: number) => (r: { query: Record<string, unknown> }) => ({ status, json: { error: `bad key ${String(r.query.api_key)}`, data: { items: [] } } });
    api.route('GET', '/echo500/orgs', echo(500));
    api.route('GET', '/echo401/orgs', echo(401));
    for (const base of ['echo500', 'echo401']) {
      const res = await req('POST', '/api/agent-factory/connectors/test', bob, {
        yaml: connectorYaml(`${api.url}/${base}`).replace('id: fixture-api', `id: ${base}-api`),
        credentials: { api_key: ECHOED_SECRET },
        endpoint: 'search_orgs',
        inputs: { q: 'x' },
      });
      expect([base, res.status >= 400]).toEqual([base, true]);
      expect(JSON.stringify(res.body)).not.toContain(ECHOED_SECRET);
      expect(api.requestsTo('GET', `/${base}/orgs`).at(-1)?.query.api_key).toBe(ECHOED_SECRET);
    }
  });

  it('no password, token or credential in any table (in plain text) nor in any service log at LOG_LEVEL=debug', async () => {
    const secrets = [
      ...[alice, bob, carol].map((u) => u.password),
      WRONG_PASSWORD,
      ...REFUSED_PASSWORDS,
      ECHOED_SECRET,
      CONNECTOR_SECRET,
      OTHER_CONNECTOR_SECRET,
      BINDING_SECRET,
    ];
    const long = tokens.filter((t) => t.length > 40);
    const tables = await stack.db.query<{ s: string; t: string }>(
      `SELECT table_schema AS s, table_name AS t FROM information_schema.tables
        WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
    );
    for (const { s, t } of tables) {
      const dump = (await stack.db.query<{ row: string }>(`SELECT x::text AS row FROM "${s}"."${t}" x`)).map((r) => r.row).join('\n');
      for (const secret of [...secrets, ...long]) expect([`${s}.${t}`, dump.includes(secret)]).toEqual([`${s}.${t}`, false]);
    }

    const logs = stack.logs();
    expect(logs).toContain('"level":20');
    for (const service of ['gateway', 'planner', 'orchestrator', 'connector-runtime', 'approval'] as const) {
      expect(stack.services[service].env.LOG_LEVEL).toBe('debug');
    }
    for (const secret of secrets) expect(logs.includes(secret)).toBe(false);
    for (const token of long) {
      // Whole tokens, and their signatures alone.
      expect(logs.includes(token)).toBe(false);
      const signature = token.split('.')[2];
      if (signature && signature.length > 20) expect(logs.includes(signature)).toBe(false);
    }
  });
});
