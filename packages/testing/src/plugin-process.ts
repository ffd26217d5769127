/**
 * A plugin service (built with @af/plugin-sdk) as its own process, for tests
 * across processes: started from `plugins/<folder>/dist/main.js`, ready once
 * it logs its registration, stoppable gracefully or by SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './service-process.js';

/** The plugin as its own process, with its output kept for assertions. */
export class PluginProcess {
  output = '';
  private child?: ChildProcess;

  constructor(
    private readonly env: Record<string, string>,
    /** The plugin's folder under `plugins/`. */
    private readonly folder = 'slack-webhook',
  ) {}

  async start(): Promise<void> {
    const main = join(REPO_ROOT, 'plugins', this.folder, 'dist', 'main.js');
    if (!existsSync(main))
      throw new Error(`${main} is missing: build @af/plugin-sdk and the plugin first`);
    const child = spawn(process.execPath, [main], {
      env: { PATH: process.env.PATH ?? '', ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const from = this.output.length;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`plugin not registered after 20 s:\n${this.output.slice(from)}`)),
        20_000,
      );
      const onData = (buf: Buffer) => {
        this.output += buf.toString();
        if (this.output.indexOf('registered with the plugin registry', from) >= 0) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`plugin exited (${code}) before registering:\n${this.output.slice(from)}`));
      });
    });
  }

  /** SIGTERM: a graceful stop (a rolling update), as `runPlugin` handles it. */
  terminate(): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child?.exitCode ?? null);
    return new Promise((resolve) => {
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  }

  /** SIGKILL: no goodbye, like a crashed pod. */
  kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}
