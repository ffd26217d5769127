import { parseConnectorDefinition } from '../../connector-definition.js';
import { buildGraphqlRequest } from './graphql.js';
import type { GraphqlConnectorDefinition } from './graphql-schema.js';
import { thrown } from '../../testing.js';

function definition(
  auth: Record<string, unknown> = { type: 'none' },
  endpoint = 'https://api.example.com/graphql',
) {
  const parsed = parseConnectorDefinition({
    id: 'gh',
    name: 'GitHub',
    type: 'graphql',
    connection: { endpoint, auth, headers: { 'X-Client': 'af' } },
    endpoints: {
      repos: {
        query:
          'query Q($q: String!, $first: Int, $since: String, $tags: [String!]) { x(q: $q, first: $first, since: $since, tags: $tags) }',
        variables: [
          { name: 'q', type: 'string', required: true },
          { name: 'first', type: 'integer', default: 10 },
          { name: 'since', type: 'date' },
          { name: 'tags', type: 'array' },
        ],
      },
    },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition as GraphqlConnectorDefinition;
}


describe('buildGraphqlRequest', () => {
  it('coerces variables by their declared type and applies defaults', () => {
    const req = buildGraphqlRequest(
      definition(),
      'repos',
      { q: 'graphql', since: '2024-01-31', tags: ['a'] },
      {},
    );

    expect(req.variables).toEqual({ q: 'graphql', first: 10, since: '2024-01-31', tags: ['a'] });
    expect(buildGraphqlRequest(definition(), 'repos', { q: 'x', first: '25' }, {}).variables.first).toBe(25);
    expect(req.headers).toMatchObject({
      'content-type': 'application/json',
      'x-client': 'af',
      'user-agent': expect.stringMatching(/^AgentFactory\//),
    });
    expect(req.url).toBe('https://api.example.com/graphql');
  });

  it('lists every bad input at once', () => {
    const err = thrown(() =>
      buildGraphqlRequest(definition(), 'repos', { first: 'ten', since: '2024-02-30', extra: 1 }, {}),
    );

    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toEqual([
      { field: 'inputs.extra', reason: expect.stringContaining('is not a parameter of endpoint "repos"') },
      { field: 'inputs.q', reason: 'is required by endpoint "repos"' },
      { field: 'inputs.first', reason: expect.stringContaining('expected an integer') },
      { field: 'inputs.since', reason: expect.stringContaining('expected a date') },
    ]);
  });

  it('NOT_FOUND for an unknown endpoint, naming the ones there are', () => {
    expect(thrown(() => buildGraphqlRequest(definition(), 'nope', {}, {}))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'connector "gh" has no endpoint "nope"; it has repos',
    });
  });

  it.each([
    [{ type: 'bearer_token' }, { token: 't0k' }, { authorization: 'Bearer t0k' }],
    [{ type: 'api_key', in: 'header', header_name: 'X-Api-Key' }, { api_key: 'k3y' }, { 'x-api-key': 'k3y' }],
    [
      { type: 'basic' },
      { username: 'ann', password: 'pw' },
      { authorization: `Basic ${Buffer.from('ann:pw').toString('base64')}` },
    ],
  ])('places %j credentials in headers', (auth, creds, headers) => {
    const req = buildGraphqlRequest(definition(auth), 'repos', { q: 'x' }, creds);

    expect(req.headers).toMatchObject(headers);
    expect(req.displayUrl).toBe('https://api.example.com/graphql');
  });

  it('puts a query api key in the URL but never in displayUrl', () => {
    const req = buildGraphqlRequest(
      definition({ type: 'api_key', in: 'query', key_param: 'key' }, 'https://api.example.com/graphql?v=2'),
      'repos',
      { q: 'x' },
      { api_key: 's3cret/+' },
    );

    expect(new URL(req.url).searchParams.get('key')).toBe('s3cret/+');
    expect(new URL(req.url).searchParams.get('v')).toBe('2');
    expect(req.displayUrl).toBe('https://api.example.com/graphql');
  });

  it('FAILED_PRECONDITION when a credential is missing or holds control characters', () => {
    expect(
      thrown(() => buildGraphqlRequest(definition({ type: 'bearer_token' }), 'repos', { q: 'x' }, {})),
    ).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'connector "gh" needs the credential "token" for bearer_token auth, and none is stored',
    });
    const err = thrown(() =>
      buildGraphqlRequest(
        definition({ type: 'bearer_token' }),
        'repos',
        { q: 'x' },
        { token: 'a\r\nX-Evil: 1' },
      ),
    );
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).not.toContain('X-Evil');
  });
});
