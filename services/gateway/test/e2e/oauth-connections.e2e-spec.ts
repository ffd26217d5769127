/**
 * Users' own OAuth connections (authorization code + PKCE) through the real
 * processes: the gateway's consent-URL route, a provider on the fixture
 * server (consent page that redirects back, token endpoint that checks the
 * code, verifier, redirect URI and client, and rotates refresh tokens, and a
 * Gmail-shaped API that accepts only live access tokens), the callback, and
 * endpoint calls that use the calling user's own token — over HTTP and over
 * the gRPC ExecuteEndpoint the orchestrator uses, and a playbook run that
 * reads the owner's mail and sends a reply only after the owner approves.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connector } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { http, registerAndLogin, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';

let provider: FixtureServer;
let stack: Stack;
let alice: string;
let bob: string;
let aliceId: string;
let grpc: connector.ConnectorServiceClient;

const CLIENT = { client_id: 'mail-app', client_secret: 'mail-app-secret-0123456789' };
/** What the provider knows: codes it issued (with PKCE challenge and redirect), live access and refresh tokens per user. */
const codes = new Map<string, { challenge: string; redirectUri: string; user: string }>();
const access = new Map<string, string>();
const refresh = new Map<string, string>();
let expiresIn = 3600;
/** Sends the provider accepted, as `<user>:<body>`. */
const sentBy: string[] = [];
/** Who the consent page says is signing in (the provider's own login, outside our system). */
let consentingUser = 'alice@mail.test';

const url = (path: string) => `${stack.gatewayUrl}${path}`;

function connectorYaml(id: string, base: string): string {
  return `
id: ${id}
name: Mail
type: rest_api
version: "1.0"
connection:
  base_url: ${base}
  auth:
    type: oauth2
    grant_type: authorization_code
    authorize_url: ${base}/o/authorize?access_type=offline
    token_url: ${base}/o/token
    scopes: [mail.read]
endpoints:
  list_messages:
    method: GET
    path: /gmail/v1/users/me/messages
    response_mapping:
      results_path: messages
  send_message:
    method: POST
    path: /gmail/v1/users/me/messages/send
    parameters:
      - { name: to, type: string, required: true }
      - { name: subject, type: string, required: true }
`;
}

/** Read the user's mail, ask the user, then send a reply: the mail agent's flow as a playbook. */
const MAIL_PLAYBOOK = `
id: reply-to-latest
name: Reply to the latest message
steps:
  - name: inbox
    step_type: tool
    action: call_connector
    connector: mail
    endpoint: list_messages
    output_key: inbox
  - name: confirm_send
    step_type: approval
    prompt: "Send a reply to {inbox.results[0].to}?"
    preview_from: inbox
    on_reject: stop
  - name: send
    step_type: tool
    action: call_connector
    connector: mail
    endpoint: send_message
    inputs:
      to: "{inbox.results[0].to}"
      subject: "Re: {inbox.results[0].subject}"
    output_key: sent
`;

