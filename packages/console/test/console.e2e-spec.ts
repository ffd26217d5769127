/**
 * The console in a real browser (Debian's Chromium through playwright-core)
 * against a real stack (every service a process, real gRPC, PostgreSQL,
 * NATS): register, create a connector from a template, write a playbook and
 * watch its run's graph turn completed after approving its gate from the
 * inbox, submit a human task form (a wrong value shows the schema's error
 * under the field), and see a validation error appear under a step while
 * editing. Screenshots of every page go to test-results/; axe-core checks
 * the main pages for serious violations.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { action, orchestrator, plan } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { http, startFixtureServer, startStack, type FixtureServer, type Stack } from '@af/testing';
import type { Locator, Page } from 'playwright-core';
import { launchBrowser, type Browser } from './browser.js';

const ARTIFACTS = join(__dirname, '..', 'test-results');
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery staple';
const axeSource = readFileSync(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8');

const PLAYBOOK = `id: console-e2e
name: Console e2e
version: "1.0"
inputs:
  - name: items
    type: list
    default: [{ n: 3 }, { n: 1 }, { n: 2 }]
steps:
  - name: sorted
    step_type: tool
    action: transform_data
    inputs: { data: "{items}" }
    operations:
      - { type: sort, field: n, direction: asc }
  - name: gate
    step_type: approval
    prompt: "Keep the {sorted.count} sorted items?"
    preview_from: sorted
  - name: top
    step_type: tool
    action: transform_data
    inputs: { data: "{sorted.data}" }
    operations:
      - { type: limit, value: 1 }
`;

let stack: Stack;
let browser: Browser;
let page: Page;
let runId: string;
let fixture: FixtureServer;

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

/** axe-core in the page: the serious and critical violations, as `id: target` lines. */
async function seriousViolations(): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n: any) => String(n.target)) }));
  });
  return (result as Array<{ id: string; impact: string; targets: string[] }>).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.targets.join(', ')}`);
}

/** Starts a planner-made plan (human and llm steps come from those) as the orchestrator's StartRun gets it. */
async function startPlan(nodes: Array<Record<string, unknown>>): Promise<string> {
  const me = (await http('POST', `${stack.gatewayUrl}/api/auth/login`, { body: { email: EMAIL, password: PASSWORD } })).body.user.id as string;
  const runs = createGrpcClient<orchestrator.OrchestratorServiceClient>('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, {
    auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }),
  });
  const wire = nodes.map((n) => ({ inputs: {}, params: {}, dependsOn: [], routes: [], elseTo: [], ...n }));
  const { run } = await call(
    runs.startRun({ principal: { userId: me, teamIds: [] }, plan: { nodes: wire } as unknown as plan.PlanGraph, inputs: {}, idempotencyKey: '', runContext: 'background', outputContract: undefined, goalCondition: [], policies: [] }),
  );
  return run!.id;
}

async function waitForRunStatus(id: string, done: (status: string) => boolean): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const { body } = await http('GET', `${stack.gatewayUrl}/api/v1/runs/${id}`, { token: await token() });
    if (done(body.run.status)) return body.run;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`run ${id} did not reach the expected status`);
}

/**
 * Waits for `locator` on the page at `path` (pages load their data when they
 * mount): while it is missing after a second, leaves for the runs page and
 * comes back once that shows, so the page mounts again and loads afresh.
 */
async function untilShown(locator: Locator, path: string, visits = 30) {
  for (let i = 0; ; i++) {
    try {
      await locator.waitFor({ timeout: 1_000 });
      return;
    } catch (err) {
      if (i >= visits) throw err;
    }
    await go('/runs');
    await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    await go(path);
  }
}

async function go(path: string) {
  // In-app navigation (the history router), as a click on a link would.
  await page.evaluate((p) => {
    history.pushState(null, '', p);
    dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startStack({
    entityResolution: true,
    outputRouter: true,
    // The clarification test's llm step asks one question, then answers with the summary.
    env: { orchestrator: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify([{ json: { hitl_clarify: { question: 'Which year should the summary cover?' } } }, { json: { summary: 'Filings of 2024' } }]) } },
  });
  fixture = await startFixtureServer();
  fixture.route('GET', '/orgs', { json: { items: [{ id: 'o1', name: 'Acme Community', city: 'Fresno' }] } });
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.setDefaultTimeout(30_000);
});

afterAll(async () => {
  await browser?.close();
  await fixture?.close();
  await stack?.stop();
});

it('serves the console at / and answers index.html for client routes, the API staying JSON', async () => {
  const root = await fetch(`${stack.gatewayUrl}/runs/anything`, { headers: { accept: 'text/html,application/xhtml+xml' } });
  expect(root.status).toBe(200);
  expect(root.headers.get('content-type')).toContain('text/html');
  expect(await root.text()).toContain('<div id="root">');
  const api = await http('GET', `${stack.gatewayUrl}/api/v1/runs`);
  expect(api.status).toBe(401);
  expect((await fetch(`${stack.gatewayUrl}/assets/missing.js`)).status).toBe(404);
  // An API client asking for a path nobody serves still gets the JSON 404.
  const unknown = await http('GET', `${stack.gatewayUrl}/no/such/route`);
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.code).toBe('NOT_FOUND');
});

it('registers and signs in; a bad password shows the API error under the password field', async () => {
  await page.goto(stack.gatewayUrl);
  await page.getByRole('button', { name: 'Register' }).click();
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill('short');
  await page.getByRole('button', { name: 'Create an account' }).click();
  const pwError = page.locator('.field:has(input[type=password]) .field-error');
  await pwError.waitFor();
  expect(await pwError.textContent()).toMatch(/\S/);
  await shot('sign-in-error');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create an account' }).click();
  await page.getByRole('heading', { name: 'Runs' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/runs');
  await shot('runs-empty');
  expect(await seriousViolations()).toEqual([]);
});

it('creates a connector from a template with its credential', async () => {
  await go('/connectors');
  await page.getByRole('button', { name: 'Use template FEC Campaign Finance' }).click();
  const form = page.getByRole('form', { name: /Create a connector from FEC/ });
  await form.getByLabel('Connector id').fill('my-fec');
  const cred = form.getByLabel(/^Credential:/).first();
  await cred.fill('not-a-real-key');
  await shot('connectors-from-template');
  await form.getByRole('button', { name: 'Create connector' }).click();
  await page.getByRole('button', { name: 'Test FEC Campaign Finance' }).waitFor();
  const { body } = await http('GET', `${stack.gatewayUrl}/api/agent-factory/connectors`, { token: await token() });
  expect(body.connectors.map((c: any) => c.id)).toEqual(['my-fec']);
  expect(body.connectors[0].credential_names.length).toBeGreaterThan(0);
  await shot('connectors');
  expect(await seriousViolations()).toEqual([]);
});

it('tests a connector endpoint from the test panel: bad JSON is named under the inputs, the answer and its inferred schema are shown', async () => {
  const yaml = `id: orgs-api
