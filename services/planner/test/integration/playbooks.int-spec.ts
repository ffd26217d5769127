/** Playbook storage against real PostgreSQL. */
import { ServiceKit } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { Playbooks } from '../../src/app/playbooks.js';
import { plannerEnvSchema, type PlannerConfig } from '../../src/config.js';
import { Init1763800000000 } from '../../src/infra/migrations/1763800000000-init.js';

let db: TestDatabase;
let kit: ServiceKit<PlannerConfig>;
let playbooks: Playbooks;

const yaml = (name: string) => `
id: triage
name: ${name}
version: "2.1"
steps:
  - name: fetch
    step_type: tool
    action: call_connector
    connector: api
    endpoint: search
`;

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'planner',
    envSchema: plannerEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: 'memory://planner-test', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: [Init1763800000000],
  });
  playbooks = new Playbooks(kit);
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

it('stores a compiled playbook per owner and replaces it on save', async () => {
  const first = await playbooks.create('alice', yaml('Triage'), 'k1');
  expect(first).toMatchObject({ id: 'triage', name: 'Triage', ownerUserId: 'alice' });
  await playbooks.create('alice', yaml('Triage v2'), 'k2');
  expect((await playbooks.get('alice', 'triage')).name).toBe('Triage v2');
  expect((await playbooks.list('alice')).map((p) => p.id)).toEqual(['triage']);
});

it('keeps owners apart', async () => {
  await expect(playbooks.get('bob', 'triage')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  expect(await playbooks.list('bob')).toEqual([]);
});

it('refuses invalid YAML and an anonymous caller without storing anything', async () => {
  await expect(playbooks.create('alice', 'steps: [', 'k3')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  await expect(playbooks.create('', yaml('x'), 'k4')).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  expect(await playbooks.list('alice')).toHaveLength(1);
});
