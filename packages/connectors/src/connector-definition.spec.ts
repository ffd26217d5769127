import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  parseConnectorDefinition,
  parseConnectorYaml,
  type ParseConnectorResult,
} from './connector-definition.js';
import type { RestApiConnectorDefinition } from './connector-definition.schema.js';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

/** A minimal valid rest_api definition; each bad case below changes one thing. */
function validDefinition(): Record<string, any> {
  return {
    id: 'acme-search',
    name: 'Acme Search',
    type: 'rest_api',
    version: '1.0',
    description: 'Search Acme',
    connection: {
      base_url: 'https://api.acme.test/v1',
      auth: { type: 'api_key', key_param: 'api_key', in: 'query' },
      timeout_seconds: 10,
    },
    endpoints: {
      search: {
        description: 'Search things',
        method: 'GET',
        path: '/things/{kind}',
        parameters: [
          { name: 'kind', type: 'string', required: true },
          { name: 'q', type: 'string' },
          { name: 'limit', type: 'integer', default: 10 },
        ],
        response_mapping: {
          entity_type: 'thing',
          results_path: 'data.items',
          fields: { name: 'title', owner: 'owner.login' },
          entity_extraction: [{ field: 'owner', entity_type: 'PERSON' }],
        },
        output_schema: {
          type: 'record_set',
          fields: [
            { name: 'name', type: 'string' },
            { name: 'owner', type: 'string' },
          ],
        },
      },
    },
  };
}

function errorsOf(result: ParseConnectorResult) {
  if (result.ok) throw new Error('expected the definition to be refused');
  return result.errors;
}

