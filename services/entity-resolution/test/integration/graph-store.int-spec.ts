/**
 * PgGraphStore on real PostgreSQL (a fresh database): random sequences of
 * resolutions (auto-merges) and reversals leave exactly the links of the
 * merges still live — the in-memory MergeForest built from them gives the
 * same entity groups as the table — and reversing every merge restores the
 * state before the first one.
 */
import { ServiceKit } from '@af/service-kit';
import { createTestDatabase, TEST_NATS_URL, type TestDatabase } from '@af/testing';
import { randomBytes } from 'node:crypto';
import { DEFAULT_THRESHOLDS } from '../../src/domain/decision.js';
import { rng } from '../../src/domain/generator.js';
import { MergeForest } from '../../src/domain/merge-forest.js';
import { normaliseRecord } from '../../src/domain/normalise.js';
import { entityResolutionEnvSchema, type EntityResolutionConfig } from '../../src/config.js';
import { ENTITY_RESOLUTION_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { PgGraphStore } from '../../src/infra/pg-graph-store.js';

let db: TestDatabase;
let kit: ServiceKit<EntityResolutionConfig>;
let store: PgGraphStore;

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'entity-resolution',
    envSchema: entityResolutionEnvSchema,
    env: {
      SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789',
      DATABASE_URL: db.url,
      NATS_URL: TEST_NATS_URL,
      NATS_PREFIX: `ti${randomBytes(4).toString('hex')}`,
      METRICS_PORT: '0',
      LOG_LEVEL: 'silent',
    },
    migrations: ENTITY_RESOLUTION_MIGRATIONS,
  });
  store = new PgGraphStore(kit.db);
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

const POOL = [
  { name: 'Ezekiel Okonkwo', state: 'CA', city: 'Fresno' },
  { name: 'Okonkwo, Ezekiel', state: 'CA', city: 'Fresno' },
  { name: 'Dr. Ezekiel Okonkwo', state: 'CA', city: 'Fresno' },
  { name: 'Maria Lopez', state: 'TX', city: 'Austin', externalIds: { fec_id: 'H8TX05035' } },
  { name: 'Lopez, Maria', state: 'TX', city: 'Austin' },
  { name: 'MARIA LOPEZ', state: 'TX', externalIds: { fec_id: 'h8tx05035' } },
];

async function tableGroups(owner: string) {
  const rows: Array<{ id: string; parent_id: string | null; root_id: string }> = await kit.db.query(
    `SELECT id, parent_id, root_id FROM entities WHERE owner = $1 ORDER BY id`,
    [owner],
  );
  const groups = new Map<string, string[]>();
  for (const r of rows) (groups.get(r.root_id) ?? groups.set(r.root_id, []).get(r.root_id)!).push(r.id);
  return {
    rows,
    groups: [...groups.values()].map((g) => g.sort()).sort((a, b) => a[0]!.localeCompare(b[0]!)),
  };
}

it('random resolve / reverse sequences keep exactly the live merges, and reversing all restores the start', async () => {
  const r = rng(99);
  let merges = 0;
  let reversals = 0;
  for (let seq = 0; seq < 25; seq++) {
    const owner = `prop-${seq}`;
    const live: Array<{ logId: string; child: string; parent: string }> = [];
    const start = await tableGroups(owner);
    for (let step = 0; step < 8; step++) {
      if (r() < 0.7 || live.length === 0) {
        const pick = POOL[Math.floor(r() * POOL.length)]!;
        const [out] = await store.resolve(
          owner,
          { executionId: `run-${seq}`, nodeId: 'n' },
          [{ recordId: '0', entityType: 'PERSON', ...pick }],
          DEFAULT_THRESHOLDS,
        );
        if (out!.decision === 'auto_merge') {
          const [log] = await store.listLog(owner, 'auto_merge', 1);
          live.push({ logId: log!.id, child: out!.mentionId, parent: out!.entityId });
          merges++;
        }
      } else {
        const i = Math.floor(r() * live.length);
        const [d] = live.splice(i, 1);
        const entry = await store.reverse(owner, d!.logId);
        expect(entry.reversedAt).not.toBe('');
        reversals++;
      }
      const { rows, groups } = await tableGroups(owner);
      const forest = new MergeForest(
        rows.map((x) => x.id),
        rows.filter((x) => x.parent_id).map((x) => ({ child: x.id, parent: x.parent_id! })),
      );
      // The table's links are exactly the live merges' links, and root_id agrees with them.
      expect(
        rows
          .filter((x) => x.parent_id)
          .map((x) => `${x.id}>${x.parent_id}`)
          .sort(),
      ).toEqual(live.map((l) => `${l.child}>${l.parent}`).sort());
      expect(
        [...forest.groups().values()].map((g) => g.sort()).sort((a, b) => a[0]!.localeCompare(b[0]!)),
      ).toEqual(groups);
    }
    for (const d of live.sort(() => r() - 0.5)) await store.reverse(owner, d.logId);
    const end = await tableGroups(owner);
    expect(end.rows.every((x) => x.parent_id === null && x.root_id === x.id)).toBe(true);
    expect(start.rows).toEqual([]);
  }
  // The sequences did exercise both.
  expect(merges).toBeGreaterThan(50);
  expect(reversals).toBeGreaterThan(10);
});

