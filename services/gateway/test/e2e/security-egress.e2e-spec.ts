/**
 * Egress security across the real processes, two users on one stack:
 *
 * - An operator's connector exception scoped to Alice's connector
 *   (`CONNECTOR_EGRESS_ALLOW=<alice-id>/fixture-api=127.0.0.1:<port>`) opens
 *   the host for her connector only; Bob's connector with the same id is
 *   refused and sends nothing.
 * - Capability registrations (`POST /api/v1/flex/capabilities/register`)
 *   whose endpoint is a unix socket, the cloud metadata address or the
 *   platform's own database port are refused with 400 naming `endpoint`.
 * - A registered hostname endpoint that resolves to a forbidden address
 *   (`localhost`) is never dialled: the capability node fails with the
 *   policy error (FAILED_PRECONDITION naming the endpoint and
 *   CAPABILITY_EGRESS_ALLOW) and no TCP connection reaches the port.
 *
 * The stack starts with empty allow-lists (public destinations only); the
 * connector-runtime is restarted once the users exist, with Alice's id in its
 * allow-list (user ids are made at registration).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { postRunStream, REPO_ROOT } from '@af/testing';
import { connectorYaml, http, registerAndLogin, routeFixtureApi, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let alice: string;
let bob: string;
let aliceId: string;

const CATALOG = join(REPO_ROOT, 'catalogs/flex-marketing');
const url = (path: string) => `${stack.gatewayUrl}${path}`;
const subOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sub as string;

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  stack = await startStack({
    env: {
      'connector-runtime': { CONNECTOR_EGRESS_ALLOW: '' },
      planner: { CAPABILITY_EGRESS_ALLOW: '' },
      orchestrator: { CAPABILITY_EGRESS_ALLOW: '' },
    },
  });
  alice = await registerAndLogin(stack, 'egress-alice@example.com');
  bob = await registerAndLogin(stack, 'egress-bob@example.com');
  aliceId = subOf(alice);
  // The operator's exception for Alice's connector `fixture-api` (the id in its YAML), and nobody else's.
  const runtime = stack.services['connector-runtime'];
  await runtime.stop();
  runtime.env.CONNECTOR_EGRESS_ALLOW = `${aliceId}/fixture-api=127.0.0.1:${api.port}`;
  await runtime.start();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

/** POST /connectors/test until the gateway reaches the restarted connector-runtime. */
async function testConnector(token: string): Promise<{ status: number; body: any }> {
  const body = { yaml: connectorYaml(api.url), credentials: { api_key: 'egress-test-key-0001' }, endpoint: 'search_orgs', inputs: { q: 'acme' } };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await http('POST', url('/api/agent-factory/connectors/test'), { token, body });
    if (res.status !== 503 || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('CONNECTOR_EGRESS_ALLOW: an exception scoped to an owner and connector', () => {
  it("opens the host to Alice's connector", async () => {
    const before = api.count('GET', '/orgs');
    const res = await testConnector(alice);
    expect(res.status).toBe(200);
    expect(res.body.result.results).toEqual([expect.objectContaining({ name: 'acme Foundation' })]);
    expect(api.count('GET', '/orgs')).toBe(before + 1);
  });

  it("does not open it to Bob's connector of the same id: refused, nothing sent", async () => {
    const before = api.count('GET', '/orgs');
    const res = await testConnector(bob);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain(`egress to 127.0.0.1:${api.port} refused: 127.0.0.1 is a loopback address`);
    expect(res.body.error.message).toContain('CONNECTOR_EGRESS_ALLOW');
    expect(api.count('GET', '/orgs')).toBe(before);
  });

  it("holds for Bob's saved connector too", async () => {
    const created = await http('POST', url('/api/agent-factory/connectors'), { token: bob, body: { yaml: connectorYaml(api.url), credentials: { api_key: 'egress-test-key-0001' } } });
    expect(created.status).toBe(201);
    const before = api.count('GET', '/orgs');
    const res = await http('POST', url('/api/agent-factory/connectors/fixture-api/test'), { token: bob, body: { endpoint: 'search_orgs', inputs: { q: 'acme' } } });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain(`egress to 127.0.0.1:${api.port} refused`);
    expect(api.count('GET', '/orgs')).toBe(before);
  });
});

/** A §5.6.2 registration of an AI capability served at `endpoint`. */
const registration = (capabilityId: string, endpoint: string) => ({
  capabilityId,
  agentType: 'ai',
  version: '1',
  displayName: `Agent ${capabilityId}`,
  summary: 'Writes a LinkedIn post from the company and the case.',
  inputContract: ['company_information', 'post_context'],
  outputContract: ['post_copy'],
  endpoint,
  heartbeat: { intervalSeconds: 600 },
  metadata: { catalogTags: ['security-egress'] },
});

describe('CAPABILITY_EGRESS_ALLOW: capability endpoints', () => {
  beforeAll(async () => {
    const facets = readdirSync(join(CATALOG, 'facets')).map((f) => JSON.parse(readFileSync(join(CATALOG, 'facets', f), 'utf8')));
    // Facets belong to their owner: each user plans with their own copy.
    for (const token of [alice, bob]) {
      const res = await http('POST', url('/api/v1/flex/facets'), { token, body: { facets, collection: 'flex.marketing' } });
      expect(res.status).toBe(200);
    }
  });

  const dbPort = () => new URL(stack.db.url).port || '5432';

  it.each([
    ['a unix socket', () => 'unix:/var/run/postgresql/.s.PGSQL.5432', '"unix:" targets are not allowed: an agent endpoint must be a TCP host:port'],
    ['the cloud metadata address', () => '169.254.169.254:80', 'egress to 169.254.169.254:80 refused: 169.254.169.254 is a cloud metadata address; an operator can allow it with CAPABILITY_EGRESS_ALLOW'],
    ["the platform's database port", () => `127.0.0.1:${dbPort()}`, `egress to 127.0.0.1:${'PORT'} refused: 127.0.0.1 is a loopback address; an operator can allow it with CAPABILITY_EGRESS_ALLOW`],
  ])('refuses to register %s: 400 naming endpoint', async (_what, endpoint, reason) => {
    const res = await http('POST', url('/api/v1/flex/capabilities/register'), { token: bob, body: registration('egress.Sneaky', endpoint()) });
    expect(res.status).toBe(400);
    expect(res.body.error.violations).toEqual([expect.objectContaining({ field: 'endpoint', reason: reason.replace('PORT', dbPort()) })]);
    const listed = await http('GET', url('/api/v1/flex/capabilities'), { token: bob });
    expect(JSON.stringify(listed.body)).not.toContain('egress.Sneaky');
  });

  describe('a hostname that resolves to loopback', () => {
    let listener: Server;
    let port: number;
    let connections = 0;

    beforeAll(async () => {
      listener = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      port = (listener.address() as { port: number }).port;
    });
    afterAll(async () => {
      await new Promise((r) => listener?.close(r));
    });

    it('is accepted at registration (names are checked when dialled) but never dialled: the node fails with the policy error', async () => {
      const endpoint = `localhost:${port}`;
      const reg = await http('POST', url('/api/v1/flex/capabilities/register'), { token: alice, body: registration('egress.LocalWriter', endpoint) });
      expect(reg.status).toBe(201);

      const envelope = JSON.parse(readFileSync(join(CATALOG, 'envelopes/new-case-post.json'), 'utf8'));
      envelope.policies = { planner: { selection: { prefer: ['egress.LocalWriter'] } } };
      envelope.outputContract = { schema: { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string' } } } };
      const frames = await postRunStream(url('/api/v1/flex/run.stream'), alice, envelope, { until: (f) => f.type === 'node_error' });
      const generated = frames.find((f) => f.type === 'plan_generated');
      expect(generated?.payload.nodes).toContainEqual(expect.objectContaining({ kind: 'capability', capabilityId: 'egress.LocalWriter' }));
      const errors = frames.filter((f) => f.type === 'node_error').map((f) => JSON.stringify(f.payload));
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.join('\n')).toContain(`capability endpoint ${endpoint}: egress to ${endpoint} refused: localhost resolves to`);
      expect(errors.join('\n')).toContain('a loopback address; an operator can allow it with CAPABILITY_EGRESS_ALLOW');
      const error = frames.find((f) => f.type === 'node_error')!;
      // Not retried: the first attempt's error is the policy's (a retry could only be refused again).
      expect(error.payload).toMatchObject({ attempt: 1, phase: 'execution', code: 'FAILED_PRECONDITION' });
      expect(connections).toBe(0);
    });
  });
});

