/**
 * `dist/main.js` as a process (real: the plugin process and its gRPC port;
 * the registry is left unreachable, the e2e test in connector-runtime covers
 * registration): configuration errors name the variable and exit 1; the
 * plugin serves while it waits for the registry, and stops cleanly on SIGTERM.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '@af/testing';

const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');

beforeAll(() => {
  if (!existsSync(MAIN))
    throw new Error(`${MAIN} is missing: build @af/plugin-sdk and @af/plugin-slack-webhook first`);
});

it('exits 1 naming each bad variable, without echoing values', () => {
  const res = spawnSync(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PLUGIN_PORT: 'eighty',
      PLUGIN_REGISTRATION_TOKEN: 'tok-do-not-print',
    },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(res.status).toBe(1);
  expect(res.stderr).toContain('slack-webhook: invalid plugin configuration: PLUGIN_PORT: ');
  expect(res.stderr).toContain('PLUGIN_REGISTRY_URL: is required');
  expect(res.stderr + res.stdout).not.toContain('tok-do-not-print');
});

it('serves while the registry is unreachable, and stops cleanly on SIGTERM', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PLUGIN_HOST: '127.0.0.1',
      PLUGIN_PORT: String(port),
      PLUGIN_REGISTRY_URL: `127.0.0.1:${await freePort()}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const end = Date.now() + 20_000;
  while (!output.includes('plugin registry not reachable yet; retrying')) {
    if (Date.now() > end) throw new Error(`no retry line:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(output).toContain('plugin slack-webhook 0.1.0 serving');
  await new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve();
    });
    socket.once('error', reject);
  });
  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  expect(output).toContain('slack-webhook: stopped (SIGTERM)');
});
