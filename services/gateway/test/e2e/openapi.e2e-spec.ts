/**
 * The API reference through the real gateway: the document at /api/docs
 * (JSON for API clients, the Swagger UI page for a browser) and
 * /api/docs/openapi.json, the page's files served locally, /healthz — and
 * the response check every e2e suite runs under (OPENAPI_CHECK_RESPONSES=1
 * in the test stacks): answers of every kind, errors before routing and
 * guard refusals included, went through it.
 */
import { http, registerAndLogin, startStack, type Stack } from './skeleton.js';

let stack: Stack;
let token: string;

beforeAll(async () => {
  stack = await startStack();
  token = await registerAndLogin(stack, 'alice-openapi@example.com');
});

afterAll(async () => {
  await stack?.stop();
});

const url = (path: string) => `${stack.gatewayUrl}${path}`;

it('serves the document as JSON at /api/docs/openapi.json and at /api/docs for API clients', async () => {
  const json = await http('GET', url('/api/docs/openapi.json'));
  expect(json.status).toBe(200);
  expect(json.body.openapi).toBe('3.1.0');
  expect(json.body.paths['/api/v1/runs'].get.responses['200'].content['application/json'].schema.properties.runs.items).toEqual({ $ref: '#/components/schemas/RunSummary' });
  expect(json.body.components.schemas.Error.properties.error.properties.violations.items).toEqual({ $ref: '#/components/schemas/Violation' });
  expect(json.body.paths['/healthz'].get.security).toEqual([]);

  const plain = await http('GET', url('/api/docs'), { headers: { accept: 'application/json' } });
  expect(plain.body).toEqual(json.body);
  const any = await http('GET', url('/api/docs'));
  expect(any.body.openapi).toBe('3.1.0');
});

it('gives a browser the Swagger UI page, whose scripts and styles come from the gateway itself', async () => {
  const page = await fetch(url('/api/docs'), { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  const html = await page.text();
  const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  expect(refs.length).toBeGreaterThanOrEqual(4);
  for (const ref of refs) {
    expect(ref.startsWith('/api/docs/')).toBe(true);
    const asset = await fetch(url(ref));
    expect(asset.status).toBe(200);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
  }
  const init = await (await fetch(url('/api/docs/init.js'))).text();
  expect(init).toContain("url: '/api/docs/openapi.json'");
  expect(init).toContain('validatorUrl: null');
});

it('serves only the listed files of the docs page', async () => {
  for (const name of ['package.json', '..%2F..%2Fpackage.json', 'swagger-ui.js.map', 'index.html']) {
    const res = await http('GET', url(`/api/docs/${name}`));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  }
});

it('checks every JSON answer against the document: successes, guard refusals and unknown routes', async () => {
  const health = await http('GET', url('/healthz'));
  expect(health.body).toEqual({ status: 'ok' });
  expect(health.headers.get('x-openapi-checked')).toBe('getHealthz');

  const runs = await http('GET', url('/api/v1/runs?status=running,completed&page_size=5'), { token });
  expect(runs.status).toBe(200);
  expect(runs.headers.get('x-openapi-checked')).toBe('getApiV1Runs');

  const unauth = await http('GET', url('/api/v1/runs'));
  expect(unauth.status).toBe(401);
  expect(unauth.headers.get('x-openapi-checked')).toBe('getApiV1Runs');

  const templates = await http('GET', url('/api/agent-factory/connectors/templates'), { token });
  expect(templates.status).toBe(200);
  expect(templates.headers.get('x-openapi-checked')).toBe('getApiAgentFactoryConnectorsTemplates');

  const nowhere = await http('GET', url('/api/v1/nowhere'), { token });
  expect(nowhere.status).toBe(404);
  expect(nowhere.headers.get('x-openapi-checked')).toBe('unmatched');
});
