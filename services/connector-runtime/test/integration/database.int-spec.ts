/**
 * `database` connectors against the real local PostgreSQL (real: Postgres,
 * `pg`, PgReadOnlyRunner, the retry loop of the call pipeline; mocked:
 * nothing). A fresh database per file holds a `people` table; every call goes
 * through `executeEndpoint` exactly as the service runs it, as a
 * least-privilege role (LOGIN, CONNECT, USAGE, SELECT on `people`) created
 * for this file: the machine's `postgres` user is a superuser, which the
 * runner refuses.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { request } from 'undici';
import { callWithRetries } from '../../src/app/resilient-call.js';
import {
  ConnectorError,
  connectorTimeoutMs,
  executeEndpoint,
  parseConnectorYaml,
  requiredCredentials,
  type ConnectorDefinition,
  type ExecutionContext,
} from '@af/connectors';
import { closeDatabasePools, PgReadOnlyRunner } from '../../src/infra/pg-readonly.js';

let db: TestDatabase;
let runner: PgReadOnlyRunner;
let ctx: ExecutionContext;
let creds: { connection_string: string };
const SECRET = 'Sup3r-Secret-Pw';
const suffix = randomBytes(4).toString('hex');
/** The least-privilege role every call uses, and roles the runner must refuse. */
const READER = `af_reader_${suffix}`;
const FILES = `af_files_${suffix}`;
const LATE = `af_late_${suffix}`;
const ALL_DATA = `af_all_${suffix}`;
const REPLICATOR = `af_repl_${suffix}`;
const ROLES = [READER, FILES, LATE, ALL_DATA, REPLICATOR];

function withPassword(url: string, password: string, user = READER): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.toString();
}

/** The machine's admin connection (a superuser) to the test database. */
const asAdmin = () => db.url;

