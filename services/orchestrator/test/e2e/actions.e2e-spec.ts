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
let slowRelease: (() => void) | undefined;

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
    // Read-only and slow: answers only when the test lets it (see `slowRelease`).
    name: 'search_knowledge_graph',
    sideEffects: false,
    execute: async (ctx: ActionContext) => {
      calls.push(ctx);
      await new Promise<void>((resolve) => (slowRelease = resolve));
      return { nodes: [], count: 0 };
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
  // The action service verifies the orchestrator's signed calls like every service of the stack.
  const serviceAuthSecret = randomBytes(32).toString('hex');
  const auth = new ServiceAuth({ secret: serviceAuthSecret, service: 'fixture-router' });
  @Module({})
  class Root {
    static forRoot(): DynamicModule {
      return { module: Root, imports: [ActionServiceModule.forRoot(dispatcher, { auth })] };
    }
  }
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

/** A run's events with the id of the transaction that wrote each (one statement, one transaction). */
async function eventsOf(runId: string) {
  return stack.db.query<{ seq: string; type: string; node_id: string | null; tx: string }>(
    'SELECT seq::text AS seq, type, node_id, xmin::text AS tx FROM orchestrator.run_events WHERE run_id = $1 ORDER BY seq',
    [runId],
  );
}

it("commits a fast read-only action's start with its completion, in one statement, and a side-effecting one's start before its call", async () => {
  const runId = await start(h, {
    nodes: [
      { id: 'find', kind: 'tool', action: 'search_documents', inputs: { query: 'q' } },
      { id: 'save', kind: 'tool', action: 'save_to_workspace', inputs: { title: '{find.count}' }, dependsOn: ['find'] },
    ],
  });
  expect((await until(h, runId)).status).toBe(RunStatus.RUN_STATUS_COMPLETED);
  const events = await eventsOf(runId);
  const of = (node: string) => events.filter((e) => e.node_id === node);
  expect(of('find').map((e) => e.type)).toEqual(['node_start', 'node_complete']);
  expect(of('save').map((e) => e.type)).toEqual(['node_start', 'node_complete']);
  // The read-only node's start and completion rode together (on the side-effecting node's start, which commits first).
  expect(new Set(of('find').map((e) => e.tx)).size).toBe(1);
  expect(of('find')[0]!.tx).toBe(of('save')[0]!.tx);
  // The side-effecting node's start was committed before its call: its completion is another statement.
  expect(of('save')[0]!.tx).not.toBe(of('save')[1]!.tx);
  expect(events.map((e) => Number(e.seq))).toEqual(events.map((_, i) => i + 1));
});

it("commits a read-only action's start on its own once the call outlives the grace period, and its output after it", async () => {
  const runId = await start(h, { nodes: [{ id: 'graph', kind: 'tool', action: 'search_knowledge_graph', inputs: { query: 'acme' } }] });
  // The call is held open by the handler until the start is visible in the log: it must be committed while the call runs.
  const deadline = Date.now() + 20_000;
  while (!(await eventsOf(runId)).some((e) => e.node_id === 'graph' && e.type === 'node_start')) {
    if (Date.now() > deadline) throw new Error('the start of a read-only call still running was not committed within 20 s');
    await new Promise((r) => setTimeout(r, 50));
  }
  const [state] = await stack.db.query<{ status: string }>("SELECT status FROM orchestrator.node_states WHERE run_id = $1 AND node_id = 'graph'", [runId]);
  expect(state!.status).toBe('running');
  slowRelease!();
  const run = await until(h, runId);
  expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
  expect(output(run, 'graph')).toEqual({ nodes: [], count: 0 });
  const events = (await eventsOf(runId)).filter((e) => e.node_id === 'graph');
  expect(events.map((e) => e.type)).toEqual(['node_start', 'node_complete']);
  expect(events[0]!.tx).not.toBe(events[1]!.tx);
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