name: Orgs API
type: rest_api
version: "1.0"
description: Organisations (a local fixture)
connection:
  base_url: ${fixture.url}
  auth: { type: none }
endpoints:
  search_orgs:
    method: GET
    path: /orgs
    parameters:
      - { name: q, type: string, required: true }
    response_mapping:
      results_path: items
`;
  expect((await http('POST', `${stack.gatewayUrl}/api/agent-factory/connectors`, { token: await token(), body: { yaml } })).status).toBe(201);
  await go('/runs');
  await go('/connectors');
  await page.getByRole('button', { name: 'Test Orgs API' }).click();
  const panel = page.getByRole('form', { name: 'Test Orgs API' });
  await panel.getByLabel('Inputs (JSON)').fill('{"q": ');
  await panel.getByRole('button', { name: 'Call endpoint' }).click();
  await panel.getByText('is not valid JSON').waitFor();
  await panel.getByLabel('Inputs (JSON)').fill('{"q": "acme"}');
  await panel.getByRole('button', { name: 'Call endpoint' }).click();
  await panel.getByText('Inferred output schema').waitFor();
  await panel.getByText('Acme Community').first().waitFor();
  expect(fixture.requestsTo('GET', '/orgs').length).toBe(1);
  await shot('connectors-test-panel');
  expect(await seriousViolations()).toEqual([]);
});

it('writes a playbook, runs it, approves its gate from the inbox and watches the graph turn completed', async () => {
  await go('/playbooks/new');
  const editor = page.getByLabel('Playbook YAML');
  await editor.fill(PLAYBOOK);
  await page.locator('#validation-summary[data-valid=true]').waitFor();
  await page.getByRole('button', { name: 'Create playbook' }).click();
  await page.getByRole('heading', { name: /Console e2e \(revision 1\)/ }).waitFor();
  await page.getByRole('button', { name: 'Start run' }).click();
  await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
  runId = page.url().split('/').pop()!;
  await page.locator('[data-node=sorted][data-status=completed]').waitFor();
  await page.locator('[data-node=gate][data-status=waiting]').waitFor();
  expect(await page.locator('[data-node=top]').getAttribute('data-status')).toBe('pending');
  // The edges come from the playbook's graph: sorted → gate → top (top also reads sorted).
  const edges = await page.locator('.graph svg polyline').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-edge')));
  expect(edges).toEqual(expect.arrayContaining(['sorted>gate', 'gate>top']));
  await page.locator('[data-node=sorted]').click();
  await page.getByRole('complementary', { name: 'Step detail' }).getByText('"count": 3').waitFor();
  await shot('run-waiting');
  expect(await seriousViolations()).toEqual([]);

  await go('/inbox');
  const card = page.getByRole('article', { name: 'Approval: gate' });
  await card.getByText('Keep the 3 sorted items?').waitFor();
  await shot('inbox-approval');
  expect(await seriousViolations()).toEqual([]);
  await card.getByRole('button', { name: 'Approve' }).click();
  await card.waitFor({ state: 'detached' });

  await go(`/runs/${runId}`);
  for (const id of ['sorted', 'gate', 'top']) await page.locator(`[data-node=${id}][data-status=completed]`).waitFor();
  await page.locator('[data-stream-state=ended]').waitFor();
  await page.locator('.event-log li', { hasText: 'complete' }).last().waitFor();
  await shot('run-completed');
  const { body } = await http('GET', `${stack.gatewayUrl}/api/v1/runs/${runId}`, { token: await token() });
  expect(body.run.status).toBe('completed');
  expect(body.run.outputs.top).toEqual({ data: [{ n: 1 }], count: 1 });

  await go('/runs');
  await page.getByRole('link', { name: runId.slice(0, 8) }).waitFor();
  await page.getByLabel('Status').selectOption('failed');
  await page.getByText('No runs match these filters.').waitFor();
  await shot('runs-filtered');
});

it('shows a saved playbook\'s step graph: its steps and edges, a step\'s action and outputs; an unknown playbook shows the API error', async () => {
  await go('/playbooks/console-e2e');
  const graph = page.getByRole('group', { name: 'Step graph' });
  for (const id of ['sorted', 'gate', 'top']) await graph.locator(`[data-node=${id}]`).waitFor();
  expect(await graph.locator('[data-node=gate]').getAttribute('data-status')).toBe('approval');
  expect(await graph.locator('[data-node=sorted]').getAttribute('data-status')).toBe('tool');
  const edges = await graph.locator('svg polyline').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-edge')));
  expect(edges).toEqual(expect.arrayContaining(['sorted>gate', 'gate>top']));
  await graph.locator('[data-node=sorted]').click();
  const detail = page.locator('[data-step-detail=sorted]');
  await detail.getByText('transform_data').waitFor();
  expect(await detail.textContent()).toMatch(/count: /);
  await shot('playbook-graph');
  expect(await seriousViolations()).toEqual([]);

  await go('/playbooks/no-such-playbook');
  await page.getByRole('alert').waitFor();
  expect(await page.getByRole('group', { name: 'Step graph' }).count()).toBe(0);
});

it('draws the graph of a run the console did not start, from the plan on the run', async () => {
  const t = await token();
  const started = await http('POST', `${stack.gatewayUrl}/api/v1/runs`, { token: t, body: { yaml: PLAYBOOK.replace('id: console-e2e', 'id: console-e2e-api'), inputs: {} } });
  expect(started.status).toBe(201);
  const id = started.body.run.id as string;
  await go(`/runs/${id}`);
  await page.locator('[data-node=gate][data-status=waiting]').waitFor();
  const edges = await page.locator('.graph svg polyline').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-edge')));
  expect(edges).toEqual(expect.arrayContaining(['sorted>gate', 'gate>top']));
  await shot('run-started-elsewhere');
  expect((await http('POST', `${stack.gatewayUrl}/api/v1/runs/${id}/cancel`, { token: t })).status).toBe(200);
  await page.locator('[data-stream-state=ended]').waitFor();
});

it('submits a human task form: a wrong value shows the schema error under its field, a right one is accepted', async () => {
  const t = await token();
  const facet = {
    name: 'launch_score',
    title: 'Launch score',
    description: 'How ready the launch is, 1 to 5.',
    schema: { type: 'object', required: ['score'], properties: { score: { type: 'integer', minimum: 1, maximum: 5 }, note: { type: 'string' } } },
    metadata: { version: '1.0.0', direction: 'output' },
  };
  expect((await http('POST', `${stack.gatewayUrl}/api/v1/flex/facets`, { token: t, body: { facets: [facet] } })).status).toBe(200);
  const reg = await http('POST', `${stack.gatewayUrl}/api/v1/flex/capabilities/register`, {
    token: t,
    body: { capabilityId: 'e2e.LaunchScore', agentType: 'human', version: '1', displayName: 'Launch score', summary: 'A person scores the launch.', inputContract: [], outputContract: ['launch_score'] },
  });
  expect(reg.status).toBe(201);
  const runId = await startPlan([{ id: 'review', kind: plan.NodeKind.NODE_KIND_HUMAN, action: 'e2e.LaunchScore', capabilityId: 'e2e.LaunchScore', description: 'Score the launch', outputSchema: facet.schema }]);

  await go('/inbox');
  const card = page.getByRole('article', { name: 'Task: e2e.LaunchScore' });
  await card.getByText('Score the launch').waitFor();
  await card.getByLabel(/Score/).fill('9');
  await card.getByLabel(/Note/).fill('almost');
  await card.getByRole('button', { name: 'Submit' }).click();
  const err = card.locator('.field-integer .field-error');
  await err.waitFor();
  expect(await err.textContent()).toMatch(/5/);
  expect(await card.getByLabel(/Score/).getAttribute('aria-invalid')).toBe('true');
  await shot('inbox-task-error');
  await card.getByLabel(/Score/).fill('4');
  await card.getByRole('button', { name: 'Submit' }).click();
  await page.getByRole('article', { name: 'Task: e2e.LaunchScore' }).waitFor({ state: 'detached' });
  const done = await http('GET', `${stack.gatewayUrl}/api/v1/runs/${runId}`, { token: t });
  expect(['running', 'completed']).toContain(done.body.run.status);
});

it('declines a human task with a reason code; the run fails naming the decline', async () => {
  const runId = await startPlan([
    { id: 'review_again', kind: plan.NodeKind.NODE_KIND_HUMAN, action: 'e2e.LaunchScore', capabilityId: 'e2e.LaunchScore', description: 'Score the relaunch', outputSchema: { type: 'object', required: ['score'], properties: { score: { type: 'integer' } } } },
  ]);
  await go('/inbox');
  const card = page.getByRole('article', { name: 'Task: e2e.LaunchScore' });
  await card.getByText('Score the relaunch').waitFor();
  await card.getByRole('button', { name: 'Decline this task…' }).click();
  const form = card.getByRole('form', { name: 'Decline the task' });
  await form.getByLabel('Reason code').selectOption('out_of_scope');
  await form.getByLabel('Reason (optional)').fill('not launching this quarter');
  await shot('inbox-task-decline');
  expect(await seriousViolations()).toEqual([]);
  await form.getByRole('button', { name: 'Decline' }).click();
  await card.waitFor({ state: 'detached' });
  const run = await waitForRunStatus(runId, (s) => ['failed', 'completed', 'cancelled'].includes(s));
  expect(run.status).toBe('failed');
  expect(run.error).toContain('out_of_scope: not launching this quarter');
});

it('answers a clarification from the inbox; the step runs again with the answer and the run completes', async () => {
  const runId = await startPlan([
    {
      id: 'summary',
      kind: plan.NodeKind.NODE_KIND_LLM,
      action: 'llm_analyze',
      inputs: { topic: 'political filings' },
      params: { allow_clarify: true, instructions: 'Summarise the filings' },
      outputSchema: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } },
    },
  ]);
  await go('/inbox');
  const card = page.getByRole('article', { name: 'Question: summary' });
  await untilShown(card, '/inbox');
  await card.getByText('Which year should the summary cover?').waitFor();
  await card.getByLabel('Your answer').fill('2024');
  await shot('inbox-clarification');
  expect(await seriousViolations()).toEqual([]);
  await card.getByRole('button', { name: 'Answer' }).click();
  await card.waitFor({ state: 'detached' });
  const run = await waitForRunStatus(runId, (s) => ['failed', 'completed', 'cancelled'].includes(s));
  expect(run.status).toBe('completed');
  expect(run.nodes[0].output).toEqual({ summary: 'Filings of 2024' });
});

it('shows a validation error under the step while editing a playbook', async () => {
  await go('/playbooks/console-e2e');
  const editor = page.getByLabel('Playbook YAML');
  await page.locator('#validation-summary[data-valid=true]').waitFor();
  const yaml = (await editor.inputValue()).replace('action: transform_data\n    inputs: { data: "{items}" }', 'action: transform_dta\n    inputs: { data: "{items}" }');
  await editor.fill(yaml);
  const problem = page.locator('[data-step=sorted] .problems li');
  await problem.first().waitFor();
  expect(await problem.first().textContent()).toMatch(/transform_dta|action/);
  expect(await page.locator('[data-step=top] .problems li').count()).toBe(0);
  await shot('playbook-validation-error');
  expect(await seriousViolations()).toEqual([]);
});

it('completes playbook keys and values from the JSON Schema while typing', async () => {
  await go('/playbooks/new');
  const editor = page.getByRole('combobox', { name: 'Playbook YAML' });
  await editor.fill('id: completion-e2e\nname: Completion\n');
  await editor.press('End');
  await editor.pressSequentially('exec');
  await page.getByRole('option', { name: /execution_mode/ }).waitFor();
  expect(await editor.getAttribute('aria-expanded')).toBe('true');
  await shot('playbook-completion');
  expect(await seriousViolations()).toEqual([]);
  await editor.press('Enter');
  await editor.pressSequentially('det');
  await page.getByRole('option', { name: 'deterministic' }).waitFor();
  await editor.press('Enter');
  expect(await editor.inputValue()).toBe('id: completion-e2e\nname: Completion\nexecution_mode: deterministic');
});

it('creates a schedule (a bad cron shows its error under the field) and pauses it', async () => {
  await go('/schedules');
  const form = page.getByRole('form', { name: 'New schedule' });
  await form.getByLabel('Name').fill('Nightly sort');
  await form.getByLabel('Playbook id').fill('console-e2e');
  await form.getByLabel(/^Cron/).fill('0 25 * * 1');
  await form.getByRole('button', { name: 'Create schedule' }).click();
  const cronError = form.locator('.field:has(input[aria-invalid=true]) .field-error');
  await cronError.waitFor();
  expect(await cronError.textContent()).toMatch(/hour/);
  await shot('schedules-error');
  await form.getByLabel(/^Cron/).fill('0 3 * * *');
  await form.getByRole('button', { name: 'Create schedule' }).click();
  const card = page.getByRole('article', { name: 'Schedule Nightly sort' });
  await card.waitFor();
  expect(await card.locator('[data-next-fire]').textContent()).not.toBe('paused');
  await card.getByRole('button', { name: 'Pause' }).click();
  await card.locator('[data-next-fire]', { hasText: 'paused' }).waitFor();
  await card.getByRole('button', { name: 'Resume' }).waitFor();
  const { body } = await http('GET', `${stack.gatewayUrl}/api/agent-factory/schedules`, { token: await token() });
  expect(body.schedules.map((s: any) => [s.name, s.paused])).toEqual([['Nightly sort', true]]);
  await shot('schedules');
  expect(await seriousViolations()).toEqual([]);
});

it('backfills a schedule\'s past fires and sets and resets a monitor\'s watermark (a wrong value shows its error)', async () => {
  const t = await token();
  const hour = (new Date().getUTCHours() + 12) % 24;
  const monitor = await http('POST', `${stack.gatewayUrl}/api/agent-factory/monitors`, {
    token: t,
    body: {
      name: 'New orgs',
      // Polls fall outside these hours (12 h from now), so nothing fires while the test runs.
      monitor_config: { interval: '1h', active_hours: { start: `${String(hour).padStart(2, '0')}:00`, end: `${String(hour).padStart(2, '0')}:30`, timezone: 'UTC' } },
      target: { plan: { nodes: [{ id: 'detect', kind: 'tool', action: 'detect_new_data', inputs: { connector: 'orgs-api', endpoint: 'search_orgs' }, params: { extra_params: { q: 'acme' } } }] } },
    },
  });
  expect(monitor.status).toBe(201);
  await go('/runs');
  await go('/schedules');

  const schedule = page.getByRole('article', { name: 'Schedule Nightly sort' });
  await schedule.getByRole('button', { name: 'Backfill a past range…' }).click();
  const backfill = schedule.getByRole('form', { name: 'Backfill' });
  const day = (d: number) => new Date(Date.now() - d * 86_400_000).toISOString().slice(0, 10);
  await backfill.getByLabel('From').fill(`${day(3)}T00:00`);
  await backfill.getByLabel('To').fill(`${day(1)}T00:00`);
  await backfill.getByRole('button', { name: 'Queue fires' }).click();
  await backfill.getByText(/Queued [1-9]\d* fire\(s\); 0 already recorded/).waitFor();
  const id = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/schedules`, { token: t })).body.schedules.find((x: any) => x.name === 'Nightly sort').id;
  const fires = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/schedules/${id}/fires`, { token: t })).body.fires;
  expect(fires.some((f: any) => f.kind === 'backfill')).toBe(true);

  const card = page.getByRole('article', { name: 'Monitor New orgs' });
  await card.locator('[data-monitor-stats]').waitFor();
  const form = card.getByRole('form', { name: 'Set a watermark' });
  await form.getByLabel('Detection step').fill('detect');
  await form.getByLabel('Kind').selectOption('timestamp');
  await form.getByLabel('Value').fill('yesterday');
  await form.getByRole('button', { name: 'Set watermark' }).click();
  await form.locator('[role=alert]').first().waitFor();
  expect(await form.locator('[role=alert]').first().textContent()).toMatch(/\S/);
  await shot('monitor-watermark-error');
  await form.getByLabel('Value').fill('2026-01-01T00:00:00.000Z');
  await form.getByRole('button', { name: 'Set watermark' }).click();
  await card.locator('[data-watermark=detect]', { hasText: '2026-01-01T00:00:00.000Z' }).waitFor();
  await shot('monitors');
  expect(await seriousViolations()).toEqual([]);
  await card.getByRole('button', { name: 'Reset detect' }).click();
  await card.getByText('None yet: the first check records them.').waitFor();
  expect((await http('GET', `${stack.gatewayUrl}/api/agent-factory/monitors/${monitor.body.monitor.id}/watermarks`, { token: t })).body.watermarks).toEqual([]);
});

it('approves a merge in entity review and undoes it from the resolution log', async () => {
  const t = await token();
  const yaml = `id: enrich-officers
