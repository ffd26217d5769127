/**
 * Issue 2 acceptance, through separate processes (gateway, planner,
 * orchestrator, connector-runtime), real gRPC, PostgreSQL and NATS JetStream,
 * and a fixture HTTP API.
 */
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { readSse, TEST_NATS_URL } from '@af/testing';
import { SignJWT } from 'jose';
import {
  connectorYaml,
  fixture,
  http,
  registerAndLogin,
  routeFixtureApi,
  SECRET,
  startFixtureServer,
  startStack,
  waitForRun,
  type FixtureServer,
  type Stack,
} from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let alice: string;
let bob: string;
let runId: string;

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  stack = await startStack();
  alice = await registerAndLogin(stack, 'alice@example.com');
  bob = await registerAndLogin(stack, 'bob@example.com');
});

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

const url = (path: string) => `${stack.gatewayUrl}${path}`;

describe('walking skeleton', () => {
  it('creates a connector whose credentials are never returned', async () => {
    const res = await http('POST', url('/api/agent-factory/connectors'), {
      token: alice,
      body: { yaml: connectorYaml(api.url), credentials: { api_key: SECRET } },
    });
    expect(res.status).toBe(201);
    expect(res.body.connector).toMatchObject({ id: 'fixture-api', type: 'rest_api', credential_names: ['api_key'] });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);

    const list = await http('GET', url('/api/agent-factory/connectors'), { token: alice });
    expect(list.body.connectors.map((c: any) => c.id)).toEqual(['fixture-api']);
    expect(JSON.stringify(list.body)).not.toContain(SECRET);
    // Bob does not see Alice's connector.
    expect((await http('GET', url('/api/agent-factory/connectors/fixture-api'), { token: bob })).status).toBe(404);
  });

  it('runs a 2-step playbook whose second step is wired from the first', async () => {
    const res = await http('POST', url('/api/v1/runs'), {
      token: alice,
      body: { playbook: fixture('org-filings.playbook.yaml'), inputs: { org_name: 'Acme' } },
    });
    expect(res.status).toBe(201);
    runId = res.body.run.id;
    const run = await waitForRun(stack, alice, runId);

    expect(run.status).toBe('completed');
    expect(run.nodes.map((n: any) => [n.node_id, n.status])).toEqual([
      ['find_org', 'completed'],
      ['get_filings', 'completed'],
    ]);
    // The plan as a graph, so any client can draw the run (the console does).
    expect(run.plan).toEqual({
      nodes: [
        { id: 'find_org', kind: 'tool', action: 'call_connector' },
        { id: 'get_filings', kind: 'tool', action: 'call_connector' },
      ],
      edges: [{ from: 'find_org', to: 'get_filings', kind: 'depends_on' }],
    });
    expect(run.outputs.orgs).toEqual({ results: [{ ein: 'ein-acme', name: 'Acme Foundation' }], count: 1 });
    expect(run.outputs.filings.results).toEqual([
      { year: 2022, total: 1200 },
      { year: 2023, total: 3400 },
    ]);
    // The wired query parameter reached the API, with the declared default and the key.
    const filings = api.requestsTo('GET', '/filings');
    expect(filings).toHaveLength(1);
    expect(filings[0]!.query).toMatchObject({ ein: 'ein-acme', year: '2023', api_key: SECRET });
  });

  it('streams the run frames over SSE in order, and resumes after Last-Event-ID', async () => {
    const events = url(`/api/v1/runs/${runId}/events`);
    const all = await readSse(events, { authorization: `Bearer ${alice}` }, { until: (f) => f.event === 'complete', timeoutMs: 15_000 });
    expect(all.status).toBe(200);
    expect(all.frames.map((f) => f.event)).toEqual(['start', 'node_start', 'node_complete', 'node_start', 'node_complete', 'complete']);
    expect(all.frames.map((f) => f.id)).toEqual(['1', '2', '3', '4', '5', '6']);
    const frames = all.frames.map((f) => JSON.parse(f.data));
    expect(frames[1]).toMatchObject({ type: 'node_start', id: '2', runId, nodeId: 'find_org' });
    expect(frames[5]).toMatchObject({ type: 'complete', payload: { status: 'completed' } });
    for (const f of frames) expect(typeof f.timestamp).toBe('string');

    const resumed = await readSse(events, { authorization: `Bearer ${alice}`, 'last-event-id': '3' }, {
      until: (f) => f.event === 'complete',
      timeoutMs: 15_000,
    });
    expect(resumed.frames.map((f) => f.id)).toEqual(['4', '5', '6']);
    expect(resumed.frames.map((f) => f.event)).toEqual(['node_start', 'node_complete', 'complete']);
  });

  it('runs a stored playbook by playbook_id', async () => {
    const saved = await http('POST', url('/api/agent-factory/playbooks'), { token: alice, body: { yaml: fixture('org-filings.playbook.yaml') } });
    expect(saved.status).toBe(201);
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook_id: 'org-filings', inputs: { org_name: 'Globex' } } });
    expect(res.status).toBe(201);
    const run = await waitForRun(stack, alice, res.body.run.id);
    expect(run.status).toBe('completed');
    expect(run.outputs.orgs.results[0].ein).toBe('ein-globex');
  });

  it('an Idempotency-Key makes a retried start return the same run', async () => {
    const body = { playbook: fixture('org-filings.playbook.yaml'), inputs: { org_name: 'Initech' } };
    const headers = { 'idempotency-key': 'start-initech-1' };
    const a = await http('POST', url('/api/v1/runs'), { token: alice, body, headers });
    const b = await http('POST', url('/api/v1/runs'), { token: alice, body, headers });
    expect(a.status).toBe(201);
    expect(b.body.run.id).toBe(a.body.run.id);
    await waitForRun(stack, alice, a.body.run.id);
    expect(api.count('GET', '/orgs')).toBe(3);
  });

  it('takes an output_contract and goal conditions over HTTP: a met contract completes with goal results, a broken one fails', async () => {
    const contract = { schema: { type: 'object', required: ['orgs'], properties: { orgs: { type: 'object', required: ['results'] } } } };
    const goals = [{ facet: 'orgs', path: '', condition: { jsonLogic: { '>=': [{ var: 'count' }, 1] } } }];
    const ok = await http('POST', url('/api/v1/runs'), {
      token: alice,
      body: { playbook: fixture('org-filings.playbook.yaml'), inputs: { org_name: 'Hooli' }, output_contract: contract, goal_condition: goals },
    });
    expect(ok.status).toBe(201);
    const done = await waitForRun(stack, alice, ok.body.run.id);
    expect(done.status).toBe('completed');
    expect(done.goal_condition_results).toEqual([expect.objectContaining({ facet: 'orgs', satisfied: true })]);

    const strict = { schema: { type: 'object', required: ['orgs', 'missing_key'] } };
    const bad = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: fixture('org-filings.playbook.yaml'), inputs: { org_name: 'Hooli' }, output_contract: strict } });
    const failed = await waitForRun(stack, alice, bad.body.run.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('output');

    const invalid = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: fixture('org-filings.playbook.yaml'), inputs: { org_name: 'x' }, output_contract: { schema: 'nope' } } });
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(invalid.body)).toContain('output_contract.schema');
  });

  it('a failing step with on_error: stop fails the run: node_error, then complete with status failed', async () => {
    const yaml = fixture('org-filings.playbook.yaml').replace('    output_key: filings', '    output_key: filings\n    on_error: stop');
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: yaml, inputs: { org_name: 'Broken' } } });
    expect(res.status).toBe(201);
    const run = await waitForRun(stack, alice, res.body.run.id);
    expect(run.status).toBe('failed');
    expect(run.error).toContain('get_filings');
    expect(run.nodes.map((n: any) => n.status)).toEqual(['completed', 'failed']);
    expect(run.nodes[1].error).toMatch(/500|unavailable/i);
    const sse = await readSse(url(`/api/v1/runs/${run.id}/events`), { authorization: `Bearer ${alice}` }, { until: (f) => f.event === 'complete' });
    expect(sse.frames.map((f) => f.event)).toEqual(['start', 'node_start', 'node_complete', 'node_start', 'node_error', 'complete']);
    expect(JSON.parse(sse.frames[4]!.data).payload).toMatchObject({ code: 'UNAVAILABLE', continues: false });
    expect(JSON.parse(sse.frames[5]!.data).payload.status).toBe('failed');
  });

  it('a failing step with the default on_error (skip) lets the run complete', async () => {
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: fixture('org-filings.playbook.yaml'), inputs: { org_name: 'Broken' } } });
    const run = await waitForRun(stack, alice, res.body.run.id);
    expect(run.status).toBe('completed');
    expect(run.nodes.map((n: any) => n.status)).toEqual(['completed', 'failed']);
    expect(run.outputs.filings).toBeUndefined();
  });

  it('runs transform_data in-process with params wired from run inputs', async () => {
    const start = async (inputs: Record<string, unknown>) => {
      const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: fixture('filings-report.playbook.yaml'), inputs } });
      expect(res.status).toBe(201);
      return waitForRun(stack, alice, res.body.run.id);
    };
    const defaults = await start({ org_name: 'Hooli' });
    expect(defaults.status).toBe('completed');
    expect(defaults.outputs.big).toEqual({ data: [{ year: 2023, total: 3400 }], count: 1 });
    const lower = await start({ org_name: 'Hooli', min_total: 1000 });
    expect(lower.outputs.big.data.map((r: any) => r.year)).toEqual([2023, 2022]);
  });

  it('never shows another user their run (404, not 403)', async () => {
    for (const path of [`/api/v1/runs/${runId}`, `/api/v1/runs/${runId}/events`]) {
      const res = await http('GET', url(path), { token: bob });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    expect((await http('POST', url(`/api/v1/runs/${runId}/cancel`), { token: bob })).status).toBe(404);
    expect((await http('GET', url('/api/v1/runs/00000000-0000-4000-8000-000000000000'), { token: alice })).status).toBe(404);
    expect((await http('GET', url('/api/v1/runs/not-a-uuid'), { token: alice })).status).toBe(404);
  });

  it('keeps the credential out of logs, NATS payloads and Postgres plaintext', async () => {
    // Postgres: every text column of every table of every service schema.
    const tables = await stack.db.query<{ s: string; t: string }>(
      `SELECT table_schema AS s, table_name AS t FROM information_schema.tables
        WHERE table_schema NOT IN ('pg_catalog','information_schema') AND table_type = 'BASE TABLE'`,
    );
    expect(tables.length).toBeGreaterThan(8);
    let rowsScanned = 0;
    for (const { s, t } of tables) {
      const rows = await stack.db.query<{ row: string }>(`SELECT x::text AS row FROM "${s}"."${t}" x`);
      rowsScanned += rows.length;
      for (const { row } of rows) expect(row).not.toContain(SECRET);
    }
    expect(rowsScanned).toBeGreaterThan(10);
    const creds = await stack.db.query<{ ciphertext: string }>('SELECT ciphertext FROM connector_runtime.connector_credentials');
    expect(creds).toHaveLength(1);
    expect(creds[0]!.ciphertext).toMatch(/^v1\.k1\./);

    // NATS: every message retained for this stack's prefix.
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const js = jetstream(nc);
      const jsm = await jetstreamManager(nc);
      const stream = `${stack.natsPrefix.toUpperCase()}_AF_EVENTS`;
      const info = await jsm.consumers.add(stream, { ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All, filter_subject: `${stack.natsPrefix}.af.>` });
      const consumer = await js.consumers.get(stream, info.name);
      let seen = 0;
      const batch = await consumer.fetch({ max_messages: 1000, expires: 2000 });
      for await (const m of batch) {
        seen++;
        expect(m.string()).not.toContain(SECRET);
        if (m.info.pending === 0) break;
      }
      // Three completed runs of six frames each, at least.
      expect(seen).toBeGreaterThanOrEqual(18);
    } finally {
      await nc.close();
    }

    // Logs of all four processes (debug level).
    const logs = stack.logs();
    expect(logs).toContain('endpoint executed');
    expect(logs).not.toContain(SECRET);
  });

  it('serves an OpenAPI document', async () => {
    const res = await http('GET', url('/api/docs'));
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(Object.keys(res.body.paths)).toEqual(expect.arrayContaining(['/api/v1/runs', '/api/v1/runs/{id}/events', '/api/auth/login']));
    expect(res.body.paths['/api/v1/runs'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('yaml');
  });
});

