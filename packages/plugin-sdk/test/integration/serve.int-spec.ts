/**
 * servePlugin over real gRPC on loopback (real: grpc-js server and clients;
 * the registry is a scripted PluginRegistryService on its own port, since
 * the real one is connector-runtime, covered by its e2e test). Shows: the
 * plugin registers once the registry comes up, heartbeats, registers again
 * when forgotten; Invoke validates, de-duplicates and maps errors to statuses
 * with the af-error-bin detail; stop() closes the port.
 */
import {
  Client,
  credentials,
  Metadata,
  Server,
  ServerCredentials,
  status,
  type ServiceError,
} from '@grpc/grpc-js';
import { freePort } from '@af/testing';
import {
  definePlugin,
  PluginError,
  servePlugin,
  type RegistrationStatus,
  type RunningPlugin,
} from '../../src/index.js';
import { fromServiceError } from '../../src/errors.js';
import {
  connectorPluginService,
  pluginRegistryService,
  type InvokeRequest,
  type InvokeResponse,
  type RegisterPluginRequest,
} from '../../src/wire.js';

const posted: Array<{ text: string; key?: string }> = [];
const plugin = definePlugin({
  name: 'int-demo',
  version: '2.0.0',
  connectionType: 'demo_token',
  requiredConfig: ['token'],
  tools: {
    post: {
      description: 'Record a post',
      input: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] },
      output: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      sideEffecting: true,
      handler: (inputs, ctx) => {
        posted.push({ text: inputs.text, ...(ctx.idempotencyKey ? { key: ctx.idempotencyKey } : {}) });
        return { n: posted.length };
      },
    },
    slow: {
      description: 'Never finishes in time',
      input: { type: 'object' },
      output: { type: 'object' },
      handler: (_inputs, ctx) =>
        new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')))),
    },
    limited: {
      description: 'Always rate limited',
      input: { type: 'object' },
      output: { type: 'object' },
      handler: () => {
        throw new PluginError('RESOURCE_EXHAUSTED', 'upstream rate limit', { retryAfterMs: 3000 });
      },
    },
  },
});

/** A PluginRegistryService whose answers the test controls. */
async function startRegistry(port: number) {
  const state = {
    registers: [] as RegisterPluginRequest[],
    heartbeats: [] as string[],
    known: true,
    token: 'right-token',
  };
  const server = new Server();
  server.addService(pluginRegistryService, {
    RegisterPlugin: (call: any, cb: any) => {
      const req = call.request as RegisterPluginRequest;
      state.registers.push(req);
      if (req.registrationToken !== state.token) {
        return cb({
          code: status.UNAUTHENTICATED,
          details: 'registration_token is wrong',
          metadata: new Metadata(),
        });
      }
      state.known = true;
      cb(null, { instanceId: `inst-${state.registers.length}`, heartbeatIntervalSeconds: 1 });
    },
    HeartbeatPlugin: (call: any, cb: any) => {
      state.heartbeats.push(call.request.instanceId);
      cb(null, { known: state.known });
    },
    ListPlugins: (_c: any, cb: any) => cb({ code: status.UNIMPLEMENTED }),
    GetPlugin: (_c: any, cb: any) => cb({ code: status.UNIMPLEMENTED }),
    SetPluginEnabled: (_c: any, cb: any) => cb({ code: status.UNIMPLEMENTED }),
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (e) =>
      e ? reject(e) : resolve(),
    ),
  );
  return { state, close: () => new Promise<void>((r) => server.tryShutdown(() => r())) };
}

function invoke(address: string, req: Partial<InvokeRequest>, deadlineMs = 5000): Promise<InvokeResponse> {
  const client = new Client(address, credentials.createInsecure());
  const m = connectorPluginService.Invoke!;
  const full: InvokeRequest = {
    tool: 'post',
    inputs: {},
    config: { token: 'user-token-123' },
    idempotencyKey: '',
    timeoutMs: 0,
    ...req,
  };
  return new Promise<InvokeResponse>((resolve, reject) =>
    client.makeUnaryRequest(
      m.path,
      m.requestSerialize,
      m.responseDeserialize,
      full,
      new Metadata(),
      { deadline: Date.now() + deadlineMs },
      (err, res) => (err ? reject(err) : resolve(res!)),
    ),
  ).finally(() => client.close());
}

async function rejection(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (err) {
    return err as ServiceError;
  }
  throw new Error('expected the call to fail');
}

const until = async (cond: () => boolean, ms = 8000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
};

let running: RunningPlugin;
let registryPort: number;
let registry: Awaited<ReturnType<typeof startRegistry>>;
const statuses: RegistrationStatus[] = [];
const logLines: string[] = [];

beforeAll(async () => {
  registryPort = await freePort();
  // The plugin starts first: it must keep retrying until the registry is up.
  const pino = (await import('pino')).default;
  running = await servePlugin(plugin, {
    registryUrl: `127.0.0.1:${registryPort}`,
    registrationToken: 'right-token',
    heartbeatSeconds: 0.2,
    registrationRetry: { initialMs: 50, maxMs: 200 },
    onStatus: (s) => statuses.push(s),
    logger: pino({ level: 'debug' }, { write: (s: string) => void logLines.push(s) }),
  });
  await new Promise((r) => setTimeout(r, 300));
  expect(statuses[0]).toMatchObject({ state: 'registering', attempt: 1 });
  registry = await startRegistry(registryPort);
});

