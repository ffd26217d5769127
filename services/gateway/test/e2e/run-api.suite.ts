/**
 * The run and playbook API through the gateway, against the real services
 * with either event bus: `memory` (every service in one process with the
 * in-process bus, as `pnpm start` runs them) or `jetstream` (one process per
 * service, NATS JetStream). One stack per bus mode; each mode's file calls
 * {@link runApiSuite}.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ActionDispatcher, ActionServiceModule, createLogger, MemoryActionRecords, ServiceAuth, startGrpcServer, type ActionContext, type GrpcServer } from '@af/service-kit';
import { freePort, readSse, startFixtureServer, type FixtureServer, type SseFrame } from '@af/testing';
import { http, registerAndLogin, startStack, waitForRun, type Stack } from './skeleton.js';

/**
 * A run's stream that missed a frame finds it when it re-reads the event log
 * after a silence (SSE_IDLE_RECHECK_MS). The stack sets that far beyond the
 * test's reach, so a stream gets `complete` here only live from the bus —
 * a stream stalled by another stream's end never would.
 */
const NO_IDLE_RECHECK = { SSE_IDLE_RECHECK_MS: String(30 * 60_000) };

const gate = (id: string, extra = '') => `id: ${id}
name: Gate ${id}
version: "1.0"
inputs:
  - name: topic
    type: string
    required: true
steps:
  - name: confirm
    step_type: approval
    prompt: "Go on with {topic}?"
${extra}`;

const notifyStep = `  - name: tell
    step_type: tool
    action: send_notification
    inputs:
      message: "Done with {topic}"
    params:
      title: Finished
`;

const notifyOnly = `id: notify-only
name: Notify
version: "1.0"
inputs:
  - name: topic
    type: string
    required: true
steps:
  - name: tell
    step_type: tool
    action: send_notification
    inputs:
      message: "Hello {topic}"
`;

/** A CRM whose `create_org` writes (POST) and whose `list_orgs` reads (GET): a dry run may call only the second. */
const crmConnector = (baseUrl: string) => `id: crm
name: CRM
type: rest_api
version: "1.0"
connection:
  base_url: "${baseUrl}"
  auth:
    type: none
endpoints:
  list_orgs:
    method: GET
    path: /orgs
    response_mapping:
      results_path: orgs
  create_org:
    method: POST
    path: /orgs
    parameters:
      - name: name
        type: string
        required: true
        in: body
    response_mapping:
      results_path: created
`;

const crmPlaybook = `id: crm-sync
name: CRM sync
version: "1.0"
inputs:
  - name: org
    type: string
    required: true
steps:
  - name: existing
    step_type: tool
    action: call_connector
    connector: crm
    endpoint: list_orgs
  - name: add
    step_type: tool
    action: call_connector
    connector: crm
    endpoint: create_org
    inputs:
      name: "{org}"
`;

const workflowSteps = [
  { id: 'step1', type: 'transform', params: { operation: 'map', input: '{{input.emails}}', config: { mapping: { email: '{{current.from}}' } } } },
  { id: 'step2', type: 'transform', params: { operation: 'reduce', input: '{{step1.data}}', config: { reducer: 'count' } }, dependencies: ['step1'] },
];

const transformNode = (id: string, dependsOn: string[] = []) => ({
  id,
  kind: 'tool',
  action: 'transform_data',
  inputs: { data: [{ n: 1 }, { n: 2 }, { n: 3 }] },
  params: { operations: [{ type: 'limit', value: 2 }] },
  dependsOn,
});

/** A notification service of this test (ActionService over gRPC): the side effect a dry run must not cause. */
async function startNotifier(serviceAuthSecret: string, notified: ActionContext[]): Promise<{ server: GrpcServer; address: string }> {
  const port = await freePort();
  const handler = {
    name: 'send_notification',
    sideEffects: true,
    execute: async (ctx: ActionContext) => {
      notified.push(ctx);
      return { notification_id: `n-${notified.length}`, success: true };
    },
  };
  const dispatcher = new ActionDispatcher('test-notifier', [handler], new MemoryActionRecords());
  const auth = new ServiceAuth({ secret: serviceAuthSecret, service: 'test-notifier' });
  @Module({})
  class Root {
    static forRoot(): DynamicModule {
      return { module: Root, imports: [ActionServiceModule.forRoot(dispatcher, { auth })] };
    }
  }
  const server = await startGrpcServer({ module: Root.forRoot(), packages: ['action'], host: '127.0.0.1', port, log: createLogger('test-notifier', 'warn'), auth });
  return { server, address: `127.0.0.1:${port}` };
}

