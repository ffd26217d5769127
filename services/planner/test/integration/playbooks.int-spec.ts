/** Playbook storage against real PostgreSQL. */
import { ServiceKit } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { Playbooks } from '../../src/app/playbooks.js';
import { plannerEnvSchema, type PlannerConfig } from '../../src/config.js';
import { plannerMigrations } from '../../src/infra/migrations/index.js';

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
    migrations: plannerMigrations,
  });
  playbooks = new Playbooks(kit);
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

it('stores a compiled playbook per owner; saving again stores a new version', async () => {
  const first = await playbooks.create('alice', yaml('Triage'), 'k1');
  expect(first).toMatchObject({ id: 'triage', name: 'Triage', ownerUserId: 'alice' });
  await playbooks.create('alice', yaml('Triage v2'), 'k2');
  expect(await playbooks.get('alice', 'triage')).toMatchObject({ name: 'Triage v2', revision: 2 });
  expect((await playbooks.list('alice')).map((p) => p.id)).toEqual(['triage']);
  // The same YAML again stores nothing new.
  expect(await playbooks.create('alice', yaml('Triage v2'), 'k2')).toMatchObject({ revision: 2 });
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

describe('versions', () => {
  it('PUT stores a new version and keeps the old ones', async () => {
    const { playbook, changed } = await playbooks.update('alice', 'triage', yaml('Triage v3'), 'u1');
    expect(changed).toBe(true);
    expect(playbook).toMatchObject({ name: 'Triage v3', revision: 3 });
    expect((await playbooks.update('alice', 'triage', yaml('Triage v3'), 'u2')).changed).toBe(false);
    expect((await playbooks.versions('alice', 'triage')).map((v) => [v.revision, v.name])).toEqual([
      [3, 'Triage v3'],
      [2, 'Triage v2'],
      [1, 'Triage'],
    ]);
    expect(await playbooks.get('alice', 'triage', 1)).toMatchObject({ name: 'Triage', revision: 1 });
    await expect(playbooks.get('alice', 'triage', 9)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses a PUT whose YAML names another id, and one of a playbook the caller does not have', async () => {
    await expect(playbooks.update('alice', 'other', yaml('x'), '')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [expect.objectContaining({ field: 'yaml.id' })] });
    await expect(playbooks.update('bob', 'triage', yaml('x'), '')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('compiles a stored version, recording it on the plan (and a dry run when asked)', async () => {
    const latest = await playbooks.compileStored('alice', 'triage');
    expect(latest.plan.metadata).toMatchObject({ playbook_revision: 3 });
    expect(latest.plan.metadata).not.toHaveProperty('dry_run');
    const first = await playbooks.compileStored('alice', 'triage', { revision: 1, dryRun: true });
    expect(first.plan.name).toBe('Triage');
    expect(first.plan.metadata).toMatchObject({ playbook_revision: 1, dry_run: { allow_side_effects: false } });
  });

  it('DELETE removes every version; another owner gets NOT_FOUND', async () => {
    await expect(playbooks.delete('bob', 'triage')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await playbooks.delete('alice', 'triage')).toBe(3);
    await expect(playbooks.get('alice', 'triage')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(playbooks.versions('alice', 'triage')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // Created again, it starts at revision 1.
    expect(await playbooks.create('alice', yaml('Again'), '')).toMatchObject({ revision: 1 });
  });

  it('DELETE is refused naming what still uses the playbook', async () => {
    const guarded = new Playbooks(kit, async () => [{ kind: 'schedule', id: 'nightly' }]);
    await expect(guarded.delete('alice', 'triage')).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining("schedule 'nightly'"),
    });
    expect(await playbooks.get('alice', 'triage')).toMatchObject({ revision: 1 });
  });
});