function definition(yaml: string): ConnectorDefinition {
  const parsed = parseConnectorYaml(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

const seed = () =>
  definition(readFileSync(join(__dirname, '../../../../packages/connectors/src/fixtures/seed-database.connector.yaml'), 'utf8'));

const fixed = (extra = '') =>
  definition(`
id: people-db
name: People
type: database
connection:
  driver: postgresql
  auth: { type: connection_string }
  timeout_seconds: 5
${extra}
endpoints:
  by_amount:
    query: SELECT id, name FROM people WHERE amount >= :min_amount ORDER BY id LIMIT :lim
    parameters:
      - { name: min_amount, type: number, required: true }
      - { name: lim, type: integer, default: 3 }
  by_name_positional:
    query: SELECT id, name FROM people WHERE name = $1
    parameters:
      - { name: who, type: string, required: true }
  small:
    type: sql
    max_rows: 5
    parameters:
      - { name: sql, type: string, required: true }
      - { name: params, type: array }
`);

async function fails(p: Promise<unknown>): Promise<ConnectorError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ConnectorError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

async function peopleCount(): Promise<number> {
  const rows = await db.query<{ n: string }>('SELECT count(*) AS n FROM people');
  return Number(rows[0]?.n);
}

beforeAll(async () => {
  db = await createTestDatabase('af_dbconn');
  await db.query(`
    CREATE TABLE people (
      id serial PRIMARY KEY,
      name text NOT NULL,
      amount numeric(12,2) NOT NULL,
      big bigint NOT NULL DEFAULT 9007199254740993,
      born date,
      seen timestamptz,
      local_ts timestamp,
      photo bytea,
      tags text[],
      meta jsonb
    )`);
  await db.query(`
    INSERT INTO people (name, amount, born, seen, local_ts, photo, tags, meta)
    SELECT 'person ' || g, g * 10.5, DATE '1990-01-01' + g, TIMESTAMPTZ '2024-05-01T12:00:00Z' + g * INTERVAL '1 hour',
           TIMESTAMP '2024-05-01 08:30:00', '\\x0102'::bytea, ARRAY['a', 'b'], jsonb_build_object('g', g)
    FROM generate_series(1, 25) g`);
  await db.query(`INSERT INTO people (name, amount) VALUES ('O''Brien', 1)`);
  // Least privilege: log in, connect, see the schema, read one table. Nothing else.
  for (const role of ROLES) {
    await db.query(`DROP ROLE IF EXISTS ${role}`);
    await db.query(`CREATE ROLE ${role} LOGIN PASSWORD '${SECRET}'`);
    await db.query(`GRANT CONNECT ON DATABASE "${db.name}" TO ${role}`);
    await db.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
    await db.query(`GRANT SELECT ON people TO ${role}`);
  }
  await db.query(`GRANT pg_read_server_files TO ${FILES}`);
  await db.query(`GRANT pg_read_all_data TO ${ALL_DATA}`);
  await db.query(`ALTER ROLE ${REPLICATOR} REPLICATION`);
  runner = new PgReadOnlyRunner();
  ctx = { http: request, sql: runner };
  creds = { connection_string: withPassword(db.url, SECRET) };
});

afterAll(async () => {
  await runner?.close();
  // Roles are cluster-wide: revoke their grants (DROP OWNED) and drop them with the database.
  for (const role of ROLES) {
    await db?.query(`DROP OWNED BY ${role}`).catch(() => undefined);
    await db?.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  }
  await db?.drop();
});

describe('the seed connector (caller SQL with :name params)', () => {
  it('parses, needs the connection_string credential and runs a parameterised query', async () => {
    const def = seed();
    expect(requiredCredentials(def)).toEqual(['connection_string']);
    const result = await executeEndpoint(
      def,
      'query',
      {
        sql: 'SELECT id, name, amount, big, born, seen, local_ts, photo, tags, meta FROM people WHERE name = :name',
        params: { name: 'person 2' },
      },
      creds,
      ctx,
    );
    expect(result.count).toBe(1);
    expect(result.has_more).toBe(false);
    expect(result.results[0]).toEqual({
      id: 2,
      name: 'person 2',
      amount: '21.00',
      big: '9007199254740993',
      born: '1990-01-03',
      seen: '2024-05-01T14:00:00.000Z',
      local_ts: '2024-05-01 08:30:00',
      photo: Buffer.from([1, 2]).toString('base64'),
      tags: ['a', 'b'],
      meta: { g: 2 },
    });
  });

  it('binds a reused :name once and keeps casts (::) intact', async () => {
    const result = await executeEndpoint(
      seed(),
      'query',
      {
        sql: "SELECT count(*)::int AS n, ':not_a_param' AS lit FROM people WHERE amount >= :min AND amount < :min + 21",
        params: { min: 10.5 },
      },
      creds,
      ctx,
    );
    expect(result.results).toEqual([{ n: 2, lit: ':not_a_param' }]);
  });

  it('keeps an SQL injection attempt in a parameter a plain value', async () => {
    for (const name of ["x' OR '1'='1", "'; DROP TABLE people; --", "O'Brien"]) {
      const result = await executeEndpoint(
        seed(),
        'query',
        { sql: 'SELECT name FROM people WHERE name = :name', params: { name } },
        creds,
        ctx,
      );
      expect(result.results).toEqual(name === "O'Brien" ? [{ name: "O'Brien" }] : []);
    }
    expect(await peopleCount()).toBe(26);
  });

  it.each([
    ['INSERT', "INSERT INTO people (name, amount) VALUES ('mallory', 1)", 'INSERT'],
    ['UPDATE', "UPDATE people SET name = 'x'", 'UPDATE'],
    ['DELETE', 'DELETE FROM people', 'DELETE'],
    ['DROP', 'DROP TABLE people', 'DROP TABLE'],
    ['CREATE', 'CREATE TABLE evil (a int)', 'CREATE TABLE'],
    // Postgres names the outer statement for a data-modifying CTE.
    ['data-modifying CTE', 'WITH d AS (DELETE FROM people RETURNING *) SELECT count(*) FROM d', 'SELECT'],
    ['TRUNCATE', 'TRUNCATE people', 'TRUNCATE TABLE'],
  ])('refuses a write (%s) with a clear read-only error', async (_label, sql, verb) => {
    const err = await fails(executeEndpoint(seed(), 'query', { sql }, creds, ctx));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('read-only');
    expect(err.message).toContain(`cannot execute ${verb} in a read-only transaction`);
    expect(err.violations).toEqual([
      { field: 'inputs.sql', reason: 'must not write: the connector runs read-only transactions' },
    ]);
    expect(await peopleCount()).toBe(26);
  });

  it('refuses several statements in one call, so COMMIT cannot end the read-only transaction', async () => {
    const err = await fails(
      executeEndpoint(seed(), 'query', { sql: 'SELECT 1; COMMIT; DROP TABLE people' }, creds, ctx),
    );
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain('cannot insert multiple commands into a prepared statement');
    expect(await peopleCount()).toBe(26);
  });

  it('reports syntax errors and unknown tables as INVALID_ARGUMENT with the position', async () => {
    const syntax = await fails(
      executeEndpoint(seed(), 'query', { sql: 'SELEC name FROM people' }, creds, ctx),
    );
    expect(syntax.code).toBe('INVALID_ARGUMENT');
    expect(syntax.message).toMatch(/syntax error at or near "SELEC" \(at character 1\)/);
    const missing = await fails(executeEndpoint(seed(), 'query', { sql: 'SELECT * FROM nope' }, creds, ctx));
    expect(missing.code).toBe('INVALID_ARGUMENT');
    expect(missing.message).toContain('relation "nope" does not exist');
  });

  it('refuses params that do not match the :name placeholders before sending anything', async () => {
    const err = await fails(
      executeEndpoint(
        seed(),
        'query',
        { sql: 'SELECT * FROM people WHERE name = :name', params: { nam: 'x' } },
        creds,
        ctx,
      ),
    );
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => v.field)).toEqual(['inputs.params.name', 'inputs.params.nam']);
  });

  it('leaves no session state behind on the pooled connection', async () => {
    const def = seed();
    await executeEndpoint(def, 'query', { sql: 'SELECT pg_advisory_lock(4242)' }, creds, ctx);
    await executeEndpoint(
      def,
      'query',
      { sql: "SELECT set_config('search_path', 'nowhere', false)" },
      creds,
      ctx,
    );
    const locks = await db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242`);
    expect(locks).toEqual([]);
    const path = await executeEndpoint(def, 'query', { sql: 'SHOW search_path' }, creds, ctx);
    expect(path.results[0]?.search_path).not.toBe('nowhere');
  });
});

describe('max_rows', () => {
  it('returns max_rows rows with has_more and a warning when the query yields more', async () => {
    const result = await executeEndpoint(
      fixed(),
      'small',
      { sql: 'SELECT id FROM people ORDER BY id' },
      creds,
      ctx,
    );
    expect(result.results.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(result.has_more).toBe(true);
    expect(result.warnings).toEqual([
      'the query returned more than max_rows (5) rows; only the first 5 are returned',
    ]);
  });

  it('has no has_more when the result fits exactly', async () => {
    const result = await executeEndpoint(
      fixed(),
      'small',
      { sql: 'SELECT id FROM people WHERE id <= $1 ORDER BY id', params: [5] },
      creds,
      ctx,
    );
    expect(result.count).toBe(5);
    expect(result.has_more).toBe(false);
    expect(result.warnings).toBeUndefined();
  });

  it('stops reading at max_rows + 1 even for a huge result', async () => {
    const started = Date.now();
    const result = await executeEndpoint(
      fixed(),
      'small',
      // A set-returning function in the select list streams (in FROM it would be materialised first).
      { sql: 'SELECT generate_series(1, 50000000) AS g' },
      creds,
      ctx,
    );
    expect(result.results).toEqual([{ g: 1 }, { g: 2 }, { g: 3 }, { g: 4 }, { g: 5 }]);
    expect(result.has_more).toBe(true);
    expect(Date.now() - started).toBeLessThan(1500);
  });
});

describe('endpoints with their own query', () => {
  it('binds declared parameters to :name placeholders, with defaults', async () => {
    const result = await executeEndpoint(fixed(), 'by_amount', { min_amount: 100 }, creds, ctx);
    expect(result.results).toEqual([
      { id: 10, name: 'person 10' },
      { id: 11, name: 'person 11' },
      { id: 12, name: 'person 12' },
    ]);
  });

  it('binds $1 to the first declared parameter', async () => {
    const result = await executeEndpoint(fixed(), 'by_name_positional', { who: "O'Brien" }, creds, ctx);
    expect(result.results).toEqual([{ id: 26, name: "O'Brien" }]);
  });

  it('refuses inputs that do not fit the declared types', async () => {
    const err = await fails(
      executeEndpoint(fixed(), 'by_amount', { min_amount: 'lots', extra: 1 }, creds, ctx),
    );
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => v.field).sort()).toEqual(['inputs.extra', 'inputs.min_amount']);
  });
});

describe('timeouts and cancellation', () => {
  it('ends a slow statement at statement_timeout with TIMEOUT and keeps the pool usable', async () => {
    const started = Date.now();
    const err = await fails(
      executeEndpoint(seed(), 'query', { sql: 'SELECT pg_sleep(10)' }, creds, { ...ctx, timeoutMs: 500 }),
    );
    expect(err.code).toBe('TIMEOUT');
    // Not retried: the same statement would hit statement_timeout again.
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('500 ms');
    expect(Date.now() - started).toBeLessThan(3000);
    const after = await executeEndpoint(seed(), 'query', { sql: 'SELECT 1 AS ok' }, creds, ctx);
    expect(after.results).toEqual([{ ok: 1 }]);
  });

  it('ends pg_sleep(30) at timeout_seconds (2 s) through the retry loop, with an error naming timeout_seconds', async () => {
    const def = definition(`
id: sleepy
name: Sleepy
type: database
connection:
  driver: postgresql
  auth: { type: connection_string }
  timeout_seconds: 2
endpoints:
  nap:
    query: SELECT pg_sleep(30)
`);
    const started = Date.now();
    // The call pipeline's retry loop: a timeout is retried once with the timeout doubled
    // unless the error says it is not retryable.
    const err = await fails(
      callWithRetries((timeoutMs) => executeEndpoint(def, 'nap', {}, creds, { ...ctx, timeoutMs }), {
        baseTimeoutMs: connectorTimeoutMs(def),
      }),
    );
    const elapsed = Date.now() - started;
    expect(err.code).toBe('TIMEOUT');
    expect(err.grpcStatusName).toBe('DEADLINE_EXCEEDED');
    expect(err.message).toContain(
      'sleepy/nap: the query did not finish within 2000 ms (connection.timeout_seconds: 2) and the database cancelled it',
    );
    expect(elapsed).toBeGreaterThan(1500);
    expect(elapsed).toBeLessThan(4500);
    // The server really stopped it: nothing of ours is still sleeping.
    const sleeping = await db.query(
      `SELECT 1 FROM pg_stat_activity WHERE usename = $1 AND query LIKE '%pg_sleep(30)%' AND state = 'active'`,
      [READER],
    );
    expect(sleeping).toEqual([]);
  });

  it('reports a connection killed mid-query as UNAVAILABLE and recovers on the next call', async () => {
    const call = fails(
      executeEndpoint(seed(), 'query', { sql: "SELECT pg_sleep(5), 'kill-me-af' AS marker" }, creds, ctx),
    );
    let killed = 0;
    for (let i = 0; i < 50 && killed === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const rows = await db.query<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
          WHERE query LIKE '%kill-me-af%' AND query NOT LIKE '%pg_terminate_backend%'`,
      );
      killed = rows.filter((r) => r.ok).length;
    }
    expect(killed).toBe(1);
    const err = await call;
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.retryable).toBe(true);
    const after = await executeEndpoint(seed(), 'query', { sql: 'SELECT 2 AS ok' }, creds, ctx);
    expect(after.results).toEqual([{ ok: 2 }]);
  });

  it('cancels a running statement when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const err = await fails(
      executeEndpoint(seed(), 'query', { sql: 'SELECT pg_sleep(10)' }, creds, {
        ...ctx,
        signal: controller.signal,
      }),
    );
    expect(err.code).toBe('CANCELLED');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('connection settings and failures', () => {
  it('connects with host/port/database fields and user/password credentials', async () => {
    const url = new URL(db.url);
    const def = definition(`
id: people-fields
name: People by fields
type: database
connection:
  driver: postgresql
  auth: { type: user_password }
  host: ${url.hostname}
  port: ${url.port || 5432}
  database: ${db.name}
  ssl: disable
endpoints:
  count:
    query: SELECT count(*)::int AS n FROM people
`);
    expect(requiredCredentials(def)).toEqual(['user', 'password']);
    const result = await executeEndpoint(def, 'count', {}, { user: READER, password: SECRET }, ctx);
    expect(result.results).toEqual([{ n: 26 }]);
  });

  it('reports a refused connection as UNAVAILABLE without the password', async () => {
    const bad = { connection_string: `postgres://someone:${SECRET}@127.0.0.1:1/x` };
    const err = await fails(executeEndpoint(seed(), 'query', { sql: 'SELECT 1' }, bad, ctx));
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.message).not.toContain(SECRET);
  });

  it('reports an unknown role as AUTH_FAILED and an unknown database as FAILED_PRECONDITION', async () => {
    const url = new URL(db.url);
    url.username = 'no_such_role_af';
    url.password = SECRET;
    const role = await fails(
      executeEndpoint(seed(), 'query', { sql: 'SELECT 1' }, { connection_string: url.toString() }, ctx),
    );
    expect(role.code).toBe('AUTH_FAILED');
    expect(role.message).not.toContain(SECRET);
    const dbUrl = new URL(withPassword(db.url, SECRET));
    dbUrl.pathname = '/no_such_database_af';
    const missing = await fails(
      executeEndpoint(seed(), 'query', { sql: 'SELECT 1' }, { connection_string: dbUrl.toString() }, ctx),
    );
    expect(missing.code).toBe('FAILED_PRECONDITION');
    expect(missing.message).toContain('does not exist');
    expect(missing.message).not.toContain(SECRET);
  });

  it('keeps one pool per connector and settings', async () => {
    const local = new PgReadOnlyRunner();
    const localCtx = { ...ctx, sql: local };
    try {
      await executeEndpoint(seed(), 'query', { sql: 'SELECT 1' }, creds, localCtx);
      await executeEndpoint(seed(), 'query', { sql: 'SELECT 2' }, creds, localCtx);
      expect(local.poolCount).toBe(1);
      await executeEndpoint(fixed(), 'small', { sql: 'SELECT 1' }, creds, localCtx);
      expect(local.poolCount).toBe(2);
      await executeEndpoint(seed(), 'query', { sql: 'SELECT 1' }, creds, { ...localCtx, ownerUserId: 'bob' });
      expect(local.poolCount).toBe(3);
    } finally {
      await local.close();
    }
  });

  it('refuses hosts its egress policy refuses, before connecting', async () => {
    const guarded = new PgReadOnlyRunner({
      checkHost: ({ host, connectorId }) => {
        if (host === '127.0.0.1' && connectorId === 'external-postgres') {
          throw new Error('loopback addresses are not allowed');
        }
      },
    });
    try {
      const err = await fails(
        executeEndpoint(seed(), 'query', { sql: 'SELECT 1' }, creds, { ...ctx, sql: guarded }),
      );
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toContain('loopback addresses are not allowed');
      expect(guarded.poolCount).toBe(0);
    } finally {
      await guarded.close();
    }
  });
});

