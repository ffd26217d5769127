import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  parseConnectorDefinition,
  parseConnectorYaml,
  type ParseConnectorResult,
} from '../../connector-definition.js';
import { graphqlType } from './graphql.js';
import { queryVariableNames } from './graphql-schema.js';

const seedYaml = readFileSync(join(__dirname, '../../fixtures/seed-graphql.connector.yaml'), 'utf8');

function base(patch: (d: Record<string, any>) => void = () => {}): Record<string, any> {
  const d: Record<string, any> = {
    id: 'gh',
    name: 'GitHub',
    type: 'graphql',
    connection: { endpoint: 'https://api.example.com/graphql', auth: { type: 'bearer_token' } },
    endpoints: {
      repos: {
        query: 'query Q($q: String!, $after: String) { search(query: $q, after: $after) { nodes { name } } }',
        variables: [
          { name: 'q', type: 'string', required: true },
          { name: 'after', type: 'string' },
        ],
        response_mapping: { results_path: 'data.search.nodes', fields: { name: 'name' } },
      },
    },
  };
  patch(d);
  return d;
}

function errorsOf(result: ParseConnectorResult) {
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.definition)}`);
  return result.errors;
}

describe('graphql definitions', () => {
  it('parses the seed example; the only warning is that env_var is ignored', () => {
    const result = parseConnectorYaml(seedYaml);

    expect(result).toMatchObject({
      ok: true,
      warnings: [
        { field: 'connection.auth.env_var', reason: expect.stringContaining('is ignored'), line: 12 },
      ],
    });
    if (!result.ok) return;
    expect(graphqlType.requiredCredentials(result.definition)).toEqual(['token']);
    expect(graphqlType.timeoutMs(result.definition)).toBe(15_000);
  });

  it('defaults to no auth, a 30 s timeout and one page', () => {
    const result = parseConnectorDefinition(
      base((d) => {
        delete d.connection.auth;
        d.endpoints.repos.pagination = { page_info_path: 'data.search.pageInfo', cursor_variable: 'after' };
      }),
    );

    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(graphqlType.requiredCredentials(result.definition)).toEqual([]);
    expect(graphqlType.timeoutMs(result.definition)).toBe(30_000);
    expect((result.definition.endpoints.repos as any).pagination.max_pages).toBe(1);
  });

  it('refuses unknown keys with their path and a suggestion', () => {
    const errors = errorsOf(
      parseConnectorYaml(
        seedYaml.replace('    query: |\n      query SearchRepos', '    qeury: |\n      query SearchRepos'),
      ),
    );

    expect(errors).toEqual(
      expect.arrayContaining([
        {
          field: 'endpoints.search_repos.qeury',
          reason: 'is not a known field; did you mean "query"?',
          line: 20,
          column: 12,
        },
        {
          field: 'endpoints.search_repos.query',
          reason: 'is required',
          line: expect.any(Number),
          column: expect.any(Number),
        },
      ]),
    );
  });

  it.each([
    [
      'connection.endpoint',
      (d: any) => (d.connection.endpoint = 'ftp://x.test/graphql'),
      'must use http or https, not "ftp"',
    ],
    [
      'connection.endpoint',
      (d: any) => (d.connection.endpoint = 'https://u:p@x.test/graphql'),
      'must not contain credentials',
    ],
    [
      'connection.endpoint',
      (d: any) => (d.connection.endpoint = 'https://x.test/graphql#frag'),
      'must not contain a fragment',
    ],
    ['endpoints.repos.query', (d: any) => (d.endpoints.repos.query = ''), 'must not be empty'],
    [
      'endpoints.repos.operation_name',
      (d: any) => (d.endpoints.repos.operation_name = 'not a name'),
      'must be a GraphQL operation name',
    ],
    [
      'endpoints.repos.variables[1].type',
      (d: any) => (d.endpoints.repos.variables[1].type = 'text'),
      'must be one of',
    ],
    [
      'connection.auth.token_url',
      (d: any) =>
        (d.connection.auth = {
          type: 'oauth2',
          grant_type: 'client_credentials',
          token_url: 'ftp://x.test/token',
        }),
      'must use http or https',
    ],
    [
      'connection.auth.scheme',
      (d: any) => (d.connection.auth = { type: 'bearer_token', scheme: 'Token x' }),
      'must be an HTTP authentication scheme name',
    ],
    [
      'connection.auth.key_param',
      (d: any) => (d.connection.auth = { type: 'api_key', in: 'query' }),
      'is required when the api key is sent in the query',
    ],
    [
      'connection.headers.Authorization',
      (d: any) => (d.connection.headers = { Authorization: 'Bearer x' }),
      'must not carry credentials',
    ],
    [
      'endpoints.repos.pagination.max_pages',
      (d: any) =>
        (d.endpoints.repos.pagination = { page_info_path: 'data.x', cursor_variable: 'after', max_pages: 0 }),
      'must be at least 1',
    ],
    [
      'endpoints.repos.pagination.page_info_path',
      (d: any) => (d.endpoints.repos.pagination = { page_info_path: 'data..x', cursor_variable: 'after' }),
      'must be a dot path',
    ],
    [
      'endpoints.repos.response_mapping.result_path',
      (d: any) => (d.endpoints.repos.response_mapping.result_path = 'data'),
      'did you mean "results_path"?',
    ],
  ])('refuses %s (%#)', (field, patch, reason) => {
    const errors = errorsOf(parseConnectorDefinition(base(patch)));

    expect(errors).toContainEqual({ field, reason: expect.stringContaining(reason) });
  });

  it('accepts oauth2 auth (both grants), with its credentials required and a warning for a plain-http token_url', () => {
    for (const grant_type of ['client_credentials', 'refresh_token'] as const) {
      const parsed = parseConnectorDefinition(
        base(
          (d) =>
            (d.connection.auth = {
              type: 'oauth2',
              grant_type,
              token_url: 'https://x.test/token',
              scopes: 'read:org repo',
            }),
        ),
      );
      expect(parsed).toMatchObject({ ok: true, warnings: [] });
      if (!parsed.ok) return;
      expect(graphqlType.requiredCredentials(parsed.definition)).toEqual(
        grant_type === 'refresh_token'
          ? ['client_id', 'client_secret', 'refresh_token']
          : ['client_id', 'client_secret'],
      );
    }
    const plain = parseConnectorDefinition(
      base(
        (d) =>
          (d.connection.auth = {
            type: 'oauth2',
            grant_type: 'client_credentials',
            token_url: 'http://auth.x.test/token',
          }),
      ),
    );
    expect(plain).toMatchObject({
      ok: true,
      warnings: [{ field: 'connection.auth.token_url', reason: expect.stringContaining('uses plain http') }],
    });
  });

  it('refuses an api key query parameter already in the endpoint URL', () => {
    const errors = errorsOf(
      parseConnectorDefinition(
        base((d) => {
          d.connection.endpoint = 'https://x.test/graphql?key=abc';
          d.connection.auth = { type: 'api_key', in: 'query', key_param: 'key' };
        }),
      ),
    );

    expect(errors).toEqual([
      { field: 'connection.endpoint', reason: expect.stringContaining('already has a "key"') },
    ]);
  });

  it('refuses a declared variable the query never uses, and warns about used but undeclared ones', () => {
    const unused = errorsOf(
      parseConnectorDefinition(
        base((d) => d.endpoints.repos.variables.push({ name: 'limit', type: 'integer' })),
      ),
    );
    expect(unused).toEqual([
      {
        field: 'endpoints.repos.variables[2].name',
        reason: expect.stringContaining('"limit" is not used by the query'),
      },
    ]);

    const undeclared = parseConnectorDefinition(base((d) => d.endpoints.repos.variables.pop()));
    expect(undeclared).toMatchObject({
      ok: true,
      warnings: [
        {
          field: 'endpoints.repos.query',
          reason: 'uses $after, which is not declared under variables; callers cannot set it',
        },
      ],
    });
  });

  it('accepts parameters as a synonym of variables, but not both', () => {
    const synonym = parseConnectorDefinition(
      base((d) => {
        d.endpoints.repos.parameters = d.endpoints.repos.variables;
        delete d.endpoints.repos.variables;
      }),
    );
    expect(synonym.ok).toBe(true);

    const both = errorsOf(
      parseConnectorDefinition(base((d) => (d.endpoints.repos.parameters = [{ name: 'q', type: 'string' }]))),
    );
    expect(both).toContainEqual({
      field: 'endpoints.repos.parameters',
      reason: 'use either variables or parameters, not both',
    });
  });

  it('checks variables: duplicates, defaults that do not fit, names that are not GraphQL names', () => {
    const errors = errorsOf(
      parseConnectorDefinition(
        base((d) => {
          d.endpoints.repos.variables = [
            { name: 'q', type: 'string' },
            { name: 'q', type: 'string' },
            { name: 'after', type: 'integer', default: 'soon' },
          ];
        }),
      ),
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'endpoints.repos.variables[1].name', reason: 'duplicate parameter "q"' },
        {
          field: 'endpoints.repos.variables[2].default',
          reason: expect.stringContaining('does not fit type integer'),
        },
      ]),
    );

    const dotted = errorsOf(
      parseConnectorDefinition(base((d) => (d.endpoints.repos.variables[0].name = 'a.b'))),
    );
    expect(dotted).toContainEqual({
      field: 'endpoints.repos.variables',
      reason: expect.stringContaining('must be GraphQL names'),
    });
  });

  it('requires the cursor variable to be a declared string variable', () => {
    const missing = errorsOf(
      parseConnectorDefinition(
        base((d) => (d.endpoints.repos.pagination = { page_info_path: 'data.p', cursor_variable: 'cursor' })),
      ),
    );
    expect(missing).toEqual([
      { field: 'endpoints.repos.pagination.cursor_variable', reason: '"cursor" is not a declared variable' },
    ]);

    const wrongType = errorsOf(
      parseConnectorDefinition(
        base((d) => {
          d.endpoints.repos.variables[1].type = 'integer';
          d.endpoints.repos.pagination = { page_info_path: 'data.p', cursor_variable: 'after' };
        }),
      ),
    );
    expect(wrongType).toEqual([
      {
        field: 'endpoints.repos.variables[1].type',
        reason: '"after" takes the page cursor, so it must be a string',
      },
    ]);
  });

  it('requires output_schema and entity_extraction fields to be mapped fields', () => {
    const errors = errorsOf(
      parseConnectorDefinition(
        base((d) => {
          d.endpoints.repos.response_mapping.entity_extraction = [{ field: 'owner', entity_type: 'ORG' }];
          d.endpoints.repos.output_schema = {
            type: 'record_set',
            fields: [{ name: 'stars', type: 'integer' }],
          };
        }),
      ),
    );
    expect(errors).toEqual([
      {
        field: 'endpoints.repos.response_mapping.entity_extraction[0].field',
        reason: '"owner" is not a field of response_mapping.fields',
      },
      {
        field: 'endpoints.repos.output_schema.fields[0].name',
        reason: '"stars" is not a field of response_mapping.fields',
      },
    ]);
  });
});

describe('queryVariableNames', () => {
  it('finds $references and ignores comments, strings and block strings', () => {
    const query = `
      # $commented
      query Q($a: Int = 1, $b_2: [String!]) {
        f(x: $a, y: "$notvar \\" $still", z: """ $block """) { g(h: $ b_2) }
      }`;

    expect([...queryVariableNames(query)].sort()).toEqual(['a', 'b_2']);
  });
});