describe('playbook validation and the action registry', () => {
  it('validates a playbook: per-step results, and errors with field and suggestion', async () => {
    const ok = await http('POST', url('/api/agent-factory/playbooks/validate'), { token: alice, body: { yaml: fixture('org-filings.playbook.yaml') } });
    expect(ok.status).toBe(200);
    expect(ok.body.valid).toBe(true);
    expect(ok.body.results.map((r: any) => [r.step, r.valid])).toEqual([
      ['find_org', true],
      ['get_filings', true],
    ]);
    const bad = await http('POST', url('/api/agent-factory/playbooks/validate'), {
      token: alice,
      body: { yaml: fixture('org-filings.playbook.yaml').replace('{find_org.results[0].ein}', '{find_orgz.results[0].ein}') },
    });
    expect(bad.status).toBe(200);
    expect(bad.body.valid).toBe(false);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'steps[1].inputs.ein', code: 'nonexistent_step', suggestedFix: '{find_org.results[0].ein}', step: 'get_filings', line: 27 })]);
    const empty = await http('POST', url('/api/agent-factory/playbooks/validate'), { token: alice, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.error.violations[0].field).toBe('yaml');
  });

  it('lists the action I/O registry and shows one contract', async () => {
    const all = await http('GET', url('/api/agent-factory/actions'), { token: alice });
    expect(all.status).toBe(200);
    const names = all.body.actions.map((a: any) => a.name);
    expect(names).toEqual(expect.arrayContaining(['call_connector', 'transform_data', 'search_knowledge_graph', 'synthesize_report']));
    const transforms = await http('GET', url('/api/agent-factory/actions?category=transform'), { token: alice });
    expect(transforms.body.actions.every((a: any) => a.category === 'transform')).toBe(true);
    expect(transforms.body.actions.length).toBeGreaterThan(0);
    const one = await http('GET', url('/api/agent-factory/actions/search_knowledge_graph'), { token: alice });
    expect(one.status).toBe(200);
    expect(one.body.action).toMatchObject({ name: 'search_knowledge_graph', step_type: 'tool' });
    expect(Object.keys(one.body.action.outputs)).toEqual(expect.arrayContaining(['entities', 'relationships', 'count']));
    const missing = await http('GET', url('/api/agent-factory/actions/no_such_action'), { token: alice });
    expect(missing.status).toBe(404);
    expect((await http('GET', url('/api/agent-factory/actions'))).status).toBe(401);
  });
});

