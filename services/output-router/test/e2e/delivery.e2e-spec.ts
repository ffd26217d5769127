/**
 * What a run delivers beyond the workspace, across real processes
 * (gateway, planner, orchestrator, connector-runtime, entity-resolution,
 * output-router, the slack-webhook plugin; PostgreSQL, NATS): the playbook
 * `output` block routed when the run completes (its report on the run and in
 * the `complete` frame) and the owner told when a background run ends;
 * destination configs refused at validation; email through a local SMTP
 * server (`smtp-server`), down and up, once per delivery; channel messages
 * through the plugin; xlsx exports; knowledge-graph writes through
 * entity-resolution, queued while it is down and retried once it is back.
 *
 * Needs `pnpm build`.
 */
import { randomUUID } from 'node:crypto';
import { action, connector } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import {
  freePort,
  http,
  PluginProcess,
  readSse,
  registerUser,
  startFixtureServer,
  startStack,
  type FixtureServer,
  type GatewayUser,
  type Stack,
} from '@af/testing';
import ExcelJS from 'exceljs';
import { SMTPServer } from 'smtp-server';

const TOKEN = 'plugin-registration-token-0123456789';
const HOOK = '/services/T0/B0/out-hook';
const ROWS = [
  { name: 'River Trust', type: 'ORG', amount: 1200 },
  { name: 'Hill Fund', type: 'ORG', amount: 300 },
];

let stack: Stack;
let alice: GatewayUser;
let actions: action.ActionServiceClient;
let smtp: SMTPServer | undefined;
let smtpPort: number;
const mails: string[] = [];
let slack: FixtureServer;
let plugin: PluginProcess;

function startSmtp(): Promise<void> {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, done) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString()));
      stream.on('end', () => {
        mails.push(text);
        done();
      });
    },
  });
  return new Promise((resolve) => smtp!.listen(smtpPort, '127.0.0.1', () => resolve()));
}

const stopSmtp = () => new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));

beforeAll(async () => {
  smtpPort = await freePort();
  await startSmtp();
  slack = await startFixtureServer();
  slack.route('POST', HOOK, { body: 'ok' });
  stack = await startStack({
    outputRouter: true,
    entityResolution: true,
    env: {
      'output-router': { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, SMTP_TIMEOUT_MS: '2000', OUTPUT_GRAPH_RETRY_MS: '300' },
      'connector-runtime': { PLUGIN_REGISTRATION_TOKEN: TOKEN, PLUGIN_HEARTBEAT_SECONDS: '1' },
      // A model (scripted) for the output block's summary_prompt.
      orchestrator: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify([{ json: { summary: 'Two grants, River Trust the larger.' } }]) },
      planner: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify([]) },
    },
  });
  alice = await registerUser(stack.gatewayUrl, 'alice@example.com');
  const auth = new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' });
  actions = createGrpcClient<action.ActionServiceClient>(
    'action',
    action.ACTION_SERVICE_NAME,
    `127.0.0.1:${stack.services['output-router']!.env.GRPC_PORT}`,
    { auth },
  );
  const runtime = `127.0.0.1:${stack.services['connector-runtime'].env.GRPC_PORT}`;
  plugin = new PluginProcess({
    PLUGIN_HOST: '127.0.0.1',
    PLUGIN_PORT: String(await freePort()),
    PLUGIN_REGISTRY_URL: runtime,
    PLUGIN_REGISTRATION_TOKEN: TOKEN,
    SLACK_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    LOG_LEVEL: 'debug',
  });
  await plugin.start();
  const registry = createGrpcClient<connector.PluginRegistryServiceClient>('connector', 'PluginRegistryService', runtime, { auth });
  await call(
    registry.setPluginEnabled({
      principal: { userId: alice.id, teamIds: [] },
      name: 'slack-webhook',
      enabled: true,
      config: { webhook_url: `${slack.url}${HOOK}` },
    }),
  );
}, 150_000);

afterAll(async () => {
  await plugin?.kill();
  await stack?.stop();
  await stopSmtp();
  await slack?.close();
});

const req = (method: string, path: string, body?: unknown) =>
  http(method, `${stack.gatewayUrl}${path}`, { token: alice.token, ...(body !== undefined ? { body } : {}) });

