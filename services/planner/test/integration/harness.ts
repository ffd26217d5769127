/**
 * In-process planner "replicas" for integration tests: real PostgreSQL (a
 * fresh database per file), real NATS JetStream (a private subject prefix),
 * each replica with its own ServiceKit, registry cache and event follower.
 */
import { randomBytes } from 'node:crypto';
import { ServiceKit, type Closeable } from '@af/service-kit';
import { TEST_NATS_URL, type TestDatabase } from '@af/testing';
import { CapabilityRegistry } from '../../src/app/capability-registry.service.js';
import { FacetCatalogStore } from '../../src/app/facet-catalog.store.js';
import { plannerEnvSchema, type PlannerConfig } from '../../src/config.js';
import { followCapabilityEvents } from '../../src/infra/capability-event.follower.js';
import { CapabilityRepository } from '../../src/infra/capability.repository.js';
import { FacetRepository } from '../../src/infra/facet.repository.js';
import { plannerMigrations } from '../../src/infra/migrations/index.js';

export interface Replica {
  kit: ServiceKit<PlannerConfig>;
  registry: CapabilityRegistry;
  facets: FacetCatalogStore;
  clock: { now: number };
  close(): Promise<void>;
}

export const natsPrefix = () => `t${randomBytes(4).toString('hex')}`;

export async function startReplica(db: TestDatabase, prefix: string, ttlMs = 60_000): Promise<Replica> {
  const kit = await ServiceKit.start({
    name: 'planner',
    envSchema: plannerEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: db.url, NATS_URL: TEST_NATS_URL, NATS_PREFIX: prefix, METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: plannerMigrations,
  });
  // A clock the test can move forward (heartbeat expiry without sleeping).
  const clock = { now: Date.now() };
  const now = () => Math.max(clock.now, Date.now());
  const repo = new CapabilityRepository(kit.db);
  const facets = new FacetCatalogStore(kit, new FacetRepository(kit.db), repo, ttlMs, now);
  const registry = new CapabilityRegistry(kit, repo, facets, ttlMs, now);
  const follower: Closeable = await followCapabilityEvents({ bus: kit.bus, subjects: kit.subjects, log: kit.log, registry, facets, since: Date.now() - 5_000 });
  return {
    kit,
    registry,
    facets,
    clock,
    close: async () => {
      await follower.close();
      await kit.close();
    },
  };
}

/** Polls `check` until it returns true (events travel through the outbox and NATS). */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