describe('bad input: a clear 4xx naming the field, nothing persisted', () => {
  const runsOf = async () => Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM orchestrator.runs'))[0]!.n);
  const connectorsOf = async () => Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM connector_runtime.connectors'))[0]!.n);

  it('malformed playbook YAML', async () => {
    const before = await runsOf();
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: 'steps:\n  - name: [unclosed\n', inputs: {} } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_ARGUMENT');
    expect(res.body.error.violations[0].code).toBe('invalid_yaml');
    expect(res.body.error.message).toMatch(/line \d+/);
    expect(await runsOf()).toBe(before);
  });

  it('unknown step reference in {…}, with a suggestion', async () => {
    const before = await runsOf();
    const yaml = fixture('org-filings.playbook.yaml').replace('{find_org.results[0].ein}', '{find_orgs.results[0].ein}');
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: yaml, inputs: { org_name: 'x' } } });
    expect(res.status).toBe(400);
    const v = res.body.error.violations.find((x: any) => x.field.includes('steps[1].inputs.ein'));
    expect(v).toBeDefined();
    expect(['nonexistent_step', 'unresolved_reference']).toContain(v.code);
    expect(v.suggestedFix).toContain('find_org');
    expect(await runsOf()).toBe(before);
  });

  it('a missing required playbook input', async () => {
    const before = await runsOf();
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: fixture('org-filings.playbook.yaml'), inputs: {} } });
    expect(res.status).toBe(400);
    expect(res.body.error.violations).toEqual([expect.objectContaining({ field: 'inputs.org_name', reason: 'is required (a string)', code: 'missing_required' })]);
    expect(await runsOf()).toBe(before);
  });

  it('run body with no playbook (nor any other source), and a body that is not JSON', async () => {
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { inputs: {} } });
    expect(res.status).toBe(400);
    expect(res.body.error.violations[0].field).toBe('yaml');
    const raw = await http('POST', url('/api/v1/runs'), { token: alice, raw: '{"playbook": ' });
    expect(raw.status).toBe(400);
    expect(raw.body.error.code).toBe('INVALID_ARGUMENT');
  });

  it('missing required connector field', async () => {
    const before = await connectorsOf();
    const yaml = connectorYaml(api.url).replace(/^name: .*$/m, '');
    const res = await http('POST', url('/api/agent-factory/connectors'), { token: bob, body: { yaml, credentials: { api_key: 'k' } } });
    expect(res.status).toBe(400);
    expect(res.body.error.violations.map((v: any) => v.field)).toContain('name');
    expect(await connectorsOf()).toBe(before);
  });

  it('connector base_url that is not http(s)', async () => {
    const before = await connectorsOf();
    const res = await http('POST', url('/api/agent-factory/connectors'), {
      token: bob,
      body: { yaml: connectorYaml('ftp://files.example.com'), credentials: { api_key: 'k' } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.violations.map((v: any) => v.field)).toContain('connection.base_url');
    expect(await connectorsOf()).toBe(before);
  });

  it('a connector whose auth needs a credential that was not given', async () => {
    const res = await http('POST', url('/api/agent-factory/connectors'), { token: bob, body: { yaml: connectorYaml(api.url) } });
    expect(res.status).toBe(400);
    expect(res.body.error.violations[0].field).toBe('credentials.api_key');
  });

  it('bad, missing and expired JWTs', async () => {
    const runs = url(`/api/v1/runs/${runId}`);
    const missing = await http('GET', runs);
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('UNAUTHENTICATED');
    const garbage = await http('GET', runs, { token: 'not.a.jwt' });
    expect(garbage.status).toBe(401);
    expect(garbage.body.error.message).toBe('invalid token');
    const forged = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('x').setIssuer('agent-factory').setAudience('agent-factory')
      .setExpirationTime('1h').sign(new TextEncoder().encode('another-secret-another-secret-another-secret'));
    expect((await http('GET', runs, { token: forged })).status).toBe(401);
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('x').setIssuer('agent-factory').setAudience('agent-factory')
      .setIssuedAt(now - 7200).setExpirationTime(now - 3600).sign(new TextEncoder().encode(stack.jwtSecret));
    const res = await http('GET', runs, { token: expired });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toBe('token expired');
  });

  it('registration and login errors', async () => {
    const bad = await http('POST', url('/api/auth/register'), { body: { email: 'nope', password: 'short' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.violations.map((v: any) => v.field).sort()).toEqual(['email', 'password']);
    const dup = await http('POST', url('/api/auth/register'), { body: { email: 'alice@example.com', password: 'another long password' } });
    expect(dup.status).toBe(409);
    const wrong = await http('POST', url('/api/auth/login'), { body: { email: 'alice@example.com', password: 'wrong password!' } });
    expect(wrong.status).toBe(401);
  });

  it('Last-Event-ID that is not a number', async () => {
    const res = await readSse(url(`/api/v1/runs/${runId}/events`), { authorization: `Bearer ${alice}`, 'last-event-id': 'abc' }, { timeoutMs: 5000 });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body!).error.violations[0].field).toBe('Last-Event-ID');
  });
});