describe('parseConnectorDefinition', () => {
  it('accepts a valid rest_api definition and fills in defaults', () => {
    const input = validDefinition();
    delete input.version;
    delete input.endpoints.search.method;
    delete input.connection.auth;

    const result = parseConnectorDefinition(input);

    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const def = result.definition as RestApiConnectorDefinition;
    expect(def.version).toBe('1.0');
    expect(def.connection.auth).toEqual({ type: 'none' });
    expect(def.endpoints.search?.method).toBe('GET');
    expect(def.endpoints.search?.parameters.map((p) => p.required)).toEqual([true, false, false]);
    expect(result.warnings).toEqual([]);
  });

  it('upper-cases the method; every method executes, so there is no warning', () => {
    const input = validDefinition();
    input.endpoints.search.method = 'post';

    const result = parseConnectorDefinition(input);

    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect((result.definition as RestApiConnectorDefinition).endpoints.search?.method).toBe('POST');
    expect(result.warnings).toEqual([]);
  });

  it('accepts an api key sent in a header, and bearer tokens', () => {
    const header = validDefinition();
    header.connection.auth = { type: 'api_key', in: 'header', header_name: 'X-Api-Key' };
    const bearer = validDefinition();
    bearer.connection.auth = { type: 'bearer_token', env_var: 'ACME_TOKEN' };

    expect(parseConnectorDefinition(header).ok).toBe(true);
    const result = parseConnectorDefinition(bearer);
    expect(result.ok && result.warnings).toEqual([
      { field: 'connection.auth.env_var', reason: expect.stringContaining('ignored') },
    ]);
  });

  type Case = [string, (d: Record<string, any>) => void, string, string];
  const cases: Case[] = [
    ['base_url missing', (d) => delete d.connection.base_url, 'connection.base_url', 'is required'],
    [
      'base_url ftp',
      (d) => (d.connection.base_url = 'ftp://files.acme.test/'),
      'connection.base_url',
      'must use http or https, not "ftp"',
    ],
    [
      'base_url file',
      (d) => (d.connection.base_url = 'file:///etc/passwd'),
      'connection.base_url',
      'must use http or https',
    ],
    [
      'base_url relative',
      (d) => (d.connection.base_url = '/v1'),
      'connection.base_url',
      'must be an absolute http or https URL',
    ],
    [
      'base_url with credentials',
      (d) => (d.connection.base_url = 'https://u:p@acme.test'),
      'connection.base_url',
      'must not contain credentials',
    ],
    [
      'base_url with query',
      (d) => (d.connection.base_url = 'https://acme.test/v1?key=1'),
      'connection.base_url',
      'must not contain a query string',
    ],
    ['connection missing', (d) => delete d.connection, 'connection', 'is required'],
    ['id missing', (d) => delete d.id, 'id', 'is required'],
    ['id not kebab-case', (d) => (d.id = 'Acme_Search'), 'id', 'must be kebab-case'],
    ['name missing', (d) => delete d.name, 'name', 'is required'],
    ['name empty', (d) => (d.name = ''), 'name', 'must not be empty'],
    ['version as number', (d) => (d.version = 1.0), 'version', 'quote it'],
    ['version malformed', (d) => (d.version = 'v-one'), 'version', 'must be a version'],
    ['type missing', (d) => delete d.type, 'type', 'is required; one of rest_api, graphql'],
    ['type unknown', (d) => (d.type = 'soap'), 'type', 'must be one of rest_api, graphql, web_scraper'],
    [
      'unknown top-level key',
      (d) => (d.descripton = 'x'),
      'descripton',
      'is not a known field; did you mean "description"?',
    ],
    ['unknown connection key', (d) => (d.connection.base = 'x'), 'connection.base', 'is not a known field'],
    ['endpoints missing', (d) => delete d.endpoints, 'endpoints', 'is required'],
    ['endpoints empty', (d) => (d.endpoints = {}), 'endpoints', 'at least one endpoint'],
    [
      'endpoint name invalid',
      (d) => (d.endpoints['bad name'] = d.endpoints.search),
      'endpoints.bad name',
      'endpoint names start with a letter',
    ],
    ['path missing', (d) => delete d.endpoints.search.path, 'endpoints.search.path', 'is required'],
    [
      'path relative',
      (d) => (d.endpoints.search.path = 'things'),
      'endpoints.search.path',
      'must start with "/"',
    ],
    [
      'path with query',
      (d) => (d.endpoints.search.path = '/things?x=1'),
      'endpoints.search.path',
      'must not contain a query string',
    ],
    [
      'placeholder undeclared',
      (d) => (d.endpoints.search.path = '/things/{kind}/{id}'),
      'endpoints.search.path',
      'placeholder {id} is not a declared parameter',
    ],
    [
      'placeholder unbalanced',
      (d) => (d.endpoints.search.path = '/things/{kind'),
      'endpoints.search.path',
      'unbalanced',
    ],
    [
      'placeholder invalid',
      (d) => (d.endpoints.search.path = '/things/{}'),
      'endpoints.search.path',
      'not a valid parameter name',
    ],
    [
      'path parameter not scalar',
      (d) => (d.endpoints.search.parameters[0].type = 'object'),
      'endpoints.search.parameters[0].type',
      'used in the path',
    ],
    [
      'method invalid',
      (d) => (d.endpoints.search.method = 'FETCH'),
      'endpoints.search.method',
      'must be one of GET, POST',
    ],
    [
      'unknown endpoint key',
      (d) => (d.endpoints.search.query = 'x'),
      'endpoints.search.query',
      'is not a known field',
    ],
    [
      'parameter type invalid',
      (d) => (d.endpoints.search.parameters[1].type = 'text'),
      'endpoints.search.parameters[1].type',
      'must be one of string, number',
    ],
    [
      'parameter name missing',
      (d) => delete d.endpoints.search.parameters[1].name,
      'endpoints.search.parameters[1].name',
      'is required',
    ],
    [
      'parameter name invalid',
      (d) => (d.endpoints.search.parameters[1].name = 'a b'),
      'endpoints.search.parameters[1].name',
      'must start with a letter',
    ],
    [
      'parameter duplicated',
      (d) => (d.endpoints.search.parameters[2].name = 'q'),
      'endpoints.search.parameters[2].name',
      'duplicate parameter "q"',
    ],
    [
      'parameter required not boolean',
      (d) => (d.endpoints.search.parameters[1].required = 'yes'),
      'endpoints.search.parameters[1].required',
      'must be a boolean, got string',
    ],
    [
      'default wrong type',
      (d) => (d.endpoints.search.parameters[2].default = 'ten'),
      'endpoints.search.parameters[2].default',
      'does not fit type integer',
    ],
    [
      'parameters not a list',
      (d) => (d.endpoints.search.parameters = { q: 'string' }),
      'endpoints.search.parameters',
      'must be a list, got a mapping',
    ],
    [
      'auth type unknown',
      (d) => (d.connection.auth = { type: 'digest' }),
      'connection.auth.type',
      'must be one of api_key, bearer_token, basic, oauth2, none',
    ],
    [
      'api_key without key_param',
      (d) => delete d.connection.auth.key_param,
      'connection.auth.key_param',
      'is required when the api key is sent in the query',
    ],
    [
      'header api_key without a name',
      (d) => (d.connection.auth = { type: 'api_key', in: 'header' }),
      'connection.auth.header_name',
      'is required',
    ],
    [
      'auth in invalid',
      (d) => (d.connection.auth.in = 'cookie'),
      'connection.auth.in',
      'must be one of query, header',
    ],
    [
      'parameter collides with key_param',
      (d) => (d.endpoints.search.parameters[1].name = 'api_key'),
      'endpoints.search.parameters[1].name',
      'collides with connection.auth.key_param',
    ],
    [
      'Authorization in static headers',
      (d) => (d.connection.headers = { Authorization: 'Bearer x' }),
      'connection.headers.Authorization',
      'must not carry credentials',
    ],
    [
      'client-managed header',
      (d) => (d.connection.headers = { Host: 'evil.test' }),
      'connection.headers.Host',
      'is set by the HTTP client',
    ],
    [
      'header value with a line break',
      (d) => (d.connection.headers = { 'X-A': 'a\r\nX-B: b' }),
      'connection.headers.X-A',
      'must not contain control characters',
    ],
    [
      'header name invalid',
      (d) => (d.connection.headers = { 'bad header': 'x' }),
      'connection.headers.bad header',
      'valid HTTP header name',
    ],
    [
      'timeout negative',
      (d) => (d.connection.timeout_seconds = -1),
      'connection.timeout_seconds',
      'expected number to be >0',
    ],
    [
      'rate limit unknown key',
      (d) => (d.connection.rate_limit = { per_minute: 5 }),
      'connection.rate_limit.per_minute',
      'is not a known field',
    ],
    [
      'results_path malformed',
      (d) => (d.endpoints.search.response_mapping.results_path = 'data..items'),
      'endpoints.search.response_mapping.results_path',
      'must be a dot path',
    ],
    [
      'field path malformed',
      (d) => (d.endpoints.search.response_mapping.fields.name = 'a b'),
      'endpoints.search.response_mapping.fields.name',
      'must be a dot path',
    ],
    [
      'response_mapping typo',
      (d) => (d.endpoints.search.response_mapping.result_path = 'x'),
      'endpoints.search.response_mapping.result_path',
      'did you mean "results_path"?',
    ],
    [
      'entity_extraction unknown field',
      (d) => (d.endpoints.search.response_mapping.entity_extraction[0].field = 'nobody'),
      'endpoints.search.response_mapping.entity_extraction[0].field',
      '"nobody" is not a field of response_mapping.fields',
    ],
    [
      'entity_extraction unknown entity type',
      (d) => (d.endpoints.search.response_mapping.entity_extraction[0].entity_type = 'PERSN'),
      'endpoints.search.response_mapping.entity_extraction[0].entity_type',
      'must be one of PERSON, ORG, LOCATION, EVENT, PRODUCT, ENTITY, auto',
    ],
    [
      'entity_extraction relationship type not UPPER_SNAKE_CASE',
      (d) => (d.endpoints.search.response_mapping.entity_extraction[0].relationship_type = 'officer of'),
      'endpoints.search.response_mapping.entity_extraction[0].relationship_type',
      'relationship types are UPPER_SNAKE_CASE',
    ],
    [
      'output_schema field unmapped',
      (d) => (d.endpoints.search.output_schema.fields[1].name = 'stars'),
      'endpoints.search.output_schema.fields[1].name',
      '"stars" is not a field of response_mapping.fields',
    ],
    [
      'output_schema type invalid',
      (d) => (d.endpoints.search.output_schema.type = 'table'),
      'endpoints.search.output_schema.type',
      'must be one of record_set, object, scalar',
    ],
    [
      'output field type invalid',
      (d) => (d.endpoints.search.output_schema.fields[0].type = 'text'),
      'endpoints.search.output_schema.fields[0].type',
      'must be string, number',
    ],
    [
      'pagination without paths',
      (d) => (d.endpoints.search.pagination = {}),
      'endpoints.search.pagination',
      'needs next_cursor_path or has_more_path',
    ],
    [
      'pagination cursor_param undeclared',
      (d) => (d.endpoints.search.pagination = { next_cursor_path: 'next', cursor_param: 'cursor' }),
      'endpoints.search.pagination.cursor_param',
      '"cursor" is not a declared parameter',
    ],
  ];

  it.each(cases)('refuses %s, naming %s', (_label, mutate, field, reason) => {
    const input = validDefinition();
    mutate(input);

    const errors = errorsOf(parseConnectorDefinition(input));

    expect(errors).toContainEqual({ field, reason: expect.stringContaining(reason) });
  });

  it('reports every shape problem at once', () => {
    const input = validDefinition();
    input.id = 'Bad Id';
    input.connection.base_url = 'gopher://x';
    input.endpoints.search.parameters[1].type = 'text';

    const fields = errorsOf(parseConnectorDefinition(input)).map((e) => e.field);

    expect(fields).toEqual(
      expect.arrayContaining(['id', 'connection.base_url', 'endpoints.search.parameters[1].type']),
    );
  });

  it('with an unknown type still reports the other problems', () => {
    const input = validDefinition();
    input.type = 'soap';
    delete input.name;

    const fields = errorsOf(parseConnectorDefinition(input)).map((e) => e.field);

    expect(fields).toEqual(['type', 'name']);
  });

  it.each([null, 'text', 42, ['a']])('refuses a non-mapping definition %j', (input) => {
    expect(errorsOf(parseConnectorDefinition(input))).toEqual([
      { field: 'definition', reason: 'must be a mapping of connector fields' },
    ]);
  });

  it('keeps the type-specific blocks of types it does not execute, and warns', () => {
    const result = parseConnectorDefinition({
      id: 'some-feed',
      name: 'Feed',
      type: 'rss_feed',
      connection: { feeds: [{ url: 'https://x.test/rss', name: 'main' }] },
      endpoints: { recent: { parameters: [{ name: 'since_hours', type: 'integer', default: 'soon' }] } },
    });

    expect(errorsOf(result)).toEqual([
      {
        field: 'endpoints.recent.parameters[0].default',
        reason: expect.stringContaining('does not fit type integer'),
      },
    ]);
  });
});

