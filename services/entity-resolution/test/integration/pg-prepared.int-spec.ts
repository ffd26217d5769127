/**
 * The resolution path's named prepared statements on real PostgreSQL: one
 * statement per text on a connection, answered as TypeORM answers (rows, also
 * for UPDATE … RETURNING), a failure reported as TypeORM reports one, and a
 * read outside a transaction giving its pooled connection back.
 */
import { openDatabase } from '@af/service-kit';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { QueryFailedError, type DataSource } from 'typeorm';
import { prepared, preparedRead, statementName } from '../../src/infra/pg-prepared.js';

describe('prepared statements (PostgreSQL)', () => {
  let test: TestDatabase;
  let db: DataSource;
  beforeAll(async () => {
    test = await createTestDatabase();
    db = await openDatabase({ url: test.url, schema: 'prepared_probe', migrations: [], poolSize: 2 });
    await db.query('CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)');
    await db.query('INSERT INTO counters VALUES (1, 0), (2, 0)');
  });
  afterAll(async () => {
    await db?.destroy();
    await test?.drop();
  });

  const bump = 'UPDATE counters SET n = n + $2 WHERE id = $1 RETURNING id, n';

  it('prepares a text once per connection and answers with its rows, for UPDATE … RETURNING too', async () => {
    const seen = await db.transaction(async (m) => {
      const first = await prepared(m, bump, [1, 5]);
      const second = await prepared(m, bump, [1, 2]);
      const statements = await m.query(`SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'er\\_%'`);
      return { first, second, statements };
    });
    expect(seen.first).toEqual([{ id: 1, n: 5 }]);
    expect(seen.second).toEqual([{ id: 1, n: 7 }]);
    expect(seen.statements).toEqual([{ name: statementName(bump), statement: bump }]);
    // One text, one name; another text, another.
    expect(statementName(bump)).toBe(statementName(`${bump}`));
    expect(statementName(`${bump} `)).not.toBe(statementName(bump));
  });

  it('reports a failed statement as TypeORM does, with the driver error, and leaves the transaction to roll back', async () => {
    const failed = await db
      .transaction(async (m) => {
        await prepared(m, bump, [2, 100]);
        await prepared(m, 'INSERT INTO counters (id, n) VALUES ($1, $2)', [1, 0]);
      })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(QueryFailedError);
    expect((failed as QueryFailedError & { driverError: { code: string } }).driverError.code).toBe('23505');
    expect(await db.query('SELECT n FROM counters WHERE id = 2')).toEqual([{ n: 0 }]);
  });

  it('reads outside a transaction on a pooled connection and gives it back (more reads than the pool holds)', async () => {
    const text = 'SELECT id, n FROM counters WHERE id = ANY($1::int[]) ORDER BY id';
    for (let i = 0; i < 5; i++) expect(await preparedRead(db, text, [[1, 2]])).toEqual([{ id: 1, n: 7 }, { id: 2, n: 0 }]);
    // Both connections of the pool are free again: two transactions at once still start.
    await Promise.all([db.transaction((m) => m.query('SELECT 1')), db.transaction((m) => m.query('SELECT 1'))]);
  });
});
