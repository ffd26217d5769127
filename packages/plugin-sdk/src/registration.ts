/**
 * Keeps a plugin registered with connector-runtime: registers (retrying with
 * backoff while the registry is unreachable), heartbeats at the interval the
 * registry asks for, registers again when a heartbeat answers `known: false`
 * (the registry forgot this instance), and gives up only when the registry
 * refuses the plugin itself (bad token, invalid contract). On stop it
 * deregisters, so the registry stops sending calls here at once instead of
 * after three missed heartbeats.
 */
import type { PluginDefinition } from './define-plugin.js';
import { PluginError } from './errors.js';
import type { Logger } from './log.js';
import type { RegistryClient } from './registry-client.js';
import type { RegisterPluginRequest } from './wire.js';

export interface Registration {
  instanceId: string;
  /** How often this plugin heartbeats. */
  heartbeatSeconds: number;
}

export type RegistrationStatus =
  | { state: 'registering'; attempt: number; lastError?: string }
  | ({ state: 'registered' } & Registration)
  | { state: 'refused'; error: PluginError }
  | { state: 'stopped' };

/** Answers that will not change by retrying the same registration. */
const PERMANENT = new Set([
  'INVALID_ARGUMENT',
  'PERMISSION_DENIED',
  'UNAUTHENTICATED',
  'FAILED_PRECONDITION',
  'ALREADY_EXISTS',
  'UNIMPLEMENTED',
]);

export interface RegistryLinkOptions {
  plugin: PluginDefinition;
  address: string;
  registrationToken: string;
  /** Heartbeat at most this often apart (the registry's interval wins when shorter). */
  heartbeatSeconds?: number;
  log: Logger;
  onStatus?: (status: RegistrationStatus) => void;
  /** Backoff between registration attempts: first delay and cap (ms). */
  retry?: { initialMs: number; maxMs: number };
}

export class RegistryLink {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private current: RegistrationStatus = { state: 'registering', attempt: 0 };
  private heartbeatFailures = 0;
  /** The instance id of a registration still in flight (undefined when it failed). */
  private pendingRegistration: Promise<string | undefined> | undefined;
  private stopping: Promise<void> | undefined;
  private readonly first: Promise<Registration>;
  private settleFirst!: { resolve(r: Registration): void; reject(e: Error): void };

  constructor(
    private readonly client: RegistryClient,
    private readonly options: RegistryLinkOptions,
  ) {
    this.first = new Promise<Registration>((resolve, reject) => (this.settleFirst = { resolve, reject }));
    this.first.catch(() => undefined);
  }

  get status(): RegistrationStatus {
    return this.current;
  }

  /** Resolves on the first successful registration; rejects when refused or stopped before. */
  registered(): Promise<Registration> {
    return this.first;
  }

  start(): void {
    void this.register(1);
  }

  /**
   * Stops heartbeating and deregisters this instance (best effort, within
   * `deadlineMs`; a registration still in flight is waited for and then
   * deregistered too). If the registry cannot be reached, missed heartbeats
   * retire the instance as before.
   */
  stop(deadlineMs = 2_000): Promise<void> {
    if (this.stopping) return this.stopping;
    this.stopped = true;
    clearTimeout(this.timer);
    this.settleFirst.reject(new PluginError('CANCELLED', 'the plugin stopped before it was registered'));
    const registered = this.current.state === 'registered' ? this.current.instanceId : undefined;
    const pending = this.pendingRegistration;
    this.setStatus({ state: 'stopped' });
    this.stopping = (async () => {
      try {
        const deadline = Date.now() + deadlineMs;
        const instanceId = registered ?? (pending ? await within(pending, deadlineMs) : undefined);
        if (instanceId) await this.leave(instanceId, Math.max(deadline - Date.now(), 100));
      } finally {
        this.client.close();
      }
    })();
    return this.stopping;
  }

  private async leave(instanceId: string, deadlineMs: number): Promise<void> {
    const { log, plugin } = this.options;
    try {
      const removed = await this.client.deregister(plugin.name, instanceId, deadlineMs);
      log.info({ instanceId, removed }, 'deregistered from the plugin registry');
    } catch (err) {
      log.warn(
        { instanceId, code: (err as PluginError).code },
        'could not deregister; the registry retires this instance after its missed heartbeats',
      );
    }
  }

