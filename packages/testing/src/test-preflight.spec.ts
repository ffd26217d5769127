/**
 * scripts/test-preflight.mjs (run by `pnpm test` and `pnpm test:int` first):
 * with PostgreSQL or NATS unreachable it prints one message per missing
 * service naming the URL it tried and how to start it, and exits 1.
 * (With the real services it succeeds: test/test-preflight.int-spec.ts.)
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { REPO_ROOT } from './service-process.js';

interface PreflightResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runPreflight(env: Record<string, string>): Promise<PreflightResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts', 'test-preflight.mjs')], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A TCP server on 127.0.0.1 that greets every connection with `greeting`. */
async function fakeServer(greeting: string): Promise<number> {
  const server = createServer((socket) => socket.end(greeting));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('test preflight', () => {
  it('names each unreachable service with its URL and how to start it, and exits 1', async () => {
    const pgPort = await freePort();
    const natsPort = await freePort();
    const dbUrl = `postgres://postgres@127.0.0.1:${pgPort}/postgres`;
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    const r = await runPreflight({ TEST_DATABASE_URL: dbUrl, TEST_NATS_URL: natsUrl });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`PostgreSQL is not reachable at ${dbUrl}`);
    expect(r.stderr).toContain('service postgresql start');
    expect(r.stderr).toContain(`NATS is not reachable at ${natsUrl}`);
    expect(r.stderr).toContain('nats-server -js');
    expect(r.stderr).toContain('.ci/run');
    expect(r.stderr.match(/is not reachable at/g)).toHaveLength(2);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('reports only the service that is missing', async () => {
    const natsPort = await fakeServer('INFO {"server_id":"x","version":"2.10.0","jetstream":true}\r\n');
    const pgPort = await freePort();
    const r = await runPreflight({
      TEST_DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`,
      TEST_NATS_URL: `nats://127.0.0.1:${natsPort}`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `PostgreSQL is not reachable at postgres://postgres@127.0.0.1:${pgPort}/postgres`,
    );
    expect(r.stderr).not.toContain('NATS');
  });

  it('says so when NATS runs without JetStream', async () => {
    const natsPort = await fakeServer('INFO {"server_id":"x","version":"2.10.0"}\r\n');
    const r = await runPreflight({
      TEST_DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`,
      TEST_NATS_URL: `nats://127.0.0.1:${natsPort}`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`NATS at nats://127.0.0.1:${natsPort} is running without JetStream`);
    expect(r.stderr).toContain('nats-server -js');
  });

  it('hides the password of the database URL it names', async () => {
    const pgPort = await freePort();
    const r = await runPreflight({
      TEST_DATABASE_URL: `postgres://postgres:hunter2@127.0.0.1:${pgPort}/postgres`,
      TEST_NATS_URL: `nats://127.0.0.1:${await freePort()}`,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`postgres://postgres:***@127.0.0.1:${pgPort}/postgres`);
    expect(r.stderr).not.toContain('hunter2');
  });
});
