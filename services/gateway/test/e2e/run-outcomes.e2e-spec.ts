/**
 * Honest run outcomes through the gateway (separate processes, real gRPC,
 * PostgreSQL and NATS JetStream, a fixture HTTP API): a run records
 * task_status beside its status; a step reading a failed step's output — and
 * an approval whose preview is that output, and what waits behind it — is
 * skipped `upstream_failed`; the `complete` frame, GET /runs/:id, GET /runs
 * and /executions (filtered by task_status) carry the outcome.
 */
import { readSse, registerUser } from '@af/testing';
import { connectorYaml, http, routeFixtureApi, SECRET, startFixtureServer, startStack, waitForRun, type FixtureServer, type Stack } from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let token: string;

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  stack = await startStack();
  token = (await registerUser(stack.gatewayUrl, 'outcomes@example.com')).token;
  const res = await http('POST', url('/api/agent-factory/connectors'), { token, body: { yaml: connectorYaml(api.url), credentials: { api_key: SECRET } } });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

const url = (path: string) => `${stack.gatewayUrl}${path}`;

const filingsStep = (name: string, ein: string, extra = '') => `
  - name: ${name}
    step_type: tool
    action: call_connector
    connector: fixture-api
    endpoint: get_filings
    inputs:
      ein: "${ein}"
    output_key: ${name}_out${extra}`;

/** find_org → get_filings (fails for "Broken", on_error: skip by default) → review (approval previewing the filings) → again → summary (reads the filings). */
const PIPELINE = `
id: outcome-pipeline
name: Outcome pipeline
version: "1.0"
inputs:
  - name: org_name
    type: string
    required: true
steps:
  - name: find_org
    step_type: tool
    action: call_connector
    connector: fixture-api
    endpoint: search_orgs
    inputs:
      q: "{org_name}"
    output_key: orgs
  - name: get_filings
    step_type: tool
    action: call_connector
    connector: fixture-api
    endpoint: get_filings
    inputs:
      ein: "{orgs.results[0].ein}"
    output_key: filings
  - name: review
    step_type: approval
    prompt: "Publish {filings.count} filings?"
    preview_from: filings
  - name: again
    step_type: tool
    action: call_connector
    connector: fixture-api
    endpoint: search_orgs
    inputs:
      q: "{org_name}"
    output_key: again
`;

const ALL_FAIL = `
id: all-fail
name: Every step fails
version: "1.0"
steps:${filingsStep('first', 'ein-broken')}${filingsStep('second', 'ein-broken')}
`;

const ONE_SKIPPED = `
id: one-skipped
name: One failing step under on_error skip
version: "1.0"
steps:${filingsStep('good', 'ein-acme')}${filingsStep('bad', 'ein-broken', '\n    on_error: skip')}
`;

async function runPlaybook(playbook: string, inputs: Record<string, unknown> = {}): Promise<any> {
  const res = await http('POST', url('/api/v1/runs'), { token, body: { playbook, inputs } });
  expect(res.status).toBe(201);
  return waitForRun(stack, token, res.body.run.id);
}

const steps = (run: any) => Object.fromEntries(run.nodes.map((n: any) => [n.node_id, [n.status, n.skip_reason]]));

