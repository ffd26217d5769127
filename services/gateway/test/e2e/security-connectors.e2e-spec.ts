/**
 * Connectors and secrets, through the real processes (one shared stack):
 *
 * - an upstream that echoes the credential it was sent (an API key header, an
 *   HTTP Basic Authorization header) in a successful answer: the run outputs,
 *   the node outputs, the debug view (`GET /api/v1/flex/runs/:id`), the
 *   connector test route and every row the services stored hold `[REDACTED]`
 *   instead of the secret;
 * - the read-only `database` connector refuses a superuser or a member of
 *   `pg_read_server_files` (409 naming the role and the privilege), works as
 *   a least-privilege role, and ends `pg_sleep(30)` at `timeout_seconds` (2 s)
 *   with a 504 that names timeout_seconds.
 */
import { randomBytes } from 'node:crypto';
import { http, registerAndLogin, startFixtureServer, startStack, waitForRun, type FixtureServer, type Stack } from './skeleton.js';

const API_KEY = `sk-live-echo-${randomBytes(8).toString('hex')}`;
const BASIC = { username: 'svc-reporting', password: `pw-${randomBytes(8).toString('hex')}` };
const BASIC_B64 = Buffer.from(`${BASIC.username}:${BASIC.password}`).toString('base64');
const DB_PASSWORD = `db-${randomBytes(8).toString('hex')}`;
const suffix = randomBytes(4).toString('hex');
const READER = `af_sec_reader_${suffix}`;
const FILES = `af_sec_files_${suffix}`;

let api: FixtureServer;
let stack: Stack;
let alice: string;

const url = (path: string) => `${stack.gatewayUrl}${path}`;

const echoYaml = (baseUrl: string) => `
id: echo-api
name: Echo API
type: rest_api
connection:
  base_url: "${baseUrl}"
  auth: { type: api_key, key_param: X-Api-Key, in: header }
  timeout_seconds: 10
endpoints:
  whoami:
    method: GET
    path: /whoami
    parameters:
      - { name: q, type: string, required: true }
    response_mapping:
      results_path: items
`;

const basicYaml = (baseUrl: string) => `
id: echo-basic
name: Echo Basic
type: rest_api
connection:
  base_url: "${baseUrl}"
  auth: { type: basic }
  timeout_seconds: 10
endpoints:
  whoami:
    method: GET
    path: /whoami-basic
    response_mapping:
      results_path: items
`;

const PLAYBOOK = `
id: echo-playbook
name: Echo playbook
description: Calls two upstreams that echo their credentials
version: "1.0"
execution_mode: deterministic
inputs:
  - { name: q, type: string, required: true }
steps:
  - name: key_echo
    description: An API that echoes the key header
    step_type: tool
    action: call_connector
    connector: echo-api
    endpoint: whoami
    inputs: { q: "{q}" }
    output_key: key_echo
  - name: basic_echo
    description: An API that echoes the Authorization header
    step_type: tool
    action: call_connector
    connector: echo-basic
    endpoint: whoami
    output_key: basic_echo
`;

const dbYaml = (timeoutSeconds = 2) => `
id: reports-db
name: Reports
type: database
connection:
  driver: postgresql
  auth: { type: connection_string }
  timeout_seconds: ${timeoutSeconds}
endpoints:
  total:
    query: SELECT count(*)::int AS n FROM reports.sales
  nap:
    query: SELECT pg_sleep(30)
  read_file:
    query: SELECT pg_read_file('/etc/hostname') AS f
`;

function connectionString(user: string, password = DB_PASSWORD): string {
  const u = new URL(stack.db.url);
  u.username = user;
  u.password = password;
  return u.toString();
}

/** Every row of every table the services own, as text. */
async function everyStoredRow(): Promise<string> {
  const tables = await stack.db.query<{ s: string; t: string }>(
    `SELECT table_schema AS s, table_name AS t FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema', 'reports')`,
  );
  const parts: string[] = [];
  for (const { s, t } of tables) {
    const rows = await stack.db.query<{ r: string }>(`SELECT x::text AS r FROM "${s}"."${t}" x`);
    parts.push(...rows.map((row) => row.r));
  }
  return parts.join('\n');
}

beforeAll(async () => {
  api = await startFixtureServer();
  // Careless upstreams: they answer with what they were sent, under keys no name-based filter catches.
  api.route('GET', '/whoami', (req) => ({
    json: { items: [{ q: req.query.q, echoed: `you sent ${String(req.headers['x-api-key'])}`, raw: req.headers['x-api-key'] }] },
  }));
  api.route('GET', '/whoami-basic', (req) => ({
    json: { items: [{ seen: String(req.headers.authorization), user: BASIC.username }] },
  }));
  stack = await startStack();
  alice = await registerAndLogin(stack, 'sec-connectors@example.com');

  await stack.db.query('CREATE SCHEMA reports');
  await stack.db.query('CREATE TABLE reports.sales (id int)');
  await stack.db.query('INSERT INTO reports.sales SELECT generate_series(1, 7)');
  for (const role of [READER, FILES]) {
    await stack.db.query(`CREATE ROLE ${role} LOGIN PASSWORD '${DB_PASSWORD}'`);
    await stack.db.query(`GRANT CONNECT ON DATABASE "${stack.db.name}" TO ${role}`);
    await stack.db.query(`GRANT USAGE ON SCHEMA reports TO ${role}`);
    await stack.db.query(`GRANT SELECT ON reports.sales TO ${role}`);
  }
  await stack.db.query(`GRANT pg_read_server_files TO ${FILES}`);
}, 120_000);