/** One node's call as the orchestrator makes it; `attempt` picks the idempotency key. */
function node(name: string, runId = randomUUID(), teamIds: string[] = []) {
  return (actionName: string, inputs: Record<string, unknown>, params: Record<string, unknown> = {}, attempt = 1) =>
    call(
      actions.execute({
        action: actionName,
        inputs,
        params,
        idempotencyKey: `${runId}:${name}:${attempt}`,
        principal: { userId: alice.id, teamIds },
        timeoutMs: 20_000,
        runId,
        nodeId: name,
        attempt,
      }),
    ).then((r) => r.outputs as Record<string, any>);
}

async function until<T>(what: string, get: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

async function runToEnd(playbook: string, inputs: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<any> {
  const started = await req('POST', '/api/v1/runs', { playbook, inputs, ...extra });
  if (started.status !== 201) throw new Error(`start failed: ${started.status} ${JSON.stringify(started.body)}`);
  const id = started.body.run.id as string;
  return until('the run to end', async () => {
    const r = (await req('GET', `/api/v1/runs/${id}`)).body.run;
    return ['completed', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
  });
}

const digest = [
  'id: grant-digest',
  'name: Grant digest',
  'execution_mode: deterministic',
  'inputs:',
  '  - { name: rows, type: list, required: true }',
  'steps:',
  '  - name: pick',
  '    step_type: tool',
  '    action: transform_data',
  "    inputs: { data: '{rows}' }",
  '    output_key: picked',
  'output:',
  '  format: markdown',
  "  template: 'Grants for {rows[0].name} and others'",
  '  sections:',
  '    - { title: Grants, source: picked }',
  '  save_to: both',
  '  summary_prompt: Summarise the grants',
].join('\n');

describe("a playbook's output block", () => {
  let run: any;

  beforeAll(async () => {
    run = await runToEnd(digest, { rows: ROWS }, { run_context: 'background' });
  }, 60_000);

  it('is routed when the run completes: one report on the run, every destination in it', () => {
    expect(run.status).toBe('completed');
    const report = run.outputs.output.routing_report;
    expect(report.map((r: any) => [r.destination, r.status])).toEqual([
      ['summary', 'skipped'],
      ['chat', 'success'],
      ['document', 'success'],
      ['data_workspace_table', 'success'],
    ]);
    expect(report[0].details.reason).toContain('execution_mode is deterministic');
    expect(report[3].details).toMatchObject({ table: 'grant_digest', rows_inserted: 2 });
    expect(run.outputs.output.chat).toContain('Grants for River Trust and others');
    expect(run.outputs.output.chat).toContain('## Grants');
  });

  it('puts the routing report in the complete frame', async () => {
    const sse = await readSse(`${stack.gatewayUrl}/api/v1/runs/${run.id}/events`, { authorization: `Bearer ${alice.token}` }, {
      until: (f) => f.event === 'complete',
      timeoutMs: 10_000,
    });
    const complete = sse.frames.find((f) => f.event === 'complete')!;
    const data = JSON.parse(complete.data);
    const payload = data.payload ?? data;
    expect(payload.routing_report.map((r: any) => r.destination)).toEqual(['summary', 'chat', 'document', 'data_workspace_table']);
    expect(payload.routed_to).toEqual(['chat', 'document', 'data_workspace_table']);
  });

  it('wrote the document in the playbook folder and the rows to the table', async () => {
    const docs = (await req('GET', '/api/agent-factory/workspace/documents')).body.documents;
    const doc = docs.find((d: any) => d.title.startsWith('grant-digest_'));
    expect(doc).toBeDefined();
    const read = await req('GET', `/api/agent-factory/workspace/documents/${doc.id}`);
    expect(read.body.content).toContain('# ');
    expect(read.body.content).toContain('River Trust');
    const rows = await req('GET', '/api/agent-factory/workspace/tables/default/grant_digest/rows');
    expect(rows.body.rows.map((r: any) => r.name)).toEqual(['River Trust', 'Hill Fund']);
  });

  it('tells the owner the background run ended, with a link', async () => {
    const found = await until('the run-finished notification', async () => {
      const inbox = (await req('GET', '/api/agent-factory/workspace/notifications')).body.notifications;
      return inbox.find((n: any) => n.source.run_id === run.id && n.source.action === 'run_finished');
    });
    expect(found).toMatchObject({ title: 'Grant digest completed', priority: 'normal', action_url: `/api/v1/runs/${run.id}`, action_label: 'Open run' });
    expect(found.message).toContain('Output delivered to chat, document, data_workspace_table');
  });
});

describe("an output block's summary_prompt", () => {
  it('is written by an llm node where the mode allows and a model exists, and heads the result', async () => {
    const hybrid = digest.replace('execution_mode: deterministic', 'execution_mode: hybrid').replace('save_to: both', 'save_to: none');
    const run = await runToEnd(hybrid, { rows: ROWS });
    expect(run.status).toBe('completed');
    expect(run.outputs.output_summary).toEqual({ summary: 'Two grants, River Trust the larger.' });
    expect(run.outputs.output.routing_report.map((r: any) => [r.destination, r.status])).toEqual([
      ['summary', 'success'],
      ['chat', 'success'],
    ]);
    expect(run.outputs.output.chat).toContain('## Summary\n\nTwo grants, River Trust the larger.');
  }, 60_000);
});

describe('destination configs at validation', () => {
  const bad = [
    'id: bad-destinations',
    'name: Bad destinations',
    'steps:',
    '  - name: route',
    '    step_type: tool',
    '    action: route_output',
    '    inputs: { data: [1] }',
    '    params:',
    '      destinations:',
    '        - { type: fax }',
    "        - { type: data_workspace_table, config: { table_name: 'drop table', schema_mapping: { a: text } } }",
    '        - { type: data_workspace_table, config: { table_name: ok } }',
    "        - { type: file_export, config: { filename_template: 'x_}' } }",
  ].join('\n');

  it('are refused at /validate and at run start, naming each field', async () => {
    const res = await req('POST', '/api/agent-factory/playbooks/validate', { yaml: bad });
    expect(res.body.valid).toBe(false);
    expect(res.body.errors.filter((e: any) => e.code === 'invalid_destination').map((e: any) => e.field)).toEqual([
      'steps[0].params.destinations[0].type',
      'steps[0].params.destinations[1].config.table_name',
      'steps[0].params.destinations[2].config.schema_mapping',
      'steps[0].params.destinations[3].config.filename_template',
    ]);
    const start = await req('POST', '/api/v1/runs', { playbook: bad, inputs: {} });
    expect(start.status).toBe(400);
  });
});

describe('email notifications', () => {
  const emailTo = { type: 'notification', config: { title: 'Grants ready', channels: ['email'], email_to: ['alice@example.com'] } };

  it('send once per delivery, even when the node is replayed', async () => {
    const before = mails.length;
    const n = node('route');
    const first = await n('route_output', { data: ROWS }, { destinations: [emailTo] });
    expect(first.routing_report[0]).toMatchObject({ status: 'success', details: { email: { accepted: 1 } } });
    const again = await n('route_output', { data: ROWS }, { destinations: [emailTo] }, 2);
    expect(again.routing_report[0].status).toBe('success');
    expect(mails.length).toBe(before + 1);
    expect(mails.at(-1)).toContain('Subject: Grants ready');
    expect(mails.at(-1)).toContain('River Trust');
  });

  it('fail alone while the SMTP server is down; the other destinations are delivered', async () => {
    await stopSmtp();
    try {
      const out = await node('route')('route_output', { data: ROWS }, { destinations: [{ type: 'chat' }, emailTo, { type: 'document' }] });
      expect(out.routing_report.map((r: any) => [r.destination, r.status])).toEqual([
        ['chat', 'success'],
        ['notification', 'error'],
        ['document', 'success'],
      ]);
      expect(out.routing_report[1].error.message).toContain('SMTP');
      expect(out.success).toBe(false);
    } finally {
      await startSmtp();
    }
  });
});

describe('channel messages through the slack-webhook plugin', () => {
  it('post once per node, by send_channel_message and as a notification channel', async () => {
    const before = slack.requestsTo('POST', HOOK).length;
    const n = node('tell');
    const sent = await n('send_channel_message', { message: 'Grants are in' }, { channel: 'slack' });
    expect(sent).toMatchObject({ success: true, channel: 'slack', plugin: 'slack-webhook' });
    await n('send_channel_message', { message: 'Grants are in' }, { channel: 'slack' }, 2);
    const routed = await node('route')('route_output', { data: 'Digest ready' }, {
      destinations: [{ type: 'notification', config: { channels: ['in_app', 'channel'], channel_plugin: 'slack' } }],
    });
    expect(routed.routing_report[0]).toMatchObject({ status: 'success', details: { notification_id: expect.any(String), channel: { plugin: 'slack-webhook' } } });
    const posts = slack.requestsTo('POST', HOOK).slice(before).map((r) => JSON.parse(r.body).text);
    expect(posts).toEqual(['Grants are in', expect.stringContaining('Digest ready')]);
  });
});

describe('xlsx exports', () => {
  it('are spreadsheets of the rows, downloadable by their owner', async () => {
    const out = await node('export')('route_output', { data: ROWS }, { destinations: [{ type: 'file_export', format: 'xlsx', config: { filename_template: 'grants_{date}' } }] });
    const details = out.routing_report[0].details;
    expect(details.filename).toMatch(/^grants_\d{4}-\d{2}-\d{2}\.xlsx$/);
    const res = await fetch(`${stack.gatewayUrl}${details.download_url}`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(res.status).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(Buffer.from(await res.arrayBuffer()) as never);
    const sheet = book.worksheets[0]!;
    expect(sheet.getRow(1).values).toEqual([undefined, 'name', 'type', 'amount']);
    expect(sheet.getRow(3).values).toEqual([undefined, 'Hill Fund', 'ORG', 300]);
  });

  it('are refused where a text is delivered', async () => {
    const err = await node('x')('route_output', { data: ROWS }, { destinations: [{ type: 'chat', format: 'xlsx' }] }).catch((e) => e);
    expect(err.violations).toEqual([expect.objectContaining({ field: 'params.destinations[0].format' })]);
  });
});

describe('the knowledge-graph destination', () => {
  const kg = { type: 'knowledge_graph', config: { default_entity_type: 'ORG' } };

  it('resolves the records as entities through entity-resolution, once', async () => {
    const n = node('graph');
    const out = await n('route_output', { data: ROWS }, { destinations: [kg] });
    expect(out.routing_report[0]).toMatchObject({ destination: 'knowledge_graph', status: 'success', details: { entities_sent: 2, resolved: 2 } });
    const again = await n('route_output', { data: ROWS }, { destinations: [kg] }, 2);
    expect(again.routing_report[0]).toMatchObject({ status: 'success', replayed: true });
  });

  it('queues a write while entity-resolution is down and delivers it when it is back', async () => {
    const er = stack.services['entity-resolution']!;
    const runId = randomUUID();
    await er.stop();
    let out: Record<string, any>;
    try {
      out = await node('graph', runId)('route_output', { data: [{ name: 'Lake Org', type: 'ORG' }] }, { destinations: [{ type: 'chat' }, kg] });
    } finally {
      await er.start();
    }
    expect(out.routing_report.map((r: any) => [r.destination, r.status])).toEqual([
      ['chat', 'success'],
      ['knowledge_graph', 'queued'],
    ]);
    const key = `${runId}:graph:1-knowledge_graph`;
    const landed = await until(
      'the queued graph write to land',
      async () => {
        const [row] = await stack.db.query<{ status: string }>('SELECT status FROM output_router.graph_write_queue WHERE delivery_key = $1', [key]);
        return row?.status === 'delivered' ? row : undefined;
      },
      30_000,
    );
    expect(landed.status).toBe('delivered');
    const [delivery] = await stack.db.query<{ status: string; details: any }>('SELECT status, details FROM output_router.deliveries WHERE delivery_key = $1', [key]);
    expect(delivery).toMatchObject({ status: 'delivered', details: { entities_sent: 1 } });
  }, 60_000);
});

describe('summarize_team_thread', () => {
  it("summarises a team thread for the team's members, and is NOT_FOUND for anyone else", async () => {
    const team = randomUUID();
    const first = await node('post1', randomUUID(), [team])('write_team_post', { content: 'Kick-off for the grant report.\nTODO: check the 990 figures', team_id: team });
    await node('post2', randomUUID(), [team])('write_team_post', { content: 'Decision: submit on Friday.', team_id: team }, { thread_id: first.thread_id });
    const s = await node('sum', randomUUID(), [team])('summarize_team_thread', { thread_id: first.thread_id, team_id: team }, { focus: 'decisions' });
    expect(s).toMatchObject({
      participants: [alice.id],
      action_items: ['check the 990 figures'],
      decisions: ['submit on Friday.'],
      post_count: 2,
      method: 'extractive',
    });
    expect(s.summary).toContain('Decisions: submit on Friday.');
    const outsider = await node('sum')('summarize_team_thread', { thread_id: first.thread_id, team_id: team }).catch((e) => e);
    expect(outsider.code).toBe('NOT_FOUND');
  });
});
