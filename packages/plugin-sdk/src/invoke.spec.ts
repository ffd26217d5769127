import { definePlugin } from './define-plugin.js';
import { PluginError } from './errors.js';
import { IdempotencyCache } from './idempotency.js';
import { invokeTool, type ToolCall } from './invoke.js';
import { createPluginLogger } from './log.js';

const SECRET = 'https://hooks.example.com/T000/B000/very-secret-token';

function setup() {
  const lines: string[] = [];
  const log = createPluginLogger({ name: 'test', version: '1.0.0' }, 'debug', {
    write: (s: string) => void lines.push(s),
  });
  const calls: Array<{ inputs: any; ctx: any }> = [];
  let behaviour: (inputs: any, ctx: any) => Promise<Record<string, unknown>> | Record<string, unknown> = (
    inputs,
  ) => ({ ok: true, text: inputs.text });
  const plugin = definePlugin({
    name: 'poster',
    version: '1.0.0',
    connectionType: 'webhook',
    requiredConfig: ['url'],
    tools: {
      post: {
        description: 'Post text',
        input: {
          type: 'object',
          properties: {
            text: { type: 'string', minLength: 1 },
            channel: { type: 'string', default: '#general' },
          },
          required: ['text'],
        },
        output: {
          type: 'object',
          properties: { ok: { type: 'boolean' }, text: { type: 'string' } },
          required: ['ok'],
        },
        sideEffecting: true,
        handler: (inputs, ctx) => {
          calls.push({ inputs, ctx });
          return behaviour(inputs, ctx);
        },
      },
      read: {
        description: 'Read (no side effects)',
        input: { type: 'object', properties: {} },
        output: { type: 'object' },
        handler: (inputs, ctx) => {
          calls.push({ inputs, ctx });
          return { at: new Date('2024-01-02T03:04:05Z'), gone: undefined };
        },
      },
    },
  });
  const deps = { log, idempotency: new IdempotencyCache() };
  const invoke = (call: Partial<ToolCall>, extra: { signal?: AbortSignal } = {}) =>
    invokeTool(
      plugin,
      { tool: 'post', inputs: { text: 'hello' }, config: { url: SECRET }, ...call },
      { ...deps, ...extra },
    );
  return { plugin, lines, calls, invoke, setBehaviour: (b: typeof behaviour) => (behaviour = b) };
}

async function failure(p: Promise<unknown>): Promise<PluginError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(PluginError);
    return err as PluginError;
  }
  throw new Error('expected the call to fail');
}

