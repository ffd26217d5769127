/**
 * Who may register (SIGNUP) and how a browser opens an SSE stream, through
 * the real gateway: a stack with SIGNUP=invite (the first account registers
 * freely, everyone else with a team invitation), a second gateway on the same
 * database with SIGNUP=closed, and stream tokens that a browser's
 * EventSource can put in the URL.
 */
import { freePort, readSse, ServiceProcess } from '@af/testing';
import { http, startStack, type Stack } from './skeleton.js';

const PASSWORD = 'correct horse battery staple';

let stack: Stack;
let closed: ServiceProcess;
let closedUrl: string;
let owner: string;
let teamId: string;

const url = (path: string) => `${stack.gatewayUrl}${path}`;

async function login(email: string): Promise<string> {
  const res = await http('POST', url('/api/auth/login'), { body: { email, password: PASSWORD } });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}

async function invite(email: string, role = 'member') {
  const res = await http('POST', url(`/api/v1/teams/${teamId}/invites`), { token: owner, body: { email, role } });
  if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { invite: { id: string; email: string; role: string; expires_at: string }; invite_token: string };
}

beforeAll(async () => {
  stack = await startStack({ env: { gateway: { SIGNUP: 'invite' } } });
  const port = await freePort();
  closedUrl = `http://127.0.0.1:${port}`;
  closed = new ServiceProcess('gateway', { ...stack.services.gateway.env, SIGNUP: 'closed', HTTP_PORT: String(port), GRPC_PORT: String(await freePort()) }, 'gateway-closed');
  await closed.start();
  // The deployment's first account needs no invitation: someone has to invite the others.
  const first = await http('POST', url('/api/auth/register'), { body: { email: 'owner@example.com', password: PASSWORD } });
  expect(first.status).toBe(201);
  owner = await login('owner@example.com');
  const team = await http('POST', url('/api/v1/teams'), { token: owner, body: { name: 'Research' } });
  teamId = team.body.team.id;
});

afterAll(async () => {
  await closed?.stop();
  await stack?.stop();
});

