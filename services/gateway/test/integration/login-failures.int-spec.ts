/**
 * LoginFailuresRepository against real PostgreSQL (a fresh database, the
 * gateway's migrations): counting, the decay rule in SQL, clearing, pruning,
 * and that the table holds no emails or addresses. Real: PostgreSQL. Fake:
 * the ServiceKit around it (only `db.query` is used).
 */
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { Init1763800000000 } from '../../src/infra/migrations/1763800000000-init.js';
import { Accounts1764500000000 } from '../../src/infra/migrations/1764500000000-accounts.js';
import { LoginFailuresRepository, storedKey, type ThrottleKey } from '../../src/infra/login-failures.repository.js';

let db: TestDatabase;
let repo: LoginFailuresRepository;
const HOUR = 3_600_000;
const account: ThrottleKey = { scope: 'account', value: 'olga@example.com' };
const address: ThrottleKey = { scope: 'address', value: '203.0.113.7' };

beforeAll(async () => {
  db = await createTestDatabase();
  const runner = { query: (sql: string) => db.query(sql) } as any;
  await new Init1763800000000().up(runner);
  await new Accounts1764500000000().up(runner);
  repo = new LoginFailuresRepository({ db: { query: (sql: string, params?: unknown[]) => db.query(sql, params) } } as any);
});

afterAll(async () => {
  await db?.drop();
});

beforeEach(async () => {
  await db.query('DELETE FROM login_failures');
});

describe('LoginFailuresRepository', () => {
  it('reads nothing for keys without failures, with the database clock', async () => {
    const before = Date.now();
    const { counts, now } = await repo.read([account, address]);
    expect(counts).toEqual({});
    expect(Math.abs(now - before)).toBeLessThan(60_000);
  });

  it('counts failures of both keys in one statement and returns them', async () => {
    await repo.recordFailure([account, address], HOUR);
    const second = await repo.recordFailure([account, address], HOUR);
    expect(second.counts.account!.failures).toBe(2);
    expect(second.counts.address!.failures).toBe(2);
    const other = await repo.recordFailure([{ scope: 'account', value: 'pavel@example.com' }, address], HOUR);
    expect(other.counts).toMatchObject({ account: { failures: 1 }, address: { failures: 3 } });
    const { counts, now } = await repo.read([account, address]);
    expect(counts).toEqual({ account: { failures: 2, lastFailureAt: expect.any(Number) }, address: { failures: 3, lastFailureAt: expect.any(Number) } });
    expect(now).toBeGreaterThanOrEqual(counts.address!.lastFailureAt);
  });

  it('starts a counter again at 1 once its last failure is resetAfterMs old', async () => {
    for (let i = 0; i < 4; i++) await repo.recordFailure([account, address], HOUR);
    await db.query(`UPDATE login_failures SET last_failure_at = now() - interval '61 minutes' WHERE key = $1`, [storedKey(account)]);
    const after = await repo.recordFailure([account, address], HOUR);
    expect(after.counts).toMatchObject({ account: { failures: 1 }, address: { failures: 5 } });
  });

  it('clears one key and prunes decayed ones', async () => {
    await repo.recordFailure([account, address], HOUR);
    await repo.clear(account);
    expect((await repo.read([account, address])).counts).toEqual({ address: expect.objectContaining({ failures: 1 }) });
    await db.query(`UPDATE login_failures SET last_failure_at = now() - interval '2 hours'`);
    await repo.recordFailure([{ scope: 'address', value: '198.51.100.1' }], HOUR);
    expect(await repo.prune(HOUR)).toBe(1);
    expect(await db.query('SELECT count(*)::int AS n FROM login_failures')).toEqual([{ n: 1 }]);
  });

  it('stores a scope and a SHA-256, never the email or the address', async () => {
    await repo.recordFailure([account, address], HOUR);
    const rows = await db.query<{ key: string }>('SELECT key FROM login_failures ORDER BY key');
    expect(rows.map((r) => r.key)).toEqual([expect.stringMatching(/^account:[0-9a-f]{64}$/), expect.stringMatching(/^address:[0-9a-f]{64}$/)]);
    expect(JSON.stringify(rows)).not.toContain('olga');
    expect(JSON.stringify(rows)).not.toContain('203.0.113');
  });
});
