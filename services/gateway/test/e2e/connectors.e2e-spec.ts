/**
 * Connector authoring and bindings through the real processes (issue 5 API):
 * validate, test (with an inferred output_schema), update, schema, templates,
 * and calls through an agent profile's binding over gRPC — allowed endpoints,
 * config overrides, binding credentials, and `auth_failed` after a 401 with
 * its event on NATS JetStream.
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { connector } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { TEST_NATS_URL } from '@af/testing';
import { connectorYaml, http, registerAndLogin, routeFixtureApi, SECRET, startFixtureServer, startStack, type FixtureServer, type Stack } from './skeleton.js';
import { createProfile } from './profile-fixtures.js';

let api: FixtureServer;
let stack: Stack;
let alice: string;
let bob: string;
let grpc: connector.ConnectorServiceClient;
let aliceId: string;
/** Alice's agent profiles (bindings need real ones). */
let researcher: string;
let watcher: string;
let auditor: string;

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  stack = await startStack();
  alice = await registerAndLogin(stack, 'carol@example.com');
  bob = await registerAndLogin(stack, 'dave@example.com');
  aliceId = JSON.parse(Buffer.from(alice.split('.')[1]!, 'base64url').toString()).sub;
  researcher = await createProfile(stack, alice, 'researcher');
  watcher = await createProfile(stack, alice, 'watcher');
  auditor = await createProfile(stack, alice, 'auditor');
  grpc = createGrpcClient('connector', connector.CONNECTOR_SERVICE_NAME, `127.0.0.1:${stack.services['connector-runtime'].env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
});

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const principal = () => ({ userId: aliceId, teamIds: [] });

async function grpcError(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('connector authoring', () => {
  it('validates unsaved YAML, naming the field path and line of each problem', async () => {
    const bad = connectorYaml(api.url).replace('results_path: data.items', 'result_path: data.items').replace('type: integer', 'type: int');
    const res = await http('POST', url('/api/agent-factory/connectors/validate'), { token: alice, body: { yaml: bad } });
    expect(res.status).toBe(200);
    expect(res.body.valid).toBe(false);
    const fields = res.body.errors.map((e: any) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['endpoints.search_orgs.response_mapping.result_path', 'endpoints.get_filings.parameters[1].type']));
    const typo = res.body.errors.find((e: any) => e.field.endsWith('result_path'));
    expect(typo.reason).toContain('did you mean "results_path"');
    expect(typo.line).toBeGreaterThan(0);

    const good = await http('POST', url('/api/agent-factory/connectors/validate'), { token: alice, body: { yaml: connectorYaml(api.url) } });
    expect(good.body).toMatchObject({ valid: true, errors: [] });
    expect(good.body.definition.endpoints.get_filings.method).toBe('GET');

    const empty = await http('POST', url('/api/agent-factory/connectors/validate'), { token: alice, body: {} });
    expect(empty.status).toBe(400);
  });

  it('tests an unsaved connector and infers an output_schema from the records', async () => {
    const res = await http('POST', url('/api/agent-factory/connectors/test'), {
      token: alice,
      body: { yaml: connectorYaml(api.url), credentials: { api_key: SECRET }, endpoint: 'get_filings', inputs: { ein: 'ein-x' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.results).toEqual([{ year: 2022, total: 1200 }, { year: 2023, total: 3400 }]);
    expect(res.body.inferred_output_schema).toEqual({
      type: 'record_set',
      fields: [
        { name: 'year', type: 'integer', presence: 1 },
        { name: 'total', type: 'integer', presence: 1 },
      ],
    });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    // The test call is not an idempotent execution and left nothing saved.
    expect((await http('GET', url('/api/agent-factory/connectors/fixture-api'), { token: alice })).status).toBe(404);
  });

  it('creates, tests, updates and describes a saved connector; other users get 404', async () => {
    const created = await http('POST', url('/api/agent-factory/connectors'), { token: alice, body: { yaml: connectorYaml(api.url), credentials: { api_key: SECRET } } });
    expect(created.status).toBe(201);

    const tested = await http('POST', url('/api/agent-factory/connectors/fixture-api/test'), { token: alice, body: { endpoint: 'search_orgs', inputs: { q: 'Acme' } } });
    expect(tested.status).toBe(200);
    expect(tested.body.result.results).toEqual([{ ein: 'ein-acme', name: 'Acme Foundation' }]);
    const sent = api.requests.filter((r) => r.path === '/orgs').at(-1)!;
    expect(sent.query.api_key).toBe(SECRET);

    const missingInput = await http('POST', url('/api/agent-factory/connectors/fixture-api/test'), { token: alice, body: { endpoint: 'search_orgs', inputs: {} } });
    expect(missingInput.status).toBe(400);
    expect(JSON.stringify(missingInput.body)).toContain('q');
    const unknownEndpoint = await http('POST', url('/api/agent-factory/connectors/fixture-api/test'), { token: alice, body: { endpoint: 'nope', inputs: {} } });
    expect(unknownEndpoint.status).toBe(404);

    // PUT keeps the stored credentials when none are sent, and the path id wins.
    const renamed = connectorYaml(api.url).replace('name: Fixture API', 'name: Fixture API v2').replace('id: fixture-api', 'id: other-id');
    const updated = await http('PUT', url('/api/agent-factory/connectors/fixture-api'), { token: alice, body: { yaml: renamed } });
    expect(updated.status).toBe(200);
    expect(updated.body.connector).toMatchObject({ id: 'fixture-api', name: 'Fixture API v2', credential_names: ['api_key'] });
    const badUpdate = await http('PUT', url('/api/agent-factory/connectors/fixture-api'), { token: alice, body: { yaml: renamed.replace('path: /orgs', 'path: orgs') } });
    expect(badUpdate.status).toBe(400);
    expect(JSON.stringify(badUpdate.body)).toContain('endpoints.search_orgs.path');

    const schema = await http('GET', url('/api/agent-factory/connectors/fixture-api/schema'), { token: alice });
    expect(schema.status).toBe(200);
    const filings = schema.body.endpoints.find((e: any) => e.name === 'get_filings');
    expect(filings.input_schema).toMatchObject({ type: 'object', required: ['ein'], properties: { ein: { type: 'string' }, year: { type: 'integer', default: 2023 } } });
    expect(filings.output_schema.properties.results.items.required).toEqual(['year', 'total']);

    const validated = await http('POST', url('/api/agent-factory/connectors/fixture-api/validate'), { token: alice, body: {} });
    expect(validated.body).toMatchObject({ valid: true });

    for (const path of ['/api/agent-factory/connectors/fixture-api/schema']) {
      expect((await http('GET', url(path), { token: bob })).status).toBe(404);
    }
    expect((await http('POST', url('/api/agent-factory/connectors/fixture-api/test'), { token: bob, body: { endpoint: 'search_orgs', inputs: { q: 'x' } } })).status).toBe(404);
  });

  it('lists the ten templates (nine data sources and the web search) and copies one as a connector that runs through a binding override', async () => {
    const list = await http('GET', url('/api/agent-factory/connectors/templates'), { token: alice });
    expect(list.status).toBe(200);
    expect(list.body.templates.map((t: any) => t.id).sort()).toEqual([
      'congress-gov',
      'courtlistener-recap',
      'fec-campaign-finance',
      'federal-register',
      'opencorporates',
      'propublica-nonprofits',
      'sec-edgar-full-text-search',
      'tavily-web-search',
      'usaspending-awards',
      'wikidata-sparql',
    ]);
    const fec = list.body.templates.find((t: any) => t.id === 'fec-campaign-finance');
    expect(fec).toMatchObject({ type: 'rest_api', is_template: true, category: 'government', auth_fields: ['api_key'] });
    const gov = await http('GET', url('/api/agent-factory/connectors/templates?category=government'), { token: alice });
    expect(gov.body.templates.every((t: any) => t.category === 'government')).toBe(true);

    // A template whose auth needs a credential refuses a copy without it, naming the field.
    const noKey = await http('POST', url('/api/agent-factory/connectors/from-template/fec-campaign-finance'), { token: alice, body: {} });
    expect(noKey.status).toBe(400);
    expect(JSON.stringify(noKey.body)).toContain('credentials.api_key');

    const copy = await http('POST', url('/api/agent-factory/connectors/from-template/federal-register'), { token: alice, body: { connector_id: 'my-fedreg' } });
    expect(copy.status).toBe(201);
    expect(copy.body.connector).toMatchObject({ id: 'my-fedreg', type: 'rest_api' });
    const badId = await http('POST', url('/api/agent-factory/connectors/from-template/federal-register'), { token: alice, body: { connector_id: 'Not Kebab' } });
    expect(badId.status).toBe(400);
    // The same target again is a conflict naming connector_id, unless the body says overwrite: true.
    const again = await http('POST', url('/api/agent-factory/connectors/from-template/federal-register'), { token: alice, body: { connector_id: 'my-fedreg' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'ALREADY_EXISTS', violations: [{ field: 'connector_id', reason: expect.stringContaining('overwrite: true'), code: 'already_exists' }] });
    const notBool = await http('POST', url('/api/agent-factory/connectors/from-template/federal-register'), { token: alice, body: { connector_id: 'my-fedreg', overwrite: 'yes' } });
    expect(notBool.status).toBe(400);
    expect(notBool.body.error.violations).toEqual([expect.objectContaining({ field: 'overwrite' })]);
    const replaced = await http('POST', url('/api/agent-factory/connectors/from-template/federal-register'), { token: alice, body: { connector_id: 'my-fedreg', overwrite: true } });
    expect(replaced.status).toBe(201);
    expect(replaced.body.connector).toMatchObject({ id: 'my-fedreg', type: 'rest_api' });
    // Concurrent copies onto one new id: the insert decides, so exactly one wins.
    const racing = await Promise.all(
      [1, 2, 3, 4, 5].map(() => http('POST', url('/api/agent-factory/connectors/from-template/federal-register'), { token: alice, body: { connector_id: 'raced-fedreg' } })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    // Another user's copy under the same id is theirs: no conflict.
    expect((await http('POST', url('/api/agent-factory/connectors/from-template/federal-register'), { token: bob, body: { connector_id: 'my-fedreg' } })).status).toBe(201);

    // The real host is unreachable here; an agent profile's binding points the copy at the fixture server.
    api.route('GET', '/fedreg/api/v1/agencies', { json: [{ id: 1, name: 'Agriculture Department', short_name: 'USDA', slug: 'agriculture-department', parent_id: null, url: 'https://x', recent_articles_url: 'https://y' }] });
    const bound = await http('PUT', url(`/api/agent-factory/connectors/my-fedreg/bindings/${watcher}`), { token: alice, body: { config_overrides: { base_url: `${api.url}/fedreg/api/v1` } } });
    expect(bound.status).toBe(200);
    const res = await call(grpc.executeEndpoint({ principal: principal(), connectorId: 'my-fedreg', endpoint: 'list_agencies', inputs: {}, idempotencyKey: '', readOnly: false, agentProfileId: watcher }));
    expect((res.result as any).results[0]).toMatchObject({ agency_id: 1, name: 'Agriculture Department', slug: 'agriculture-department' });

    const missing = await http('POST', url('/api/agent-factory/connectors/from-template/no-such-template'), { token: alice, body: {} });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('no-such-template');
  });

  it('refuses egress to private addresses that are not allow-listed (SSRF guard)', async () => {
    const res = await http('POST', url('/api/agent-factory/connectors/test'), {
      token: alice,
      body: { yaml: connectorYaml('http://169.254.169.254/latest'), credentials: { api_key: 'x' }, endpoint: 'search_orgs', inputs: { q: 'a' } },
    });
    // FAILED_PRECONDITION: the call is well-formed; the operator has not allowed the destination.
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('egress to 169.254.169.254 refused');
    expect(res.body.error.message).toContain('CONNECTOR_EGRESS_ALLOW');
  });
});

describe('bindings to agent profiles', () => {
  it('refuses bindings to unknown endpoints and invalid overrides with field paths', async () => {
    const badEndpoint = await http('PUT', url(`/api/agent-factory/connectors/fixture-api/bindings/${researcher}`), { token: alice, body: { allowed_endpoints: ['search_orgs', 'drop_db'] } });
    expect(badEndpoint.status).toBe(400);
    expect(badEndpoint.body.error.violations[0]).toMatchObject({ field: 'allowed_endpoints[1]' });
    const badOverride = await http('PUT', url(`/api/agent-factory/connectors/fixture-api/bindings/${researcher}`), { token: alice, body: { config_overrides: { base_url: 'ftp://x' } } });
    expect(badOverride.status).toBe(400);
    expect(JSON.stringify(badOverride.body)).toContain('config_overrides.base_url');
    const notMine = await http('PUT', url(`/api/agent-factory/connectors/fixture-api/bindings/${researcher}`), { token: bob, body: {} });
    expect(notMine.status).toBe(404);
  });

  it('calls through a binding: allowed endpoints, overrides and binding credentials apply', async () => {
    api.route('GET', '/v2/orgs', (req) => ({ json: { data: { items: [{ id: `v2-${String(req.query.q)}`, org: { name: 'V2' } }] } } }));
    const bound = await http('PUT', url(`/api/agent-factory/connectors/fixture-api/bindings/${researcher}`), {
      token: alice,
      body: { allowed_endpoints: ['search_orgs'], config_overrides: { base_url: `${api.url}/v2` }, credentials: { api_key: 'binding-key-123' } },
    });
    expect(bound.status).toBe(200);
    expect(bound.body.binding).toMatchObject({ agent_profile_id: researcher, status: 'active', credential_names: ['api_key'], allowed_endpoints: ['search_orgs'] });
    expect(JSON.stringify(bound.body)).not.toContain('binding-key-123');

    const res = await call(grpc.executeEndpoint({ principal: principal(), connectorId: 'fixture-api', endpoint: 'search_orgs', inputs: { q: 'a' }, idempotencyKey: '', readOnly: false, agentProfileId: researcher }));
    expect(res.result).toMatchObject({ results: [{ ein: 'v2-a', name: 'V2' }] });
    expect(api.requests.filter((r) => r.path === '/v2/orgs').at(-1)!.query.api_key).toBe('binding-key-123');

    const denied = await grpcError(call(grpc.executeEndpoint({ principal: principal(), connectorId: 'fixture-api', endpoint: 'get_filings', inputs: { ein: 'x' }, idempotencyKey: '', readOnly: false, agentProfileId: researcher })));
    expect(denied.code).toBe('PERMISSION_DENIED');
    const unbound = await grpcError(call(grpc.executeEndpoint({ principal: principal(), connectorId: 'fixture-api', endpoint: 'search_orgs', inputs: { q: 'a' }, idempotencyKey: '', readOnly: false, agentProfileId: 'nobody' })));
    expect(unbound.code).toBe('NOT_FOUND');
    expect(unbound.message).toContain('not bound to agent profile nobody');

    const listed = await http('GET', url(`/api/agent-factory/connectors/bindings?agent_profile_id=${researcher}`), { token: alice });
    expect(listed.body.bindings).toHaveLength(1);
  });

  it('marks the binding auth_failed on a 401, publishes the event, and refuses calls until rebound', async () => {
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = `${stack.natsPrefix.toUpperCase()}_AF_EVENTS`;
      const subject = `${stack.natsPrefix}.af.connector.fixture-api.binding.auth_failed`;
      api.route('GET', '/v3/orgs', (req) => (req.query.api_key === 'good-key' ? { json: { data: { items: [] } } } : { status: 401, json: { error: 'bad key' } }));
      const bound = await http('PUT', url(`/api/agent-factory/connectors/fixture-api/bindings/${auditor}`), {
        token: alice,
        body: { config_overrides: { base_url: `${api.url}/v3` }, credentials: { api_key: 'revoked-key' } },
      });
      expect(bound.status).toBe(200);

      const first = await grpcError(call(grpc.executeEndpoint({ principal: principal(), connectorId: 'fixture-api', endpoint: 'search_orgs', inputs: { q: 'a' }, idempotencyKey: '', readOnly: false, agentProfileId: auditor })));
      expect(first.code).toBe('FAILED_PRECONDITION');
      expect(first.message).not.toContain('revoked-key');

      const listed = await http('GET', url(`/api/agent-factory/connectors/bindings?agent_profile_id=${auditor}`), { token: alice });
      expect(listed.body.bindings[0]).toMatchObject({ status: 'auth_failed' });

      // The event reached JetStream (read it back from the stream).
      await jsm.consumers.add(stream, { durable_name: 'authfail', filter_subject: subject, ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All });
      const consumer = await jetstream(nc).consumers.get(stream, 'authfail');
      const msg = await consumer.next({ expires: 10_000 });
      expect(msg).not.toBeNull();
      expect(msg!.json()).toMatchObject({ type: 'binding.auth_failed', agentProfileId: auditor, connectorId: 'fixture-api' });
      expect(msg!.string()).not.toContain('revoked-key');

      const before = api.requests.length;
      const refused = await grpcError(call(grpc.executeEndpoint({ principal: principal(), connectorId: 'fixture-api', endpoint: 'search_orgs', inputs: { q: 'a' }, idempotencyKey: '', readOnly: false, agentProfileId: auditor })));
      expect(refused.message).toContain('needs re-authentication');
      expect(api.requests.length).toBe(before);

      await http('PUT', url(`/api/agent-factory/connectors/fixture-api/bindings/${auditor}`), { token: alice, body: { config_overrides: { base_url: `${api.url}/v3` }, credentials: { api_key: 'good-key' } } });
      const ok = await call(grpc.executeEndpoint({ principal: principal(), connectorId: 'fixture-api', endpoint: 'search_orgs', inputs: { q: 'a' }, idempotencyKey: '', readOnly: false, agentProfileId: auditor }));
      expect(ok.result).toMatchObject({ results: [], count: 0 });
    } finally {
      await nc.close();
    }
    expect(stack.logs()).not.toContain('revoked-key');
    expect(stack.logs()).not.toContain('binding-key-123');
  });

  it('removes a binding', async () => {
    const del = await http('DELETE', url(`/api/agent-factory/connectors/fixture-api/bindings/${auditor}`), { token: alice });
    expect(del.status).toBe(204);
    expect((await http('DELETE', url(`/api/agent-factory/connectors/fixture-api/bindings/${auditor}`), { token: alice })).status).toBe(404);
  });
});

describe('secrets at rest and on the wire', () => {
  it('keeps no credential in plain text in any connector-runtime table or event', async () => {
    const tables = await stack.db.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'connector_runtime' AND table_type = 'BASE TABLE'",
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['connector_credentials', 'binding_credentials']));
    let dump = '';
    for (const { table_name } of tables) {
      const rows = await stack.db.query<{ row: string }>(`SELECT row_to_json(t)::text AS row FROM connector_runtime."${table_name}" t`);
      dump += rows.map((r) => r.row).join('\n');
    }
    expect(dump).toContain('fixture-api');
    for (const secret of [SECRET, 'binding-key-123', 'revoked-key', 'good-key']) expect(dump).not.toContain(secret);

    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = `${stack.natsPrefix.toUpperCase()}_AF_EVENTS`;
      await jsm.consumers.add(stream, { durable_name: 'all', ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All });
      const consumer = await jetstream(nc).consumers.get(stream, 'all');
      const info = await jsm.streams.info(stream);
      let seen = '';
      for (let i = 0; i < info.state.messages; i++) {
        const msg = await consumer.next({ expires: 5_000 });
        if (!msg) break;
        seen += msg.string();
      }
      expect(seen).toContain('binding.auth_failed');
      for (const secret of [SECRET, 'binding-key-123', 'revoked-key', 'good-key']) expect(seen).not.toContain(secret);
    } finally {
      await nc.close();
    }
  });
});