afterAll(async () => {
  await running?.stop();
  await registry?.close();
});

it('registers once the registry is up, with its contract and address', async () => {
  await expect(running.registered()).resolves.toMatchObject({
    instanceId: expect.stringMatching(/^inst-/),
    heartbeatSeconds: 0.2,
  });
  const req = registry.state.registers.at(-1)!;
  expect(req).toMatchObject({
    name: 'int-demo',
    version: '2.0.0',
    connectionType: 'demo_token',
    requiredConfig: ['token'],
    address: running.address,
  });
  expect(req.tools.map((t) => t.name)).toEqual(['post', 'slow', 'limited']);
  expect(req.tools[0]!.inputSchema).toEqual({
    type: 'object',
    properties: { text: { type: 'string', minLength: 1 } },
    required: ['text'],
  });
  expect(running.address).toBe(`127.0.0.1:${running.port}`);
});

it('heartbeats, and registers again when the registry forgets the instance', async () => {
  const before = registry.state.registers.length;
  await until(() => registry.state.heartbeats.length >= 2);
  registry.state.known = false;
  await until(() => registry.state.registers.length === before + 1);
  await until(
    () =>
      running.status()?.state === 'registered' &&
      (running.status() as { instanceId: string }).instanceId === `inst-${before + 1}`,
  );
});

it('serves Invoke: validated inputs, the output, and one post per idempotency key', async () => {
  posted.length = 0;
  await expect(
    invoke(running.address, { inputs: { text: 'hi' }, idempotencyKey: 'run:n:1' }),
  ).resolves.toEqual({ output: { n: 1 } });
  await expect(
    invoke(running.address, { inputs: { text: 'hi' }, idempotencyKey: 'run:n:1' }),
  ).resolves.toEqual({ output: { n: 1 } });
  expect(posted).toEqual([{ text: 'hi', key: 'run:n:1' }]);
});

it('answers INVALID_ARGUMENT with the field in the af-error-bin detail', async () => {
  const err = await rejection(invoke(running.address, { inputs: { text: 42 } }));
  expect(err.code).toBe(status.INVALID_ARGUMENT);
  const restored = fromServiceError(err);
  expect(restored.violations).toEqual([{ field: 'inputs.text', reason: 'must be string' }]);
});

it('maps handler errors, missing config, unknown tools and timeouts to statuses', async () => {
  const limited = fromServiceError(await rejection(invoke(running.address, { tool: 'limited' })));
  expect(limited).toMatchObject({ code: 'RESOURCE_EXHAUSTED', retryAfterMs: 3000, retryable: true });
  expect(
    (await rejection(invoke(running.address, { tool: 'post', inputs: { text: 'x' }, config: {} }))).code,
  ).toBe(status.FAILED_PRECONDITION);
  expect((await rejection(invoke(running.address, { tool: 'nope' }))).code).toBe(status.NOT_FOUND);
  const slow = await rejection(invoke(running.address, { tool: 'slow', timeoutMs: 100 }));
  expect(slow.code).toBe(status.DEADLINE_EXCEEDED);
  expect(slow.details).toContain('within 100 ms');
});

it('aborts the handler when the caller’s deadline passes', async () => {
  const before = logLines.length;
  const err = await rejection(invoke(running.address, { tool: 'slow', timeoutMs: 60_000 }, 150));
  expect(err.code).toBe(status.DEADLINE_EXCEEDED);
  await until(() => logLines.slice(before).some((l) => l.includes('"code":"CANCELLED"')));
});

it('never logs the caller’s config values', () => {
  expect(logLines.join('')).not.toContain('user-token-123');
});

it('is refused, not retried, with a wrong token', async () => {
  const other = await servePlugin(plugin, {
    registryUrl: `127.0.0.1:${registryPort}`,
    registrationToken: 'wrong',
    logLevel: 'silent',
  });
  await expect(other.registered()).rejects.toMatchObject({
    code: 'UNAUTHENTICATED',
    message: 'registration_token is wrong',
  });
  expect(other.status()).toMatchObject({ state: 'refused' });
  await other.stop();
});

it('stop() closes the port', async () => {
  const extra = await servePlugin(plugin, { logLevel: 'silent' });
  await expect(extra.registered()).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  await expect(invoke(extra.address, { tool: 'post', inputs: { text: 'a' } })).resolves.toBeDefined();
  await extra.stop();
  const err = await rejection(invoke(extra.address, { tool: 'post', inputs: { text: 'a' } }, 500));
  expect([status.UNAVAILABLE, status.DEADLINE_EXCEEDED]).toContain(err.code);
});

it('refuses bad options up front', async () => {
  await expect(servePlugin(plugin, { port: 70000, registryUrl: 'nope' })).rejects.toThrow(
    /port: must be an integer.*registryUrl: must be host:port/,
  );
});
