import { definePlugin } from './define-plugin.js';
import { PluginError } from './errors.js';
import { createPluginLogger } from './log.js';
import { backoff, RegistryLink, type RegistrationStatus } from './registration.js';
import type { RegistryClient } from './registry-client.js';
import type { RegisterPluginRequest } from './wire.js';

const plugin = definePlugin({
  name: 'demo',
  version: '1.0.0',
  connectionType: 'api_key',
  requiredConfig: ['api_key'],
  tools: {
    ping: {
      description: 'Ping',
      input: { type: 'object' },
      output: { type: 'object' },
      sideEffecting: true,
      handler: () => ({}),
    },
  },
});

/** A registry that answers from a script. */
class FakeRegistry {
  registers: RegisterPluginRequest[] = [];
  heartbeats: string[] = [];
  registerAnswers: Array<PluginError | { instanceId: string; heartbeatIntervalSeconds: number }> = [];
  heartbeatAnswers: Array<boolean | PluginError> = [];
  deregisters: Array<{ name: string; instanceId: string; deadlineMs: number }> = [];
  deregisterAnswer: boolean | PluginError = true;
  /** Holds register() answers until released (a registration in flight). */
  gate: Promise<void> | undefined;
  closed = false;
  address = 'fake:1';
  async register(req: RegisterPluginRequest) {
    this.registers.push(req);
    if (this.gate) await this.gate;
    const next = this.registerAnswers.shift() ?? {
      instanceId: `i${this.registers.length}`,
      heartbeatIntervalSeconds: 1,
    };
    if (next instanceof PluginError) throw next;
    return next;
  }
  async heartbeat(_name: string, instanceId: string) {
    this.heartbeats.push(instanceId);
    const next = this.heartbeatAnswers.shift() ?? true;
    if (next instanceof PluginError) throw next;
    return next;
  }
  async deregister(name: string, instanceId: string, deadlineMs: number) {
    if (this.closed) throw PluginError.unavailable('the client is closed');
    this.deregisters.push({ name, instanceId, deadlineMs });
    if (this.deregisterAnswer instanceof PluginError) throw this.deregisterAnswer;
    return this.deregisterAnswer;
  }
  close() {
    this.closed = true;
  }
}

const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
};

function link(registry: FakeRegistry, extra: { heartbeatSeconds?: number } = {}) {
  const statuses: RegistrationStatus[] = [];
  const lines: string[] = [];
  const l = new RegistryLink(registry as unknown as RegistryClient, {
    plugin,
    address: '127.0.0.1:5000',
    registrationToken: 'tok',
    heartbeatSeconds: 0.02,
    ...extra,
    log: createPluginLogger(plugin, 'debug', { write: (s: string) => void lines.push(s) }),
    onStatus: (s) => statuses.push(s),
    retry: { initialMs: 5, maxMs: 20 },
  });
  return { l, statuses, lines };
}

