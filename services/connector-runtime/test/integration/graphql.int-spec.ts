/**
 * `graphql` connectors over real HTTP: the seed definition (parsed from its
 * YAML) runs against the shared fixture server standing in for
 * api.github.com, through real undici. Real: HTTP server, sockets, timers.
 * Mocked: nothing (the fixture server *is* the upstream).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '@af/testing';
import { request } from 'undici';
import {
  executeEndpoint,
  parseConnectorYaml,
  type ConnectorDefinition,
  type ExecutionContext,
} from '@af/connectors';
import { InMemoryOAuthTokenCache } from '@af/connectors';
import { failure } from '@af/connectors/testing';

const SEED = readFileSync(join(__dirname, '../../../../packages/connectors/src/fixtures/seed-graphql.connector.yaml'), 'utf8');
const fixture = (name: string) => readFileSync(join(__dirname, '../fixtures/graphql', name), 'utf8');
const TOKEN = 'ghp_Secret+Token/Value=';
const CREDS = { token: TOKEN };
/** Port 1 is privileged and unused here (see rest-api-executor.spec.ts). */
const CLOSED_PORT_URL = 'http://127.0.0.1:1';

let server: FixtureServer;

beforeEach(async () => {
  server = await startFixtureServer();
});

afterEach(async () => {
  await server.close();
});

function parse(yaml: string): ConnectorDefinition {
  const result = parseConnectorYaml(yaml);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.definition;
}

/** The seed, pointed at the fixture server. */
function seed(endpoint = `${server.url}/graphql`): ConnectorDefinition {
  return parse(SEED.replace('https://api.github.com/graphql', endpoint));
}

function ctx(extra: Partial<ExecutionContext> = {}): ExecutionContext {
  return { http: request, ...extra };
}


describe('the seed github-repos connector', () => {
  it('search_repos POSTs the query with typed variables and bearer auth, and maps the records', async () => {
    server.route('POST', '/graphql', {
      body: fixture('search-repos.json'),
      headers: { 'content-type': 'application/json' },
    });

    const result = await executeEndpoint(seed(), 'search_repos', { query: 'graph tools' }, CREDS, ctx());

    expect(result).toEqual({
      results: [
        {
          name: 'octo-org/graph-tools',
          description: 'Tools for graphs',
          stars: 1520,
          language: 'TypeScript',
          owner: 'octo-org',
        },
        { name: 'ann/notes', description: null, stars: 3, language: null, owner: 'ann' },
      ],
      count: 2,
    });
    const [req] = server.requestsTo('POST', '/graphql');
    expect(req?.headers).toMatchObject({
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
    });
    // GitHub refuses requests without a User-Agent.
    expect(req?.headers['user-agent']).toMatch(/^AgentFactory\//);
    const body = JSON.parse(req?.body ?? '{}');
    expect(body.variables).toEqual({ query: 'graph tools', first: 10 });
    expect(body.query).toContain('query SearchRepos($query: String!, $first: Int)');
  });

  it('get_org_members coerces string inputs to the declared type', async () => {
    server.route('POST', '/graphql', { body: fixture('org-members.json') });

    const result = await executeEndpoint(
      seed(),
      'get_org_members',
      { org: 'octo-org', first: '5' },
      CREDS,
      ctx(),
    );

    expect(result.results).toEqual([
      { username: 'ann', name: 'Ann Author', role: 'ADMIN' },
      { username: 'bo', name: null, role: 'MEMBER' },
    ]);
    expect(JSON.parse(server.requests[0]?.body ?? '{}').variables).toEqual({ org: 'octo-org', first: 5 });
  });

  it('refuses bad inputs before sending anything', async () => {
    const err = await failure(executeEndpoint(seed(), 'get_org_members', { first: 'many' }, CREDS, ctx()));

    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => v.field)).toEqual(['inputs.org', 'inputs.first']);
    expect(server.requests).toHaveLength(0);
  });

  it('FAILED_PRECONDITION without the token, before sending anything', async () => {
    const err = await failure(executeEndpoint(seed(), 'search_repos', { query: 'x' }, {}, ctx()));

    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(server.requests).toHaveLength(0);
  });
});

