/** Named statements on the pg pool (src/infra/prepared.ts) against real PostgreSQL. */
import { openDatabase } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { DataSource, type MigrationInterface } from 'typeorm';
import { preparedRows } from '../../src/infra/prepared.js';

class Init1700000000000 implements MigrationInterface {
  name = 'Init1700000000000';
  async up(q: { query(sql: string): Promise<unknown> }) {
    await q.query('CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)');
  }
  async down() {}
}

let db: TestDatabase;
let ds: DataSource;

beforeAll(async () => {
  db = await createTestDatabase();
  ds = await openDatabase({ url: db.url, schema: 'prepared_test', migrations: [Init1700000000000] });
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

it('runs a statement as a named one on every pooled connection, with its parameters, in the service schema', async () => {
  await preparedRows(ds, 'INSERT INTO items (id, name) SELECT g, $1::text || g FROM generate_series(1, $2::int) g', ['item-', 3]);
  // More calls at once than one connection: several connections prepare it.
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => preparedRows<{ name: string }>(ds, 'SELECT name FROM items WHERE id = $1', [(i % 3) + 1])));
  expect(results.map((r) => r[0]!.name)).toEqual(Array.from({ length: 12 }, (_, i) => `item-${(i % 3) + 1}`));
  const prepared = await preparedRows<{ n: number }>(ds, "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'af\\_%'");
  expect(prepared[0]!.n).toBeGreaterThan(0);
});

it('recovers when a table under a `*` statement changed (e.g. a migration of a newer replica)', async () => {
  // One connection, so the changed table meets the statement prepared before.
  const one = await new DataSource({ type: 'postgres', url: db.url, poolSize: 1, extra: { options: '-c search_path=prepared_test,public' } }).initialize();
  try {
    const text = 'SELECT * FROM items WHERE id = $1';
    expect(await preparedRows(one, text, [1])).toEqual([{ id: 1, name: 'item-1' }]);
    const names = async () => (await preparedRows<{ name: string }>(one, 'SELECT name FROM pg_prepared_statements WHERE statement = $1', [text])).map((r) => r.name);
    const [before] = await names();
    await ds.query('ALTER TABLE items ADD COLUMN extra text');
    expect(await preparedRows(one, text, [1])).toEqual([{ id: 1, name: 'item-1', extra: null }]);
    expect(await preparedRows(one, text, [2])).toEqual([{ id: 2, name: 'item-2', extra: null }]);
    // Prepared again under a new name.
    expect(before).toBeDefined();
    expect((await names()).filter((n) => n !== before)).toHaveLength(1);
  } finally {
    await one.destroy();
  }
});

it('reports a failing statement as the database error', async () => {
  await expect(preparedRows(ds, 'INSERT INTO items (id, name) VALUES ($1, $2)', [1, 'duplicate'])).rejects.toMatchObject({ code: '23505' });
});