name: Enrich officers
version: "1.0"
steps:
  - name: people
    step_type: tool
    action: resolve_entities
    inputs:
      entities:
        - { name: Ezekiel Okonkwo, type: PERSON, state: CA, city: Fresno }
        - { name: "Okonkwo, Ezekiel", type: PERSON, state: CA, city: Fresno }
        - { name: E. Okonkwo, type: PERSON, state: CA, city: Oakland }
`;
  const started = await http('POST', `${stack.gatewayUrl}/api/v1/runs`, { token: t, body: { yaml, inputs: {} } });
  expect(started.status).toBe(201);
  await go('/entities');
  const card = page.getByRole('article', { name: /^Review E\. Okonkwo and / });
  await untilShown(card, '/entities');
  await shot('entity-review');
  expect(await seriousViolations()).toEqual([]);
  await card.getByRole('button', { name: 'Merge' }).click();
  await card.waitFor({ state: 'detached' });
  const undo = page.getByRole('button', { name: 'Undo user_merge of E. Okonkwo' });
  await undo.click();
  await page.locator('tr[data-log-action=user_merge]', { hasText: 'reversed' }).waitFor();
  const log = await http('GET', `${stack.gatewayUrl}/api/agent-factory/entity-resolution/log`, { token: t });
  expect(log.body.entries.find((e: any) => e.action === 'user_merge').reversed_at).not.toBeNull();
  await shot('entity-review-undone');
});

it('creates an agent from a template (a bad handle shows its error under the field) and attaches a playbook', async () => {
  await go('/agents');
  await page.getByRole('button', { name: /^Use template / }).first().click();
  const form = page.getByRole('form', { name: /^New agent from / });
  await form.getByLabel('Handle (for @mentions)').fill('not a handle');
  await form.getByRole('button', { name: 'Create agent' }).click();
  const handleError = form.locator('.field:has(input[aria-invalid=true]) .field-error');
  await handleError.waitFor();
  expect(await handleError.textContent()).toMatch(/\S/);
  await form.getByLabel('Handle (for @mentions)').fill('sorter');
  await form.getByRole('button', { name: 'Create agent' }).click();
  const card = page.getByRole('article', { name: 'Agent @sorter' });
  await card.waitFor();
  await card.getByLabel('Attach playbook (id)').fill('console-e2e');
  await card.getByRole('button', { name: 'Attach' }).click();
  await card.getByText('Playbooks: console-e2e').waitFor();
  await shot('agents');
  expect(await seriousViolations()).toEqual([]);
});

it('chats with an agent by @handle: the mention is completed from the list, the reply streams the run and its answer', async () => {
  const t = await token();
  const sortYaml = `id: sort-numbers