describe('GraphQL errors', () => {
  it('errors that null the records are thrown with their code (GitHub NOT_FOUND → NOT_FOUND)', async () => {
    server.route('POST', '/graphql', { body: fixture('org-not-found.json') });

    const err = await failure(
      executeEndpoint(seed(), 'get_org_members', { org: 'no-such-org' }, CREDS, ctx()),
    );

    expect(err).toMatchObject({ code: 'NOT_FOUND', grpcStatusName: 'NOT_FOUND' });
    expect(err.message).toContain(
      "Could not resolve to an Organization with the login of 'no-such-org'. (at organization)",
    );
  });

  it('a request error (errors, no data) is INVALID_ARGUMENT with the server message', async () => {
    server.route('POST', '/graphql', { body: fixture('validation-error.json') });

    const err = await failure(executeEndpoint(seed(), 'search_repos', { query: 'x' }, CREDS, ctx()));

    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toContain("Field 'stargazerCount' doesn't exist on type 'Repository'");
  });

  it('partial data: the good records plus a warning per error (also passed to ctx.warn)', async () => {
    server.route('POST', '/graphql', { body: fixture('partial.json') });
    const warned: string[] = [];

    const result = await executeEndpoint(
      seed(),
      'search_repos',
      { query: 'x' },
      CREDS,
      ctx({ warn: (m) => warned.push(m) }),
    );

    expect(result.results).toEqual([
      {
        name: 'octo-org/graph-tools',
        description: 'Tools for graphs',
        stars: 1520,
        language: null,
        owner: 'octo-org',
      },
      { name: null, description: null, stars: null, language: null, owner: null },
    ]);
    expect(result.warnings).toEqual([
      'GraphQL error (at search.edges.1.node): Resource not accessible by integration',
    ]);
    expect(warned).toEqual(result.warnings);
  });

  it('a 400 with a GraphQL error body (graphql-response+json) is INVALID_ARGUMENT quoting the messages', async () => {
    server.route('POST', '/graphql', {
      status: 400,
      json: { errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.' }] },
    });

    const err = await failure(executeEndpoint(seed(), 'search_repos', { query: 'x' }, CREDS, ctx()));

    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', status: 400 });
    expect(err.message).toContain('Syntax Error: Expected Name, found <EOF>.');
  });
});

describe('upstream failures', () => {
  it.each([
    [401, 'AUTH_FAILED', false],
    [403, 'AUTH_FAILED', false],
    [404, 'NOT_FOUND', false],
    [502, 'UNAVAILABLE', true],
  ])('HTTP %d → %s (retryable %s)', async (status, code, retryable) => {
    server.route('POST', '/graphql', { status, body: 'nope' });

    const err = await failure(executeEndpoint(seed(), 'search_repos', { query: 'x' }, CREDS, ctx()));

    expect(err).toMatchObject({ code, retryable, status });
  });

  it('429 carries Retry-After', async () => {
    server.route('POST', '/graphql', {
      status: 429,
      headers: { 'retry-after': '7' },
      json: { message: 'slow down' },
    });

    const err = await failure(executeEndpoint(seed(), 'search_repos', { query: 'x' }, CREDS, ctx()));

    expect(err).toMatchObject({ code: 'RATE_LIMIT', retryAfterMs: 7000 });
  });

  it('never puts the token in an error, even when the upstream echoes it', async () => {
    server.route('POST', '/graphql', (req) => ({
      status: 500,
      body: `bad header: ${req.headers.authorization}`,
    }));

    const err = await failure(executeEndpoint(seed(), 'search_repos', { query: 'x' }, CREDS, ctx()));

    expect(err.message).toContain('[REDACTED]');
    expect(err.message).not.toContain(TOKEN);
  });

  it('a malformed 2xx body gives no records and a warning (seed §10)', async () => {
    server.route('POST', '/graphql', {
      body: '{"data": {"search": ',
      headers: { 'content-type': 'application/json' },
    });

    const result = await executeEndpoint(seed(), 'search_repos', { query: 'x' }, CREDS, ctx());

    expect(result).toEqual({
      results: [],
      count: 0,
      warnings: [`the response from ${server.url}/graphql is not valid JSON; returning no records`],
    });
  });

  it('TIMEOUT when no answer arrives within the deadline', async () => {
    server.route('POST', '/graphql', { delayMs: 3000, body: fixture('search-repos.json') });
    const started = Date.now();

    const err = await failure(
      executeEndpoint(seed(), 'search_repos', { query: 'x' }, CREDS, ctx({ timeoutMs: 200 })),
    );

    expect(err).toMatchObject({ code: 'TIMEOUT', retryable: true });
    expect(err.message).toContain('within 200 ms');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('CANCELLED when the caller aborts mid-request', async () => {
    const gate = server.hold('POST', '/graphql');
    server.route('POST', '/graphql', { body: fixture('search-repos.json') });
    const controller = new AbortController();

    const call = failure(
      executeEndpoint(seed(), 'search_repos', { query: 'x' }, CREDS, ctx({ signal: controller.signal })),
    );
    await gate.arrived();
    controller.abort();

    expect((await call).code).toBe('CANCELLED');
  });

  it('UNAVAILABLE when nothing listens', async () => {
    const err = await failure(
      executeEndpoint(seed(`${CLOSED_PORT_URL}/graphql`), 'search_repos', { query: 'x' }, CREDS, ctx()),
    );

    expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(err.message).toContain(`could not reach ${CLOSED_PORT_URL}/graphql`);
  });

  it('refuses a body larger than the cap', async () => {
    server.route('POST', '/graphql', { body: Buffer.alloc(11 * 1024 * 1024, 0x20) });

    const err = await failure(executeEndpoint(seed(), 'search_repos', { query: 'x' }, CREDS, ctx()));

    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).toContain('larger than');
  });
});

describe('oauth2 auth (the rest_api OAuth session, through ctx.oauth)', () => {
  const CLIENT = { client_id: 'gql-client', client_secret: 'gql-secret/+=' };

  /** The seed with oauth2 client credentials instead of the bearer token. */
  function oauthSeed(grant = 'client_credentials'): ConnectorDefinition {
    return parse(
      SEED.replace('https://api.github.com/graphql', `${server.url}/graphql`).replace(
        /  auth:\n    type: bearer_token\n    env_var: GITHUB_TOKEN\n/,
        `  auth:\n    type: oauth2\n    grant_type: ${grant}\n    token_url: ${server.url}/oauth/token\n    scopes: read:org repo\n`,
      ),
    );
  }

  /** The token endpoint: issues access-1, access-2, … and records each grant. */
  function tokenEndpoint(expiresIn = 3600) {
    let issued = 0;
    server.route('POST', '/oauth/token', () => {
      issued += 1;
      return { json: { access_token: `access-${issued}`, token_type: 'bearer', expires_in: expiresIn } };
    });
    return { issued: () => issued };
  }

  it('gets a client_credentials token, sends it as Bearer, and reuses it from the token store', async () => {
    const tokens = tokenEndpoint();
    server.route('POST', '/graphql', { body: fixture('search-repos.json') });
    const oauth = new InMemoryOAuthTokenCache();
    const def = oauthSeed();

    const first = await executeEndpoint(def, 'search_repos', { query: 'x' }, CLIENT, ctx({ oauth, ownerUserId: 'u1' }));
    await executeEndpoint(def, 'search_repos', { query: 'y' }, CLIENT, ctx({ oauth, ownerUserId: 'u1' }));

    expect(first.count).toBe(2);
    expect(tokens.issued()).toBe(1);
    const grant = new URLSearchParams(server.requestsTo('POST', '/oauth/token')[0]?.body ?? '');
    expect(Object.fromEntries(grant)).toEqual({
      grant_type: 'client_credentials',
      scope: 'read:org repo',
      client_id: 'gql-client',
      client_secret: 'gql-secret/+=',
    });
    expect(server.requestsTo('POST', '/graphql').map((r) => r.headers.authorization)).toEqual([
      'Bearer access-1',
      'Bearer access-1',
    ]);
  });

  it('redacts the access token from a successful answer that echoes it', async () => {
    const access = 'gql-access-token-echoed-1';
    server.route('POST', '/oauth/token', () => ({
      json: { access_token: access, token_type: 'bearer', expires_in: 3600 },
    }));
    server.route('POST', '/graphql', (req) => ({
      body: fixture('search-repos.json').replace('Tools for graphs', `called with ${String(req.headers.authorization)}`),
    }));
    const result = await executeEndpoint(oauthSeed(), 'search_repos', { query: 'x' }, CLIENT, ctx({ oauth: new InMemoryOAuthTokenCache() }));
    expect(server.requestsTo('POST', '/graphql')[0]?.headers.authorization).toBe(`Bearer ${access}`);
    expect(result.results[0]).toMatchObject({ description: 'called with Bearer [REDACTED]' });
    expect(JSON.stringify(result)).not.toContain(access);
  });

  it('a 401 from the GraphQL endpoint forces one new token and one retry', async () => {
    const tokens = tokenEndpoint();
    server.route('POST', '/graphql', (req) =>
      req.headers.authorization === 'Bearer access-1'
        ? { status: 401, json: { message: 'Bad credentials' } }
        : { body: fixture('search-repos.json') },
    );

    const result = await executeEndpoint(oauthSeed(), 'search_repos', { query: 'x' }, CLIENT, ctx({ oauth: new InMemoryOAuthTokenCache() }));

    expect(result.count).toBe(2);
    expect(tokens.issued()).toBe(2);
    expect(server.requestsTo('POST', '/graphql').map((r) => r.headers.authorization)).toEqual([
      'Bearer access-1',
      'Bearer access-2',
    ]);
  });

  it('a 401 that persists after the new token is AUTH_FAILED, without the token in the message', async () => {
    const tokens = tokenEndpoint();
    server.route('POST', '/graphql', (req) => ({ status: 401, body: `rejected ${req.headers.authorization}` }));

    const err = await failure(
      executeEndpoint(oauthSeed(), 'search_repos', { query: 'x' }, CLIENT, ctx({ oauth: new InMemoryOAuthTokenCache() })),
    );

    expect(err).toMatchObject({ code: 'AUTH_FAILED', status: 401 });
    expect(tokens.issued()).toBe(2);
    expect(err.message).not.toMatch(/access-\d/);
    expect(err.message).toContain('[REDACTED]');
  });

  it('a token endpoint that refuses the client is AUTH_FAILED, and the query is never sent', async () => {
    server.route('POST', '/oauth/token', { status: 400, json: { error: 'invalid_client' } });

    const err = await failure(
      executeEndpoint(oauthSeed(), 'search_repos', { query: 'x' }, CLIENT, ctx({ oauth: new InMemoryOAuthTokenCache() })),
    );

    expect(err.code).toBe('AUTH_FAILED');
    expect(err.message).toContain('invalid_client');
    expect(err.message).not.toContain('gql-secret');
    expect(server.requestsTo('POST', '/graphql')).toHaveLength(0);
  });

  it('the refresh_token grant spends the stored refresh token and keeps the rotated one', async () => {
    let n = 0;
    server.route('POST', '/oauth/token', (req) => {
      n += 1;
      const form = new URLSearchParams(req.body);
      return { json: { access_token: `access-${n}`, token_type: 'Bearer', expires_in: 60, refresh_token: `rt-${n}`, got: form.get('refresh_token') } };
    });
    server.route('POST', '/graphql', { body: fixture('search-repos.json') });
    const oauth = new InMemoryOAuthTokenCache();
    const creds = { ...CLIENT, refresh_token: 'rt-0' };
    const def = oauthSeed('refresh_token');

    // expires_in 60 is inside the 120 s refresh buffer, so every call refreshes with the latest refresh token.
    await executeEndpoint(def, 'search_repos', { query: 'x' }, creds, ctx({ oauth }));
    await executeEndpoint(def, 'search_repos', { query: 'x' }, creds, ctx({ oauth }));

    expect(server.requestsTo('POST', '/oauth/token').map((r) => new URLSearchParams(r.body).get('refresh_token'))).toEqual(['rt-0', 'rt-1']);
  });

  it('FAILED_PRECONDITION without a token store or without the client credentials, before anything is sent', async () => {
    const noStore = await failure(executeEndpoint(oauthSeed(), 'search_repos', { query: 'x' }, CLIENT, ctx()));
    expect(noStore).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('no OAuth token store') });

    const noSecret = await failure(
      executeEndpoint(oauthSeed(), 'search_repos', { query: 'x' }, { client_id: 'gql-client' }, ctx({ oauth: new InMemoryOAuthTokenCache() })),
    );
    expect(noSecret).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('"client_secret"') });
    expect(server.requests).toHaveLength(0);
  });

  it('TIMEOUT when the token endpoint hangs', async () => {
    server.route('POST', '/oauth/token', { delayMs: 3000, json: { access_token: 'late' } });

    const err = await failure(
      executeEndpoint(oauthSeed(), 'search_repos', { query: 'x' }, CLIENT, ctx({ oauth: new InMemoryOAuthTokenCache(), timeoutMs: 150 })),
    );

    expect(err.code).toBe('TIMEOUT');
    expect(server.requestsTo('POST', '/graphql')).toHaveLength(0);
  });
});