beforeAll(async () => {
  provider = await startFixtureServer();
  provider.route('GET', '/o/authorize', (req) => {
    const q = req.query as Record<string, string>;
    if (q.client_id !== CLIENT.client_id || q.response_type !== 'code' || q.code_challenge_method !== 'S256' || q.access_type !== 'offline') {
      return { status: 400, json: { error: 'invalid_request' } };
    }
    const code = randomBytes(8).toString('hex');
    codes.set(code, { challenge: q.code_challenge!, redirectUri: q.redirect_uri!, user: consentingUser });
    const back = new URL(q.redirect_uri!);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.state!);
    back.searchParams.set('scope', q.scope ?? '');
    return { status: 302, headers: { location: back.toString() } };
  });
  provider.route('POST', '/o/token', (req) => {
    const form = new URLSearchParams(req.body);
    if (form.get('client_id') !== CLIENT.client_id || form.get('client_secret') !== CLIENT.client_secret) return { status: 401, json: { error: 'invalid_client' } };
    let user: string | undefined;
    if (form.get('grant_type') === 'authorization_code') {
      const issued = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!issued || issued.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== issued.challenge) {
        return { status: 400, json: { error: 'invalid_grant' } };
      }
      user = issued.user;
    } else if (form.get('grant_type') === 'refresh_token') {
      user = refresh.get(form.get('refresh_token') ?? '');
      refresh.delete(form.get('refresh_token') ?? '');
      if (!user) return { status: 400, json: { error: 'invalid_grant' } };
    } else {
      return { status: 400, json: { error: 'unsupported_grant_type' } };
    }
    const at = `at-${randomBytes(6).toString('hex')}`;
    const rt = `rt-${randomBytes(6).toString('hex')}`;
    access.set(at, user);
    refresh.set(rt, user);
    return { json: { access_token: at, refresh_token: rt, token_type: 'Bearer', expires_in: expiresIn } };
  });
  provider.route('POST', '/gmail/v1/users/me/messages/send', (req) => {
    const user = access.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!user) return { status: 401, json: { error: 'invalid_token' } };
    return { json: { messages: [{ id: `sent-${sentBy.push(`${user}:${req.body}`)}`, from: user }] } };
  });
  provider.route('GET', '/gmail/v1/users/me/messages', (req) => {
    const user = access.get(String(req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!user) return { status: 401, json: { error: 'invalid_token' } };
    return { json: { messages: [{ id: 'm1', to: user, subject: `Hello ${user}` }] } };
  });

  stack = await startStack();
  alice = await registerAndLogin(stack, 'oauth-alice@example.com');
  bob = await registerAndLogin(stack, 'oauth-bob@example.com');
  aliceId = JSON.parse(Buffer.from(alice.split('.')[1]!, 'base64url').toString()).sub;
  grpc = createGrpcClient('connector', connector.CONNECTOR_SERVICE_NAME, `127.0.0.1:${stack.services['connector-runtime'].env.GRPC_PORT}`, {
    auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }),
  });
  for (const token of [alice, bob]) {
    const created = await http('POST', url('/api/agent-factory/connectors'), { token, body: { yaml: connectorYaml('mail', provider.url), credentials: CLIENT } });
    expect(created.status).toBe(201);
  }
});

afterAll(async () => {
  await stack?.stop();
  await provider?.close();
});

const listMessages = (token: string) =>
  http('POST', url('/api/agent-factory/connectors/mail/test'), { token, body: { endpoint: 'list_messages', inputs: {} } });

/** Asks for the consent URL and lets the "browser" follow the provider's redirect back to the gateway. */
async function connect(token: string) {
  const begun = await http('GET', url('/api/agent-factory/connectors/mail/oauth/auth-url'), { token });
  expect(begun.status).toBe(200);
  return { begun: begun.body, back: await http('GET', begun.body.auth_url) };
}