describe('RegistryLink', () => {
  it('sends the contract, then heartbeats at the shorter of its own and the registry’s interval', async () => {
    const registry = new FakeRegistry();
    const { l } = link(registry);
    l.start();
    await expect(l.registered()).resolves.toEqual({ instanceId: 'i1', heartbeatSeconds: 0.02 });
    expect(registry.registers[0]).toEqual({
      name: 'demo',
      version: '1.0.0',
      description: '',
      connectionType: 'api_key',
      requiredConfig: ['api_key'],
      toolPackName: 'demo',
      tools: [
        {
          name: 'ping',
          description: 'Ping',
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          requires: 'api_key',
          sideEffecting: true,
        },
      ],
      address: '127.0.0.1:5000',
      registrationToken: 'tok',
    });
    await until(() => registry.heartbeats.length >= 3);
    expect(new Set(registry.heartbeats)).toEqual(new Set(['i1']));
    const stopping = l.stop();
    expect(l.status).toEqual({ state: 'stopped' });
    await stopping;
    expect(registry.deregisters).toEqual([{ name: 'demo', instanceId: 'i1', deadlineMs: expect.any(Number) }]);
    expect(registry.closed).toBe(true);
    const beats = registry.heartbeats.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(registry.heartbeats).toHaveLength(beats);
    await l.stop(); // twice: the same stop, no second deregistration
    expect(registry.deregisters).toHaveLength(1);
  });

  it('deregisters a registration that was still in flight when it stopped', async () => {
    const registry = new FakeRegistry();
    let release!: () => void;
    registry.gate = new Promise<void>((r) => (release = r));
    const { l } = link(registry);
    l.start();
    await until(() => registry.registers.length === 1);
    const stopping = l.stop();
    release();
    await stopping;
    expect(registry.deregisters.map((d) => d.instanceId)).toEqual(['i1']);
    expect(registry.heartbeats).toEqual([]);
    expect(registry.closed).toBe(true);
  });

  it('still stops, and says why, when the registry cannot be told', async () => {
    const registry = new FakeRegistry();
    registry.deregisterAnswer = PluginError.unavailable('connect ECONNREFUSED');
    const { l, lines } = link(registry);
    l.start();
    await l.registered();
    await l.stop();
    expect(registry.closed).toBe(true);
    expect(lines.join('')).toContain('could not deregister; the registry retires this instance after its missed heartbeats');
  });

  it('does not wait past the deadline for a registration that never answers', async () => {
    const registry = new FakeRegistry();
    registry.gate = new Promise<void>(() => undefined);
    const { l } = link(registry);
    l.start();
    await until(() => registry.registers.length === 1);
    const t0 = Date.now();
    await l.stop(100);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(registry.deregisters).toEqual([]);
    expect(registry.closed).toBe(true);
  });

  it('retries while the registry is unreachable, then registers', async () => {
    const registry = new FakeRegistry();
    registry.registerAnswers = [
      PluginError.unavailable('connect ECONNREFUSED'),
      new PluginError('DEADLINE_EXCEEDED', 'slow'),
      { instanceId: 'late', heartbeatIntervalSeconds: 5 },
    ];
    const { l, statuses, lines } = link(registry);
    l.start();
    await expect(l.registered()).resolves.toEqual({ instanceId: 'late', heartbeatSeconds: 0.02 });
    expect(registry.registers).toHaveLength(3);
    expect(statuses.map((s) => s.state)).toEqual(['registering', 'registering', 'registered']);
    expect(statuses[0]).toMatchObject({ attempt: 1, lastError: 'UNAVAILABLE: connect ECONNREFUSED' });
    expect(lines.join('')).toContain('plugin registry not reachable yet; retrying');
    expect(lines.join('')).not.toContain('"tok"');
    l.stop();
  });

  it('gives up when the registry refuses the plugin', async () => {
    const registry = new FakeRegistry();
    registry.registerAnswers = [new PluginError('UNAUTHENTICATED', 'registration_token is wrong')];
    const { l, statuses } = link(registry);
    l.start();
    await expect(l.registered()).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(statuses.at(-1)).toMatchObject({ state: 'refused' });
    await new Promise((r) => setTimeout(r, 50));
    expect(registry.registers).toHaveLength(1);
    l.stop();
  });

  it('registers again when a heartbeat answers known=false, and keeps going through heartbeat failures', async () => {
    const registry = new FakeRegistry();
    registry.heartbeatAnswers = [PluginError.unavailable('blip'), true, false];
    const { l, lines } = link(registry);
    l.start();
    await until(() => registry.registers.length === 2);
    expect(l.status).toMatchObject({ state: 'registered', instanceId: 'i2' });
    await until(() => registry.heartbeats.includes('i2'));
    expect(registry.heartbeats.slice(0, 3)).toEqual(['i1', 'i1', 'i1']);
    const logged = lines.join('');
    expect(logged).toContain('heartbeat failed; will keep trying');
    expect(logged).toContain('the registry no longer knows this instance; registering again');
    l.stop();
  });

  it('uses the registry’s interval when it is the shorter one', async () => {
    const registry = new FakeRegistry();
    registry.registerAnswers = [{ instanceId: 'x', heartbeatIntervalSeconds: 3 }];
    const { l } = link(registry, { heartbeatSeconds: 60 });
    l.start();
    await expect(l.registered()).resolves.toEqual({ instanceId: 'x', heartbeatSeconds: 3 });
    l.stop();
  });

  it('rejects registered() when stopped first', async () => {
    const registry = new FakeRegistry();
    registry.registerAnswers = [PluginError.unavailable('down')];
    const { l } = link(registry);
    l.start();
    l.stop();
    await expect(l.registered()).rejects.toMatchObject({ code: 'CANCELLED' });
  });
});

describe('backoff', () => {
  it('doubles up to the cap with ±20 % jitter', () => {
    const r = { initialMs: 100, maxMs: 1000 };
    expect(backoff(1, r, () => 0.5)).toBe(100);
    expect(backoff(3, r, () => 0.5)).toBe(400);
    expect(backoff(10, r, () => 0.5)).toBe(1000);
    expect(backoff(1, r, () => 0)).toBe(80);
    expect(backoff(1, r, () => 1)).toBe(120);
  });
});