describe('cursor pagination', () => {
  const PAGED = `
id: paged
name: Paged
type: graphql
connection:
  endpoint: ENDPOINT
  auth: {type: api_key, in: header, header_name: X-Api-Key}
endpoints:
  issues:
    query: |
      query Issues($after: String) {
        issues(first: 2, after: $after) { nodes { title } pageInfo { hasNextPage endCursor } }
      }
    variables:
      - {name: after, type: string}
    response_mapping:
      results_path: data.issues.nodes
      fields: {title: title}
    pagination:
      page_info_path: data.issues.pageInfo
      cursor_variable: after
      max_pages: 3
`;
  const paged = () => parse(PAGED.replace('ENDPOINT', `${server.url}/graphql`));

  /** Four pages: cursors c1..c3 lead on; page 4 is the last. */
  function serveIssues(fail?: { page: number; status: number }) {
    server.route('POST', '/graphql', (req) => {
      const after: string | undefined = JSON.parse(req.body).variables.after;
      const page = after ? Number(after.slice(1)) + 1 : 1;
      if (fail && page === fail.page) return { status: fail.status, body: 'down' };
      return {
        json: {
          data: {
            issues: {
              nodes: [{ title: `issue ${page}a` }, { title: `issue ${page}b` }],
              pageInfo: { hasNextPage: page < 4, endCursor: `c${page}` },
            },
          },
        },
      };
    });
  }

  it('follows endCursor up to max_pages and says where to resume', async () => {
    serveIssues();

    const progress: unknown[] = [];
    const result = await executeEndpoint(paged(), 'issues', {}, { api_key: 'k' }, { ...ctx(), onPage: (p) => progress.push(p) });

    expect(progress).toEqual([
      { page: 1, records: 2, totalRecords: 2 },
      { page: 2, records: 2, totalRecords: 4 },
      { page: 3, records: 2, totalRecords: 6 },
    ]);
    expect(result.results.map((r) => r.title)).toEqual([
      'issue 1a',
      'issue 1b',
      'issue 2a',
      'issue 2b',
      'issue 3a',
      'issue 3b',
    ]);
    expect(result).toMatchObject({ count: 6, has_more: true, next_cursor: 'c3' });
    expect(server.requests.map((r) => JSON.parse(r.body).variables)).toEqual([
      {},
      { after: 'c1' },
      { after: 'c2' },
    ]);
    expect(server.requests[0]?.headers['x-api-key']).toBe('k');

    const rest = await executeEndpoint(
      paged(),
      'issues',
      { after: result.next_cursor },
      { api_key: 'k' },
      ctx(),
    );
    expect(rest).toEqual({
      results: [{ title: 'issue 4a' }, { title: 'issue 4b' }],
      count: 2,
      has_more: false,
    });
  });

  it('a later page failing keeps the earlier pages, with a warning and the cursor to resume from', async () => {
    serveIssues({ page: 2, status: 503 });

    const result = await executeEndpoint(paged(), 'issues', {}, { api_key: 'k' }, ctx());

    expect(result).toMatchObject({ count: 2, has_more: true, next_cursor: 'c1' });
    expect(result.warnings).toEqual([
      expect.stringMatching(/^page 2 failed, returning the first 1: .*HTTP 503/),
    ]);
  });

  it('the first page failing fails the call', async () => {
    serveIssues({ page: 1, status: 503 });

    expect((await failure(executeEndpoint(paged(), 'issues', {}, { api_key: 'k' }, ctx()))).code).toBe(
      'UNAVAILABLE',
    );
  });
});

describe('definitions', () => {
  it('a broken definition is refused with field paths and lines before anything runs', () => {
    const result = parseConnectorYaml(
      SEED.replace(
        '  endpoint: https://api.github.com/graphql',
        '  endpoint: api.github.com/graphql',
      ).replace(
        '    response_mapping:\n      entity_type: org_member',
        '    respone_mapping:\n      entity_type: org_member',
      ),
    );

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { field: 'connection.endpoint', reason: 'must be an absolute http or https URL', line: 9, column: 13 },
      {
        field: 'endpoints.get_org_members.respone_mapping',
        reason: 'is not a known field; did you mean "response_mapping"?',
        line: 80,
        column: 7,
      },
    ]);
  });
});
