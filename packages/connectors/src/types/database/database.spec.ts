import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConnectorYaml } from '../../connector-definition.js';
import type { ConnectorDefinition } from '../../connector-definition.schema.js';
import { ConnectorError } from '../../connector-error.js';
import type { ExecutionContext } from '../../connector-type.js';
import { connectorTimeoutMs, executeEndpoint, requiredCredentials } from '../../execute-endpoint.js';
import { codeForSqlState } from './database-errors.js';
import {
  SqlRunnerError,
  type SqlConnectionSpec,
  type SqlResult,
  type SqlRunner,
  type SqlStatement,
} from './database-sql-runner.js';
import { toJsonValue } from './database.js';

const SEED = readFileSync(join(__dirname, '../../fixtures/seed-database.connector.yaml'), 'utf8');

function parse(yaml: string): ConnectorDefinition {
  const parsed = parseConnectorYaml(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

function errorsOf(yaml: string) {
  const parsed = parseConnectorYaml(yaml);
  if (parsed.ok) throw new Error('expected the definition to be refused');
  return parsed.errors.map((e) => ({ field: e.field, reason: e.reason }));
}

const header = `
id: db
name: DB
type: database
`;

class FakeRunner implements SqlRunner {
  calls: Array<{ spec: SqlConnectionSpec; statement: SqlStatement }> = [];
  constructor(private readonly answer: SqlResult | Error = { columns: [], rows: [], truncated: false }) {}
  async query(spec: SqlConnectionSpec, statement: SqlStatement): Promise<SqlResult> {
    this.calls.push({ spec, statement });
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }
}

const CS = 'postgresql://reader:p%40ss-W0rd@db.example.com:5432/warehouse';
const http = (() => {
  throw new Error('no HTTP in database tests');
}) as unknown as ExecutionContext['http'];

async function fails(p: Promise<unknown>): Promise<ConnectorError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ConnectorError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('database definitions', () => {
  it('parse the seed example with its defaults', () => {
    const def = parse(SEED);
    expect(def.connection).toEqual({
      driver: 'postgresql',
      auth: { type: 'connection_string', env_var: 'EXTERNAL_DB_URL' },
      pool_size: 3,
      timeout_seconds: 30,
      read_only: true,
    });
    expect(requiredCredentials(def)).toEqual(['connection_string']);
    expect(connectorTimeoutMs(def)).toBe(30_000);
    const parsed = parseConnectorYaml(SEED);
    expect(parsed.ok && parsed.warnings.map((w) => w.field)).toEqual(['connection.auth.env_var']);
  });

  it('refuse unknown keys with the field path and a suggestion', () => {
    expect(
      errorsOf(`${header}
connection: { auth: { type: connection_string }, pool_sise: 2 }
endpoints:
  q: { query: SELECT 1, max_row: 3 }
`),
    ).toEqual([
      { field: 'connection.pool_sise', reason: 'is not a known field; did you mean "pool_size"?' },
      { field: 'endpoints.q.max_row', reason: 'is not a known field; did you mean "max_rows"?' },
    ]);
  });

  it('refuse read_only: false, another driver and out-of-range numbers', () => {
    expect(
      errorsOf(`${header}
connection: { driver: mysql, auth: { type: connection_string }, read_only: false, pool_size: 99 }
endpoints:
  q: { query: SELECT 1, max_rows: 0 }
`),
    ).toEqual([
      { field: 'connection.driver', reason: 'must be postgresql' },
      { field: 'connection.read_only', reason: 'must be true' },
      { field: 'connection.pool_size', reason: 'Too big: expected number to be <=20' },
      { field: 'endpoints.q.max_rows', reason: 'Too small: expected number to be >=1' },
    ]);
  });

  it('need host and database for user_password and refuse them with a connection string', () => {
    expect(
      errorsOf(`${header}
connection: { auth: { type: user_password } }
endpoints: { q: { query: SELECT 1 } }
`),
    ).toEqual([
      { field: 'connection.host', reason: 'is required when auth type is user_password' },
      { field: 'connection.database', reason: 'is required when auth type is user_password' },
    ]);
    expect(
      errorsOf(`${header}
connection: { auth: { type: connection_string }, host: db.example.com }
endpoints: { q: { query: SELECT 1 } }
`),
    ).toEqual([
      {
        field: 'connection.host',
        reason: 'is only used with auth type user_password; the connection string names the server',
      },
    ]);
  });

  it('check fixed-query placeholders against the declared parameters', () => {
    expect(
      errorsOf(`${header}
connection: { auth: { type: connection_string } }
endpoints:
  named:
    query: SELECT * FROM t WHERE a = :a AND b = :missing
    parameters: [{ name: a, type: string }]
  positional:
    query: SELECT * FROM t WHERE a = $2
    parameters: [{ name: a, type: string }]
  mixed:
    query: SELECT * FROM t WHERE a = $1 AND b = :a
    parameters: [{ name: a, type: string }]
  broken:
    query: SELECT 'unterminated
`),
    ).toEqual([
      { field: 'endpoints.named.query', reason: 'placeholder :missing is not a declared parameter' },
      {
        field: 'endpoints.positional.query',
        reason: 'placeholder $2 has no parameter: $n binds the n-th declared parameter and 1 are declared',
      },
      { field: 'endpoints.mixed.query', reason: 'mixes $1-style and :name placeholders; use one style' },
      { field: 'endpoints.broken.query', reason: 'has an unterminated string literal' },
    ]);
  });

  it('warn about declared parameters a fixed query does not use', () => {
    const parsed = parseConnectorYaml(`${header}
connection: { auth: { type: connection_string } }
endpoints:
  q:
    query: SELECT 1
    parameters: [{ name: unused, type: string }]
`);
    expect(parsed.ok && parsed.warnings.map((w) => [w.field, w.reason])).toEqual([
      ['endpoints.q.parameters[0].name', '"unused" is not used by the query'],
    ]);
  });

  it('need an sql parameter when there is no query, and refuse other parameters then', () => {
    expect(
      errorsOf(`${header}
connection: { auth: { type: connection_string } }
endpoints:
  none: { description: no sql }
  wrong:
    parameters:
      - { name: sql, type: integer }
      - { name: params, type: string }
      - { name: other, type: string }
`),
    ).toEqual([
      {
        field: 'endpoints.none',
        reason: 'needs a query, or a string parameter named "sql" so the caller supplies the SQL',
      },
      { field: 'endpoints.wrong.parameters[0].type', reason: '"sql" must be a string' },
      {
        field: 'endpoints.wrong.parameters[1].type',
        reason: '"params" must be object (for :name placeholders) or array (for $1-style placeholders)',
      },
      {
        field: 'endpoints.wrong.parameters[2].name',
        reason: 'endpoints without a query take only "sql" and "params"; declare a query to use "other"',
      },
    ]);
  });

  it('refuse results_path: rows are the results', () => {
    expect(
      errorsOf(`${header}
connection: { auth: { type: connection_string } }
endpoints:
  q: { query: SELECT 1, response_mapping: { results_path: rows } }
`),
    ).toEqual([
      {
        field: 'endpoints.q.response_mapping.results_path',
        reason: 'is not used by database endpoints: every row is one result',
      },
    ]);
  });
});

describe('executing database endpoints', () => {
  const rows: SqlResult = {
    columns: ['id', 'name', 'id'],
    rows: [
      [1, 'ann', 10],
      [2, 'bob', 20],
    ],
    truncated: false,
  };

  it('passes the bound statement, limits and connection to the runner and maps rows to records', async () => {
    const runner = new FakeRunner(rows);
    const result = await executeEndpoint(
      parse(SEED),
      'query',
      { sql: 'SELECT * FROM t WHERE a = :a AND b = :b OR c = :a', params: { a: 'x', b: null } },
      { connection_string: CS },
      { http, sql: runner, ownerUserId: 'alice' },
    );
    expect(runner.calls).toEqual([
      {
        spec: { connectorId: 'external-postgres', ownerUserId: 'alice', poolSize: 3, connectionString: CS },
        statement: {
          text: 'SELECT * FROM t WHERE a = $1 AND b = $2 OR c = $1',
          values: ['x', null],
          maxRows: 1000,
          timeoutMs: 30_000,
        },
      },
    ]);
    expect(result).toEqual({
      results: [
        { id: 1, name: 'ann', id_2: 10 },
        { id: 2, name: 'bob', id_2: 20 },
      ],
      count: 2,
      has_more: false,
      warnings: ['duplicate column names were renamed: id → id_2'],
    });
  });

  it('applies response_mapping fields and reports truncation', async () => {
    const def = parse(`${header}
connection: { auth: { type: user_password }, host: db.example.com, database: app, ssl: verify-full, timeout_seconds: 5 }
endpoints:
  q:
    query: SELECT id, name FROM t WHERE id > $1
    parameters: [{ name: after, type: integer, default: 0 }]
    max_rows: 2
    response_mapping: { fields: { who: name } }
`);
    const runner = new FakeRunner({ columns: ['id', 'name'], rows: rows.rows, truncated: true });
    const result = await executeEndpoint(
      def,
      'q',
      {},
      { user: 'reader', password: 'pw' },
      { http, sql: runner },
    );
    expect(runner.calls[0]?.spec).toEqual({
      connectorId: 'db',
      poolSize: 3,
      ssl: 'verify-full',
      host: 'db.example.com',
      port: 5432,
      database: 'app',
      user: 'reader',
      password: 'pw',
    });
    expect(runner.calls[0]?.statement).toMatchObject({ values: [0], maxRows: 2, timeoutMs: 5000 });
    expect(result).toEqual({
      results: [{ who: 'ann' }, { who: 'bob' }],
      count: 2,
      has_more: true,
      warnings: ['the query returned more than max_rows (2) rows; only the first 2 are returned'],
    });
  });

  it('binds $1-style caller SQL from a params list', async () => {
    const def = parse(`${header}
connection: { auth: { type: connection_string } }
endpoints:
  q:
    parameters: [{ name: sql, type: string, required: true }, { name: params, type: array }]
`);
    const runner = new FakeRunner();
    await executeEndpoint(
      def,
      'q',
      { sql: 'SELECT $1, $2', params: [1, 'a'] },
      { connection_string: CS },
      { http, sql: runner },
    );
    expect(runner.calls[0]?.statement).toMatchObject({ text: 'SELECT $1, $2', values: [1, 'a'] });
    const err = await fails(
      executeEndpoint(
        def,
        'q',
        { sql: 'SELECT $1, $2', params: [1] },
        { connection_string: CS },
        { http, sql: runner },
      ),
    );
    expect(err.violations).toEqual([
      { field: 'inputs.params', reason: 'has 1 value(s) but the SQL uses placeholders up to $2' },
    ]);
    const named = await fails(
      executeEndpoint(
        def,
        'q',
        { sql: 'SELECT :a', params: [1] },
        { connection_string: CS },
        { http, sql: runner },
      ),
    );
    expect(named.violations).toEqual([
      {
        field: 'inputs.params',
        reason: 'must be an object whose keys are the :name placeholders of the SQL',
      },
    ]);
    const none = await fails(
      executeEndpoint(def, 'q', { sql: 'SELECT $1' }, { connection_string: CS }, { http, sql: runner }),
    );
    expect(none.violations).toEqual([
      { field: 'inputs.params', reason: "must be a list of 1 value(s) for the SQL's $1-style placeholders" },
    ]);
    expect(runner.calls).toHaveLength(1);
  });

  it.each([
    [{ sql: '  ' }, 'inputs.sql', 'must be a non-empty SQL statement'],
    [{ sql: 'SELECT :a', params: [1] }, 'inputs.params', 'expected an object, got an array'],
    [
      { sql: 'SELECT :a' },
      'inputs.params',
      'must be an object whose keys are the :name placeholders of the SQL',
    ],
    [
      { sql: 'SELECT $1', params: { a: 1 } },
      'inputs.params',
      '$1-style placeholders take a list of values; use :name placeholders with an object',
    ],
    [{ sql: 'SELECT 1', params: { a: 1 } }, 'inputs.params', 'is given but the SQL has no placeholders'],
    [{ sql: "SELECT ':a" }, 'inputs.sql', 'has an unterminated string literal'],
    [
      { sql: 'SELECT $1 + :a', params: { a: 1 } },
      'inputs.sql',
      'mixes $1-style and :name placeholders; use one style',
    ],
    [{ params: {} }, 'inputs.sql', 'is required by endpoint "query"'],
    [
      { sql: 'SELECT 1', limit: 3 },
      'inputs.limit',
      'is not a parameter of endpoint "query" (declared: sql, params)',
    ],
  ])('refuses bad caller inputs %j before calling the runner', async (inputs, field, reason) => {
    const runner = new FakeRunner();
    const err = await fails(
      executeEndpoint(parse(SEED), 'query', inputs, { connection_string: CS }, { http, sql: runner }),
    );
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toContainEqual({ field, reason });
    expect(runner.calls).toEqual([]);
  });

  it('needs the credential, a postgres URL, a runner and a known endpoint', async () => {
    const runner = new FakeRunner();
    const def = parse(SEED);
    const missing = await fails(
      executeEndpoint(def, 'query', { sql: 'SELECT 1' }, {}, { http, sql: runner }),
    );
    expect(missing.code).toBe('FAILED_PRECONDITION');
    expect(missing.message).toContain('needs the credential "connection_string"');
    const notUrl = await fails(
      executeEndpoint(
        def,
        'query',
        { sql: 'SELECT 1' },
        { connection_string: 'host=x password=secret' },
        { http, sql: runner },
      ),
    );
    expect(notUrl.code).toBe('FAILED_PRECONDITION');
    expect(notUrl.message).not.toContain('secret');
    const noRunner = await fails(
      executeEndpoint(def, 'query', { sql: 'SELECT 1' }, { connection_string: CS }, { http }),
    );
    expect(noRunner.code).toBe('FAILED_PRECONDITION');
    expect(noRunner.message).toContain('without a SQL runner');
    const unknown = await fails(
      executeEndpoint(def, 'nope', {}, { connection_string: CS }, { http, sql: runner }),
    );
    expect(unknown.code).toBe('NOT_FOUND');
    const aborted = new AbortController();
    aborted.abort();
    const cancelled = await fails(
      executeEndpoint(
        def,
        'query',
        { sql: 'SELECT 1' },
        { connection_string: CS },
        { http, sql: runner, signal: aborted.signal },
      ),
    );
    expect(cancelled.code).toBe('CANCELLED');
    expect(runner.calls).toEqual([]);
  });

  it('maps runner failures and redacts the connection string and its password', async () => {
    const cases: Array<[SqlRunnerError, string]> = [
      [new SqlRunnerError('connect', `getaddrinfo ENOTFOUND for ${CS} with p@ss-W0rd`), 'UNAVAILABLE'],
      [
        new SqlRunnerError('query', 'password authentication failed for "reader" (p%40ss-W0rd)', '28P01'),
        'AUTH_FAILED',
      ],
      [new SqlRunnerError('query', 'canceling statement due to statement timeout', '57014'), 'TIMEOUT'],
      [new SqlRunnerError('timeout', 'no answer'), 'TIMEOUT'],
      [new SqlRunnerError('cancelled', 'cancelled'), 'CANCELLED'],
      [
        new SqlRunnerError('refused', 'the database host is not allowed: private address'),
        'FAILED_PRECONDITION',
      ],
      [new SqlRunnerError('query', 'permission denied for table t', '42501'), 'FAILED_PRECONDITION'],
      [new SqlRunnerError('query', 'internal error', 'XX000'), 'UPSTREAM_ERROR'],
    ];
    for (const [failure, code] of cases) {
      const err = await fails(
        executeEndpoint(
          parse(SEED),
          'query',
          { sql: 'SELECT 1' },
          { connection_string: CS },
          { http, sql: new FakeRunner(failure) },
        ),
      );
      expect(err.code).toBe(code);
      expect(err.message).not.toContain('p@ss-W0rd');
      expect(err.message).not.toContain('p%40ss-W0rd');
      expect(err.message).not.toContain(CS);
    }
  });

  it('reports a statement cancelled at statement_timeout as a TIMEOUT that names timeout_seconds and is not retried', async () => {
    const def = parse(`${header}
connection: { auth: { type: connection_string }, timeout_seconds: 2 }
endpoints:
  q: { query: "SELECT pg_sleep(30)" }
`);
    const runner = new FakeRunner(
      new SqlRunnerError('query', 'canceling statement due to statement timeout', '57014'),
    );
    const err = await fails(executeEndpoint(def, 'q', {}, { connection_string: CS }, { http, sql: runner }));
    expect(runner.calls[0]?.statement.timeoutMs).toBe(2000);
    expect(err.code).toBe('TIMEOUT');
    expect(err.grpcStatusName).toBe('DEADLINE_EXCEEDED');
    expect(err.retryable).toBe(false);
    expect(err.message).toContain(
      'db/q: the query did not finish within 2000 ms (connection.timeout_seconds: 2)',
    );
    // The client-side deadline (no answer at all) stays retryable, as the failure table says.
    const silent = await fails(
      executeEndpoint(
        def,
        'q',
        {},
        { connection_string: CS },
        { http, sql: new FakeRunner(new SqlRunnerError('timeout', 'x')) },
      ),
    );
    expect(silent.code).toBe('TIMEOUT');
    expect(silent.retryable).toBe(true);
    expect(silent.message).toContain('connection.timeout_seconds: 2');
  });

  it('turns read-only violations and query errors into INVALID_ARGUMENT on the statement field', async () => {
    const def = parse(`${header}
connection: { auth: { type: connection_string } }
endpoints:
  q: { query: "INSERT INTO t VALUES (1)" }
`);
    const readOnly = await fails(
      executeEndpoint(
        def,
        'q',
        {},
        { connection_string: CS },
        {
          http,
          sql: new FakeRunner(
            new SqlRunnerError('query', 'cannot execute INSERT in a read-only transaction', '25006'),
          ),
        },
      ),
    );
    expect(readOnly.code).toBe('INVALID_ARGUMENT');
    expect(readOnly.message).toBe(
      'db/q: this connector is read-only and the statement tries to change data (cannot execute INSERT in a read-only transaction)',
    );
    expect(readOnly.violations).toEqual([
      { field: 'endpoints.q.query', reason: 'must not write: the connector runs read-only transactions' },
    ]);
    const syntax = await fails(
      executeEndpoint(
        def,
        'q',
        {},
        { connection_string: CS },
        {
          http,
          sql: new FakeRunner(new SqlRunnerError('query', 'syntax error at or near "INSRT"', '42601', 1)),
        },
      ),
    );
    expect(syntax.message).toBe(
      'db/q: the database rejected the query: syntax error at or near "INSRT" (at character 1)',
    );
    expect(syntax.violations).toEqual([
      { field: 'endpoints.q.query', reason: 'syntax error at or near "INSRT" (at character 1)' },
    ]);
  });
});

describe('codeForSqlState', () => {
  it.each([
    ['28P01', 'AUTH_FAILED'],
    ['28000', 'AUTH_FAILED'],
    ['3D000', 'FAILED_PRECONDITION'],
    ['42501', 'FAILED_PRECONDITION'],
    ['42P01', 'INVALID_ARGUMENT'],
    ['22P02', 'INVALID_ARGUMENT'],
    ['08P01', 'INVALID_ARGUMENT'],
    ['08006', 'UNAVAILABLE'],
    ['53300', 'UNAVAILABLE'],
    ['57P01', 'UNAVAILABLE'],
    ['40001', 'UNAVAILABLE'],
    ['XX000', 'UPSTREAM_ERROR'],
  ])('%s → %s', (state, code) => {
    expect(codeForSqlState(state)).toBe(code);
  });
});

describe('toJsonValue', () => {
  it('turns driver values into JSON-safe ones', () => {
    expect(
      toJsonValue({
        d: new Date('2024-01-02T03:04:05Z'),
        bad: new Date('nope'),
        b: Buffer.from('hi'),
        n: 10n,
        inf: Infinity,
        list: [new Date(0), null, undefined],
      }),
    ).toEqual({
      d: '2024-01-02T03:04:05.000Z',
      bad: null,
      b: 'aGk=',
      n: '10',
      inf: 'Infinity',
      list: ['1970-01-01T00:00:00.000Z', null, null],
    });
  });
});