describe('run outcomes', () => {
  const ids: Record<string, string> = {};

  // First: failures open the connector's circuit breaker after a few in a row (then even find_org could not run).
  it('a run that did its job is complete', async () => {
    const run = await runPlaybook(PIPELINE.replace(/  - name: review[\s\S]*$/, ''), { org_name: 'Acme' });
    ids.complete = run.id;
    expect(run).toMatchObject({ status: 'completed', task_status: 'complete', steps_completed: 2, steps_failed: 0, steps_skipped: 0, error_summary: null });
  });

  it('a run whose one failing step is on_error: skip completes with task_status partial, naming the step', async () => {
    const run = await runPlaybook(ONE_SKIPPED);
    ids.partial = run.id;
    expect(run.status).toBe('completed');
    expect(steps(run)).toEqual({ good: ['completed', null], bad: ['failed', null] });
    expect(run).toMatchObject({ task_status: 'partial', steps_completed: 1, steps_failed: 1, steps_skipped: 0 });
    expect(run.error_summary).toMatch(/^bad failed: .*(500|unavailable)/i);
  });

  it('a step reading a failed step is skipped upstream_failed; so is an approval previewing it, and what waits behind that approval', async () => {
    const run = await runPlaybook(PIPELINE, { org_name: 'Broken' });
    ids.upstream = run.id;
    expect(run.status).toBe('completed');
    expect(steps(run)).toEqual({
      find_org: ['completed', null],
      get_filings: ['failed', null],
      review: ['skipped', 'upstream_failed'],
      again: ['skipped', 'upstream_failed'],
    });
    const node = (id: string) => run.nodes.find((n: any) => n.node_id === id);
    expect(node('review').error).toMatch(/^upstream step 'get_filings' failed: /);
    expect(node('again').error).toMatch(/^upstream step 'review' was skipped because upstream step 'get_filings' failed: /);
    expect(run).toMatchObject({ task_status: 'partial', steps_completed: 1, steps_failed: 1, steps_skipped: 2 });
    expect(run.error_summary).toContain('get_filings failed: ');
    expect(run.error_summary).toContain("review skipped: upstream step 'get_filings' failed");
    // No person was asked about filings that do not exist.
    const approvals = await http('GET', url(`/api/agent-factory/approvals?run_id=${run.id}&status=all`), { token });
    expect(approvals.status).toBe(200);
    expect(approvals.body.approvals).toEqual([]);
  });

  it('the complete frame carries the outcome, and the node_complete of a skipped step names its upstream', async () => {
    const sse = await readSse(url(`/api/v1/runs/${ids.upstream}/events`), { authorization: `Bearer ${token}` }, { until: (f) => f.event === 'complete' });
    const frames = sse.frames.map((f) => JSON.parse(f.data));
    const complete = frames.at(-1)!;
    expect(complete.type).toBe('complete');
    expect(complete.payload).toMatchObject({ status: 'completed', task_status: 'partial', steps_completed: 1, steps_failed: 1, steps_skipped: 2 });
    expect(complete.payload.error_summary).toContain('get_filings failed');
    const skip = frames.find((f) => f.type === 'node_complete' && f.nodeId === 'review');
    expect(skip.payload).toMatchObject({ skipped: true, reason: 'upstream_failed', upstream: 'get_filings' });
  });

  it('a run whose steps all fail completes with task_status error', async () => {
    const run = await runPlaybook(ALL_FAIL);
    ids.error = run.id;
    expect(run.status).toBe('completed');
    expect(run).toMatchObject({ task_status: 'error', steps_completed: 0, steps_failed: 2, steps_skipped: 0 });
    expect(run.error_summary).toMatch(/^first failed: .*; second failed: /);
  });

  it('GET /runs and /executions filter by task_status and carry it on every row', async () => {
    const list = async (path: string) => {
      const res = await http('GET', url(path), { token });
      expect(res.status).toBe(200);
      return res.body.runs as any[];
    };
    const partial = await list('/api/v1/runs?task_status=partial');
    expect(partial.map((r) => r.id).sort()).toEqual([ids.partial, ids.upstream].sort());
    expect(partial.every((r) => r.task_status === 'partial' && r.steps_failed === 1)).toBe(true);
    const bad = await list('/api/v1/runs?task_status=partial,error');
    expect(bad.map((r) => r.id).sort()).toEqual([ids.partial, ids.upstream, ids.error].sort());
    expect((await list('/api/agent-factory/executions?task_status=error')).map((r) => r.id)).toEqual([ids.error]);
    expect((await list('/api/agent-factory/executions?task_status=complete&status=completed')).map((r) => r.id)).toEqual([ids.complete]);
    const all = await list('/api/v1/runs');
    expect(all).toHaveLength(4);
    expect(all.find((r) => r.id === ids.error)).toMatchObject({ task_status: 'error', steps_failed: 2, error_summary: expect.stringContaining('first failed') });
  });

  it('an unknown task_status is a 400 naming the field', async () => {
    for (const path of ['/api/v1/runs?task_status=parital', '/api/agent-factory/executions?task_status=partial,done']) {
      const res = await http('GET', url(path), { token });
      expect(res.status).toBe(400);
      expect(res.body.error.violations[0].field).toMatch(/^task_status/);
      expect(JSON.stringify(res.body)).toContain('awaiting_approval');
    }
  });
});