it('refuses a second reversal and a reversal of a decision that changed no link', async () => {
  const owner = 'refusals';
  await store.resolve(
    owner,
    { executionId: 'r', nodeId: 'n' },
    [{ recordId: '0', entityType: 'ORG', name: 'Acme Inc', externalIds: { ein: '04-3568784' } }],
    DEFAULT_THRESHOLDS,
  );
  await store.resolve(
    owner,
    { executionId: 'r', nodeId: 'n' },
    [{ recordId: '1', entityType: 'ORG', name: 'ACME Incorporated', externalIds: { ein: '043568784' } }],
    DEFAULT_THRESHOLDS,
  );
  const [merge] = await store.listLog(owner, 'auto_merge', 1);
  const [created] = await store.listLog(owner, 'create_new', 1);
  await store.reverse(owner, merge!.id);
  await expect(store.reverse(owner, merge!.id)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  await expect(store.reverse(owner, created!.id)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  await expect(store.reverse('someone-else', merge!.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

it('finds entities by a misspelt name or alias through pg_trgm, only in the owner namespace', async () => {
  const [ext] = await kit.db.query(`SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'`);
  expect(ext).toEqual({ extname: 'pg_trgm' });
  const owner = 'trigram';
  await store.resolve(
    owner,
    { executionId: 't', nodeId: 'n' },
    [
      { recordId: '0', entityType: 'ORG', name: 'Riverside Health Alliance Inc', state: 'CA' },
      { recordId: '1', entityType: 'PERSON', name: 'Ezekiel Okonkwo', aliases: ['Zeke Okonkwo'] },
    ],
    DEFAULT_THRESHOLDS,
  );
  const [org] = await store.search(owner, ['riversdie helth aliance'], ['ORG'], 5);
  expect(org?.name).toBe('Riverside Health Alliance Inc');
  const [person] = await store.search(owner, ['zeke okonkow'], [], 5);
  expect(person?.name).toBe('Ezekiel Okonkwo');
  expect(await store.search('someone-else', ['riversdie helth aliance'], [], 5)).toEqual([]);
});

it('counts term frequencies and the population from the stored graph, per owner, for single-record scoring', async () => {
  const owner = 'term-stats';
  const people = ['Ada', 'Grace', 'Alan'].map((first, i) => ({
    recordId: String(i),
    entityType: 'PERSON' as const,
    name: `${first} Quillfeather`,
    state: ['CA', 'NY', 'TX'][i]!,
  }));
  await store.resolve(
    owner,
    { executionId: 't', nodeId: 'n' },
    [...people, { recordId: '9', entityType: 'ORG', name: 'Quillfeather Holdings Inc' }],
    DEFAULT_THRESHOLDS,
  );
  const probe = normaliseRecord({ recordId: 'p', entityType: 'PERSON', name: 'Mary Quillfeather' }).record;
  expect(await store.termStats(kit.db, owner, probe)).toEqual({ others: 3, population: 3 });
  // Another namespace has none of it.
  expect(await store.termStats(kit.db, 'someone-else', probe)).toEqual({ others: 0, population: 0 });
  // The organisation's core name is counted apart from the surname.
  const org = normaliseRecord({
    recordId: 'q',
    entityType: 'ORG',
    name: 'QUILLFEATHER HOLDINGS CORP',
  }).record;
  expect(await store.termStats(kit.db, owner, org)).toEqual({ others: 1, population: 1 });
});