describe('SIGNUP=invite', () => {
  it('says so to a sign-up page', async () => {
    expect((await http('GET', url('/api/auth/signup'))).body).toEqual({ signup: 'invite' });
    expect((await http('GET', `${closedUrl}/api/auth/signup`)).body).toEqual({ signup: 'closed' });
  });

  it('refuses a registration without an invitation once an account exists, naming invite_token', async () => {
    const res = await http('POST', url('/api/auth/register'), { body: { email: 'walk-in@example.com', password: PASSWORD } });
    expect(res.status).toBe(403);
    expect(res.body.error.violations).toEqual([expect.objectContaining({ field: 'invite_token', code: 'invite_required' })]);
    expect((await http('POST', url('/api/auth/login'), { body: { email: 'walk-in@example.com', password: PASSWORD } })).status).toBe(401);
  });

  it('registers the invited address, which joins the team with the invited role; the invitation works once', async () => {
    const { invite: inv, invite_token } = await invite('Bo@Example.com', 'owner');
    expect(inv).toMatchObject({ email: 'bo@example.com', role: 'owner' });
    expect(invite_token).toMatch(/^afi_/);
    const pending = await http('GET', url(`/api/v1/teams/${teamId}/invites`), { token: owner });
    expect(pending.body.invites.map((i: { id: string }) => i.id)).toContain(inv.id);
    expect(JSON.stringify(pending.body)).not.toContain(invite_token);

    const reg = await http('POST', url('/api/auth/register'), { body: { email: 'bo@example.com', password: PASSWORD, invite_token } });
    expect(reg.status).toBe(201);
    expect(reg.body.joined_team).toEqual({ id: teamId, role: 'owner' });
    const bo = await login('bo@example.com');
    const team = await http('GET', url(`/api/v1/teams/${teamId}`), { token: bo });
    expect(team.status).toBe(200);
    expect(team.body.team.members).toEqual(expect.arrayContaining([expect.objectContaining({ email: 'bo@example.com', role: 'owner' })]));

    const again = await http('POST', url('/api/auth/register'), { body: { email: 'bo2@example.com', password: PASSWORD, invite_token } });
    expect(again.status).toBe(400);
    expect(again.body.error.violations).toEqual([expect.objectContaining({ field: 'invite_token' })]);
    expect((await http('GET', url(`/api/v1/teams/${teamId}/invites`), { token: owner })).body.invites.map((i: { id: string }) => i.id)).not.toContain(inv.id);
  });

  it('refuses an invitation for another address, a revoked one and a made-up one, creating no account', async () => {
    const { invite: inv, invite_token } = await invite('cy@example.com');
    const other = await http('POST', url('/api/auth/register'), { body: { email: 'dee@example.com', password: PASSWORD, invite_token } });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toBe('invite_token: was issued for another email address');
    expect((await http('POST', url('/api/auth/login'), { body: { email: 'dee@example.com', password: PASSWORD } })).status).toBe(401);

    expect((await http('DELETE', url(`/api/v1/teams/${teamId}/invites/${inv.id}`), { token: owner })).status).toBe(200);
    const revoked = await http('POST', url('/api/auth/register'), { body: { email: 'cy@example.com', password: PASSWORD, invite_token } });
    expect(revoked.body.error.message).toBe('invite_token: is not a valid invitation');
    const madeUp = await http('POST', url('/api/auth/register'), { body: { email: 'cy@example.com', password: PASSWORD, invite_token: 'afi_nope' } });
    expect(madeUp.status).toBe(400);
    expect(madeUp.body.error.message).toBe('invite_token: is not a valid invitation');
    expect((await http('DELETE', url(`/api/v1/teams/${teamId}/invites/${inv.id}`), { token: owner })).status).toBe(404);
  });

  it('lets only owners invite, and refuses an address that already has an account or a bad body', async () => {
    const { invite_token } = await invite('eve@example.com');
    await http('POST', url('/api/auth/register'), { body: { email: 'eve@example.com', password: PASSWORD, invite_token } });
    const eve = await login('eve@example.com');
    expect((await http('POST', url(`/api/v1/teams/${teamId}/invites`), { token: eve, body: { email: 'x@example.com' } })).status).toBe(403);
    expect((await http('GET', url(`/api/v1/teams/${teamId}/invites`), { token: eve })).status).toBe(403);

    const taken = await http('POST', url(`/api/v1/teams/${teamId}/invites`), { token: owner, body: { email: 'eve@example.com' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error.violations).toEqual([expect.objectContaining({ field: 'email' })]);
    const bad = await http('POST', url(`/api/v1/teams/${teamId}/invites`), { token: owner, body: { email: 'not-an-email', role: 'king', extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.violations.map((v: { field: string }) => v.field).sort()).toEqual(['email', 'extra', 'role'].sort());

    // Someone else's team is 404, as any resource of another user.
    const stranger = await http('POST', url(`/api/v1/teams/${teamId}/invites`), { token: await ownTeamlessUser(), body: { email: 'y@example.com' } });
    expect(stranger.status).toBe(404);
  });
});

/** A user of this deployment outside the Research team (invited into another team of the owner). */
async function ownTeamlessUser(): Promise<string> {
  const other = await http('POST', url('/api/v1/teams'), { token: owner, body: { name: 'Other' } });
  const res = await http('POST', url(`/api/v1/teams/${other.body.team.id}/invites`), { token: owner, body: { email: 'fay@example.com' } });
  await http('POST', url('/api/auth/register'), { body: { email: 'fay@example.com', password: PASSWORD, invite_token: res.body.invite_token } });
  return login('fay@example.com');
}

describe('SIGNUP=closed', () => {
  it('refuses every registration, invitations included', async () => {
    const { invite_token } = await invite('gil@example.com');
    for (const body of [{ email: 'gil@example.com', password: PASSWORD, invite_token }, { email: 'hal@example.com', password: PASSWORD }]) {
      const res = await http('POST', `${closedUrl}/api/auth/register`, { body });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('SIGNUP=closed');
    }
    // Existing accounts still log in.
    expect((await http('POST', `${closedUrl}/api/auth/login`, { body: { email: 'owner@example.com', password: PASSWORD } })).status).toBe(200);
  });
});

describe('stream tokens (EventSource)', () => {
  let runId: string;

  beforeAll(async () => {
    const yaml = ['id: tiny', 'name: Tiny', 'inputs:', '  - name: rows', '    type: list', '    required: true', 'steps:', '  - name: pick', '    step_type: tool', '    action: transform_data', '    inputs:', '      data: "{rows}"', '    operations:', '      - type: limit', '        value: 1'].join('\n');
    const started = await http('POST', url('/api/v1/runs'), { token: owner, body: { yaml, inputs: { rows: [{ a: 1 }, { a: 2 }] } } });
    expect(started.status).toBe(201);
    runId = started.body.run.id;
  });

  const eventsPath = () => `/api/v1/runs/${runId}/events`;

  it('opens the run stream with ?stream_token= and no Authorization header', async () => {
    const minted = await http('POST', url('/api/auth/stream-token'), { token: owner, body: { path: eventsPath() } });
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ path: eventsPath(), expires_in: 60 });
    expect(minted.body.url).toBe(`${eventsPath()}?stream_token=${encodeURIComponent(minted.body.stream_token)}`);
    const res = await readSse(url(minted.body.url), {}, { until: (f) => f.event === 'complete', timeoutMs: 20_000 });
    expect(res.status).toBe(200);
    expect(res.frames.map((f) => f.event)).toEqual(expect.arrayContaining(['start', 'node_complete', 'complete']));
    // The token was never logged.
    expect(stack.services.gateway.output).not.toContain(minted.body.stream_token);
  });

  it("refuses the token on another run's stream, on a non-stream route and as a bearer token", async () => {
    const { body } = await http('POST', url('/api/auth/stream-token'), { token: owner, body: { path: eventsPath() } });
    const other = `/api/v1/runs/00000000-0000-4000-8000-000000000000/events?stream_token=${body.stream_token}`;
    expect((await http('GET', url(other))).status).toBe(401);
    expect((await http('GET', url(`/api/v1/runs?stream_token=${body.stream_token}`))).status).toBe(401);
    expect((await http('GET', url(`/api/v1/runs/${runId}`), { token: body.stream_token })).status).toBe(401);
  });

  it("refuses another user's run (404) and a revoked account's token (401)", async () => {
    const fay = await login('fay@example.com');
    const { body } = await http('POST', url('/api/auth/stream-token'), { token: fay, body: { path: eventsPath() } });
    expect((await http('GET', url(body.url))).status).toBe(404);
    // logout-all revokes stream tokens too.
    const mine = await http('POST', url('/api/auth/stream-token'), { token: fay, body: { path: eventsPath() } });
    expect((await http('POST', url('/api/auth/logout-all'), { token: fay })).status).toBe(204);
    const revoked = await http('GET', url(mine.body.url));
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.message).toContain('no longer valid');
  });

  it('refuses to mint a token for a path that does not stream, naming path', async () => {
    for (const path of ['/api/v1/runs', `${eventsPath()}?x=1`, '']) {
      const res = await http('POST', url('/api/auth/stream-token'), { token: owner, body: { path } });
      expect(res.status).toBe(400);
      expect(res.body.error.violations[0].field).toBe('path');
    }
    expect((await http('POST', url('/api/auth/stream-token'), { body: { path: eventsPath() } })).status).toBe(401);
  });
});
