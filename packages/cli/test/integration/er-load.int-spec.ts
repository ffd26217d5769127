/**
 * `af er load` as a process (dist/main.js, after `pnpm build`) against a real
 * entity-resolution service on PostgreSQL: records are resolved into the
 * user's graph (variants merged, reviews queued), bad lines reported by
 * number and skipped; without credentials it refuses up front.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entity } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { createTestDatabase, freePort, ServiceProcess, TEST_NATS_URL, type TestDatabase } from '@af/testing';

const af = join(__dirname, '..', '..', 'dist', 'main.js');
const SERVICE_AUTH_SECRET = randomBytes(32).toString('hex');
const user = `loader-${randomBytes(3).toString('hex')}`;
let db: TestDatabase;
let svc: ServiceProcess;
let port: number;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'af-er-load-'));
  db = await createTestDatabase();
  port = await freePort();
  svc = new ServiceProcess('entity-resolution', {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: `t${randomBytes(4).toString('hex')}`,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(port),
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
    SERVICE_AUTH_SECRET,
  });
  await svc.start();
}, 90_000);

afterAll(async () => {
  await svc?.stop();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

function runAf(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [af, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stderr }));
  });
}

it('loads records into the user graph, merging variants and skipping bad lines by number', async () => {
  const lines = [
    {
      record_id: 'a',
      entity_type: 'ORG',
      name: 'Riverside Health Alliance Inc',
      external_ids: { ein: '04-3568784' },
      state: 'CA',
    },
    {
      record_id: 'b',
      entity_type: 'ORG',
      name: 'RIVERSIDE HEALTH ALLIANCE, INCORPORATED',
      external_ids: { ein: '043568784' },
    },
    'nope',
    { record_id: 'c', entity_type: 'PERSON', name: 'Ezekiel Okonkwo', state: 'CA', city: 'Fresno' },
    { record_id: 'd', entity_type: 'PERSON', name: 'Okonkwo, Ezekiel', state: 'CA', city: 'Fresno' },
  ].map((l) => (typeof l === 'string' ? l : JSON.stringify(l)));
  writeFileSync(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
  const r = await runAf(
    [
      'er',
      'load',
      '--in',
      join(dir, 'in.jsonl'),
      '--er',
      `127.0.0.1:${port}`,
      '--user',
      user,
      '--batch',
      '2',
    ],
    { SERVICE_AUTH_SECRET },
  );
  expect(r.stderr).toContain('line 3: not JSON (skipped)');
  expect(r.stderr).toContain('100% 4/4');
  expect(r.stderr).toContain(
    `4 records loaded for ${user} (2 merged, 0 sent to review), 0 refused, 1 bad line(s) skipped`,
  );
  expect(r.code).toBe(1);
  const graph = createGrpcClient<entity.EntityServiceClient>(
    'entity',
    entity.ENTITY_SERVICE_NAME,
    `127.0.0.1:${port}`,
    {
      auth: new ServiceAuth({ secret: SERVICE_AUTH_SECRET, service: 'test' }),
    },
  );
  const found = await call(
    graph.searchGraph({
      principal: { userId: user, teamIds: [] },
      query: 'riverside',
      entityTypes: ['ORG'],
      limit: 5,
    }),
  );
  expect(found.entities).toHaveLength(1);
  const other = await call(
    graph.searchGraph({
      principal: { userId: 'someone-else', teamIds: [] },
      query: 'riverside',
      entityTypes: [],
      limit: 5,
    }),
  );
  expect(other.entities).toHaveLength(0);
}, 60_000);

it('refuses without credentials, naming what to give', async () => {
  writeFileSync(
    join(dir, 'one.jsonl'),
    `${JSON.stringify({ record_id: 1, entity_type: 'PERSON', name: 'Ann Lee' })}\n`,
  );
  const env = { SERVICE_AUTH_SECRET: '', AF_API_KEY: '' };
  const r = await runAf(['er', 'load', '--in', join(dir, 'one.jsonl'), '--er', `127.0.0.1:${port}`], env);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('no credentials');
});