export function runApiSuite(bus: 'memory' | 'jetstream'): void {
  let stack: Stack;
  let notifier: GrpcServer;
  let crm: FixtureServer;
  const notified: ActionContext[] = [];
  let token: string;
  let other: string;
  const url = (path: string) => `${stack.gatewayUrl}${path}`;
  const startRun = (body: Record<string, unknown>, as = token) => http('POST', url('/api/v1/runs'), { token: as, body });

  async function waitForStatus(runId: string, status: string, timeoutMs = 20_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const res = await http('GET', url(`/api/v1/runs/${runId}`), { token });
      if (res.body.run?.status === status) return res.body.run;
      if (Date.now() > deadline) throw new Error(`run ${runId} is ${res.body.run?.status}, not ${status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  beforeAll(async () => {
    const serviceAuthSecret = randomBytes(32).toString('hex');
    const served = await startNotifier(serviceAuthSecret, notified);
    notifier = served.server;
    // The planner refuses steps whose action no service serves, so it is told about the served action too.
    const actionServices = `output-router=${served.address}`;
    stack = await startStack({ bus, serviceAuthSecret, env: { orchestrator: { ACTION_SERVICES: actionServices }, planner: { ACTION_SERVICES: actionServices }, gateway: NO_IDLE_RECHECK } });
    token = await registerAndLogin(stack, `runs-${bus}@example.com`);
    other = await registerAndLogin(stack, `other-${bus}@example.com`);
    crm = await startFixtureServer();
    crm.route('GET', '/orgs', { json: { orgs: [{ name: 'Acme' }] } });
    crm.route('POST', '/orgs', { json: { created: [{ name: 'written' }] } });
    const created = await http('POST', url('/api/agent-factory/connectors'), { token, body: { yaml: crmConnector(crm.url), credentials: {} } });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    await stack?.stop();
    await notifier?.close();
    await crm?.close();
  });

  describe(`event streams (${bus} bus)`, () => {
    it('two SSE streams and an approval decided after a third stream ended all get complete live, each frame once and in order', async () => {
      const started = await startRun({ yaml: gate('streams'), inputs: { topic: 'streams' } });
      expect(started.status).toBe(201);
      const runId = started.body.run.id as string;
      const events = url(`/api/v1/runs/${runId}/events`);
      const auth = { authorization: `Bearer ${token}` };

      // Two streams that follow the run to its end, each telling when it saw the approval request.
      const seen: Array<Promise<void>> = [];
      const follow = () => {
        let onRequest!: () => void;
        seen.push(new Promise<void>((resolve) => (onRequest = resolve)));
        return readSse(events, auth, {
          timeoutMs: 60_000,
          until: (f) => {
            if (f.event === 'hitl_request') onRequest();
            return f.event === 'complete';
          },
        });
      };
      const a = follow();
      const b = follow();
      // A third stream ends (the client leaves) once it has seen the request.
      const third = await readSse(events, auth, { until: (f) => f.event === 'hitl_request', timeoutMs: 30_000 });
      expect(third.frames.at(-1)!.event).toBe('hitl_request');
      await Promise.all(seen);

      const decided = await http('POST', url(`/api/v1/runs/${runId}/resume`), { token, body: { decision: 'approve' } });
      expect(decided.status).toBe(200);
      const [ra, rb] = await Promise.all([a, b]);

      for (const r of [ra, rb]) {
        expect(r.status).toBe(200);
        expect(r.frames.at(-1)!.event).toBe('complete');
        const ids = r.frames.map((f: SseFrame) => Number(f.id));
        expect(ids).toEqual([...ids].sort((x, y) => x - y));
        expect(new Set(ids).size).toBe(ids.length);
      }
      expect(ra.frames.map((f) => f.id)).toEqual(rb.frames.map((f) => f.id));
      expect((await waitForRun(stack, token, runId)).status).toBe('completed');
    });
  });

  describe(`POST /api/v1/runs from every front-end (${bus} bus)`, () => {
    it('runs workflow_steps', async () => {
      const res = await startRun({ workflow_steps: workflowSteps, inputs: { emails: [{ from: 'a@x' }, { from: 'b@x' }] } });
      expect(res.status).toBe(201);
      const run = await waitForRun(stack, token, res.body.run.id);
      expect(run.status).toBe('completed');
      expect(run.nodes.map((n: any) => [n.node_id, n.status])).toEqual([
        ['step1', 'completed'],
        ['step2', 'completed'],
      ]);
      expect(run.nodes.map((n: any) => n.output)).toEqual([[{ email: 'a@x' }, { email: 'b@x' }], 2]);
    });

    it('runs a raw PlanGraph', async () => {
      const res = await startRun({ plan: { nodes: [transformNode('first'), transformNode('second', ['first'])] } });
      expect(res.status).toBe(201);
      const run = await waitForRun(stack, token, res.body.run.id);
      expect(run.status).toBe('completed');
      expect(run.nodes.map((n: any) => [n.node_id, n.status, n.output])).toEqual([
        ['first', 'completed', { data: [{ n: 1 }, { n: 2 }], count: 2 }],
        ['second', 'completed', { data: [{ n: 1 }, { n: 2 }], count: 2 }],
      ]);
    });

    it.each([
      ['an unknown field', { yaml: gate('x'), inputs: { topic: 't' }, colour: 'red' }, 'colour', /unknown field/],
      ['both yaml and workflow_steps', { yaml: gate('x'), workflow_steps: workflowSteps }, 'workflow_steps', /exactly one of yaml, playbook_id, workflow_steps, plan/],
      ['no source at all', { inputs: {} }, 'yaml', /exactly one of/],
      ['a misspelt workflow key', { workflow_steps: [workflowSteps[0], { ...workflowSteps[1], dependencies: undefined, depends_on: ['step1'] }] }, 'workflow_steps[1].depends_on', /unknown field 'depends_on'/],
      ['a workflow dependency on a missing step', { workflow_steps: [workflowSteps[0], { ...workflowSteps[1], dependencies: ['stepp1'] }] }, 'workflow_steps[1].dependencies[0]', /stepp1/],
      ['a plan with a cycle', { plan: { nodes: [transformNode('a', ['b']), transformNode('b', ['a'])] } }, 'plan.nodes[0].dependsOn', /circular dependency: a → b → a/],
      ['a plan node with an unknown key', { plan: { nodes: [{ ...transformNode('a'), depends_on: [] }] } }, 'plan.nodes[0].depends_on', /did you mean 'dependsOn'/],
      ['a plan node of an unknown kind', { plan: { nodes: [{ ...transformNode('a'), kind: 'teleport' }] } }, 'plan.nodes[0].kind', /./],
    ])('refuses %s with 400 naming the field', async (_what, body, field, reason) => {
      const res = await startRun(body as Record<string, unknown>);
      expect(res.status).toBe(400);
      expect(res.body.error.violations).toEqual(expect.arrayContaining([expect.objectContaining({ field, reason: expect.stringMatching(reason) })]));
    });

    it('still takes the YAML under its old name `playbook`, saying it is deprecated', async () => {
      const res = await startRun({ playbook: gate('old-name'), inputs: { topic: 'x' } });
      expect(res.status).toBe(201);
      expect(res.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(res.headers.get('warning')).toContain("'playbook' is deprecated: send 'yaml'");
      expect(res.headers.get('link')).toContain('rel="deprecation"');
      const both = await startRun({ playbook: gate('x'), yaml: gate('x') });
      expect(both.status).toBe(400);
      expect(both.body.error.violations[0].field).toBe('playbook');
      await http('POST', url(`/api/v1/runs/${res.body.run.id}/cancel`), { token });
    });
  });

  describe(`playbooks (${bus} bus)`, () => {
    const pb = (path = '') => url(`/api/agent-factory/playbooks${path}`);

    it('PUT stores a new version; a running run keeps the version it started with; GET /versions lists them', async () => {
      const created = await http('POST', pb(), { token, body: { yaml: gate('versioned') } });
      expect(created.status).toBe(201);
      expect(created.body.playbook).toMatchObject({ id: 'versioned', revision: 1 });
      const first = await startRun({ playbook_id: 'versioned', inputs: { topic: 'v1' } });
      expect(first.status).toBe(201);
      await waitForStatus(first.body.run.id, 'waiting');

      const put = await http('PUT', pb('/versioned'), { token, body: { yaml: gate('versioned', notifyStep) } });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ changed: true, playbook: { revision: 2 } });
      const again = await http('PUT', pb('/versioned'), { token, body: { yaml: gate('versioned', notifyStep) } });
      expect(again.body).toMatchObject({ changed: false, playbook: { revision: 2 } });

      // The run started from version 1 ends as version 1: no `tell` step.
      expect((await http('POST', url(`/api/v1/runs/${first.body.run.id}/resume`), { token, body: { decision: 'approve' } })).status).toBe(200);
      const finished = await waitForRun(stack, token, first.body.run.id);
      expect(finished.nodes.map((n: any) => n.node_id)).toEqual(['confirm']);
      // A new run gets version 2; version 1 can still be asked for.
      const second = await startRun({ playbook_id: 'versioned', inputs: { topic: 'v2' } });
      expect((await waitForStatus(second.body.run.id, 'waiting')).nodes.map((n: any) => n.node_id)).toEqual(['confirm', 'tell']);
      const pinned = await startRun({ playbook_id: 'versioned', playbook_revision: 1, inputs: { topic: 'v1 again' } });
      expect((await waitForStatus(pinned.body.run.id, 'waiting')).nodes.map((n: any) => n.node_id)).toEqual(['confirm']);
      for (const r of [second, pinned]) await http('POST', url(`/api/v1/runs/${r.body.run.id}/cancel`), { token });

      const versions = await http('GET', pb('/versioned/versions'), { token });
      expect(versions.body.versions.map((v: any) => v.revision)).toEqual([2, 1]);
      expect((await http('GET', pb('/versioned?revision=1'), { token })).body.playbook.yaml).toBe(gate('versioned'));
    });

    it('refuses a PUT whose YAML names another id, unknown body fields, and PUT of a playbook the caller does not have', async () => {
      const mismatch = await http('PUT', pb('/versioned'), { token, body: { yaml: gate('something-else') } });
      expect(mismatch.status).toBe(400);
      expect(mismatch.body.error.violations).toEqual([expect.objectContaining({ field: 'yaml.id', reason: expect.stringContaining("'something-else'") })]);
      const extra = await http('PUT', pb('/versioned'), { token, body: { yaml: gate('versioned'), name: 'x' } });
      expect(extra.status).toBe(400);
      expect(extra.body.error.violations).toEqual([expect.objectContaining({ field: 'name', reason: expect.stringMatching(/^unknown field/), code: 'unknown_field' })]);
      expect((await http('PUT', pb('/versioned'), { token: other, body: { yaml: gate('versioned') } })).status).toBe(404);
    });

    it('validates a stored playbook, or YAML meant to replace it', async () => {
      const stored = await http('POST', pb('/versioned/validate'), { token, body: {} });
      expect(stored.status).toBe(200);
      expect(stored.body).toMatchObject({ valid: true, errors: [] });
      expect(stored.body.results.map((r: any) => r.step)).toEqual(['confirm', 'tell']);
      const wrongId = await http('POST', pb('/versioned/validate'), { token, body: { yaml: gate('nope') } });
      expect(wrongId.body).toMatchObject({ valid: false, errors: [expect.objectContaining({ field: 'yaml.id' })] });
      expect((await http('POST', pb('/versioned/validate'), { token: other, body: {} })).status).toBe(404);
    });

    it('GET /graph gives steps, edges and types', async () => {
      const res = await http('GET', pb('/versioned/graph'), { token });
      expect(res.status).toBe(200);
      expect(res.body.graph).toMatchObject({ playbook_id: 'versioned', revision: 2, levels: [['confirm'], ['tell']], edges: [{ from: 'confirm', to: 'tell', kind: 'depends_on' }] });
      expect(res.body.graph.nodes.map((n: any) => [n.id, n.kind, n.step_type, n.side_effect])).toEqual([
        ['confirm', 'approval', 'approval', false],
        ['tell', 'tool', 'tool', true],
      ]);
      expect(res.body.graph.nodes[1].outputs).toEqual({ notification_id: 'string', success: 'boolean' });
    });

    it('POST /test runs a dry run: side-effecting steps are skipped with reason dry_run and their would-be inputs', async () => {
      expect((await http('POST', pb(), { token, body: { yaml: notifyOnly } })).status).toBe(201);
      const res = await http('POST', pb('/notify-only/test'), { token, body: { inputs: { topic: 'dry' } } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ dry_run: { allow_side_effects: false }, revision: 1 });
      const run = await waitForRun(stack, token, res.body.run.id);
      expect(run.status).toBe('completed');
      expect(run.nodes).toEqual([expect.objectContaining({ node_id: 'tell', status: 'skipped', skip_reason: 'dry_run' })]);
      const events = await readSse(url(`/api/v1/runs/${run.id}/events`), { authorization: `Bearer ${token}` }, { until: (f) => f.event === 'complete', timeoutMs: 20_000 });
      const skipped = events.frames.map((f) => JSON.parse(f.data)).find((f) => f.type === 'node_complete' && f.nodeId === 'tell');
      expect(skipped.payload).toMatchObject({ skipped: true, reason: 'dry_run', action: 'send_notification', would_be_inputs: { message: 'Hello dry' } });
      expect(notified.filter((c) => c.runId === run.id)).toEqual([]);

      const bad = await http('POST', pb('/notify-only/test'), { token, body: { inputs: {}, allow_side_efects: true } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.violations).toEqual([expect.objectContaining({ field: 'allow_side_efects' })]);
    });

    it('POST /test calls connector endpoints that only read, and skips one that writes (POST) before any request goes out', async () => {
      const saved = await http('POST', pb(), { token, body: { yaml: crmPlaybook } });
      expect(saved.status).toBe(201);
      const before = crm.requests.length;
      const res = await http('POST', pb('/crm-sync/test'), { token, body: { inputs: { org: 'Globex' } } });
      expect(res.status).toBe(201);
      const run = await waitForRun(stack, token, res.body.run.id);
      expect(run.status).toBe('completed');
      expect(run.nodes.map((n: any) => [n.node_id, n.status, n.skip_reason])).toEqual([
        ['existing', 'completed', null],
        ['add', 'skipped', 'dry_run'],
      ]);
      // The GET went out; the POST never did.
      expect(crm.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /orgs']);
      const events = await readSse(url(`/api/v1/runs/${run.id}/events`), { authorization: `Bearer ${token}` }, { until: (f) => f.event === 'complete', timeoutMs: 20_000 });
      const skipped = events.frames.map((f) => JSON.parse(f.data)).find((f) => f.type === 'node_complete' && f.nodeId === 'add');
      expect(skipped.payload).toMatchObject({
        skipped: true,
        reason: 'dry_run',
        action: 'call_connector',
        connector: 'crm',
        endpoint: 'create_org',
        why: expect.stringContaining('it sends POST requests'),
        would_be_inputs: { name: 'Globex' },
      });

      // With side effects allowed, the write goes out.
      const wet = await http('POST', pb('/crm-sync/test'), { token, body: { inputs: { org: 'Initech' }, allow_side_effects: true } });
      const wetRun = await waitForRun(stack, token, wet.body.run.id);
      expect(wetRun.nodes.map((n: any) => [n.node_id, n.status])).toEqual([
        ['existing', 'completed'],
        ['add', 'completed'],
      ]);
      expect(crm.requests.filter((r) => r.method === 'POST').map((r) => JSON.parse(r.body))).toEqual([{ name: 'Initech' }]);
    });

    it('POST /test with allow_side_effects runs the side-effecting steps', async () => {
      const res = await http('POST', pb('/notify-only/test'), { token, body: { inputs: { topic: 'wet' }, allow_side_effects: true } });
      expect(res.status).toBe(201);
      const run = await waitForRun(stack, token, res.body.run.id);
      expect(run.nodes).toEqual([expect.objectContaining({ node_id: 'tell', status: 'completed', skip_reason: null, output: { notification_id: expect.any(String), success: true } })]);
      expect(notified.filter((c) => c.runId === run.id).map((c) => c.inputs)).toEqual([{ message: 'Hello wet' }]);
    });

    it("DELETE removes the caller's playbook; someone else's is 404", async () => {
      expect((await http('DELETE', pb('/versioned'), { token: other })).status).toBe(404);
      expect((await http('DELETE', pb('/versioned'), { token })).status).toBe(204);
      expect((await http('GET', pb('/versioned'), { token })).status).toBe(404);
      expect((await http('GET', pb('/versioned/versions'), { token })).status).toBe(404);
      expect((await http('DELETE', pb('/versioned'), { token })).status).toBe(404);
    });
  });
}
