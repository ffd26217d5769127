/**
 * WorkspaceTables against real PostgreSQL (a fresh database, the service's
 * migrations): per-user schemas, hostile names never reaching SQL unquoted,
 * widening, refused type changes, dedup and upsert counts, paging.
 */
import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { workspaceSchemaName } from '../../src/domain/identifiers.js';
import { OUTPUT_ROUTER_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { WorkspaceTables, type TableWrite } from '../../src/infra/workspace-tables.js';

let db: TestDatabase;
let ds: DataSource;
let tables: WorkspaceTables;

beforeAll(async () => {
  db = await createTestDatabase();
  ds = new DataSource({ type: 'postgres', url: db.url });
  await ds.initialize();
  for (const M of OUTPUT_ROUTER_MIGRATIONS) await new M().up(ds.createQueryRunner());
  tables = new WorkspaceTables(ds as never);
});

afterAll(async () => {
  await ds?.destroy();
  await db?.drop();
});

const write = (w: Partial<TableWrite>) =>
  tables.write({
    owner: 'u1',
    workspaceId: 'default',
    tableName: 't',
    columns: [{ name: 'k', type: 'text' }],
    rows: [],
    createIfMissing: true,
    field: 'rows',
    ...w,
  });

it("creates the table in the owner's schema, with the metadata columns", async () => {
  expect(
    await write({
      tableName: 'people',
      columns: [
        { name: 'name', type: 'text' },
        { name: 'age', type: 'integer' },
      ],
      rows: [{ name: 'Ann', age: 40 }],
      source: 's',
      query: 'q',
    }),
  ).toEqual({ inserted: 1, updated: 0, skipped: 0 });
  const cols = await db.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'people' ORDER BY ordinal_position`,
    [workspaceSchemaName('u1')],
  );
  expect(cols.map((c) => c.column_name)).toEqual(['_id', 'name', 'age', '_source', '_query', '_timestamp']);
  const [info] = await tables.list('u1');
  expect(await tables.rows(info!, 0, 10)).toEqual([
    expect.objectContaining({ name: 'Ann', age: 40, _id: 1, _source: 's', _query: 'q' }),
  ]);
  // Another owner sees nothing, and gets a table of their own under the same name.
  expect(await tables.list('u2')).toEqual([]);
  await write({
    owner: 'u2',
    tableName: 'people',
    columns: [{ name: 'name', type: 'text' }],
    rows: [{ name: 'Bo' }],
  });
  expect((await tables.info('u2', 'default', 'people'))!.rowCount).toBe(1);
  expect((await tables.info('u1', 'default', 'people'))!.rowCount).toBe(1);
});

it('adds new columns and refuses a type change, leaving the table as it was', async () => {
  await write({ tableName: 'grow', columns: [{ name: 'a', type: 'text' }], rows: [{ a: 'x' }] });
  await write({
    tableName: 'grow',
    columns: [
      { name: 'a', type: 'text' },
      { name: 'b', type: 'json' },
    ],
    rows: [{ a: 'y', b: { deep: [1] } }],
  });
  const info = (await tables.info('u1', 'default', 'grow'))!;
  expect(info.columns).toEqual([
    { name: 'a', type: 'text' },
    { name: 'b', type: 'json' },
  ]);
  await expect(
    write({ tableName: 'grow', columns: [{ name: 'a', type: 'integer' }], rows: [{ a: 1 }] }),
  ).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  expect((await tables.info('u1', 'default', 'grow'))!.rowCount).toBe(2);
  await expect(
    write({ tableName: 'nope', createIfMissing: false, rows: [{ k: 'x' }] }),
  ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
});

it('skips duplicates by the deduplication key and updates by the upsert key', async () => {
  const cols = [
    { name: 'k', type: 'text' as const },
    { name: 'v', type: 'integer' as const },
  ];
  expect(
    await write({
      tableName: 'dd',
      columns: cols,
      dedupKey: ['k'],
      rows: [
        { k: 'a', v: 1 },
        { k: 'a', v: 2 },
        { k: 'b', v: 3 },
      ],
    }),
  ).toEqual({ inserted: 2, updated: 0, skipped: 1 });
  expect(await write({ tableName: 'up', columns: cols, upsertKey: 'k', rows: [{ k: 'a', v: 1 }] })).toEqual({
    inserted: 1,
    updated: 0,
    skipped: 0,
  });
  expect(
    await write({
      tableName: 'up',
      columns: cols,
      upsertKey: 'k',
      rows: [
        { k: 'a', v: 5 },
        { k: 'a', v: 6 },
        { k: 'c', v: 7 },
      ],
    }),
  ).toEqual({ inserted: 1, updated: 1, skipped: 1 });
  const info = (await tables.info('u1', 'default', 'up'))!;
  expect((await tables.rows(info, 0, 10)).map((r) => [r.k, r.v])).toEqual([
    ['a', 6],
    ['c', 7],
  ]);
});

it('refuses a value that does not fit its column, naming the row and column, and writes nothing', async () => {
  await expect(
    write({ tableName: 'typed', columns: [{ name: 'n', type: 'integer' }], rows: [{ n: 1 }, { n: 'many' }] }),
  ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'rows[1].n' }] });
  expect(await tables.info('u1', 'default', 'typed')).toBeUndefined();
});

it('pages rows in insertion order', async () => {
  await write({
    tableName: 'many',
    columns: [{ name: 'i', type: 'integer' }],
    rows: Array.from({ length: 5 }, (_, i) => ({ i })),
  });
  const info = (await tables.info('u1', 'default', 'many'))!;
  const first = await tables.rows(info, 0, 2);
  const next = await tables.rows(info, first[1]!._id as number, 10);
  expect([...first, ...next].map((r) => r.i)).toEqual([0, 1, 2, 3, 4]);
});
