/** Anything with TypeORM's `query(sql, params)`: a DataSource, EntityManager or QueryRunner. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/**
 * Run parameterised SQL and return its rows. TypeORM's postgres driver
 * answers UPDATE/DELETE … RETURNING with `[rows, affectedCount]` but other
 * statements with `rows`; this hides the difference.
 */
export async function sqlRows<T = any>(q: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  const result = await q.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return (Array.isArray(result) ? result : []) as T[];
}