describe('OAuth connections', () => {
  it('a user who has not connected is told how to, naming connector_id, and nothing is sent to the API', async () => {
    const res = await listMessages(alice);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('/api/agent-factory/connectors/mail/oauth/auth-url');
    expect(res.body.error).toMatchObject({ code: 'FAILED_PRECONDITION', violations: [{ field: 'connector_id', reason: expect.stringContaining('no OAuth connection') }] });
    expect(provider.count('GET', '/gmail/v1/users/me/messages')).toBe(0);
  });

  it('connects through the consent page and the callback; calls then run with the user\'s own token', async () => {
    const { begun, back } = await connect(alice);
    const consent = new URL(begun.auth_url);
    expect(consent.origin).toBe(provider.url);
    expect(consent.searchParams.get('redirect_uri')).toBe(url('/api/agent-factory/oauth/callback'));
    expect(begun.redirect_uri).toBe(url('/api/agent-factory/oauth/callback'));
    expect(consent.searchParams.get('scope')).toBe('mail.read');
    expect(consent.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(begun.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(back.status).toBe(200);
    expect(back.body.connection).toMatchObject({ connector_id: 'mail', provider: '127.0.0.1', status: 'active', scopes: ['mail.read'] });
    expect(JSON.stringify(back.body)).not.toMatch(/at-|rt-/);

    const res = await listMessages(alice);
    expect(res.status).toBe(200);
    expect(res.body.result.results).toEqual([{ id: 'm1', to: 'alice@mail.test', subject: 'Hello alice@mail.test' }]);

    // The orchestrator's path: ExecuteEndpoint with the run owner's principal.
    const viaGrpc = await call(grpc.executeEndpoint({ principal: { userId: aliceId, teamIds: [] }, connectorId: 'mail', endpoint: 'list_messages', inputs: {}, idempotencyKey: 'run-1:node-1:1', agentProfileId: '', readOnly: false }));
    expect((viaGrpc.result as any).results[0].to).toBe('alice@mail.test');

    // Bob connects his own account; each gets their own mail.
    consentingUser = 'bob@mail.test';
    expect((await connect(bob)).back.status).toBe(200);
    expect((await listMessages(bob)).body.result.results[0].to).toBe('bob@mail.test');
    expect((await listMessages(alice)).body.result.results[0].to).toBe('alice@mail.test');
  });

  it('a playbook run reads with the run owner\'s token and sends only after the owner approves', async () => {
    const waitFor = async (runId: string, statuses: string[]) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const run = (await http('GET', url(`/api/v1/runs/${runId}`), { token: alice })).body.run;
        if (statuses.includes(run?.status)) return run;
        if (Date.now() > deadline) throw new Error(`run ${runId} is ${run?.status}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const start = async () => {
      const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: MAIL_PLAYBOOK, inputs: {} } });
      expect(res.status).toBe(201);
      return res.body.run.id as string;
    };

    const denied = await start();
    expect((await waitFor(denied, ['waiting'])).nodes.find((n: any) => n.node_id === 'inbox').output.results[0].to).toBe('alice@mail.test');
    expect((await http('POST', url(`/api/v1/runs/${denied}/resume`), { token: alice, body: { decision: 'reject', reason: 'not now' } })).status).toBe(200);
    expect((await waitFor(denied, ['failed', 'completed'])).status).toBe('failed');
    expect(sentBy).toEqual([]);

    const approved = await start();
    await waitFor(approved, ['waiting']);
    expect((await http('POST', url(`/api/v1/runs/${approved}/resume`), { token: alice, body: { decision: 'approve' } })).status).toBe(200);
    const done = await waitFor(approved, ['failed', 'completed']);
    expect(done.status).toBe('completed');
    expect(sentBy).toHaveLength(1);
    expect(sentBy[0]).toMatch(/^alice@mail\.test:/);
    expect(JSON.parse(sentBy[0]!.slice('alice@mail.test:'.length))).toEqual({ to: 'alice@mail.test', subject: 'Re: Hello alice@mail.test' });
  });

  it('refreshes an expiring token with the connection\'s refresh token', async () => {
    expiresIn = 30; // inside the 120 s refresh margin: every call refreshes
    consentingUser = 'alice@mail.test';
    expect((await connect(alice)).back.status).toBe(200);
    const before = provider.requestsTo('POST', '/o/token').length;
    expect((await listMessages(alice)).body.result.results[0].to).toBe('alice@mail.test');
    const grants = provider.requestsTo('POST', '/o/token').slice(before).map((r) => new URLSearchParams(r.body).get('grant_type'));
    expect(grants).toEqual(['refresh_token']);

    // The provider revokes the grant: the next call fails AUTH_FAILED and the connection shows expired until reconnected.
    refresh.clear();
    const failed = await call(grpc.executeEndpoint({ principal: { userId: aliceId, teamIds: [] }, connectorId: 'mail', endpoint: 'list_messages', inputs: {}, idempotencyKey: 'run-3:node-1:1', agentProfileId: '', readOnly: false })).catch((e: unknown) => e);
    expect((failed as AppError).message).toMatch(/re-authentication|invalid_grant/);
    const listed = await http('GET', url('/api/agent-factory/connections'), { token: alice });
    expect(listed.body.connections.map((c: any) => c.status)).toEqual(['expired']);
    expiresIn = 3600;
    expect((await connect(alice)).back.body.connection.status).toBe('active');
    expect((await listMessages(alice)).status).toBe(200);
  });

  it('refuses forged, altered, replayed and refused callbacks with 400/409 and stores nothing', async () => {
    const { begun } = await (async () => ({ begun: (await http('GET', url('/api/agent-factory/connectors/mail/oauth/auth-url'), { token: bob })).body }))();
    const consent = await fetch(begun.auth_url, { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    const state = back.searchParams.get('state')!;
    const code = back.searchParams.get('code')!;
    const callback = (q: Record<string, string>) => http('GET', `${url('/api/agent-factory/oauth/callback')}?${new URLSearchParams(q)}`);
    const tokenCalls = provider.requestsTo('POST', '/o/token').length;

    const [body, sig] = state.split('.');
    const forged = Buffer.from(JSON.stringify({ n: 'someone-elses-nonce', e: Date.now() + 60_000 })).toString('base64url');
    for (const bad of [`${forged}.${sig}`, `${body}.${sig!.slice(0, -2)}AA`, 'made-up', '']) {
      const res = await callback({ state: bad, code });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.body)).toContain('state');
    }
    expect(provider.requestsTo('POST', '/o/token').length).toBe(tokenCalls);

    // The genuine state works once; a replay is refused.
    expect((await callback({ state, code })).status).toBe(200);
    const replay = await callback({ state, code });
    expect(replay.status).toBe(400);
    expect(replay.body.error.message).toMatch(/already used/);

    // The user refused at the consent page: nothing stored, and the state is spent.
    const again = (await http('GET', url('/api/agent-factory/connectors/mail/oauth/auth-url'), { token: bob })).body;
    const refusedState = new URL(again.auth_url).searchParams.get('state')!;
    const refused = await callback({ state: refusedState, error: 'access_denied' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('access_denied');
    expect((await callback({ state: refusedState, code: 'x' })).status).toBe(400);

    // A browser gets a page, not JSON.
    const page = await fetch(`${url('/api/agent-factory/oauth/callback')}?state=made-up&code=x`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(400);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('Not connected');
    const missing = await http('GET', url('/api/agent-factory/oauth/callback'));
    expect(missing.status).toBe(400);
    expect(JSON.stringify(missing.body)).toContain('state');
  });

  it('lists only your connections; another user cannot delete them; deleting one disconnects', async () => {
    const mine = await http('GET', url('/api/agent-factory/connections'), { token: alice });
    expect(mine.status).toBe(200);
    expect(mine.body.connections).toHaveLength(1);
    const id = mine.body.connections[0].connection_id;
    expect(mine.body.connections[0].expires_at).toEqual(expect.any(String));

    expect((await http('DELETE', url(`/api/agent-factory/connections/${id}`), { token: bob })).status).toBe(404);
    expect((await http('DELETE', url('/api/agent-factory/connections/not-a-uuid'), { token: alice })).status).toBe(404);
    expect((await listMessages(alice)).status).toBe(200);

    expect((await http('DELETE', url(`/api/agent-factory/connections/${id}`), { token: alice })).status).toBe(204);
    expect((await http('GET', url('/api/agent-factory/connections'), { token: alice })).body.connections).toEqual([]);
    expect((await listMessages(alice)).status).toBe(409);
    expect((await listMessages(bob)).status).toBe(200);
  });

  it('refuses the consent URL for a connector that is not authorization_code, or unknown, or without a token', async () => {
    const plain = `
id: plain
name: Plain
type: rest_api
connection:
  base_url: ${provider.url}
  auth: { type: none }
endpoints:
  ping: { method: GET, path: /ping }
`;
    expect((await http('POST', url('/api/agent-factory/connectors'), { token: alice, body: { yaml: plain } })).status).toBe(201);
    const notCode = await http('GET', url('/api/agent-factory/connectors/plain/oauth/auth-url'), { token: alice });
    expect(notCode.status).toBe(409);
    expect(notCode.body.error.message).toContain('only oauth2 authorization_code connectors');
    expect(JSON.stringify(notCode.body)).toContain('connector_id');
    expect((await http('GET', url('/api/agent-factory/connectors/nope/oauth/auth-url'), { token: alice })).status).toBe(404);
    expect((await http('GET', url('/api/agent-factory/connectors/mail/oauth/auth-url'))).status).toBe(401);

    // A definition missing authorize_url is refused when saved, naming the field.
    const bad = connectorYaml('mail2', provider.url).replace(/\n    authorize_url:.*\n/, '\n');
    const saved = await http('POST', url('/api/agent-factory/connectors'), { token: alice, body: { yaml: bad, credentials: CLIENT } });
    expect(saved.status).toBe(400);
    expect(JSON.stringify(saved.body)).toContain('connection.auth.authorize_url');
  });

  it('deleting the connector removes users\' connections with it', async () => {
    consentingUser = 'bob@mail.test';
    expect((await http('GET', url('/api/agent-factory/connections'), { token: bob })).body.connections).toHaveLength(1);
    expect((await http('DELETE', url('/api/agent-factory/connectors/mail'), { token: bob })).status).toBe(204);
    expect((await http('GET', url('/api/agent-factory/connections'), { token: bob })).body.connections).toEqual([]);
    const err = await call(grpc.executeEndpoint({ principal: { userId: aliceId, teamIds: [] }, connectorId: 'mail', endpoint: 'list_messages', inputs: {}, idempotencyKey: 'run-2:node-1:1', agentProfileId: '', readOnly: false })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('FAILED_PRECONDITION');
  });
});
