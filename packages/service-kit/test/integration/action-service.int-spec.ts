/**
 * ActionServiceModule over real gRPC with its records in a real PostgreSQL:
 * the contract every serving service runs, plus a replay that waits for the
 * first call still running and a key reused by another user.
 */
import { randomBytes } from 'node:crypto';
import { Controller, Module, type DynamicModule } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Metadata } from '@grpc/grpc-js';
import { action } from '@af/contracts';
import { actionServiceContract, createTestDatabase, freePort, type TestDatabase } from '@af/testing';
import type { DataSource } from 'typeorm';
import {
  ActionDispatcher,
  ActionExecutions1765000000000,
  ActionReceipts1766800000000,
  ActionServiceModule,
  ActionServices,
  ActionStream,
  AppError,
  call,
  createGrpcClient,
  createGrpcClientWithChannel,
  PRINCIPAL_TOKEN_METADATA,
  type ExecuteDuplex,
  createLogger,
  openDatabase,
  PgActionRecords,
  ReceiptSuperseded,
  ServiceAuth,
  sqlRows,
  writeReceipt,
  startGrpcServer,
  type ActionHandler,
  type CallControl,
  type ExecuteAction,
  type GrpcServer,
} from '../../src/index.js';

let testDb: TestDatabase;
let db: DataSource;
let server: GrpcServer;
let client: action.ActionServiceClient;
let auth: ServiceAuth;
let address: string;
let stream: ActionStream;
const principal = { userId: 'user-1', teamIds: [] };
/** What `whoami` saw, and the signals of `sleep` calls (aborted when their caller cancels). */
const seen: { principals: unknown[]; sleepSignals: AbortSignal[] } = { principals: [], sleepSignals: [] };

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
  execute: (ctx) => {
    seen.sleepSignals.push(ctx.signal);
    return new Promise((r) => setTimeout(() => r({ slept: ctx.inputs.ms }), Number(ctx.inputs.ms)).unref());
  },
};
const whoami: ActionHandler = {
  name: 'whoami',
  sideEffects: false,
  execute: async (ctx) => {
    seen.principals.push(ctx.principal);
    return { user_id: ctx.principal.userId };
  },
};
const broken: ActionHandler = {
  name: 'broken',
  sideEffects: false,
  execute: async () => {
    throw AppError.invalid('inputs.id', 'is not a known id');
  },
};

