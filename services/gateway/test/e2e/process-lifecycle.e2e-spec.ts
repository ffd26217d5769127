/**
 * Real service processes: configuration errors fail fast with one line naming
 * the variable (never a secret value or a stack trace); SIGTERM stops cleanly.
 */
import { createTestDatabase, freePort, ServiceProcess, TEST_NATS_URL, type TestDatabase } from '@af/testing';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

it('refuses to start with a bad configuration, naming each bad variable', async () => {
  const gateway = new ServiceProcess('gateway', {
    DATABASE_URL: 'mysql://root:hunter2-secret@db/x',
    NATS_URL: TEST_NATS_URL,
    JWT_SECRET: 'too-short',
    PLANNER_URL: 'planner',
  });
  await expect(gateway.start(15_000)).rejects.toThrow(/exited \(1\) before ready/);
  expect(gateway.exits).toEqual([{ code: 1, signal: null }]);
  const out = gateway.output.trim();
  expect(out).toMatch(/^gateway: invalid configuration: /);
  for (const part of [
    'DATABASE_URL: must be a URL with scheme postgres:// or postgresql://',
    'JWT_SECRET: must be at least 32 characters',
    'PLANNER_URL: must be host:port',
    'ORCHESTRATOR_URL: is required',
    'SERVICE_AUTH_SECRET: is required',
  ]) {
    expect(out).toContain(part);
  }
  expect(out).not.toContain('hunter2-secret');
  expect(out).not.toContain('too-short');
  expect(out).not.toMatch(/\n\s+at /);
});

it('stops cleanly on SIGTERM', async () => {
  const planner = new ServiceProcess('planner', {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: 'lifecycle',
    SERVICE_AUTH_SECRET: 'lifecycle-service-auth-secret-0123456789',
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(await freePort()),
    METRICS_PORT: '0',
  });
  await planner.start();
  await planner.stop();
  expect(planner.exits.at(-1)).toEqual({ code: 0, signal: null });
  expect(planner.output).toContain('planner: stopped (SIGTERM)');
});
