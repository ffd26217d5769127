/**
 * Service-to-service authentication across real processes (one stack):
 * every gRPC service refuses calls without a principal token and acts as the
 * token's principal, never the message's; API keys authenticate HTTP calls
 * as their user (team-scoped keys: that team only) until revoked, and are
 * exchanged for principal tokens that call the services directly — as the
 * runnable examples/grpc-with-api-key.mjs does.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { approval, connector, orchestrator, planner } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth, staticPrincipalToken, type PrincipalSigner } from '@af/service-kit';
import { http, REPO_ROOT, startStack, type Stack } from '@af/testing';

interface User {
  id: string;
  token: string;
  principal: { userId: string; teamIds: string[] };
}

let stack: Stack;
let alice: User;
let bob: User;
let bobRunId: string;
let aliceRunId: string;
let internal: ServiceAuth;

const PLAYBOOK = `id: sa-rows
name: Rows
version: "1.0"
execution_mode: deterministic
inputs:
  - name: rows
    type: list
    required: true
steps:
  - name: ranked
    step_type: tool
    action: transform_data
    inputs:
      data: "{rows}"
    operations:
      - type: limit
        value: 2
    output_key: ranked
`;

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const grpcAddress = (service: 'orchestrator' | 'planner' | 'connector-runtime' | 'approval') => `127.0.0.1:${stack.services[service].env.GRPC_PORT}`;

function clients(auth: PrincipalSigner | null) {
  const options = { auth, readyWaitMs: 5_000 };
  return {
    runs: createGrpcClient<orchestrator.OrchestratorServiceClient>('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, grpcAddress('orchestrator'), options),
    playbooks: createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, grpcAddress('planner'), options),
    connectors: createGrpcClient<connector.ConnectorServiceClient>('connector', connector.CONNECTOR_SERVICE_NAME, grpcAddress('connector-runtime'), options),
    approvals: createGrpcClient<approval.ApprovalServiceClient>('approval', approval.APPROVAL_SERVICE_NAME, grpcAddress('approval'), options),
  };
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

async function register(email: string): Promise<User> {
  const password = 'correct horse battery staple';
  const reg = await http('POST', url('/api/auth/register'), { body: { email, password } });
  expect(reg.status).toBe(201);
  const login = await http('POST', url('/api/auth/login'), { body: { email, password } });
  expect(login.status).toBe(200);
  return { id: reg.body.user.id, token: login.body.access_token, principal: { userId: reg.body.user.id, teamIds: [] } };
}

async function startRun(user: User): Promise<string> {
  const res = await http('POST', url('/api/v1/runs'), { token: user.token, body: { playbook: PLAYBOOK, inputs: { rows: [1, 2, 3] } } });
  expect(res.status).toBe(201);
  return res.body.run.id;
}

beforeAll(async () => {
  stack = await startStack();
  internal = new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' });
  alice = await register('alice.sa@example.com');
  bob = await register('bob.sa@example.com');
  aliceRunId = await startRun(alice);
  bobRunId = await startRun(bob);
  expect((await http('POST', url('/api/agent-factory/playbooks'), { token: bob.token, body: { yaml: PLAYBOOK } })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('direct gRPC calls', () => {
  it('without a principal token: UNAUTHENTICATED from every service, whatever principal the message names', async () => {
    const anonymous = clients(null);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['orchestrator GetRun', () => call(anonymous.runs.getRun({ principal: bob.principal, runId: bobRunId }))],
      ['orchestrator ListRuns', () => call(anonymous.runs.listRuns({ principal: bob.principal, statuses: [], taskStatuses: [], pageSize: 10, pageToken: '' }))],
      ['planner ListPlaybooks', () => call(anonymous.playbooks.listPlaybooks({ principal: bob.principal }))],
      ['connector-runtime ListConnectors', () => call(anonymous.connectors.listConnectors({ principal: bob.principal }))],
      ['approval ListRequests', () => call(anonymous.approvals.listRequests({ principal: bob.principal, kinds: [], statuses: [], capabilityId: '', runId: '' } as unknown as approval.ListRequestsRequest))],
    ];
    for (const [name, send] of calls) {
      const err = await failure(send());
      expect([name, err.code]).toEqual([name, 'UNAUTHENTICATED']);
      expect(err.message).toContain('missing af-principal-token metadata');
    }
  });

  it('with a token signed by anyone but a secret holder: UNAUTHENTICATED, the token never echoed', async () => {
    const forger = new ServiceAuth({ secret: 'not-the-service-secret-0123456789abcdef', service: 'gateway' });
    const forged = forger.tokenFor(bob.principal);
    const err = await failure(call(clients(staticPrincipalToken(forged)).runs.getRun({ principal: bob.principal, runId: bobRunId })));
    expect([err.code, err.message]).toEqual(['UNAUTHENTICATED', 'invalid principal token: the token signature is invalid']);
    expect(err.message).not.toContain(forged);
    expect(stack.logs()).not.toContain(forged);
  });

  it("acts as the token's principal: a token for alice naming bob in the message sees alice's data only", async () => {
    const asAlice = clients(staticPrincipalToken(internal.tokenFor(alice.principal)));
    expect((await failure(call(asAlice.runs.getRun({ principal: bob.principal, runId: bobRunId })))).code).toBe('NOT_FOUND');
    const { runs } = await call(asAlice.runs.listRuns({ principal: bob.principal, statuses: [], taskStatuses: [], pageSize: 50, pageToken: '' }));
    expect(runs.map((r) => r.id)).toEqual([aliceRunId]);
    expect(runs.every((r) => r.userId === alice.id)).toBe(true);
    expect((await call(asAlice.runs.getRun({ principal: bob.principal, runId: aliceRunId }))).run!.userId).toBe(alice.id);
    expect((await call(asAlice.playbooks.listPlaybooks({ principal: bob.principal }))).playbooks).toEqual([]);
    // The signing client (what services use) mints from the message: bob's own token sees bob's run.
    expect((await call(clients(internal).runs.getRun({ principal: bob.principal, runId: bobRunId }))).run!.userId).toBe(bob.id);
  });
});

describe('API keys', () => {
  let key: string;
  let keyId: string;

  it('creates a key shown once; lists it by prefix; stores only its hash', async () => {
    const created = await http('POST', url('/api/v1/api-keys'), { token: alice.token, body: { name: 'reporting service', expires_in_days: 30 } });
    expect(created.status).toBe(201);
    key = created.body.key;
    keyId = created.body.api_key.id;
    expect(key).toMatch(/^afk_[A-Za-z0-9_-]{43}$/);
    expect(created.body.api_key).toMatchObject({ name: 'reporting service', prefix: key.slice(0, 12), team_id: null, revoked_at: null });
    expect(Date.parse(created.body.api_key.expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);
    const listed = await http('GET', url('/api/v1/api-keys'), { token: alice.token });
    expect(listed.status).toBe(200);
    expect(listed.body.api_keys).toEqual([expect.objectContaining({ id: keyId, prefix: key.slice(0, 12) })]);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect((await http('GET', url('/api/v1/api-keys'), { token: bob.token })).body.api_keys).toEqual([]);
    const stored = await stack.db.query<Record<string, unknown>>('SELECT * FROM gateway.api_keys');
    expect(JSON.stringify(stored)).not.toContain(key.slice(12));
    expect(stack.logs()).not.toContain(key.slice(12));
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const bad = await http('POST', url('/api/v1/api-keys'), { token: alice.token, body: { name: '', team_id: 'team-1', expires_in_days: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.violations.map((v: { field: string }) => v.field)).toEqual(['name', 'team_id', 'expires_in_days']);
    const foreign = await http('POST', url('/api/v1/api-keys'), { token: alice.token, body: { name: 'x', team_id: '00000000-0000-4000-8000-000000000000' } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.violations).toEqual([{ field: 'team_id', reason: 'is not a team you are a member of' }]);
    expect((await http('DELETE', url('/api/v1/api-keys/not-a-uuid'), { token: alice.token })).body.error.violations[0].field).toBe('id');
  });

  it('authenticates HTTP calls as its user (X-API-Key or Bearer), and cannot manage keys itself', async () => {
    for (const headers of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }] as Array<Record<string, string>>) {
      const runs = await http('GET', url('/api/v1/runs'), { headers });
      expect(runs.status).toBe(200);
      expect(runs.body.runs.map((r: { id: string }) => r.id)).toEqual([aliceRunId]);
      expect((await http('GET', url(`/api/v1/runs/${bobRunId}`), { headers })).status).toBe(404);
    }
    const escalate = await http('POST', url('/api/v1/api-keys'), { headers: { 'x-api-key': key }, body: { name: 'another' } });
    expect([escalate.status, escalate.body.error.message]).toEqual([403, 'creating an API key needs a login token, not an API key']);
    for (const bad of ['afk_not-a-real-key', '', `${key.slice(0, -2)}xx`]) {
      const res = await http('GET', url('/api/v1/runs'), { headers: { 'x-api-key': bad } });
      expect([res.status, res.body.error.message]).toEqual([401, 'invalid API key']);
    }
  });

  it('exchanges a key for a principal token that calls the services directly as its user', async () => {
    const exchanged = await http('POST', url('/api/v1/auth/service-token'), { headers: { 'x-api-key': key } });
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({ token_type: 'principal', metadata_key: 'af-principal-token', expires_in: 300, principal: { user_id: alice.id } });
    const direct = clients(staticPrincipalToken(exchanged.body.token));
    const { runs } = await call(direct.runs.listRuns({ principal: bob.principal, statuses: [], taskStatuses: [], pageSize: 50, pageToken: '' }));
    expect(runs.map((r) => r.id)).toEqual([aliceRunId]);
    expect((await failure(call(direct.runs.getRun({ principal: bob.principal, runId: bobRunId })))).code).toBe('NOT_FOUND');
    // Plumbing between services stays internal: only the orchestrator opens approval requests.
    const opened = await failure(call(direct.approvals.createRequest({ principal: alice.principal, runId: aliceRunId, nodeId: 'ranked' } as unknown as approval.CreateRequestRequest)));
    expect([opened.code, opened.message]).toEqual(['PERMISSION_DENIED', 'ApprovalController.createRequest is internal: only orchestrator may call it']);
    // A login token is not a service credential.
    const withJwt = await http('POST', url('/api/v1/auth/service-token'), { token: alice.token });
    expect(withJwt.status).toBe(403);
  });

  it('the runnable example does the same', () => {
    const res = spawnSync(process.execPath, [join(REPO_ROOT, 'examples/grpc-with-api-key.mjs')], {
      env: { PATH: process.env.PATH ?? '', AF_GATEWAY_URL: stack.gatewayUrl, AF_API_KEY: key, AF_ORCHESTRATOR_ADDR: grpcAddress('orchestrator') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(res.stderr).toBe('');
    expect(res.status).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ user_id: alice.id, expires_in: 300 });
    expect(out.runs.map((r: { id: string }) => r.id)).toEqual([aliceRunId]);
  });

  it('revoking a key ends it on the next HTTP call and exchange; only its owner can revoke it', async () => {
    expect((await http('DELETE', url(`/api/v1/api-keys/${keyId}`), { token: bob.token })).status).toBe(404);
    const revoked = await http('DELETE', url(`/api/v1/api-keys/${keyId}`), { token: alice.token });
    expect(revoked.status).toBe(200);
    expect(revoked.body.api_key.revoked_at).not.toBeNull();
    const after = await http('GET', url('/api/v1/runs'), { headers: { 'x-api-key': key } });
    expect([after.status, after.body.error.message]).toEqual([401, 'the API key has been revoked']);
    expect((await http('POST', url('/api/v1/auth/service-token'), { headers: { 'x-api-key': key } })).status).toBe(401);
    const example = spawnSync(process.execPath, [join(REPO_ROOT, 'examples/grpc-with-api-key.mjs')], {
      env: { PATH: process.env.PATH ?? '', AF_GATEWAY_URL: stack.gatewayUrl, AF_API_KEY: key, AF_ORCHESTRATOR_ADDR: grpcAddress('orchestrator') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(example.status).toBe(1);
    expect(example.stderr).toContain('the gateway refused the key (401): the API key has been revoked');
  });
});

describe('load-catalog with an API key', () => {
  // Not spawnSync: a blocked event loop cannot see the gateway close an idle keep-alive socket, and the next fetch fails on it.
  const loadCatalog = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(REPO_ROOT, 'services/planner/dist/cli/load-catalog.js'), 'catalogs/flex-marketing', '--planner', grpcAddress('planner'), ...args], {
        env: { PATH: process.env.PATH ?? '', INIT_CWD: REPO_ROOT },
        timeout: 90_000,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });

  it('loads the catalog as the key user, and refuses --user with a key', async () => {
    const created = await http('POST', url('/api/v1/api-keys'), { token: alice.token, body: { name: 'catalog loader' } });
    const key = created.body.key as string;
    const conflict = await loadCatalog(['--api-key', key, '--gateway', stack.gatewayUrl, '--user', 'system:operator']);
    expect([conflict.status, conflict.stderr]).toEqual([2, expect.stringContaining('--user cannot be combined with an API key')]);
    const loaded = await loadCatalog(['--api-key', key, '--gateway', stack.gatewayUrl]);
    expect(loaded.stderr).toBe('');
    expect(loaded.stdout).toMatch(/^loaded flex\.marketing into user [0-9a-f-]{36}: 15 facets, 7 capabilities/);
    const revoked = await http('DELETE', url(`/api/v1/api-keys/${created.body.api_key.id}`), { token: alice.token });
    expect(revoked.status).toBe(200);
    const refused = await loadCatalog(['--api-key', key, '--gateway', stack.gatewayUrl]);
    expect([refused.status, refused.stderr]).toEqual([2, 'load-catalog: the gateway refused the API key (401): the API key has been revoked\n']);
  }, 240_000);
});

describe('team-scoped API keys', () => {
  let teamId: string;
  let bobTeamKey: string;

  beforeAll(async () => {
    const team = await http('POST', url('/api/v1/teams'), { token: alice.token, body: { name: 'Data sharing' } });
    expect(team.status).toBe(201);
    teamId = team.body.team.id;
    expect((await http('POST', url(`/api/v1/teams/${teamId}/members`), { token: alice.token, body: { user_id: bob.id } })).status).toBe(201);
  });

  it('carries only its team in the principal', async () => {
    const created = await http('POST', url('/api/v1/api-keys'), { token: bob.token, body: { name: 'team job', team_id: teamId } });
    expect(created.status).toBe(201);
    expect(created.body.api_key.team_id).toBe(teamId);
    bobTeamKey = created.body.key;
    const exchanged = await http('POST', url('/api/v1/auth/service-token'), { headers: { 'x-api-key': bobTeamKey } });
    expect(exchanged.body.principal).toEqual({ user_id: bob.id, team_ids: [teamId] });
    // bob's personal team is not in it, though an unscoped login sees both.
    const teams = await http('GET', url('/api/v1/teams'), { token: bob.token });
    expect(teams.body.teams).toHaveLength(2);
    expect((await http('GET', url('/api/v1/runs'), { headers: { 'x-api-key': bobTeamKey } })).status).toBe(200);
  });

  it('stops working once its user leaves the team', async () => {
    expect((await http('DELETE', url(`/api/v1/teams/${teamId}/members/${bob.id}`), { token: alice.token })).status).toBe(200);
    const res = await http('GET', url('/api/v1/runs'), { headers: { 'x-api-key': bobTeamKey } });
    expect([res.status, res.body.error.message]).toEqual([401, "the API key's user is no longer a member of its team"]);
    expect((await http('POST', url('/api/v1/auth/service-token'), { headers: { 'x-api-key': bobTeamKey } })).status).toBe(401);
  });
});