name: Sort numbers
version: "1.0"
execution_mode: deterministic
triggers:
  - { pattern: sort, type: keyword }
inputs:
  - name: items
    type: list
    default: [{ n: 2 }, { n: 1 }]
steps:
  - name: sorted
    step_type: tool
    action: transform_data
    inputs: { data: "{items}" }
    operations:
      - { type: sort, field: n, direction: asc }
`;
  expect((await http('POST', `${stack.gatewayUrl}/api/agent-factory/playbooks`, { token: t, body: { yaml: sortYaml } })).status).toBe(201);
  const agent = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/resolve-handle?handle=sorter`, { token: t })).body;
  expect((await http('POST', `${stack.gatewayUrl}/api/agent-factory/profiles/${agent.agent_profile_id}/playbooks`, { token: t, body: { playbook_id: 'sort-numbers' } })).status).toBe(201);

  await go('/chat');
  const box = page.getByRole('combobox', { name: 'Message' });
  // An unknown handle: the API's error under the message box, the text kept.
  await box.fill('@sortr sort them');
  await page.getByRole('button', { name: 'Send' }).click();
  const err = page.locator('.mention .field-error');
  await err.waitFor();
  expect(await err.textContent()).toContain('sorter');
  expect(await box.inputValue()).toBe('@sortr sort them');

  await box.fill('');
  await box.pressSequentially('@so');
  const option = page.getByRole('option', { name: /@sorter/ });
  await option.waitFor();
  expect(await box.getAttribute('aria-expanded')).toBe('true');
  await shot('chat-mention');
  expect(await seriousViolations()).toEqual([]);
  await box.press('Enter');
  expect(await box.inputValue()).toBe('@sorter ');
  await box.pressSequentially('sort the numbers please');
  await box.press('Enter');
  const reply = page.getByRole('article', { name: 'Reply from @sorter' });
  await reply.locator('[data-strategy=pipeline]').waitFor();
  await reply.locator('.answer').waitFor();
  await reply.getByText('sorted', { exact: false }).first().waitFor();
  await page.locator('.agent-reply[aria-busy=false]').waitFor();
  expect(await reply.locator('.answer').getAttribute('class')).not.toContain('field-error');
  const runLink = reply.getByRole('link');
  const runId = (await runLink.getAttribute('href'))!.split('/').pop()!;
  const { body } = await http('GET', `${stack.gatewayUrl}/api/v1/runs/${runId}`, { token: t });
  expect(body.run).toMatchObject({ status: 'completed', agent_profile_id: agent.agent_profile_id });
  expect(body.run.outputs.sorted.data).toEqual([{ n: 1 }, { n: 2 }]);
  await shot('chat');
});

