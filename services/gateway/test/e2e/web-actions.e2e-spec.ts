/**
 * A playbook runs `search_web` then `crawl_url` end to end: gateway →
 * orchestrator → connector-runtime's ActionService → a Tavily-shaped search
 * API and a web site (one fixture HTTP server, opened to connector-runtime by
 * CONNECTOR_EGRESS_ALLOW). The search goes through the user's connector made
 * from the shipped `tavily-web-search` template (base_url pointed at the
 * fixture); the crawl obeys the site's robots.txt.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { http, registerAndLogin, startFixtureServer, startStack, waitForRun, type FixtureServer, type Stack } from './skeleton.js';

const TEMPLATE = readFileSync(join(__dirname, '../../../connector-runtime/templates/tavily-web-search.yaml'), 'utf8');
const KEY = 'tvly-e2e-key-abcdef';

let stack: Stack;
let web: FixtureServer;
let alice: string;
let bob: string;
const url = (path: string) => `${stack.gatewayUrl}${path}`;

const PLAYBOOK = (path = '/articles/widgets') => `id: web-research
name: Web research
inputs:
  - { name: topic, type: string, required: true }
steps:
  - name: web
    step_type: tool
    action: search_web
    inputs: { query: "{topic}" }
    params: { max_results: 2 }
  - name: page
    step_type: tool
    action: crawl_url
    condition: "{web.count} > 0"
    inputs: { url: "{web.results[0].url}" }
    params: { extract_mode: markdown }
# first result: ${path}
`;

let firstPath = '/articles/widgets';

beforeAll(async () => {
  web = await startFixtureServer();
  web.route('POST', '/search', (req) => {
    if (req.headers.authorization !== `Bearer ${KEY}`) return { status: 401, json: { detail: { error: 'Unauthorized' } } };
    const body = JSON.parse(req.body) as { query: string; max_results: number };
    const results = [firstPath, '/articles/other'].slice(0, body.max_results).map((p, i) => ({ title: `${body.query} ${i + 1}`, url: `${web.url}${p}`, content: `about ${body.query}`, score: 0.9 - i / 10 }));
    return { json: { query: body.query, results } };
  });
  web.route('GET', '/robots.txt', { body: 'User-agent: *\nDisallow: /members\n', headers: { 'content-type': 'text/plain' } });
  web.route('GET', '/articles/widgets', { body: '<html><head><title>Widgets</title></head><body><h1>Widgets</h1><p>Widgets are <em>useful</em>.</p></body></html>', headers: { 'content-type': 'text/html' } });
  web.route('GET', '/members/only', { body: '<html><title>members</title></html>', headers: { 'content-type': 'text/html' } });
  stack = await startStack({ env: { 'connector-runtime': { CONNECTOR_EGRESS_ALLOW: `127.0.0.1:${web.port}` } } });
  alice = await registerAndLogin(stack, 'web-alice@example.com');
  bob = await registerAndLogin(stack, 'web-bob@example.com');
  const yaml = TEMPLATE.replace('https://api.tavily.com', web.url);
  const created = await http('POST', url('/api/agent-factory/connectors'), { token: alice, body: { yaml, credentials: { token: KEY } } });
  expect(created.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await web?.close();
});

const start = async (token: string, playbook: string, topic: string) => {
  const res = await http('POST', url('/api/v1/runs'), { token, body: { playbook, inputs: { topic } } });
  expect(res.status).toBe(201);
  return waitForRun(stack, token, res.body.run.id);
};

it('searches through the user web-search connector and crawls the first result', async () => {
  firstPath = '/articles/widgets';
  const run = await start(alice, PLAYBOOK(), 'widgets');
  expect(run.status).toBe('completed');
  expect(run.outputs.web).toEqual({
    count: 2,
    results: [
      { title: 'widgets 1', url: `${web.url}/articles/widgets`, snippet: 'about widgets', source: 'tavily-web-search', score: 0.9 },
      { title: 'widgets 2', url: `${web.url}/articles/other`, snippet: 'about widgets', source: 'tavily-web-search', score: 0.8 },
    ],
  });
  expect(run.outputs.page).toMatchObject({ title: 'Widgets', content: '# Widgets\n\nWidgets are _useful_.', links: [] });
  expect(JSON.parse(web.requestsTo('POST', '/search').at(-1)!.body)).toEqual({ query: 'widgets', max_results: 2, topic: 'general' });
});

it('a first result robots.txt disallows fails the crawl step with the rule named (the run is partial); nothing is fetched', async () => {
  firstPath = '/members/only';
  const run = await start(alice, PLAYBOOK('/members/only'), 'members');
  expect([run.status, run.task_status]).toEqual(['completed', 'partial']);
  expect(run.nodes.map((n: any) => [n.node_id, n.status])).toEqual([
    ['web', 'completed'],
    ['page', 'failed'],
  ]);
  expect(run.nodes[1].error).toContain(`robots.txt disallows /members/only for user agent "AgentFactory" (rule "Disallow: /members"`);
  expect(web.count('GET', '/members/only')).toBe(0);
});

it('a user without a web-search connector gets a clear step failure naming the template and params.connector_id', async () => {
  const run = await start(bob, PLAYBOOK(), 'widgets');
  expect([run.status, run.task_status]).toEqual(['completed', 'error']);
  expect(run.nodes.map((n: any) => [n.node_id, n.status])).toEqual([
    ['web', 'failed'],
    ['page', 'skipped'],
  ]);
  expect(run.nodes[0].error).toBe(
    'search_web: you have no web-search connector: create one from the tavily-web-search template (POST /api/agent-factory/connectors/from-template/tavily-web-search) or name one in params.connector_id',
  );
});