/** An ActionStream to `address`, opened as the orchestrator opens it. */
function openStream(at: string): ActionStream {
  const { raw } = createGrpcClientWithChannel<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, at, { auth });
  return new ActionStream(() => {
    const md = new Metadata();
    md.set(PRINCIPAL_TOKEN_METADATA, auth.tokenFor(undefined));
    return (raw.executeStream as unknown as (md: Metadata) => ExecuteDuplex)(md);
  });
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`waited 10 s for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function untilReady(s: ActionStream): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!s.ready()) {
    if (Date.now() > deadline) throw new Error('the action stream did not open within 10 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A call over the stream, signed for `who` like the orchestrator signs each call. */
function streamed(req: action.ExecuteRequest, opts: { token?: string; waitMs?: number; signal?: AbortSignal } = {}) {
  return stream.execute({
    request: req,
    principalToken: opts.token ?? auth.tokenFor(req.principal ?? undefined),
    waitMs: opts.waitMs ?? 15_000,
    signal: opts.signal ?? new AbortController().signal,
  });
}

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = await openDatabase({ url: testDb.url, schema: 'action_test', migrations: [ActionExecutions1765000000000, ActionReceipts1766800000000] });
  await db.query('CREATE TABLE notes (id serial PRIMARY KEY, text text NOT NULL)');
  const dispatcher = new ActionDispatcher('action-test', [note, sleep, whoami, broken], new PgActionRecords(db), { pollMs: 20 });
  // Calls are signed as every call between services is: the server acts for the token's principal.
  auth = new ServiceAuth({ secret: randomBytes(32).toString('hex'), service: 'action-test' });
  @Module({})
  class Root {
    static forRoot(): DynamicModule {
      return { module: Root, imports: [ActionServiceModule.forRoot(dispatcher, { auth })] };
    }
  }
  const port = await freePort();
  address = `127.0.0.1:${port}`;
  server = await startGrpcServer({ module: Root.forRoot(), packages: ['action'], host: '127.0.0.1', port, log: createLogger('t', 'silent'), auth });
  client = createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, address, { auth });
  stream = openStream(address);
  await untilReady(stream);
});

afterAll(async () => {
  stream?.close();
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

// The same contract over ExecuteStream: each call on the stream behaves as Execute does.
actionServiceContract('ActionServiceModule over ExecuteStream', () => ({
  execute: (req) => streamed(req, { waitMs: req.timeoutMs + 1_000 }),
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

describe('ExecuteStream', () => {
  it('answers many calls on one stream as each ends, in any order', async () => {
    const slow = streamed(req('', { action: 'sleep', inputs: { ms: 300 }, idempotencyKey: '' }));
    const quick = Promise.all([1, 2, 3].map((i) => streamed(req(`r:many:${i}`, { inputs: { text: `n${i}` } }))));
    const order: string[] = [];
    await Promise.all([slow.then(() => order.push('slow')), quick.then(() => order.push('quick'))]);
    expect(order).toEqual(['quick', 'slow']);
    expect((await quick).map((a) => a.outputs?.text)).toEqual(['n1', 'n2', 'n3']);
    expect(stream.inFlight).toBe(0);
  });

  it('sends the calls issued in one turn as one message, and gets the answers that end together in one', async () => {
    const sent: action.ExecuteStreamRequest[] = [];
    const received: action.ExecuteStreamResponse[] = [];
    const { raw } = createGrpcClientWithChannel<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, address, { auth });
    const s = new ActionStream(() => {
      const md = new Metadata();
      md.set(PRINCIPAL_TOKEN_METADATA, auth.tokenFor(undefined));
      const duplex = (raw.executeStream as unknown as (md: Metadata) => ExecuteDuplex)(md);
      const write = duplex.write.bind(duplex) as (m: action.ExecuteStreamRequest) => boolean;
      duplex.write = ((m: action.ExecuteStreamRequest) => (sent.push(m), write(m))) as typeof duplex.write;
      duplex.on('data', (m: action.ExecuteStreamResponse) => received.push(m));
      return duplex;
    });
    try {
      await untilReady(s);
      const token = auth.tokenFor(principal);
      const calls = [1, 2, 3].map((i) =>
        s.execute({ request: req('', { action: 'whoami', idempotencyKey: '', inputs: { i } }), principalToken: token, waitMs: 5_000, signal: new AbortController().signal }),
      );
      const answers = await Promise.all(calls);
      expect(answers.map((a) => a.outputs)).toEqual([{ user_id: 'user-1' }, { user_id: 'user-1' }, { user_id: 'user-1' }]);
      // The handshake, then one message with the three calls; one answer for the handshake, one with the three answers.
      expect(sent.map((m) => m.calls.map((c) => c.callId))).toEqual([[0], [1, 2, 3]]);
      expect(received.map((m) => m.answers.map((a) => a.callId).sort())).toEqual([[0], [1, 2, 3]]);
    } finally {
      s.close();
    }
  });

  it('answers every call of a message, in any mix of calls, cancels and handshakes', async () => {
    const md = new Metadata();
    md.set(PRINCIPAL_TOKEN_METADATA, auth.tokenFor(undefined));
    const { raw } = createGrpcClientWithChannel<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, address, { auth });
    const duplex = (raw.executeStream as unknown as (md: Metadata) => ExecuteDuplex)(md);
    const answers: action.StreamAnswer[] = [];
    duplex.on('data', (m: action.ExecuteStreamResponse) => answers.push(...m.answers));
    const ended = new Promise<void>((resolve) => duplex.on('end', () => resolve()));
    const token = auth.tokenFor(principal);
    duplex.write({
      calls: [
        { callId: 7, principalToken: '' },
        { callId: 8, execute: req('', { action: 'whoami', idempotencyKey: '' }), principalToken: token },
        { callId: 9, execute: req('', { action: 'sleep', inputs: { ms: 10_000 }, idempotencyKey: '' }), principalToken: token },
        { callId: 9, cancel: true, principalToken: '' },
        { callId: 10, execute: req('', { action: 'nope', idempotencyKey: '' }), principalToken: token },
      ],
    });
    await until(() => answers.length >= 3, 'three answers');
    duplex.end();
    await ended;
    const byId = Object.fromEntries(answers.map((a) => [a.callId, a]));
    expect(Object.keys(byId).sort()).toEqual(['10', '7', '8', '9']);
    expect(byId[7]).toEqual({ callId: 7 });
    expect(byId[8]!.response?.outputs).toEqual({ user_id: 'user-1' });
    expect(byId[9]!.error?.code).toBe(1); // CANCELLED
    expect(byId[10]!.error?.code).toBe(3); // INVALID_ARGUMENT
    expect(byId[10]!.error?.message).toContain('nope');
  });

  it("acts for each call's own principal token, whatever principal the message names", async () => {
    seen.principals.length = 0;
    const answer = await streamed(req('', { action: 'whoami', idempotencyKey: '', principal: { userId: 'someone-else', teamIds: [] } }), {
      token: auth.tokenFor({ userId: 'user-7', teamIds: ['team-1'] }),
    });
    expect(answer.outputs).toEqual({ user_id: 'user-7' });
    expect(seen.principals).toEqual([{ userId: 'user-7', teamIds: ['team-1'] }]);
  });

  it('refuses a call without a token or with a forged one, and goes on serving the stream', async () => {
    const forged = new ServiceAuth({ secret: randomBytes(32).toString('hex'), service: 'intruder' });
    await expect(streamed(req('', { action: 'whoami', idempotencyKey: '' }), { token: '' })).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
      message: expect.stringContaining('principal_token is required'),
    });
    await expect(streamed(req('', { action: 'whoami', idempotencyKey: '' }), { token: forged.tokenFor(principal) })).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    await expect(streamed(req('', { action: 'whoami', idempotencyKey: '' }))).resolves.toMatchObject({ outputs: { user_id: 'user-1' } });
  });

  it("answers a handler's error as Execute would: code, message and violations", async () => {
    const err = (await streamed(req('', { action: 'broken', idempotencyKey: '' })).catch((e: unknown) => e)) as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'inputs.id: is not a known id', violations: [{ field: 'inputs.id', reason: 'is not a known id' }] });
    const unary = (await call(client.execute(req('', { action: 'broken', idempotencyKey: '' }))).catch((e: unknown) => e)) as AppError;
    expect({ code: unary.code, message: unary.message, violations: unary.violations }).toEqual({ code: err.code, message: err.message, violations: err.violations });
  });

  it("cancels a call when its caller aborts: the caller gets CANCELLED and the action's signal is aborted", async () => {
    seen.sleepSignals.length = 0;
    const abort = new AbortController();
    const pending = streamed(req('', { action: 'sleep', inputs: { ms: 10_000 }, idempotencyKey: '' }), { signal: abort.signal });
    await until(() => seen.sleepSignals.length > 0, 'the sleep action to start');
    abort.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED' });
    const deadline = Date.now() + 5_000;
    while (!seen.sleepSignals[0]!.aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(seen.sleepSignals[0]!.aborted).toBe(true);
  });

  it('gives up on a call past the time its caller waits, with DEADLINE_EXCEEDED, and aborts it', async () => {
    seen.sleepSignals.length = 0;
    await expect(streamed(req('', { action: 'sleep', inputs: { ms: 10_000 }, idempotencyKey: '' }), { waitMs: 100 })).rejects.toMatchObject({
      code: 'DEADLINE_EXCEEDED',
    });
    const deadline = Date.now() + 5_000;
    while (!seen.sleepSignals[0]?.aborted && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    expect(seen.sleepSignals[0]!.aborted).toBe(true);
  });

  it('fails the calls open on a stream whose service goes away as UNAVAILABLE, and opens a new one when it is back', async () => {
    const { server: own, address: at } = await serveActions();
    const s = openStream(at);
    await untilReady(s);
    const open = s.execute({ request: req('', { action: 'sleep', inputs: { ms: 10_000 }, idempotencyKey: '' }), principalToken: auth.tokenFor(principal), waitMs: 15_000, signal: new AbortController().signal });
    await until(() => s.inFlight > 0, 'the call to be sent');
    await own.app.close();
    await expect(open).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(s.ready()).toBe(false);
    const again = await serveActions(Number(at.split(':')[1]));
    try {
      await untilReady(s);
      await expect(s.execute({ request: req('', { action: 'whoami', idempotencyKey: '' }), principalToken: auth.tokenFor(principal), waitMs: 5_000, signal: new AbortController().signal })).resolves.toMatchObject({
        outputs: { user_id: 'user-1' },
      });
    } finally {
      s.close();
      await again.server.close();
    }
  });

  it('calls a service that does not serve ExecuteStream through Execute (ActionServices)', async () => {
    const { close: closeUnaryOnly, address: at } = await serveUnaryOnly();
    const services = new ActionServices([{ name: 'old-service', address: at }], createLogger('t', 'silent'), auth, { refreshMs: 60_000 });
    try {
      await services.start();
      const served = services.servedNow('whoami')!;
      expect(served.service).toBe('old-service');
      for (let i = 0; i < 3; i++) {
        const answer = await services.execute(served, { action: 'whoami', inputs: {}, params: {}, userId: 'user-3', idempotencyKey: '', runId: 'r', nodeId: 'n', attempt: 1, timeoutMs: 5_000 }, new AbortController().signal);
        expect(answer.outputs).toEqual({ user_id: 'user-3', via: 'execute' });
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(services.transport('old-service')).toBe('unary');
    } finally {
      services.stop();
      await closeUnaryOnly();
    }
  });

  it('finds the actions of a service that starts after it at once, not at the next listing (ActionServices.servedBy)', async () => {
    const port = await freePort();
    const services = new ActionServices([{ name: 'late', address: `127.0.0.1:${port}` }], createLogger('t', 'silent'), auth, { refreshMs: 60_000 });
    let late: GrpcServer | undefined;
    try {
      await services.start(); // nothing listens yet: the first listing fails
      expect(services.servedNow('whoami')).toBeUndefined();
      late = (await serveActions(port)).server;
      // Within a second of the failed listing: a name the table does not know is asked for again, not refused.
      await expect(services.servedBy('whoami')).resolves.toMatchObject({ service: 'action-test', action: 'whoami' });
      // Once every service has answered, a name nothing serves is refused without a listing per call.
      await expect(services.servedBy('no_such_action')).resolves.toBeUndefined();
    } finally {
      services.stop();
      await late?.close();
    }
  });

  it('sends calls over the stream once it is open (ActionServices)', async () => {
    const services = new ActionServices([{ name: 'action-test', address }], createLogger('t', 'silent'), auth, { refreshMs: 60_000 });
    try {
      await services.start();
      const served = services.servedNow('whoami')!;
      const deadline = Date.now() + 10_000;
      let answer: { outputs: Record<string, unknown> } | undefined;
      while (services.transport('action-test') !== 'stream' && Date.now() < deadline) {
        answer = await services.execute(served, { action: 'whoami', inputs: {}, params: {}, userId: 'user-4', idempotencyKey: '', runId: 'r', nodeId: 'n', attempt: 1, timeoutMs: 5_000 }, new AbortController().signal);
        expect(answer.outputs).toEqual({ user_id: 'user-4' });
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(services.transport('action-test')).toBe('stream');
      answer = await services.execute(served, { action: 'whoami', inputs: {}, params: {}, userId: 'user-5', idempotencyKey: '', runId: 'r', nodeId: 'n', attempt: 1, timeoutMs: 5_000 }, new AbortController().signal);
      expect(answer.outputs).toEqual({ user_id: 'user-5' });
    } finally {
      services.stop();
    }
  });
});

/** Another server of the same actions (on `port` when given), for tests that stop it. */
async function serveActions(port?: number): Promise<{ server: GrpcServer; address: string }> {
  const dispatcher = new ActionDispatcher('action-test', [sleep, whoami], new PgActionRecords(db));
  @Module({})
  class Own {
    static forRoot(): DynamicModule {
      return { module: Own, imports: [ActionServiceModule.forRoot(dispatcher, { auth })] };
    }
  }
  const p = port ?? (await freePort());
  const s = await startGrpcServer({ module: Own.forRoot(), packages: ['action'], host: '127.0.0.1', port: p, log: createLogger('t', 'silent'), auth });
  return { server: s, address: `127.0.0.1:${p}` };
}

/** A service written before ExecuteStream: it serves Execute and ListActions only (ExecuteStream answers UNIMPLEMENTED). */
async function serveUnaryOnly(): Promise<{ close: () => Promise<void>; address: string }> {
  @Controller()
  class UnaryOnly {
    @GrpcMethod('ActionService', 'Execute')
    execute(r: action.ExecuteRequest): action.ExecuteResponse {
      return { outputs: { user_id: r.principal?.userId ?? '', via: 'execute' }, replayed: false };
    }

    @GrpcMethod('ActionService', 'ListActions')
    listActions(): action.ListActionsResponse {
      return { service: 'old-service', actions: [{ name: 'whoami', version: '1', sideEffects: false, contract: undefined }] };
    }
  }
  @Module({ controllers: [UnaryOnly] })
  class Old {}
  const p = await freePort();
  const s = await startGrpcServer({ module: { module: Old }, packages: ['action'], host: '127.0.0.1', port: p, log: createLogger('t', 'silent'), auth });
  return { close: () => s.close(), address: `127.0.0.1:${p}` };
}

describe('a handler that keeps its own receipt, in PostgreSQL', () => {
  /** Writes a note and its receipt in one transaction; `hang` then stops, as a process that died after its commit. */
  const receiptNote = (hang = false): ActionHandler & { executions: number } => {
    const h = {
      name: 'note',
      sideEffects: true,
      executions: 0,
      async execute(ctx: Parameters<ActionHandler['execute']>[0]) {
        h.executions++;
        const id = await db.transaction(async (m) => {
          const [row] = await sqlRows(m, 'INSERT INTO notes (text) VALUES ($1) RETURNING id', [ctx.inputs.text]);
          if (!(await writeReceipt(m, ctx.receipt!, { note_id: row.id }, true))) throw new ReceiptSuperseded(ctx.receipt!.key);
          return row.id as number;
        });
        ctx.receipt!.completed = true;
        if (hang) await new Promise((r) => setTimeout(r, 60_000).unref());
        return { note_id: id, text: ctx.inputs.text };
      },
      async replay(ctx: Parameters<ActionHandler['execute']>[0], receipt: unknown) {
        return { note_id: (receipt as { note_id: number }).note_id, text: ctx.inputs.text };
      },
    };
    return h;
  };
  const claimed = (key: string) => ({ key, action: 'note', userId: principal.userId, claimed: true, completed: false });
  const exec = (key: string): ExecuteAction => ({ action: 'note', inputs: { text: 'r' }, params: {}, principal, idempotencyKey: key, runId: 'r', nodeId: 'n', attempt: 1, timeoutMs: 0 });
  const row = async (key: string) =>
    (await testDb.query<{ status: string; outputs: unknown; receipt: unknown }>('SELECT status, outputs, receipt FROM action_test.action_executions WHERE idempotency_key = $1', [key]))[0];

  it('completes the call in the handler\'s transaction: no answer stored beside it, and a repeat is answered from the receipt', async () => {
    const before = await executions();
    const h = receiptNote();
    const d = new ActionDispatcher('action-test', [h], new PgActionRecords(db));
    const first = await d.execute(exec('r:receipt:1'));
    expect(await row('r:receipt:1')).toEqual({ status: 'completed', outputs: null, receipt: { note_id: first.outputs.note_id } });
    expect(await d.execute(exec('r:receipt:1'))).toEqual({ outputs: first.outputs, replayed: true });
    expect([h.executions, (await executions()) - before]).toEqual([1, 1]);
  });

  it('acts once when the process dies between its commit and its answer: a restarted replica answers from the receipt', async () => {
    const before = await executions();
    const dying = receiptNote(true);
    const control: CallControl = {};
    const dead = new ActionDispatcher('action-test', [dying], new PgActionRecords(db)).execute(exec('r:receipt:2'), control).catch((e: AppError) => e.code);
    await until(() => dying.executions === 1, 'the first call');
    await new Promise((r) => setTimeout(r, 100));
    // The first holder committed and stopped answering: its record says complete, so nothing is taken over or run.
    const again = receiptNote();
    const out = await new ActionDispatcher('action-test', [again], new PgActionRecords(db)).execute(exec('r:receipt:2'));
    expect(out.replayed).toBe(true);
    expect([again.executions, (await executions()) - before]).toEqual([0, 1]);
    control.cancel!();
    expect(await dead).toBe('CANCELLED');
    expect((await row('r:receipt:2'))!.status).toBe('completed');
  });

  it('rolls back the effect of a call whose claim another holder finished first, and answers with that holder\'s result', async () => {
    const records = new PgActionRecords(db);
    expect(await records.claim('r:receipt:3', 'note', principal.userId, 30_000)).toEqual({ state: 'claimed' });
    const [first] = await sqlRows(db, "INSERT INTO notes (text) VALUES ('first') RETURNING id");
    // This call took the claim over (the first holder looked silent) and is running when the first holder commits.
    await sqlRows(db, "UPDATE action_executions SET updated_at = now() - interval '1 hour' WHERE idempotency_key = 'r:receipt:3'");
    const before = await executions();
    const h = receiptNote();
    const execute = h.execute;
    h.execute = async (ctx) => {
      expect(await writeReceipt(db, claimed('r:receipt:3'), { note_id: first.id }, true)).toBe(true);
      return execute(ctx);
    };
    const out = await new ActionDispatcher('action-test', [h], records).execute(exec('r:receipt:3'));
    expect(out).toEqual({ outputs: { note_id: first.id, text: 'r' }, replayed: true });
    expect((await executions()) - before).toBe(0);
  });

  it('runs an optimistic handler without a claim: its transaction creates the completed record, and of duplicates running at once one writes', async () => {
    const before = await executions();
    const h = receiptNote();
    const optimistic = { ...h, optimistic: true, execute: h.execute };
    const dispatchers = [0, 1, 2].map(() => new ActionDispatcher('action-test', [optimistic], new PgActionRecords(db)));
    const answers = await Promise.all(dispatchers.map((d) => d.execute(exec('r:receipt:5'))));
    expect((await executions()) - before).toBe(1);
    expect(new Set(answers.map((a) => a.outputs.note_id)).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(await row('r:receipt:5')).toEqual({ status: 'completed', outputs: null, receipt: { note_id: answers[0]!.outputs.note_id } });
    // Another user's call with the key writes nothing and is refused.
    await expect(dispatchers[0]!.execute({ ...exec('r:receipt:5'), principal: { userId: 'user-2', teamIds: [] } })).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });
    expect((await executions()) - before).toBe(1);
  });

  it('hands the checkpoint of a silent holder to the call that takes its claim over', async () => {
    const records = new PgActionRecords(db);
    await records.claim('r:receipt:4', 'note', principal.userId, 30_000);
    expect(await writeReceipt(db, claimed('r:receipt:4'), { done: 2 }, false)).toBe(true);
    expect(await records.claim('r:receipt:4', 'note', principal.userId, 30_000)).toEqual({ state: 'in_progress' });
    await sqlRows(db, "UPDATE action_executions SET updated_at = now() - interval '1 hour' WHERE idempotency_key = 'r:receipt:4'");
    expect(await records.claim('r:receipt:4', 'note', principal.userId, 30_000)).toEqual({ state: 'claimed', prior: { done: 2 } });
    // A failure after the final receipt leaves the call answered.
    expect(await writeReceipt(db, claimed('r:receipt:4'), { done: 3 }, true)).toBe(true);
    await records.fail('r:receipt:4', { code: 'INTERNAL', message: 'late' }, true);
    await records.fail('r:receipt:4', { code: 'UNAVAILABLE', message: 'late' }, false);
    expect(await records.claim('r:receipt:4', 'note', principal.userId, 30_000)).toEqual({ state: 'receipted', receipt: { done: 3 } });
  });
});