it('filters runs by agent: the agent select lists your agents and shows only their runs', async () => {
  const t = await token();
  const agent = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/resolve-handle?handle=sorter`, { token: t })).body;
  const agentRuns = (await http('GET', `${stack.gatewayUrl}/api/v1/runs?agent_profile_id=${agent.agent_profile_id}`, { token: t })).body.runs as Array<{ id: string }>;
  expect(agentRuns.length).toBeGreaterThan(0);
  // A profile nobody has, and an empty id, are refused naming the field.
  const unknown = await http('GET', `${stack.gatewayUrl}/api/v1/runs?agent_profile_id=00000000-0000-0000-0000-000000000000`, { token: t });
  expect(unknown.status).toBe(404);
  const empty = await http('GET', `${stack.gatewayUrl}/api/v1/runs?agent_profile_id=`, { token: t });
  expect(empty.status).toBe(400);
  expect(empty.body.error.violations[0].field).toBe('agent_profile_id');

  await go('/runs');
  await page.getByRole('link', { name: runId.slice(0, 8) }).waitFor();
  await page.getByLabel('Agent').selectOption(agent.agent_profile_id);
  for (const r of agentRuns) await page.getByRole('link', { name: r.id.slice(0, 8) }).waitFor();
  await page.getByRole('link', { name: runId.slice(0, 8) }).waitFor({ state: 'detached' });
  expect(await page.locator('tbody tr').count()).toBe(agentRuns.length);
  expect(await page.locator('tbody tr td:nth-child(4)').allTextContents()).toEqual(agentRuns.map(() => '@sorter'));
  await shot('runs-by-agent');
  expect(await seriousViolations()).toEqual([]);
  await page.getByLabel('Agent').selectOption('');
  await page.getByRole('link', { name: runId.slice(0, 8) }).waitFor();
});

it('filters runs by playbook: only the runs started from that playbook are listed', async () => {
  const t = await token();
  const fromPlaybook = (await http('GET', `${stack.gatewayUrl}/api/v1/runs?playbook_id=console-e2e`, { token: t })).body.runs as Array<{ id: string }>;
  expect(fromPlaybook.map((r) => r.id)).toContain(runId);
  const sorted = (await http('GET', `${stack.gatewayUrl}/api/v1/runs?playbook_id=sort-numbers`, { token: t })).body.runs as Array<{ id: string }>;
  expect(sorted.map((r) => r.id)).not.toContain(runId);
  expect((await http('GET', `${stack.gatewayUrl}/api/v1/runs?playbook_id=no-such-playbook`, { token: t })).body.runs).toEqual([]);
  const empty = await http('GET', `${stack.gatewayUrl}/api/v1/runs?playbook_id=`, { token: t });
  expect(empty.status).toBe(400);
  expect(empty.body.error.violations[0].field).toBe('playbook_id');

  await go('/runs');
  await page.getByRole('link', { name: runId.slice(0, 8) }).waitFor();
  await page.getByLabel('Playbook').selectOption('console-e2e');
  for (const r of fromPlaybook) await page.getByRole('link', { name: r.id.slice(0, 8) }).waitFor();
  // The unfiltered rows stay on screen until the filtered list arrives: wait for it to replace them.
  await page.waitForFunction((n) => document.querySelectorAll('tbody tr').length === n, fromPlaybook.length, { timeout: 15_000 }).catch(() => undefined);
  expect(await page.locator('tbody tr').count()).toBe(fromPlaybook.length);
  await page.getByLabel('Playbook').selectOption('sort-numbers');
  await page.getByRole('link', { name: runId.slice(0, 8) }).waitFor({ state: 'detached' });
  await shot('runs-by-playbook');
  expect(await seriousViolations()).toEqual([]);
});

it('writes a workspace document (an empty title shows its error under the field) and reads it back', async () => {
  await go('/workspace');
  await page.getByLabel('Folder name').fill('Reports');
  await page.getByRole('button', { name: 'Create folder' }).click();
  await page.locator('[data-folder="/Reports"]').waitFor();
  const form = page.getByRole('form', { name: 'New document' });
  await form.getByLabel('Content', { exact: true }).fill('# Sorted\n\n1, 2, 3');
  await form.getByRole('button', { name: 'Save document' }).click();
  const titleError = form.locator('.field:has(input[aria-invalid=true]) .field-error');
  await titleError.waitFor();
  await form.getByLabel('Title').fill('Sorted numbers');
  await form.getByLabel('Folder').selectOption({ label: '/Reports' });
  await form.getByRole('button', { name: 'Save document' }).click();
  await page.getByRole('button', { name: 'Open Sorted numbers' }).click();
  await page.getByRole('region', { name: 'Document Sorted numbers' }).getByText('1, 2, 3').waitFor();
  const docs = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/workspace/documents`, { token: await token() })).body.documents;
  expect(docs.find((d: any) => d.title === 'Sorted numbers').folder_path).toBe('/Reports');
  await shot('workspace');
  expect(await seriousViolations()).toEqual([]);
});

