/**
 * Built-in actions served by another service (ActionService) end to end:
 * startStack with ACTION_SERVICES pointing at an action service served in
 * this process (ActionServiceModule, as every owning service serves its
 * actions). A `tool` node naming one of its actions runs there with the run
 * owner and the key `runId:nodeId:attempt`, and its outputs flow downstream;
 * a plan naming an action no configured service serves is refused at StartRun
 * (`action_unavailable`); a service that answers errors fails the node per its
 * policy.
 */
import { Module, type DynamicModule } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ActionDispatcher, ActionServiceModule, AppError, createLogger, MemoryActionRecords, ServiceAuth, startGrpcServer, type ActionContext, type GrpcServer } from '@af/service-kit';
import { freePort, startStack, type Stack } from '@af/testing';
import { byId, harness, output, RunStatus, start, startError, until, type Harness } from './helpers.js';

let stack: Stack;
let h: Harness;
let server: GrpcServer;
const calls: ActionContext[] = [];

const handlers = [
  {
    name: 'save_to_workspace',
    sideEffects: true,
    execute: async (ctx: ActionContext) => {
      calls.push(ctx);
      return { document_id: `doc-${calls.length}`, title: ctx.inputs.title, folder: ctx.params.folder };
    },
  },
  {
    // Read-only: its completion may ride on the run's next statement.
    name: 'search_documents',
    sideEffects: false,
    execute: async (ctx: ActionContext) => {
      calls.push(ctx);
      return { results: [{ title: `about ${String(ctx.inputs.query)}` }], count: 1 };
    },
  },
  {
    name: 'send_notification',
    sideEffects: true,
    execute: async (ctx: ActionContext): Promise<Record<string, unknown>> => {
      calls.push(ctx);
      throw AppError.invalid('inputs.recipient', 'is not a user of this workspace');
    },
  },
];

beforeAll(async () => {
  const port = await freePort();
  const dispatcher = new ActionDispatcher('fixture-router', handlers, new MemoryActionRecords());
  @Module({})
  class Root {
    static forRoot(): DynamicModule {
      return { module: Root, imports: [ActionServiceModule.forRoot(dispatcher)] };
    }
  }
  // The action service verifies the orchestrator's signed calls like every service of the stack.
  const serviceAuthSecret = randomBytes(32).toString('hex');
  const auth = new ServiceAuth({ secret: serviceAuthSecret, service: 'fixture-router' });
  server = await startGrpcServer({ module: Root.forRoot(), packages: ['action'], host: '127.0.0.1', port, log: createLogger('fixture-router', 'warn'), auth });
  stack = await startStack({ serviceAuthSecret, env: { orchestrator: { ACTION_SERVICES: `output-router=127.0.0.1:${port}` } } });
  h = harness(stack, 'user-actions');
});

afterAll(async () => {
  await stack?.stop();
  await server?.close();
});

it('runs a tool node in the service that serves its action and passes its outputs on', async () => {
  const runId = await start(h, {
    nodes: [
      { id: 'save', kind: 'tool', action: 'save_to_workspace', inputs: { title: '{title}' }, params: { folder: 'Reports' } },
      { id: 'report', kind: 'tool', action: 'transform_data', inputs: { data: ['{save}'] }, params: {}, dependsOn: ['save'] },
    ],
    inputs: [{ name: 'title', required: true }],
  }, { inputs: { title: 'Q3 report' } });
  const run = await until(h, runId);
  expect([run.status, run.error, [...run.nodes].map((n) => [n.nodeId, n.error])]).toEqual([RunStatus.RUN_STATUS_COMPLETED, '', [['save', ''], ['report', '']]]);
  expect(output(run, 'save')).toEqual({ document_id: 'doc-1', title: 'Q3 report', folder: 'Reports' });
  expect(JSON.stringify(output(run, 'report'))).toContain('doc-1');
  const call = calls.find((c) => c.runId === runId)!;
  expect(call).toMatchObject({ action: 'save_to_workspace', nodeId: 'save', attempt: 1, idempotencyKey: `${runId}:save:1`, principal: { userId: 'user-actions' } });
});

it('runs a chain of read-only served actions (completions riding on the next statement) with every output stored', async () => {
  const runId = await start(h, {
    nodes: [
      { id: 'a', kind: 'tool', action: 'search_documents', inputs: { query: 'q1' } },
      { id: 'b', kind: 'tool', action: 'search_documents', inputs: { query: '{a.results[0].title}' }, dependsOn: ['a'] },
      { id: 'c', kind: 'tool', action: 'search_documents', inputs: { query: '{b.results[0].title}' }, dependsOn: ['b'] },
    ],
  });
  const run = await until(h, runId);
  expect([run.status, run.error]).toEqual([RunStatus.RUN_STATUS_COMPLETED, '']);
  expect(output(run, 'c')).toEqual({ results: [{ title: 'about about about q1' }], count: 1 });
  const stored = await stack.db.query<{ node_id: string }>('SELECT node_id FROM orchestrator.node_outputs WHERE run_id = $1 ORDER BY node_id', [runId]);
  expect(stored.map((r) => r.node_id)).toEqual(['a', 'b', 'c']);
});

it('refuses at StartRun a plan whose action no configured service serves: action_unavailable naming the node, the action and its owner', async () => {
  const before = Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM orchestrator.runs'))[0]!.n);
  const err = await startError(h, {
    nodes: [
      { id: 'save', kind: 'tool', action: 'save_to_workspace', inputs: { title: 'x' } },
      { id: 'graph', kind: 'tool', action: 'analyze_graph', inputs: {}, dependsOn: ['save'] },
    ],
  });
  expect(err.code).toBe('INVALID_ARGUMENT');
  expect(err.violations).toEqual([
    {
      field: 'plan.nodes.graph.action',
      code: 'action_unavailable',
      reason: "action 'analyze_graph' is not available in this deployment: it is served by entity-resolution, which is not among the services this deployment is configured with (ACTION_SERVICES)",
    },
  ]);
  expect(Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM orchestrator.runs'))[0]!.n)).toBe(before);
});

it('fails a node per its error policy when the serving service refuses the call, naming the field', async () => {
  const before = calls.length;
  const runId = await start(h, {
    nodes: [{ id: 'notify', kind: 'tool', action: 'send_notification', inputs: { recipient: 'nobody' }, errorPolicy: { onError: 'stop' } }],
  });
  const run = await until(h, runId);
  expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
  expect(byId(run).notify!.error).toContain('inputs.recipient: is not a user of this workspace');
  // INVALID_ARGUMENT is not retried: one call.
  expect(calls.length - before).toBe(1);
});