describe('privileged roles', () => {
  it('refuses a superuser connection before running anything, naming the role and rolsuper', async () => {
    const local = new PgReadOnlyRunner();
    try {
      const err = await fails(
        executeEndpoint(
          seed(),
          'query',
          { sql: "SELECT pg_read_file('/etc/passwd')" },
          { connection_string: asAdmin() },
          { ...ctx, sql: local },
        ),
      );
      const admin = new URL(asAdmin()).username;
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.grpcStatusName).toBe('FAILED_PRECONDITION');
      expect(err.retryable).toBe(false);
      expect(err.message).toContain(`the database role "${admin}" is a superuser (rolsuper)`);
      expect(err.message).toContain('least-privilege role');
      expect(err.message).not.toContain('root:');
    } finally {
      await local.close();
    }
  });

  it('refuses a member of pg_read_server_files, and COPY TO PROGRAM never runs', async () => {
    const files = { connection_string: withPassword(db.url, SECRET, FILES) };
    for (const sql of ["SELECT pg_read_file('/etc/hostname')", "COPY (SELECT 1) TO PROGRAM 'true'"]) {
      const err = await fails(executeEndpoint(seed(), 'query', { sql }, files, ctx));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toContain(`the database role "${FILES}" is a member of pg_read_server_files`);
      expect(err.message).not.toContain(SECRET);
    }
  });

  it('refuses a member of pg_read_all_data (every table, whatever the grants) and a REPLICATION role', async () => {
    const all = await fails(
      executeEndpoint(
        seed(),
        'query',
        { sql: 'SELECT 1' },
        { connection_string: withPassword(db.url, SECRET, ALL_DATA) },
        ctx,
      ),
    );
    expect(all.code).toBe('FAILED_PRECONDITION');
    expect(all.message).toContain(`the database role "${ALL_DATA}" is a member of pg_read_all_data`);
    const repl = await fails(
      executeEndpoint(
        seed(),
        'query',
        { sql: 'SELECT 1' },
        { connection_string: withPassword(db.url, SECRET, REPLICATOR) },
        ctx,
      ),
    );
    expect(repl.message).toContain(`the database role "${REPLICATOR}" can replicate (rolreplication)`);
  });

  it('checks once per connection: a grant made later is seen by the next new connection, not by every query', async () => {
    const local = new PgReadOnlyRunner();
    const late = { connection_string: withPassword(db.url, SECRET, LATE) };
    try {
      const first = await executeEndpoint(seed(), 'query', { sql: 'SELECT 1 AS ok' }, late, {
        ...ctx,
        sql: local,
      });
      expect(first.results).toEqual([{ ok: 1 }]);
      await db.query(`GRANT pg_execute_server_program TO ${LATE}`);
      // The pooled connection was checked when it opened; it is not checked again per query.
      const again = await executeEndpoint(seed(), 'query', { sql: 'SELECT 2 AS ok' }, late, {
        ...ctx,
        sql: local,
      });
      expect(again.results).toEqual([{ ok: 2 }]);
      await local.close();
      // A new connection is.
      const err = await fails(executeEndpoint(seed(), 'query', { sql: 'SELECT 3' }, late, ctx));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toContain(`the database role "${LATE}" is a member of pg_execute_server_program`);
    } finally {
      await local.close();
    }
  });

  it('lets the least-privilege role read its table but not another schema', async () => {
    await db.query('CREATE SCHEMA IF NOT EXISTS private');
    await db.query('CREATE TABLE IF NOT EXISTS private.salaries (amount int)');
    const ok = await executeEndpoint(
      seed(),
      'query',
      { sql: 'SELECT count(*)::int AS n FROM people' },
      creds,
      ctx,
    );
    expect(ok.results).toEqual([{ n: 26 }]);
    const err = await fails(
      executeEndpoint(seed(), 'query', { sql: 'SELECT * FROM private.salaries' }, creds, ctx),
    );
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('permission denied for schema private');
  });
});

describe('closeDatabasePools', () => {
  it('closes every pool; the runner refuses later calls', async () => {
    const other = new PgReadOnlyRunner();
    await executeEndpoint(seed(), 'query', { sql: 'SELECT 1' }, creds, { ...ctx, sql: other });
    expect(other.poolCount).toBe(1);
    await closeDatabasePools();
    expect(other.poolCount).toBe(0);
    expect(runner.poolCount).toBe(0);
    const err = await fails(
      executeEndpoint(seed(), 'query', { sql: 'SELECT 1' }, creds, { ...ctx, sql: other }),
    );
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).toContain('shut down');
  });
});
