/**
 * ActionServiceModule over real gRPC with its records in a real PostgreSQL:
 * the contract every serving service runs, plus a replay that waits for the
 * first call still running and a key reused by another user.
 */
import { randomBytes } from 'node:crypto';
import { Module, type DynamicModule } from '@nestjs/common';
import { action } from '@af/contracts';
import { actionServiceContract, createTestDatabase, freePort, type TestDatabase } from '@af/testing';
import type { DataSource } from 'typeorm';
import {
  ActionDispatcher,
  ActionExecutions1765000000000,
  ActionServiceModule,
  call,
  createGrpcClient,
  createLogger,
  openDatabase,
  PgActionRecords,
  ServiceAuth,
  sqlRows,
  startGrpcServer,
  type ActionHandler,
  type GrpcServer,
} from '../../src/index.js';

let testDb: TestDatabase;
let db: DataSource;
let server: GrpcServer;
let client: action.ActionServiceClient;
const principal = { userId: 'user-1', teamIds: [] };

// `note` writes a row per execution, so the contract can count executions; `sleep` waits `inputs.ms`.
const note: ActionHandler = {
  name: 'note',
  sideEffects: true,
  execute: async (ctx) => {
    if (typeof ctx.inputs.text !== 'string') throw new Error('unreachable in these tests');
    const [row] = await sqlRows(db, 'INSERT INTO notes (text) VALUES ($1) RETURNING id', [ctx.inputs.text]);
    if (ctx.inputs.hold) await new Promise((r) => setTimeout(r, Number(ctx.inputs.hold)));
    return { note_id: row.id, text: ctx.inputs.text };
  },
};
const sleep: ActionHandler = {
  name: 'sleep',
  sideEffects: false,
  execute: (ctx) => new Promise((r) => setTimeout(() => r({ slept: ctx.inputs.ms }), Number(ctx.inputs.ms)).unref()),
};

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = await openDatabase({ url: testDb.url, schema: 'action_test', migrations: [ActionExecutions1765000000000] });
  await db.query('CREATE TABLE notes (id serial PRIMARY KEY, text text NOT NULL)');
  const dispatcher = new ActionDispatcher('action-test', [note, sleep], new PgActionRecords(db), { pollMs: 20 });
  @Module({})
  class Root {
    static forRoot(): DynamicModule {
      return { module: Root, imports: [ActionServiceModule.forRoot(dispatcher)] };
    }
  }
  const port = await freePort();
  // Calls are signed as every call between services is: the server acts for the token's principal.
  const auth = new ServiceAuth({ secret: randomBytes(32).toString('hex'), service: 'action-test' });
  server = await startGrpcServer({ module: Root.forRoot(), packages: ['action'], host: '127.0.0.1', port, log: createLogger('t', 'silent'), auth });
  client = createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, `127.0.0.1:${port}`, { auth });
});

afterAll(async () => {
  await server?.close();
  await db?.destroy();
  await testDb?.drop();
});

const executions = async () => Number((await testDb.query<{ n: string }>('SELECT count(*) AS n FROM action_test.notes'))[0]!.n);

actionServiceContract('ActionServiceModule + PgActionRecords', () => ({
  execute: (req) => call(client.execute(req)),
  listActions: () => call(client.listActions({})),
  principal,
  probe: { action: 'note', inputs: { text: 'hello' }, executions },
  slow: { action: 'sleep', inputs: { ms: 5_000 }, takesMs: 5_000 },
}));

const req = (key: string, over: Partial<action.ExecuteRequest> = {}): action.ExecuteRequest => ({
  action: 'note',
  inputs: { text: 'x' },
  params: {},
  idempotencyKey: key,
  principal,
  timeoutMs: 10_000,
  runId: 'r',
  nodeId: 'n',
  attempt: 1,
  ...over,
});

it('makes a replay that arrives while the first call runs wait for it, then answers with its outputs', async () => {
  const before = await executions();
  const first = call(client.execute(req('r:wait:1', { inputs: { text: 'slow', hold: 300 } })));
  await new Promise((r) => setTimeout(r, 50));
  const second = call(client.execute(req('r:wait:1', { inputs: { text: 'slow', hold: 300 } })));
  const [a, b] = await Promise.all([first, second]);
  expect(a.replayed).toBe(false);
  expect(b).toEqual({ outputs: a.outputs, replayed: true });
  expect((await executions()) - before).toBe(1);
});

it('never answers one user with the result another user stored under the same key', async () => {
  await call(client.execute(req('r:shared:1')));
  await expect(call(client.execute(req('r:shared:1', { principal: { userId: 'user-2', teamIds: [] } })))).rejects.toMatchObject({
    code: 'ALREADY_EXISTS',
    message: expect.stringContaining('belongs to another caller'),
  });
});

it('keeps a stored answer across a new dispatcher (a restarted replica)', async () => {
  const first = await call(client.execute(req('r:restart:1')));
  const again = await new ActionDispatcher('action-test', [note, sleep], new PgActionRecords(db)).execute({
    action: 'note', inputs: { text: 'x' }, params: {}, principal, idempotencyKey: 'r:restart:1', runId: 'r', nodeId: 'n', attempt: 1, timeoutMs: 0,
  });
  expect(again).toEqual({ outputs: first.outputs, replayed: true });
});
