/**
 * Starts a real service process (`node services/<name>/dist/main.js`) and
 * knows when it is ready (its "<name> ready" log line), collecting its output
 * for assertions (e.g. that no secret was logged).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export type ServiceName = 'gateway' | 'planner' | 'orchestrator' | 'connector-runtime' | 'approval' | 'output-router' | 'entity-resolution';

export class ServiceProcess {
  private child?: ChildProcess;
  /** Everything the process wrote (all incarnations), for log assertions. */
  output = '';
  exits: Array<{ code: number | null; signal: NodeJS.Signals | null }> = [];

  constructor(
    readonly name: ServiceName,
    readonly env: Record<string, string>,
    readonly label: string = name,
    /** Another script to run (default `services/<name>/dist/main.js`) and the line that says it is ready (default `<name> ready`). */
    private readonly entry: { script?: string; readyLine?: string } = {},
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** `SERVICE_READY_TIMEOUT_MS` raises the wait on a loaded machine (default 60 s). */
  async start(timeoutMs = Number(process.env.SERVICE_READY_TIMEOUT_MS) || 60_000): Promise<void> {
    const main = this.entry.script ?? join(REPO_ROOT, 'services', this.name, 'dist', 'main.js');
    if (!existsSync(main)) throw new Error(`${main} is missing: run \`pnpm build\` first`);
    const child = spawn(process.execPath, [main], {
      env: { PATH: process.env.PATH ?? '', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const readyLine = this.entry.readyLine ?? `${this.name} ready`;
    // Only this incarnation's output counts (a restart must not match the previous ready line).
    const from = this.output.length;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.label} not ready after ${timeoutMs} ms:\n${this.tail()}`)), timeoutMs);
      const onData = (buf: Buffer) => {
        this.output += buf.toString();
        if (this.output.indexOf(readyLine, from) >= 0 && child.pid === this.child?.pid) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        this.exits.push({ code, signal });
        clearTimeout(timer);
        reject(new Error(`${this.label} exited (${code ?? signal}) before ready:\n${this.tail()}`));
      });
    });
  }

  /** SIGKILL: no cleanup at all, like a crashed pod. */
  async kill(): Promise<void> {
    await this.stopWith('SIGKILL');
  }

  /** SIGTERM: graceful shutdown. */
  async stop(): Promise<void> {
    await this.stopWith('SIGTERM');
  }

  tail(lines = 40): string {
    return this.output.split('\n').slice(-lines).join('\n');
  }

  private async stopWith(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    });
  }
}