describe('invokeTool', () => {
  it('runs the handler with defaults applied, the config, the key and a live signal', async () => {
    const t = setup();
    await expect(t.invoke({ idempotencyKey: 'run1:n1:1' })).resolves.toEqual({ ok: true, text: 'hello' });
    expect(t.calls).toHaveLength(1);
    const { inputs, ctx } = t.calls[0]!;
    expect(inputs).toEqual({ text: 'hello', channel: '#general' });
    expect(ctx.config).toEqual({ url: SECRET });
    expect(Object.isFrozen(ctx.config)).toBe(true);
    expect(ctx.idempotencyKey).toBe('run1:n1:1');
    expect(ctx.tool).toBe('post');
    expect(ctx.signal.aborted).toBe(false);
  });

  it('answers NOT_FOUND for an unknown tool, naming the tools there are', async () => {
    const err = await failure(setup().invoke({ tool: 'delete' }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).toContain('tools: post, read');
  });

  it('answers FAILED_PRECONDITION naming each missing config key', async () => {
    const err = await failure(setup().invoke({ config: {} }));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.violations).toEqual([{ field: 'config.url', reason: 'is required by plugin poster' }]);
  });

  it('refuses invalid inputs before the handler with INVALID_ARGUMENT naming the field', async () => {
    const t = setup();
    const err = await failure(t.invoke({ inputs: { text: '' } }));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toEqual([
      { field: 'inputs.text', reason: 'must NOT have fewer than 1 characters' },
    ]);
    expect(err.message).toContain('inputs.text');
    const missing = await failure(t.invoke({ inputs: undefined }));
    expect(missing.violations).toEqual([{ field: 'inputs.text', reason: 'is required' }]);
    expect(t.calls).toHaveLength(0);
  });

  it('checks the output after the handler: a contract break is INTERNAL naming the output field', async () => {
    const t = setup();
    t.setBehaviour(() => ({ ok: 'yes' }));
    const err = await failure(t.invoke({}));
    expect(err.code).toBe('INTERNAL');
    expect(err.violations).toEqual([{ field: 'output.ok', reason: 'must be boolean' }]);
    t.setBehaviour(() => [1, 2] as unknown as Record<string, unknown>);
    expect((await failure(t.invoke({}))).message).toContain('must return an object, got a list');
  });

  it('normalises outputs to JSON (dates become strings, undefined is dropped)', async () => {
    const t = setup();
    await expect(t.invoke({ tool: 'read', inputs: {} })).resolves.toEqual({ at: '2024-01-02T03:04:05.000Z' });
  });

  it('keeps a PluginError’s code, masking config values in its message', async () => {
    const t = setup();
    t.setBehaviour(() => {
      throw new PluginError('UNAVAILABLE', `upstream ${SECRET} answered 503`, { retryAfterMs: 2000 });
    });
    const err = await failure(t.invoke({}));
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.retryable).toBe(true);
    expect(err.retryAfterMs).toBe(2000);
    expect(err.message).not.toContain(SECRET);
    expect(err.message).toContain('[REDACTED]');
  });

  it('turns any other error into INTERNAL with a generic message, logging it masked', async () => {
    const t = setup();
    t.setBehaviour(() => {
      throw new Error(`socket to ${SECRET} hung up`);
    });
    const err = await failure(t.invoke({}));
    expect(err.code).toBe('INTERNAL');
    expect(err.message).toBe('tool post failed unexpectedly');
    const logged = t.lines.join('');
    expect(logged).toContain('socket to [REDACTED] hung up');
    expect(logged).not.toContain(SECRET);
  });

  it('masks config values in what the handler logs', async () => {
    const t = setup();
    t.setBehaviour((_inputs, ctx) => {
      ctx.log.info(
        { url: ctx.config.url, nested: { list: [ctx.config.url] } },
        `posting to ${ctx.config.url}`,
      );
      ctx.log.warn(`plain ${encodeURIComponent(ctx.config.url)}`);
      return { ok: true };
    });
    await t.invoke({});
    const logged = t.lines.join('');
    expect(logged).toContain('posting to [REDACTED]');
    expect(logged).toContain('plain [REDACTED]');
    expect(logged).not.toContain('very-secret-token');
  });

  it('answers DEADLINE_EXCEEDED at the timeout and aborts the handler’s signal', async () => {
    const t = setup();
    let seen: AbortSignal | undefined;
    t.setBehaviour((_i, ctx) => {
      seen = ctx.signal;
      return new Promise(() => undefined);
    });
    const err = await failure(t.invoke({ timeoutMs: 50 }));
    expect(err.code).toBe('DEADLINE_EXCEEDED');
    expect(err.message).toContain('within 50 ms');
    expect(seen?.aborted).toBe(true);
  });

  it('answers CANCELLED when the transport cancels, also when already cancelled', async () => {
    const t = setup();
    t.setBehaviour(() => new Promise(() => undefined));
    const cancel = new AbortController();
    const pending = t.invoke({}, { signal: cancel.signal });
    cancel.abort();
    expect((await failure(pending)).code).toBe('CANCELLED');
    const gone = new AbortController();
    gone.abort();
    expect((await failure(t.invoke({}, { signal: gone.signal }))).code).toBe('CANCELLED');
    expect(t.calls).toHaveLength(1);
  });

  describe('side-effecting tools with an idempotency key', () => {
    it('act once per key: a repeat, even concurrent, gets the first result', async () => {
      const t = setup();
      let n = 0;
      t.setBehaviour(async () => {
        await new Promise((r) => setTimeout(r, 20));
        return { ok: true, text: `call ${++n}` };
      });
      const [a, b] = await Promise.all([
        t.invoke({ idempotencyKey: 'k1' }),
        t.invoke({ idempotencyKey: 'k1' }),
      ]);
      const c = await t.invoke({ idempotencyKey: 'k1' });
      expect([a, b, c]).toEqual([
        { ok: true, text: 'call 1' },
        { ok: true, text: 'call 1' },
        { ok: true, text: 'call 1' },
      ]);
      expect(t.calls).toHaveLength(1);
      await t.invoke({ idempotencyKey: 'k2' });
      await t.invoke({});
      await t.invoke({});
      expect(t.calls).toHaveLength(4);
    });

    it('refuse a key reused with different inputs, and keep users apart', async () => {
      const t = setup();
      await t.invoke({ idempotencyKey: 'k1' });
      const err = await failure(t.invoke({ idempotencyKey: 'k1', inputs: { text: 'other' } }));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toContain('different inputs');
      await t.invoke({ idempotencyKey: 'k1', config: { url: 'https://hooks.example.com/other-user' } });
      expect(t.calls).toHaveLength(2);
    });

    it('forget a failed call so the retry runs', async () => {
      const t = setup();
      t.setBehaviour(() => {
        throw PluginError.unavailable('down');
      });
      expect((await failure(t.invoke({ idempotencyKey: 'k1' }))).code).toBe('UNAVAILABLE');
      t.setBehaviour(() => ({ ok: true }));
      await expect(t.invoke({ idempotencyKey: 'k1' })).resolves.toEqual({ ok: true });
      expect(t.calls).toHaveLength(2);
    });

    it('do not de-duplicate tools that have no side effects', async () => {
      const t = setup();
      await t.invoke({ tool: 'read', inputs: {}, idempotencyKey: 'k1' });
      await t.invoke({ tool: 'read', inputs: {}, idempotencyKey: 'k1' });
      expect(t.calls).toHaveLength(2);
    });
  });
});