it('filters a workspace table on the server and exports the filtered rows through the export route', async () => {
  const me = (await http('POST', `${stack.gatewayUrl}/api/auth/login`, { body: { email: EMAIL, password: PASSWORD } })).body.user.id as string;
  const actions = createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, `127.0.0.1:${stack.services['output-router']!.env.GRPC_PORT}`, {
    auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }),
  });
  await call(
    actions.execute({
      action: 'save_to_workspace',
      inputs: { data: [{ id: 1, name: 'River trust' }, { id: 2, name: 'Hill fund' }, { id: 3, name: 'Lake fund' }] },
      params: { table_name: 'grants' },
      idempotencyKey: '',
      principal: { userId: me, teamIds: [] },
      timeoutMs: 10_000,
      runId: '',
      nodeId: '',
      attempt: 1,
    }),
  );
  await go('/');
  await go('/workspace');
  await page.getByRole('button', { name: 'Open table grants' }).click();
  const panel = page.getByRole('region', { name: 'Table grants' });
  await panel.getByRole('cell', { name: 'Lake fund' }).waitFor();
  await panel.getByLabel('Filter column').selectOption('name');
  await panel.getByLabel('Equals').fill('Hill fund');
  await panel.getByRole('button', { name: 'Filter', exact: true }).click();
  await panel.getByText('1 rows loaded where name = Hill fund').waitFor();
  expect(await panel.getByRole('cell', { name: 'Lake fund' }).count()).toBe(0);
  await panel.getByLabel('Export format').selectOption('csv');
  await panel.getByRole('button', { name: 'Export filtered rows' }).click();
  await panel.getByRole('status').getByText(/Exported grants_.*\.csv/).waitFor();
  await page.getByRole('button', { name: /^Download grants_.*\.csv$/ }).waitFor();
  const t = await token();
  const [exp] = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/workspace/exports`, { token: t })).body.exports;
  expect(exp.format).toBe('csv');
  const file = await fetch(`${stack.gatewayUrl}${exp.download_url}`, { headers: { authorization: `Bearer ${t}` } });
  const text = await file.text();
  expect(text).toContain('Hill fund');
  expect(text).not.toContain('Lake fund');
  await shot('workspace-tables');
  expect(await seriousViolations()).toEqual([]);
});

it('creates a team and adds a member; an unknown email is named under the field', async () => {
  await http('POST', `${stack.gatewayUrl}/api/auth/register`, { body: { email: 'grace@example.com', password: PASSWORD } });
  await go('/teams');
  await page.getByLabel('Team name').fill('Research');
  await page.getByRole('button', { name: 'Create team' }).click();
  const card = page.getByRole('article', { name: 'Team Research' });
  await card.waitFor();
  await card.getByLabel('Add member (email)').fill('nobody@example.com');
  await card.getByRole('button', { name: 'Add' }).click();
  await card.locator('.field-error').waitFor();
  await card.getByLabel('Add member (email)').fill('grace@example.com');
  await card.getByRole('button', { name: 'Add' }).click();
  await card.getByText('grace@example.com · member').waitFor();
  await shot('teams');
  expect(await seriousViolations()).toEqual([]);
});

/** The error shown under the field labelled `label` inside `scope`. */
function errorUnder(scope: ReturnType<Page['locator']>, label: string) {
  return scope.locator('.field').filter({ has: page.getByLabel(label, { exact: true }) }).locator('.field-error');
}

async function fitsNarrowScreen(): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

it('invites to a team (a bad email is named under the field), the invitee registers from the link and joins, and a pending invitation is revoked', async () => {
  await go('/teams');
  await page.getByLabel('Team name').fill('Field team');
  await page.getByRole('button', { name: 'Create team' }).click();
  const card = page.getByRole('article', { name: 'Team Field team' });
  await card.getByText('No pending invitations.').waitFor();
  const form = card.getByRole('form', { name: 'Invite to Field team' });
  await form.getByLabel('Invite (email)').fill('not an email');
  await form.getByRole('button', { name: 'Invite' }).click();
  await errorUnder(form, 'Invite (email)').waitFor();
  expect(await errorUnder(form, 'Invite (email)').textContent()).toContain('email');
  await shot('team-invite-error');

  await form.getByLabel('Invite (email)').fill('lin@example.com');
  await form.getByRole('button', { name: 'Invite' }).click();
  const link = (await card.locator('[data-invite-link]').textContent())!;
  expect(link).toMatch(/\/#invite=/);
  await card.locator('[data-invite="lin@example.com"]').waitFor();
  await form.getByLabel('Invite (email)').fill('mo@example.com');
  await form.getByRole('button', { name: 'Invite' }).click();
  await card.locator('[data-invite="mo@example.com"]').waitFor();
  await shot('team-invites');
  expect(await seriousViolations()).toEqual([]);
  await card.getByRole('button', { name: 'Revoke invitation for mo@example.com' }).click();
  await card.locator('[data-invite="mo@example.com"]').waitFor({ state: 'detached' });
  const teamId = (await http('GET', `${stack.gatewayUrl}/api/v1/teams`, { token: await token() })).body.teams.find((t: any) => t.name === 'Field team').id;
  const pending = (await http('GET', `${stack.gatewayUrl}/api/v1/teams/${teamId}/invites`, { token: await token() })).body.invites;
  expect(pending.map((i: any) => i.email)).toEqual(['lin@example.com']);

  // The invitee opens the link in a tab of their own (its own session): registration, token filled in.
  const invitee = await browser.context.newPage();
  try {
    await invitee.goto(link);
    expect(await invitee.getByLabel('Invitation token').inputValue()).not.toBe('');
    await invitee.getByLabel('Email').fill('lin@example.com');
    await invitee.getByLabel('Password').fill(PASSWORD);
    await invitee.getByRole('button', { name: 'Create an account' }).click();
    await invitee.getByRole('navigation', { name: 'Main' }).waitFor();
    const linToken = await invitee.evaluate(() => sessionStorage.getItem('af.console.token')!);
    const linTeams = (await http('GET', `${stack.gatewayUrl}/api/v1/teams`, { token: linToken })).body.teams;
    expect(linTeams.map((t: any) => [t.name, t.role])).toContainEqual(['Field team', 'member']);
  } finally {
    await invitee.close();
  }
  expect((await http('GET', `${stack.gatewayUrl}/api/v1/teams/${teamId}/invites`, { token: await token() })).body.invites).toEqual([]);
  await page.setViewportSize({ width: 390, height: 800 });
  await shot('narrow-teams');
  expect(await fitsNarrowScreen()).toBe(true);
  await page.setViewportSize({ width: 1280, height: 900 });
});

it('creates an API key shown once (a bad expiry is named under the field), the key works, and revoking it stops it', async () => {
  await go('/api-keys');
  await page.getByText('No API keys yet.').waitFor();
  await page.getByLabel('Key name').fill('billing-service');
  await page.getByLabel('Expires in days (empty: never)').fill('0');
  await page.getByRole('button', { name: 'Create key' }).click();
  const form = page.getByRole('form', { name: 'New API key' });
  await errorUnder(form, 'Expires in days (empty: never)').waitFor();
  expect(await errorUnder(form, 'Expires in days (empty: never)').textContent()).toContain('at least 1');
  await shot('api-key-error');
  await page.getByLabel('Expires in days (empty: never)').fill('30');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.locator('[data-new-key] code').textContent())!;
  expect(key).toMatch(/^afk_/);
  const row = page.locator('[data-api-key="billing-service"]');
  await row.waitFor();
  expect(await row.textContent()).toContain(key.slice(0, 12));
  expect(await row.textContent()).not.toContain(key);
  await shot('api-keys');
  expect(await seriousViolations()).toEqual([]);
  expect((await http('GET', `${stack.gatewayUrl}/api/v1/runs`, { token: key })).status).toBe(200);
  await row.getByRole('button', { name: 'Revoke billing-service' }).click();
  await row.getByText(/revoked/).waitFor();
  expect((await http('GET', `${stack.gatewayUrl}/api/v1/runs`, { token: key })).status).toBe(401);
  // Leaving the page forgets the key: it is never shown again.
  await go('/runs');
  await go('/api-keys');
  await row.waitFor();
  expect(await page.locator('[data-new-key]').count()).toBe(0);
  await page.setViewportSize({ width: 390, height: 800 });
  await shot('narrow-api-keys');
  expect(await fitsNarrowScreen()).toBe(true);
  await page.setViewportSize({ width: 1280, height: 900 });
});

it('creates a monitor from the page and edits it; a wrong interval and time zone are named under their fields', async () => {
  const t = await token();
  const yaml = `id: orgs-watch