  private request(): RegisterPluginRequest {
    const p = this.options.plugin;
    return {
      name: p.name,
      version: p.version,
      description: p.description,
      connectionType: p.connectionType,
      requiredConfig: [...p.requiredConfig],
      toolPackName: p.toolPack,
      tools: [...p.tools.values()].map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
        requires: p.connectionType === 'none' ? '' : p.connectionType,
        sideEffecting: t.sideEffecting,
      })),
      address: this.options.address,
      registrationToken: this.options.registrationToken,
    };
  }

  private async register(attempt: number): Promise<void> {
    if (this.stopped) return;
    const { log, plugin } = this.options;
    try {
      const call = this.client.register(this.request());
      this.pendingRegistration = call.then(
        (r) => r.instanceId,
        () => undefined,
      );
      const res = await call;
      this.pendingRegistration = undefined;
      if (this.stopped) return;
      const granted = res.heartbeatIntervalSeconds > 0 ? res.heartbeatIntervalSeconds : 10;
      const heartbeatSeconds = Math.min(granted, this.options.heartbeatSeconds ?? granted);
      const registration = { instanceId: res.instanceId, heartbeatSeconds };
      log.info(
        { registry: this.client.address, instanceId: res.instanceId, heartbeatSeconds, attempts: attempt },
        'registered with the plugin registry',
      );
      this.heartbeatFailures = 0;
      this.setStatus({ state: 'registered', ...registration });
      this.settleFirst.resolve(registration);
      this.schedule(heartbeatSeconds * 1000, () => this.heartbeat(registration));
    } catch (err) {
      if (this.stopped) return;
      const error = err as PluginError;
      if (PERMANENT.has(error.code)) {
        log.error(
          { registry: this.client.address, code: error.code, violations: error.violations },
          `the plugin registry refused ${plugin.name}: ${error.message}`,
        );
        this.setStatus({ state: 'refused', error });
        this.settleFirst.reject(error);
        return;
      }
      const delay = backoff(attempt, this.options.retry ?? { initialMs: 250, maxMs: 5_000 });
      // The first failure and then every tenth: enough to see it is waiting, without flooding.
      if (attempt === 1 || attempt % 10 === 0) {
        log.warn(
          { registry: this.client.address, code: error.code, attempt, retryInMs: delay },
          'plugin registry not reachable yet; retrying',
        );
      }
      this.setStatus({ state: 'registering', attempt, lastError: `${error.code}: ${error.message}` });
      this.schedule(delay, () => this.register(attempt + 1));
    }
  }

  private async heartbeat(registration: Registration): Promise<void> {
    if (this.stopped) return;
    const { log, plugin } = this.options;
    try {
      const known = await this.client.heartbeat(plugin.name, registration.instanceId);
      if (this.stopped) return;
      if (this.heartbeatFailures > 0)
        log.info({ failures: this.heartbeatFailures }, 'heartbeats reach the registry again');
      this.heartbeatFailures = 0;
      if (!known) {
        log.warn(
          { instanceId: registration.instanceId },
          'the registry no longer knows this instance; registering again',
        );
        this.setStatus({ state: 'registering', attempt: 0 });
        return this.register(1);
      }
    } catch (err) {
      if (this.stopped) return;
      this.heartbeatFailures++;
      if (this.heartbeatFailures === 1 || this.heartbeatFailures % 10 === 0) {
        log.warn(
          { code: (err as PluginError).code, failures: this.heartbeatFailures },
          'heartbeat failed; will keep trying',
        );
      }
    }
    this.schedule(registration.heartbeatSeconds * 1000, () => this.heartbeat(registration));
  }

  private schedule(ms: number, fn: () => Promise<void>): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void fn(), ms);
    this.timer.unref();
  }

  private setStatus(status: RegistrationStatus): void {
    this.current = status;
    try {
      this.options.onStatus?.(status);
    } catch (err) {
      this.options.log.warn({ err }, 'onStatus callback threw');
    }
  }
}

/** `promise`'s value, or undefined once `ms` have passed. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    void promise.then((v) => {
      clearTimeout(timer);
      resolve(v);
    });
  });
}

/** Exponential with ±20 % jitter, so restarted plugins do not hit the registry in step. */
export function backoff(
  attempt: number,
  retry: { initialMs: number; maxMs: number },
  random: () => number = Math.random,
): number {
  const base = Math.min(retry.maxMs, retry.initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}