afterAll(async () => {
  for (const role of [READER, FILES]) {
    await stack?.db.query(`DROP OWNED BY ${role}`).catch(() => undefined);
    await stack?.db.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  }
  await stack?.stop();
  await api?.close();
});

describe('credentials an upstream echoes in a successful answer', () => {
  let runId: string;

  it('are redacted from the run outputs and every node output', async () => {
    for (const [yaml, credentials] of [
      [echoYaml(api.url), { api_key: API_KEY }],
      [basicYaml(api.url), BASIC],
    ] as const) {
      const created = await http('POST', url('/api/agent-factory/connectors'), { token: alice, body: { yaml, credentials } });
      expect(created.status).toBe(201);
    }
    const res = await http('POST', url('/api/v1/runs'), { token: alice, body: { playbook: PLAYBOOK, inputs: { q: 'acme' } } });
    expect(res.status).toBe(201);
    runId = res.body.run.id;
    const run = await waitForRun(stack, alice, runId);
    expect(run.status).toBe('completed');
    // The upstream really got (and echoed) the secrets.
    expect(api.requestsTo('GET', '/whoami')[0]!.headers['x-api-key']).toBe(API_KEY);
    expect(api.requestsTo('GET', '/whoami-basic')[0]!.headers.authorization).toBe(`Basic ${BASIC_B64}`);

    expect(run.outputs.key_echo.results).toEqual([{ q: 'acme', echoed: 'you sent [REDACTED]', raw: '[REDACTED]' }]);
    // The user name alone is not a secret; user:password and its base64 are.
    expect(run.outputs.basic_echo.results).toEqual([{ seen: 'Basic [REDACTED]', user: BASIC.username }]);
    const body = JSON.stringify(run);
    for (const secret of [API_KEY, BASIC.password, BASIC_B64]) expect(body).not.toContain(secret);
  });

  it('are redacted from the debug view', async () => {
    const debug = await http('GET', url(`/api/v1/flex/runs/${runId}`), { token: alice });
    expect(debug.status).toBe(200);
    const text = JSON.stringify(debug.body);
    for (const secret of [API_KEY, BASIC.password, BASIC_B64]) expect(text).not.toContain(secret);
    const node = debug.body.nodes.find((n: any) => n.nodeId === 'key_echo');
    expect(JSON.stringify(node.output)).toContain('you sent [REDACTED]');
  });

  it('are stored nowhere: no table of any service holds them (run state, idempotent replays, events)', async () => {
    const dump = await everyStoredRow();
    expect(dump).toContain('you sent [REDACTED]');
    for (const secret of [API_KEY, BASIC.password, BASIC_B64]) expect(dump).not.toContain(secret);
  });

  it('are redacted from the connector test route', async () => {
    const tested = await http('POST', url('/api/agent-factory/connectors/test'), {
      token: alice,
      body: { yaml: echoYaml(api.url).replace('id: echo-api', 'id: echo-api-2'), credentials: { api_key: API_KEY }, endpoint: 'whoami', inputs: { q: 'x' } },
    });
    expect(tested.status).toBe(200);
    expect(tested.body.result.results).toEqual([{ q: 'x', echoed: 'you sent [REDACTED]', raw: '[REDACTED]' }]);
    expect(JSON.stringify(tested.body)).not.toContain(API_KEY);
  });
});

describe('the read-only database connector', () => {
  const test = (credentials: Record<string, string>, endpoint: string, yaml = dbYaml()) =>
    http('POST', url('/api/agent-factory/connectors/test'), { token: alice, body: { yaml, credentials, endpoint, inputs: {} } });

  it('works as a least-privilege role', async () => {
    const res = await test({ connection_string: connectionString(READER) }, 'total');
    expect(res.status).toBe(200);
    expect(res.body.result.results).toEqual([{ n: 7 }]);
  });

  it('refuses a superuser with 409 naming the role and rolsuper, before pg_read_file runs', async () => {
    const admin = new URL(stack.db.url).username;
    const res = await test({ connection_string: stack.db.url }, 'read_file');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('FAILED_PRECONDITION');
    expect(res.body.error.message).toContain(`the database role "${admin}" is a superuser (rolsuper)`);
    expect(res.body.error.message).toContain('least-privilege role');
  });

  it('refuses a member of pg_read_server_files with 409, without echoing the password', async () => {
    const res = await test({ connection_string: connectionString(FILES) }, 'read_file');
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain(`the database role "${FILES}" is a member of pg_read_server_files`);
    expect(JSON.stringify(res.body)).not.toContain(DB_PASSWORD);
  });

  it('ends pg_sleep(30) at timeout_seconds (2 s) with a 504 that names timeout_seconds', async () => {
    const started = Date.now();
    const res = await test({ connection_string: connectionString(READER) }, 'nap');
    const elapsed = Date.now() - started;
    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe('DEADLINE_EXCEEDED');
    expect(res.body.error.message).toContain('(connection.timeout_seconds: 2)');
    expect(elapsed).toBeGreaterThan(1500);
    expect(elapsed).toBeLessThan(4500);
  });
});