name: Orgs watch
version: "1.0"
steps:
  - name: detect
    step_type: tool
    action: detect_new_files
    inputs: { folder_id: /Reports }
`;
  const saved = await http('POST', `${stack.gatewayUrl}/api/agent-factory/playbooks`, { token: t, body: { yaml } });
  expect(saved.status).toBe(201);
  await go('/runs');
  await go('/schedules');
  await page.getByRole('button', { name: 'New monitor…' }).click();
  const form = page.getByRole('form', { name: 'New monitor' });
  // Polls fall outside these hours (12 h from now), so nothing fires while the test runs.
  const hour = String((new Date().getUTCHours() + 12) % 24).padStart(2, '0');
  await form.getByLabel('Name').fill('Orgs watch');
  await form.getByLabel('Playbook').fill('orgs-watch');
  await form.getByLabel('Interval').fill('30s');
  await form.getByLabel('From (HH:MM)').fill(`${hour}:00`);
  await form.getByLabel('Until (HH:MM)').fill(`${hour}:30`);
  await form.getByRole('button', { name: 'Create monitor' }).click();
  await errorUnder(form, 'Interval').waitFor();
  expect(await errorUnder(form, 'Interval').textContent()).toContain('1m');
  await shot('monitor-form-error');
  expect(await seriousViolations()).toEqual([]);
  await form.getByLabel('Interval').fill('1h');
  await form.getByRole('button', { name: 'Create monitor' }).click();
  const card = page.getByRole('article', { name: 'Monitor Orgs watch' });
  await card.getByText(/every 1h/).waitFor();
  const created = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/monitors`, { token: t })).body.monitors.find((m: any) => m.name === 'Orgs watch');
  expect(created.definition.target.playbook_id).toBe('orgs-watch');
  expect(created.monitor_config).toMatchObject({ interval: 3_600_000, active_hours: { start: `${hour}:00`, end: `${hour}:30`, timezone: 'UTC' } });

  await card.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit monitor Orgs watch' });
  expect(await edit.getByLabel('Interval').inputValue()).toBe('1h');
  await edit.getByLabel('Interval').fill('2h');
  await edit.getByLabel('Time zone').fill('Mars/Olympus');
  await edit.getByRole('button', { name: 'Save monitor' }).click();
  await errorUnder(edit, 'Time zone').waitFor();
  expect(await errorUnder(edit, 'Time zone').textContent()).toContain('time zone');
  await shot('monitor-edit-error');
  await edit.getByLabel('Time zone').fill('Europe/Berlin');
  await edit.getByRole('button', { name: 'Save monitor' }).click();
  await card.getByText(/every 2h/).waitFor();
  const updated = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/monitors/${created.id}`, { token: t })).body.monitor;
  expect(updated.monitor_config).toMatchObject({ interval: 7_200_000, active_hours: { timezone: 'Europe/Berlin' } });
  expect(updated.definition.target.playbook_id).toBe('orgs-watch');
  await shot('monitor-edited');
  expect(await seriousViolations()).toEqual([]);
  await page.setViewportSize({ width: 390, height: 800 });
  await shot('narrow-monitors');
  expect(await fitsNarrowScreen()).toBe(true);
  await page.setViewportSize({ width: 1280, height: 900 });
});

it('edits a connector as YAML (a wrong value is named with its line while typing) and binds it to an agent', async () => {
  await go('/connectors');
  await page.getByRole('button', { name: 'Edit YAML of Orgs API' }).click();
  const form = page.getByRole('form', { name: 'Edit Orgs API' });
  const yaml = form.getByLabel('Connector YAML');
  await page.locator('#connector-validation[data-valid=true]').waitFor();
  const good = await yaml.inputValue();
  await yaml.fill(good.replace('method: GET', 'method: FETCH'));
  const problem = page.locator('#connector-validation .problems li');
  await problem.first().waitFor();
  expect(await problem.first().textContent()).toMatch(/method/);
  await shot('connector-yaml-error');
  expect(await seriousViolations()).toEqual([]);
  await yaml.fill(good.replace('Organisations (a local fixture)', 'Organisations, edited in the console'));
  await page.locator('#connector-validation[data-valid=true]').waitFor();
  await form.getByRole('button', { name: 'Save connector' }).click();
  await form.getByText('Saved.').waitFor();
  const t = await token();
  expect((await http('GET', `${stack.gatewayUrl}/api/agent-factory/connectors/orgs-api`, { token: t })).body.connector.description).toBe('Organisations, edited in the console');

  await page.getByRole('button', { name: 'Bindings of Orgs API' }).click();
  const panel = page.getByRole('region', { name: 'Bindings of Orgs API' });
  const sorter = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/resolve-handle?handle=sorter`, { token: t })).body;
  await panel.getByLabel('Agent', { exact: true }).selectOption(sorter.agent_profile_id);
  await panel.getByLabel(/Allowed endpoints/).fill('search_orgs');
  await panel.getByRole('button', { name: 'Bind' }).click();
  await panel.locator('[data-binding="@sorter"]').waitFor();
  await shot('connector-bindings');
  const { body } = await http('GET', `${stack.gatewayUrl}/api/agent-factory/connectors/bindings`, { token: t });
  expect(body.bindings).toEqual([expect.objectContaining({ connector_id: 'orgs-api', allowed_endpoints: ['search_orgs'] })]);
});