describe('parseConnectorYaml', () => {
  it('parses the rest_api fixture', () => {
    const result = parseConnectorYaml(fixture('fec-contributions.connector.yaml'));

    expect(result).toMatchObject({ ok: true, warnings: [] });
    if (!result.ok || result.definition.type !== 'rest_api')
      throw new Error('expected a rest_api definition');
    expect(result.definition.connection.base_url).toBe('https://api.open.fec.gov/v1');
    expect(Object.keys(result.definition.endpoints)).toEqual(['search_contributions', 'get_committee']);
    expect(result.definition.endpoints.search_contributions?.parameters[3]).toMatchObject({
      name: 'per_page',
      default: 20,
      required: false,
    });
  });

  it.each(['graphql', 'file-parser', 'database', 'rss-feed', 'existing-tool'])(
    'parses the seed %s example as written, as an executable type',
    (type) => {
      const result = parseConnectorYaml(fixture(`seed-${type}.connector.yaml`));

      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.definition.type).toBe(type.replace('-', '_'));
      // Every type runs now: no definition is accepted with a "cannot be executed" warning.
      expect(result.warnings.filter((w) => w.reason.includes('cannot be executed'))).toEqual([]);
    },
  );

  it('gives line and column for malformed YAML', () => {
    const result = parseConnectorYaml('id: x\nname: [unclosed\ntype: rest_api\n');

    const [error] = errorsOf(result);
    expect(error).toMatchObject({ field: 'yaml', line: expect.any(Number), column: expect.any(Number) });
    expect(error?.line).toBeGreaterThanOrEqual(2);
  });

  it('refuses duplicate keys with their line', () => {
    const errors = errorsOf(parseConnectorYaml('id: a\nname: A\nid: b\n'));

    expect(errors).toEqual([
      { field: 'yaml', reason: expect.stringContaining('unique'), line: 3, column: 1 },
    ]);
  });

  it('locates schema errors on the offending line', () => {
    const text = fixture('fec-contributions.connector.yaml').replace(
      'https://api.open.fec.gov/v1',
      'ftp://api.open.fec.gov/v1',
    );
    const line = text.split('\n').findIndex((l) => l.includes('ftp://')) + 1;

    const errors = errorsOf(parseConnectorYaml(text));

    expect(errors).toEqual([
      { field: 'connection.base_url', reason: expect.stringContaining('http or https'), line, column: 13 },
    ]);
  });

  it('points a missing field at its closest existing parent', () => {
    const text =
      'id: a\nname: A\ntype: rest_api\nconnection:\n  timeout_seconds: 5\nendpoints:\n  s:\n    path: /x\n';

    const errors = errorsOf(parseConnectorYaml(text));

    expect(errors).toEqual([{ field: 'connection.base_url', reason: 'is required', line: 5, column: 3 }]);
  });

  it('locates errors inside lists', () => {
    const text = [
      'id: a',
      'name: A',
      'type: rest_api',
      'connection: { base_url: "https://x.test" }',
      'endpoints:',
      '  s:',
      '    path: /x',
      '    parameters:',
      '      - name: ok',
      '        type: string',
      '      - name: bad',
      '        type: text',
    ].join('\n');

    expect(errorsOf(parseConnectorYaml(text))).toEqual([
      {
        field: 'endpoints.s.parameters[1].type',
        reason: expect.stringContaining('must be one of'),
        line: 12,
        column: 15,
      },
    ]);
  });

  it('tells the author to quote an unquoted version', () => {
    const text = fixture('fec-contributions.connector.yaml').replace(/version: ["']1\.0["']/, 'version: 1.0');

    expect(errorsOf(parseConnectorYaml(text))).toEqual([
      { field: 'version', reason: 'must be a string; quote it, e.g. version: "1.0"', line: 6, column: 10 },
    ]);
  });

  it.each([
    ['', 'is empty'],
    ['# only a comment\n', 'is empty'],
    ['- a\n- b\n', 'must be a mapping'],
    ['just text', 'must be a mapping'],
  ])('refuses %j', (text, reason) => {
    const [error] = errorsOf(parseConnectorYaml(text));
    expect(error?.reason).toContain(reason);
  });

  it('refuses documents over the size limit', () => {
    const errors = errorsOf(parseConnectorYaml(`description: "${'x'.repeat(300 * 1024)}"`));
    expect(errors).toEqual([{ field: 'yaml', reason: expect.stringContaining('at most') }]);
  });

  it('refuses alias bombs instead of expanding them', () => {
    const lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 0; i < 8; i++) {
      const prev = String.fromCharCode(97 + i);
      const next = String.fromCharCode(98 + i);
      lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(',')}]`);
    }

    const errors = errorsOf(parseConnectorYaml(lines.join('\n')));

    expect(errors).toEqual([{ field: 'yaml', reason: expect.stringMatching(/alias/i) }]);
  });
});
