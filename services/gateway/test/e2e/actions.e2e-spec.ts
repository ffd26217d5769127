/**
 * Action dispatch through the gateway, across processes (gateway, planner,
 * orchestrator, connector-runtime, the example Slack webhook plugin; real
 * gRPC, PostgreSQL, NATS, and an HTTP server standing in for Slack). The
 * stack wires connector-runtime into ACTION_SERVICES of the planner and the
 * orchestrator, as `pnpm start` and the deployments do, and no other action
 * service: a playbook naming a built-in action nobody serves here is refused
 * at validate and at run start (`action_unavailable`, naming the step, the
 * action and its owner), `GET /actions` marks availability, and a plugin
 * tool runs end to end as a playbook step and as a `{plugin, action}` node.
 *
 * Needs `pnpm build` (the plugin's dist included).
 */
import { randomBytes } from 'node:crypto';
import { orchestrator, type plan as wire } from '@af/contracts';
import { AppError, call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { freePort, http, PluginProcess, registerUser, startFixtureServer, startStack, until, type FixtureServer, type GatewayUser, type Stack } from '@af/testing';
import { waitForRun } from './skeleton.js';

const TOKEN = randomBytes(24).toString('hex');
const HOOK_PATH = '/services/T0GW/B0GW/gateway-webhook-path';

let stack: Stack;
let slack: FixtureServer;
let plugin: PluginProcess;
let alice: GatewayUser;

const url = (path: string) => `${stack.gatewayUrl}${path}`;

const playbook = (action: string, inputs: string) => `id: notify-team
name: Notify the team
steps:
  - name: shaped
    step_type: tool
    action: transform_data
    inputs: { data: [{ title: Q3 }] }
  - name: sent
    step_type: tool
    action: ${action}
    inputs: ${inputs}
`;
const unserved = playbook('search_documents', '{ query: filings }');
const pluginStep = playbook('post_message', "{ text: 'Report {shaped.count} ready' }");

beforeAll(async () => {
  slack = await startFixtureServer();
  slack.route('POST', HOOK_PATH, { body: 'ok' });
  stack = await startStack({
    env: {
      'connector-runtime': { PLUGIN_REGISTRATION_TOKEN: TOKEN, PLUGIN_HEARTBEAT_SECONDS: '1' },
      // A plugin registered after start is seen within a second.
      planner: { ACTION_REFRESH_MS: '1000' },
    },
  });
  plugin = new PluginProcess({
    PLUGIN_HOST: '127.0.0.1',
    PLUGIN_PORT: String(await freePort()),
    PLUGIN_REGISTRY_URL: `127.0.0.1:${stack.services['connector-runtime'].env.GRPC_PORT}`,
    PLUGIN_REGISTRATION_TOKEN: TOKEN,
    SLACK_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'debug',
  });
  await plugin.start();
  alice = await registerUser(stack.gatewayUrl, 'alice-actions@example.com');
  const enabled = await http('POST', url('/api/agent-factory/plugins/slack-webhook/enable'), { token: alice.token, body: { config: { webhook_url: `${slack.url}${HOOK_PATH}` } } });
  expect(enabled.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await plugin?.kill();
  await stack?.stop();
  await slack?.close();
});

/** A plan of tool nodes as the wire carries it (what the planner's compilers send to StartRun). */
const toolPlan = (nodes: Array<Record<string, unknown>>): wire.PlanGraph =>
  ({
    irVersion: 1,
    version: 1,
    executionMode: 3,
    runContext: 1,
    approvalPolicy: 1,
    inputs: [],
    metadata: {},
    nodes: nodes.map((n) => ({ kind: 1, inputs: {}, params: {}, conditionDialect: 0, dependsOn: [], routes: [], elseTo: [], ...n })),
  }) as unknown as wire.PlanGraph;

const runsOf = async () => Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM orchestrator.runs'))[0]!.n);

describe('an action no service of this deployment serves', () => {
  it('is refused at /playbooks/validate with action_unavailable naming the step, the action and its owner', async () => {
    const res = await http('POST', url('/api/agent-factory/playbooks/validate'), { token: alice.token, body: { yaml: unserved } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: false });
    // Reported like every validation error: with the step and where it is in the YAML.
    expect(res.body.errors).toEqual([
      {
        field: 'steps[1].action',
        code: 'action_unavailable',
        reason: "action 'search_documents' is not available in this deployment: it is served by entity-resolution, which is not among the services this deployment is configured with (ACTION_SERVICES)",
        step: 'sent',
        line: 10,
        column: 13,
      },
    ]);
  });

  it('is refused at POST /api/v1/runs with 400, and no run is created', async () => {
    const before = await runsOf();
    const res = await http('POST', url('/api/v1/runs'), { token: alice.token, body: { playbook: unserved, inputs: {} } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_ARGUMENT');
    expect(res.body.error.violations).toEqual([expect.objectContaining({ field: 'steps[1].action', code: 'action_unavailable', reason: expect.stringContaining('entity-resolution') })]);
    expect(await runsOf()).toBe(before);
  });

  it('is refused by the orchestrator StartRun for a caller sending a plan (INVALID_ARGUMENT, the same code)', async () => {
    const runs = createGrpcClient<orchestrator.OrchestratorServiceClient>('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, {
      auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }),
    });
    const plan = toolPlan([{ id: 'search', action: 'search_documents', inputs: { query: 'x' } }, { id: 'ping', action: 'ping', params: { plugin: 'slack-webhook' } }]);
    const before = await runsOf();
    const err = await call(runs.startRun({ principal: { userId: alice.id, teamIds: [] }, plan, inputs: {}, runContext: '', idempotencyKey: '', outputContract: undefined, goalCondition: [], policies: [] })).then(
      () => undefined,
      (e: unknown) => e as AppError,
    );
    expect(err?.code).toBe('INVALID_ARGUMENT');
    expect(err?.violations).toEqual([
      { field: 'plan.nodes.search.action', code: 'action_unavailable', reason: expect.stringContaining("action 'search_documents' is not available in this deployment: it is served by entity-resolution") },
      { field: 'plan.nodes.ping.action', code: 'action_unavailable', reason: expect.stringContaining("no registered plugin 'slack-webhook' has a tool 'ping'") },
    ]);
    expect(await runsOf()).toBe(before);
  });
});

describe('GET /api/agent-factory/actions', () => {
  it('marks each action available or not, naming who serves and who owns it', async () => {
    const res = await http('GET', url('/api/agent-factory/actions'), { token: alice.token });
    expect(res.status).toBe(200);
    const byName = new Map<string, any>(res.body.actions.map((a: any) => [a.name, a]));
    expect(byName.get('transform_data')).toMatchObject({ available: true, owner: 'orchestrator' });
    expect(byName.get('transform_data').served_by).toBeUndefined();
    expect(byName.get('synthesize_report')).toMatchObject({ available: true });
    expect(byName.get('search_documents')).toMatchObject({ available: false, owner: 'entity-resolution' });
    expect(byName.get('save_to_workspace')).toMatchObject({ available: false, owner: 'output-router' });
    expect(res.body.actions.every((a: any) => typeof a.available === 'boolean')).toBe(true);
  });

  it('lists plugin tools with their schemas under category plugin:<name>, served by connector-runtime', async () => {
    const one = await until('post_message in GET /actions', async () => {
      const res = await http('GET', url('/api/agent-factory/actions/post_message'), { token: alice.token });
      return res.status === 200 ? res.body.action : undefined;
    });
    expect(one).toMatchObject({
      name: 'post_message',
      category: 'plugin:slack-webhook',
      step_type: 'tool',
      available: true,
      served_by: 'connector-runtime',
      owner: 'connector-runtime',
      inputs: { text: { type: 'string', required: true }, channel: { type: 'string' } },
    });
    const plugins = await http('GET', url('/api/agent-factory/actions?category=plugin:slack-webhook'), { token: alice.token });
    expect(plugins.body.actions.map((a: any) => a.name)).toEqual(['post_message']);
  });
});

describe('a plugin tool', () => {
  it('runs as a {plugin, action} node of a plan sent to StartRun', async () => {
    const runs = createGrpcClient<orchestrator.OrchestratorServiceClient>('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, {
      auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }),
    });
    const plan = toolPlan([{ id: 'post', action: 'post_message', inputs: { text: 'From a workflow step' }, params: { plugin: 'slack-webhook' } }]);
    const before = slack.count('POST', HOOK_PATH);
    // The orchestrator lists connector-runtime's actions at start, before the plugin registered, and asks again on a miss.
    const run = await until('the orchestrator serves the plugin tool', async () => {
      try {
        return (await call(runs.startRun({ principal: { userId: alice.id, teamIds: [] }, plan, inputs: {}, runContext: '', idempotencyKey: '', outputContract: undefined, goalCondition: [], policies: [] }))).run;
      } catch (err) {
        if ((err as AppError).violations?.[0]?.code === 'action_unavailable') return undefined;
        throw err;
      }
    });
    const done = await waitForRun(stack, alice.token, run.id);
    expect([done.status, done.error]).toEqual(['completed', null]);
    expect(slack.count('POST', HOOK_PATH) - before).toBe(1);
    expect(JSON.parse(slack.requestsTo('POST', HOOK_PATH).at(-1)!.body)).toEqual({ text: 'From a workflow step' });
  });

  it('validates and runs end to end as a playbook step, posting once through the plugin', async () => {
    const validated = await until('the plugin tool validates', async () => {
      const res = await http('POST', url('/api/agent-factory/playbooks/validate'), { token: alice.token, body: { yaml: pluginStep } });
      return res.body.valid ? res.body : undefined;
    });
    expect(validated.errors).toEqual([]);
    const before = slack.count('POST', HOOK_PATH);
    // Refused (400 action_unavailable) only until the orchestrator has listed the plugin too.
    const started = await until('the run starts', async () => {
      const res = await http('POST', url('/api/v1/runs'), { token: alice.token, body: { playbook: pluginStep, inputs: {} } });
      return res.status === 400 && res.body.error.violations?.[0]?.code === 'action_unavailable' ? undefined : res;
    });
    expect(started.status).toBe(201);
    const run = await waitForRun(stack, alice.token, started.body.run.id);
    expect([run.status, run.error]).toEqual(['completed', null]);
    expect(run.nodes.find((n: any) => n.node_id === 'sent')).toMatchObject({ status: 'completed', output: { ok: true, status: 200 } });
    expect(slack.count('POST', HOOK_PATH) - before).toBe(1);
    expect(JSON.parse(slack.requestsTo('POST', HOOK_PATH).at(-1)!.body)).toEqual({ text: 'Report 1 ready' });
  });

});