it('shows an agent\'s journal, edits its profile (bad output config JSON under the field) and shares it with a team', async () => {
  const t = await token();
  const agent = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/resolve-handle?handle=sorter`, { token: t })).body;
  await go('/agents');
  await page.getByRole('link', { name: agent.name }).first().click();
  await page.getByRole('heading', { name: /@sorter/ }).waitFor();
  await page.locator('[data-journal-entry]').first().waitFor();
  expect(await page.locator('[data-journal-entry]').first().textContent()).toMatch(/complete/);
  const form = page.getByRole('form', { name: 'Edit the profile' });
  await form.getByLabel(/^Output config/).fill('{ "destinations": [');
  await form.getByRole('button', { name: 'Save profile' }).click();
  await form.locator('.field-error', { hasText: 'is not valid JSON' }).waitFor();
  await form.getByLabel(/^Output config/).fill('{}');
  await form.getByLabel('Description').fill('Sorts what it is given');
  await form.getByRole('button', { name: 'Save profile' }).click();
  await form.getByText('Saved.').waitFor();
  expect((await http('GET', `${stack.gatewayUrl}/api/agent-factory/profiles/${agent.agent_profile_id}`, { token: t })).body.profile.description).toBe('Sorts what it is given');

  const sharing = page.getByRole('form', { name: 'Share with a team' });
  await sharing.getByLabel('Team').selectOption({ label: 'Research' });
  await sharing.getByLabel('Journal visibility').selectOption('full');
  await sharing.getByRole('button', { name: 'Share' }).click();
  await page.getByRole('listitem', { name: 'Shared with Research' }).waitFor();
  await shot('agent-detail');
  expect(await seriousViolations()).toEqual([]);
  const shares = (await http('GET', `${stack.gatewayUrl}/api/agent-factory/profiles/${agent.agent_profile_id}/shares`, { token: t })).body.shares;
  expect(shares).toEqual([expect.objectContaining({ access_level: 'use', journal_visibility: 'full' })]);
});

it('works on a narrow screen: the menu opens and the run graph is reachable', async () => {
  await page.setViewportSize({ width: 390, height: 800 });
  await go(`/runs/${runId}`);
  await page.locator('[data-node=top][data-status=completed]').waitFor();
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' }).waitFor();
  await shot('narrow-run');
  await page.setViewportSize({ width: 1280, height: 900 });
});

async function token(): Promise<string> {
  return page.evaluate(() => sessionStorage.getItem('af.console.token')!);
}
