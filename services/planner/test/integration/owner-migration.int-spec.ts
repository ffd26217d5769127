/**
 * The owner migration against real PostgreSQL: a registry written before
 * owners existed (capabilities, instances, facets) keeps every row;
 * capabilities become their registrant's, facets the shared catalog, and the
 * registry serves them per owner afterwards.
 */
import { ServiceKit } from '@af/service-kit';
import { createTestDatabase, TEST_NATS_URL, type TestDatabase } from '@af/testing';
import { plannerEnvSchema } from '../../src/config.js';
import { CapabilityRepository } from '../../src/infra/capability.repository.js';
import { FacetRepository } from '../../src/infra/facet.repository.js';
import { plannerMigrations } from '../../src/infra/migrations/index.js';
import { marketingFacets, marketingRegistrations } from '../fixtures/marketing-catalog.js';
import { natsPrefix, startReplica } from './harness.js';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

it('keeps existing rows: capabilities owned by their registrant, facets shared', async () => {
  const env = { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: TEST_NATS_URL, NATS_PREFIX: natsPrefix(), METRICS_PORT: '0', LOG_LEVEL: 'silent' };
  const before = await ServiceKit.start({ name: 'planner', envSchema: plannerEnvSchema, env, migrations: plannerMigrations.slice(0, 2) });
  const facet = marketingFacets().find((f) => f.name === 'post_copy')!;
  const reg = { ...marketingRegistrations().find((r) => r.capabilityId === 'copywriter.SocialpostDrafting')!, instanceId: 'w1', scopes: [] };
  await db.query(`INSERT INTO planner.flex_facets (name, version, direction, definition) VALUES ('post_copy', '1.0.0', 'output', $1)`, [JSON.stringify(facet)]);
  await db.query(
    `INSERT INTO planner.flex_capabilities (capability_id, owner_user_id, agent_type, version, display_name, input_facets, output_facets, registration, input_schema, output_schema)
     VALUES ('copywriter.SocialpostDrafting', 'alice', 'ai', '1', 'Writer', '{}', '{post_copy}', $1, '{}', '{}')`,
    [JSON.stringify(reg)],
  );
  await db.query(`INSERT INTO planner.flex_capability_instances (capability_id, instance_id, endpoint) VALUES ('copywriter.SocialpostDrafting', 'w1', 'writer:1')`);
  await before.close();

  const replica = await startReplica(db, env.NATS_PREFIX);
  try {
    expect(await db.query('SELECT owner, name FROM planner.flex_facets')).toEqual([{ owner: 'shared', name: 'post_copy' }]);
    expect(await db.query('SELECT owner, capability_id, owner_user_id FROM planner.flex_capabilities')).toEqual([{ owner: 'user:alice', capability_id: 'copywriter.SocialpostDrafting', owner_user_id: 'alice' }]);
    expect(await db.query('SELECT owner, capability_id, instance_id FROM planner.flex_capability_instances')).toEqual([{ owner: 'user:alice', capability_id: 'copywriter.SocialpostDrafting', instance_id: 'w1' }]);
    const alice = { userId: 'alice', teamIds: [] };
    expect((await replica.registry.get(alice, 'copywriter.SocialpostDrafting')).instances.map((i) => i.endpoint)).toEqual(['writer:1']);
    await expect(replica.registry.get({ userId: 'bob', teamIds: [] }, 'copywriter.SocialpostDrafting')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await replica.facets.snapshot({ userId: 'bob', teamIds: [] })).catalog.has('post_copy')).toBe(true);
    expect((await new FacetRepository(replica.kit.db).loadAll()).map((f) => f.owner)).toEqual(['shared']);
    expect((await new CapabilityRepository(replica.kit.db).loadAll()).map((c) => c.owner)).toEqual(['user:alice']);
  } finally {
    await replica.close();
  }
});
