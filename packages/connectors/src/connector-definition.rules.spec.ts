/**
 * `rest_api` definition rules added for methods, parameter placement, auth
 * kinds and pagination types: each refusal names the field path and why.
 */
import { parseConnectorDefinition, parseConnectorYaml } from './connector-definition.js';
import type { RestApiConnectorDefinition } from './connector-definition.schema.js';
import { managedPaginationParams, restParameterLocation } from './connector-definition.rules.js';

function base(): Record<string, any> {
  return {
    id: 'acme',
    name: 'Acme',
    type: 'rest_api',
    connection: { base_url: 'https://api.acme.test/v1', auth: { type: 'none' } },
    endpoints: {
      list: {
        method: 'GET',
        path: '/items',
        parameters: [{ name: 'q', type: 'string' }],
        response_mapping: { results_path: 'items' },
      },
      create: {
        method: 'POST',
        path: '/orgs/{org}/items',
        parameters: [
          { name: 'org', type: 'string' },
          { name: 'title', type: 'string', required: true },
        ],
      },
    },
  };
}

function parse(patch: (d: Record<string, any>) => void) {
  const input = base();
  patch(input);
  return parseConnectorDefinition(input);
}

function ok(patch: (d: Record<string, any>) => void): RestApiConnectorDefinition {
  const result = parse(patch);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.definition as RestApiConnectorDefinition;
}

function errorsOf(patch: (d: Record<string, any>) => void) {
  const result = parse(patch);
  return result.ok ? [] : result.errors;
}

describe('rest_api parameter placement', () => {
  it('defaults to path for placeholders, query for GET/DELETE/HEAD and body for POST/PUT/PATCH', () => {
    const def = ok(() => {});
    const create = def.endpoints.create!;
    expect(create.parameters.map((p) => restParameterLocation(p, create))).toEqual(['path', 'body']);
    for (const method of ['GET', 'DELETE', 'HEAD'] as const) {
      expect(restParameterLocation({ name: 'q' }, { method, path: '/x' })).toBe('query');
    }
    for (const method of ['POST', 'PUT', 'PATCH'] as const) {
      expect(restParameterLocation({ name: 'q' }, { method, path: '/x' })).toBe('body');
    }
    expect(restParameterLocation({ name: 'q', in: 'header' }, { method: 'POST', path: '/x' })).toBe('header');
  });

  it('accepts explicit in: query | header | body | path where they fit', () => {
    const def = ok((d) => {
      d.endpoints.create.parameters.push(
        { name: 'dry_run', type: 'boolean', in: 'query' },
        { name: 'X-Request-Tag', type: 'string', in: 'header' },
        { name: 'org', type: 'string', in: 'path' },
      );
      d.endpoints.create.parameters.splice(0, 1);
      d.endpoints.create.body_format = 'form';
    });
    expect(def.endpoints.create!.body_format).toBe('form');
  });

  it('accepts a DELETE with body parameters', () => {
    expect(
      parse((d) => {
        d.endpoints.remove = {
          method: 'DELETE',
          path: '/items',
          parameters: [{ name: 'ids', type: 'array', in: 'body' }],
        };
      }).ok,
    ).toBe(true);
  });

  const cases: Array<[string, (d: Record<string, any>) => void, string, string]> = [
    [
      'in invalid',
      (d) => (d.endpoints.list.parameters[0].in = 'cookie'),
      'endpoints.list.parameters[0].in',
      'must be one of query, path, header, body',
    ],
    [
      'placeholder parameter not in path',
      (d) => (d.endpoints.create.parameters[0].in = 'query'),
      'endpoints.create.parameters[0].in',
      '"org" is a placeholder in the path, so it must be in: path',
    ],
    [
      'in: path without a placeholder',
      (d) => (d.endpoints.list.parameters[0].in = 'path'),
      'endpoints.list.parameters[0].in',
      'the path has no {q} placeholder',
    ],
    [
      'body parameter on GET',
      (d) => (d.endpoints.list.parameters[0].in = 'body'),
      'endpoints.list.parameters[0].in',
      'GET requests carry no body',
    ],
    [
      'header parameter named Authorization',
      (d) => d.endpoints.list.parameters.push({ name: 'Authorization', type: 'string', in: 'header' }),
      'endpoints.list.parameters[1].name',
      'must not carry credentials',
    ],
    [
      'header parameter named like the api key header',
      (d) => {
        d.connection.auth = { type: 'api_key', in: 'header', header_name: 'X-Api-Key' };
        d.endpoints.list.parameters.push({ name: 'x-api-key', type: 'string', in: 'header' });
      },
      'endpoints.list.parameters[1].name',
      'must not carry credentials',
    ],
    [
      'header parameter the runtime sets',
      (d) => d.endpoints.list.parameters.push({ name: 'Content-Type', type: 'string', in: 'header' }),
      'endpoints.list.parameters[1].name',
      'is set by the runtime',
    ],
    [
      'header parameter that is not a header name',
      (d) => d.endpoints.list.parameters.push({ name: 'a.b/c', type: 'string', in: 'header' }),
      'endpoints.list.parameters[1].name',
      'must start with a letter',
    ],
    [
      'header parameter of object type',
      (d) => d.endpoints.list.parameters.push({ name: 'X-Filter', type: 'object', in: 'header' }),
      'endpoints.list.parameters[1].type',
      'sent in a header, so it must be string',
    ],
    [
      'body_format on GET',
      (d) => (d.endpoints.list.body_format = 'json'),
      'endpoints.list.body_format',
      'GET requests carry no body',
    ],
    [
      'body_format without body parameters',
      (d) => {
        d.endpoints.create.body_format = 'form';
        d.endpoints.create.parameters[1].in = 'query';
      },
      'endpoints.create.body_format',
      'applies only when some parameter is in: body',
    ],
    [
      'body_format invalid',
      (d) => (d.endpoints.create.body_format = 'xml'),
      'endpoints.create.body_format',
      'must be one of json, form',
    ],
    [
      'bracketed name in the path',
      (d) => {
        d.endpoints.create.path = '/orgs/{org}/items/{ids[]}';
        d.endpoints.create.parameters.push({ name: 'ids[]', type: 'string', in: 'path' });
      },
      'endpoints.create.parameters[2].name',
      '"ids[]" has brackets, which a path placeholder cannot carry; only query parameters may use bracketed names',
    ],
    [
      'bracketed path placeholder',
      (d) => (d.endpoints.create.path = '/orgs/{org}/items/{ids[]}'),
      'endpoints.create.path',
      'placeholder "{ids[]}" cannot use a bracketed name: brackets are for query parameters only',
    ],
    [
      'bracketed name sent in the body by default',
      (d) => d.endpoints.create.parameters.push({ name: 'filter[state]', type: 'string' }),
      'endpoints.create.parameters[2].name',
      '"filter[state]" has brackets, which only query parameters may use; it would be sent in the body (set in: query)',
    ],
    [
      'bracketed header name',
      (d) => d.endpoints.list.parameters.push({ name: 'X-Opt[a]', type: 'string', in: 'header' }),
      'endpoints.list.parameters[1].name',
      'it would be sent in the header',
    ],
    [
      'unbalanced bracket',
      (d) => d.endpoints.list.parameters.push({ name: 'conditions[term', type: 'string' }),
      'endpoints.list.parameters[1].name',
      'optionally followed by [key] or [] groups',
    ],
    [
      'brackets first',
      (d) => d.endpoints.list.parameters.push({ name: '[term]', type: 'string' }),
      'endpoints.list.parameters[1].name',
      'must start with a letter or _',
    ],
    [
      'nested brackets',
      (d) => d.endpoints.list.parameters.push({ name: 'a[b[c]]', type: 'string' }),
      'endpoints.list.parameters[1].name',
      'optionally followed by [key] or [] groups',
    ],
  ];

  it('accepts bracketed names for query parameters (GET by default, POST with in: query)', () => {
    const def = ok((d) => {
      d.endpoints.list.parameters.push(
        { name: 'conditions[term]', type: 'string' },
        { name: 'conditions[type][]', type: 'array' },
        { name: 'conditions[publication_date][gte]', type: 'date' },
      );
      d.endpoints.create.parameters.push({ name: 'opts[dry_run]', type: 'boolean', in: 'query' });
    });
    expect(def.endpoints.list!.parameters.map((p) => restParameterLocation(p, def.endpoints.list!))).toEqual([
      'query',
      'query',
      'query',
      'query',
    ]);
    expect(restParameterLocation(def.endpoints.create!.parameters[2]!, def.endpoints.create!)).toBe('query');
  });

  it('reports a bracketed name only once when it is also not a valid header name', () => {
    expect(errorsOf((d) => d.endpoints.list.parameters.push({ name: 'X-Opt[a]', type: 'string', in: 'header' }))).toEqual([
      { field: 'endpoints.list.parameters[1].name', reason: expect.stringContaining('has brackets') },
    ]);
  });

  it.each(cases)('refuses %s, naming the field', (_label, mutate, field, reason) => {
    expect(errorsOf(mutate)).toContainEqual({ field, reason: expect.stringContaining(reason) });
  });
});

describe('rest_api auth kinds', () => {
  it('accepts basic, bearer_token and both oauth2 grants, filling client_auth and normalising scopes', () => {
    expect(ok((d) => (d.connection.auth = { type: 'basic' })).connection.auth).toEqual({ type: 'basic' });
    const oauth = ok(
      (d) =>
        (d.connection.auth = {
          type: 'oauth2',
          grant_type: 'client_credentials',
          token_url: 'https://auth.acme.test/oauth/token?tenant=1',
          scopes: 'read  write',
        }),
    ).connection.auth;
    expect(oauth).toEqual({
      type: 'oauth2',
      grant_type: 'client_credentials',
      token_url: 'https://auth.acme.test/oauth/token?tenant=1',
      scopes: ['read', 'write'],
      client_auth: 'body',
    });
    const refresh = parse(
      (d) =>
        (d.connection.auth = {
          type: 'oauth2',
          grant_type: 'refresh_token',
          token_url: 'https://auth.acme.test/token',
          scopes: ['a:read'],
          client_auth: 'basic',
        }),
    );
    expect(refresh).toMatchObject({ ok: true, warnings: [] });
  });

  it('re-parses its own output (what the repository stores)', () => {
    const def = ok(
      (d) =>
        (d.connection.auth = {
          type: 'oauth2',
          grant_type: 'client_credentials',
          token_url: 'https://auth.acme.test/token',
          scopes: 'a b',
        }),
    );
    const again = parseConnectorDefinition(JSON.parse(JSON.stringify(def)));
    expect(again.ok && again.definition).toEqual(def);
  });

  it('warns about a plain-http token_url except on loopback', () => {
    const remote = parse(
      (d) =>
        (d.connection.auth = {
          type: 'oauth2',
          grant_type: 'client_credentials',
          token_url: 'http://auth.acme.test/t',
        }),
    );
    expect(remote.ok && remote.warnings).toEqual([
      { field: 'connection.auth.token_url', reason: expect.stringContaining('plain http') },
    ]);
    const local = parse(
      (d) =>
        (d.connection.auth = {
          type: 'oauth2',
          grant_type: 'client_credentials',
          token_url: 'http://127.0.0.1:9/t',
        }),
    );
    expect(local.ok && local.warnings).toEqual([]);
  });

  it('warns that header_name is ignored when the api key goes in the query', () => {
    const result = parse(
      (d) => (d.connection.auth = { type: 'api_key', in: 'query', key_param: 'k', header_name: 'X-K' }),
    );
    expect(result.ok && result.warnings).toEqual([
      { field: 'connection.auth.header_name', reason: expect.stringContaining('is ignored') },
    ]);
  });

  const oauth = (extra: Record<string, unknown>) => (d: Record<string, any>) =>
    (d.connection.auth = {
      type: 'oauth2',
      grant_type: 'client_credentials',
      token_url: 'https://a.test/t',
      ...extra,
    });

  const cases: Array<[string, (d: Record<string, any>) => void, string, string]> = [
    [
      'oauth2 without grant_type',
      oauth({ grant_type: undefined }),
      'connection.auth.grant_type',
      'must be one of client_credentials, refresh_token',
    ],
    [
      'oauth2 with an unknown grant',
      oauth({ grant_type: 'password' }),
      'connection.auth.grant_type',
      'must be one of client_credentials, refresh_token',
    ],
    ['oauth2 without token_url', oauth({ token_url: undefined }), 'connection.auth.token_url', 'is required'],
    [
      'token_url relative',
      oauth({ token_url: '/oauth/token' }),
      'connection.auth.token_url',
      'absolute http or https URL',
    ],
    [
      'token_url ftp',
      oauth({ token_url: 'ftp://a.test/t' }),
      'connection.auth.token_url',
      'must use http or https',
    ],
    [
      'token_url with credentials',
      oauth({ token_url: 'https://id:secret@a.test/t' }),
      'connection.auth.token_url',
      'must not contain credentials',
    ],
    [
      'token_url with a fragment',
      oauth({ token_url: 'https://a.test/t#x' }),
      'connection.auth.token_url',
      'fragment',
    ],
    ['scope with a quote', oauth({ scopes: ['a"b'] }), 'connection.auth.scopes[0]', 'scope token'],
    [
      'client_auth invalid',
      oauth({ client_auth: 'jwt' }),
      'connection.auth.client_auth',
      'must be one of body, basic',
    ],
    ['oauth2 typo', oauth({ token_uri: 'x' }), 'connection.auth.token_uri', 'did you mean "token_url"?'],
    [
      'basic with extra keys',
      (d) => (d.connection.auth = { type: 'basic', username: 'u' }),
      'connection.auth.username',
      'is not a known field',
    ],
    [
      'api key header Authorization',
      (d) => (d.connection.auth = { type: 'api_key', in: 'header', header_name: 'Authorization' }),
      'connection.auth.header_name',
      'use type bearer_token or basic',
    ],
    [
      'static header where the api key goes',
      (d) => {
        d.connection.auth = { type: 'api_key', in: 'header', header_name: 'X-Key' };
        d.connection.headers = { 'x-key': 'static' };
      },
      'connection.headers.x-key',
      'is where connection.auth sends the api key',
    ],
    [
      'static header outside Latin-1',
      (d) => (d.connection.headers = { 'X-Name': 'Zoë 🙂' }),
      'connection.headers.X-Name',
      'outside Latin-1',
    ],
  ];

  it.each(cases)('refuses %s, naming the field', (_label, mutate, field, reason) => {
    expect(errorsOf(mutate)).toContainEqual({ field, reason: expect.stringContaining(reason) });
  });
});

describe('rest_api pagination types', () => {
  const paging =
    (pagination: Record<string, unknown>, endpoint = 'list') =>
    (d: Record<string, any>) =>
      (d.endpoints[endpoint].pagination = pagination);

  it.each([
    [{ type: 'page_number' }],
    [
      {
        type: 'page_number',
        page_param: 'p',
        start_page: 0,
        page_size_param: 'per_page',
        page_size: 50,
        max_pages: 1000,
      },
    ],
    [{ type: 'offset', limit: 100 }],
    [{ type: 'offset', offset_param: 'skip', limit_param: 'take', limit: 25, total_path: 'meta.total' }],
    [{ type: 'cursor', cursor_param: 'after', next_cursor_path: 'meta.next', has_more_path: 'meta.more' }],
    [{ type: 'link_header', page_size_param: 'per_page', page_size: 100 }],
    [{ type: 'next_url', next_url_path: 'next' }],
    [{ type: 'next_url', next_url_path: 'links.next', page_size_param: 'page_size', page_size: 50, max_pages: 3 }],
  ])('accepts %j', (pagination) => {
    expect(parse(paging(pagination))).toMatchObject({ ok: true, warnings: [] });
  });

  it('accepts paging parameters injected into a POST body', () => {
    expect(
      parse(
        paging(
          { type: 'page_number', inject_into: 'body', page_size_param: 'size', page_size: 10 },
          'create',
        ),
      ).ok,
    ).toBe(true);
  });

  it('lists the request parameters the runtime manages', () => {
    expect(managedPaginationParams({ type: 'page_number', page_size_param: 'n', page_size: 5 })).toEqual([
      ['page_param', 'page'],
      ['page_size_param', 'n'],
    ]);
    expect(managedPaginationParams({ type: 'offset', limit: 5 })).toEqual([
      ['offset_param', 'offset'],
      ['limit_param', 'limit'],
    ]);
    expect(managedPaginationParams({ type: 'cursor', cursor_param: 'c', next_cursor_path: 'n' })).toEqual([
      ['cursor_param', 'c'],
    ]);
    expect(managedPaginationParams({ type: 'link_header' })).toEqual([]);
    expect(managedPaginationParams({ type: 'next_url', next_url_path: 'next', page_size_param: 'n', page_size: 5 })).toEqual([
      ['page_size_param', 'n'],
    ]);
    expect(managedPaginationParams({ cursor_param: 'c', next_cursor_path: 'n' })).toEqual([]);
  });

  const cases: Array<[string, (d: Record<string, any>) => void, string, string]> = [
    [
      'unknown type',
      paging({ type: 'keyset' }),
      'endpoints.list.pagination.type',
      'must be one of page_number, offset, cursor, link_header',
    ],
    [
      'typed key without a type',
      paging({ has_more_path: 'more', page_size: 10 }),
      'endpoints.list.pagination.page_size',
      'needs pagination.type',
    ],
    [
      'offset key on page_number',
      paging({ type: 'page_number', limit: 10 }),
      'endpoints.list.pagination.limit',
      'does not apply to pagination type page_number',
    ],
    [
      'cursor_param on link_header',
      paging({ type: 'link_header', cursor_param: 'c' }),
      'endpoints.list.pagination.cursor_param',
      'does not apply to pagination type link_header',
    ],
    [
      'cursor without cursor_param',
      paging({ type: 'cursor', next_cursor_path: 'n' }),
      'endpoints.list.pagination.cursor_param',
      'is required for type cursor',
    ],
    [
      'cursor without next_cursor_path',
      paging({ type: 'cursor', cursor_param: 'c' }),
      'endpoints.list.pagination.next_cursor_path',
      'is required for type cursor',
    ],
    [
      'offset without limit',
      paging({ type: 'offset' }),
      'endpoints.list.pagination.limit',
      'is required for type offset',
    ],
    [
      'page_size_param without page_size',
      paging({ type: 'page_number', page_size_param: 'n' }),
      'endpoints.list.pagination.page_size',
      'is required when page_size_param is set',
    ],
    [
      'page_size without page_size_param',
      paging({ type: 'page_number', page_size: 5 }),
      'endpoints.list.pagination.page_size_param',
      'is required when page_size is set',
    ],
    [
      'max_pages over the cap',
      paging({ type: 'page_number', max_pages: 1001 }),
      'endpoints.list.pagination.max_pages',
      'must be at most 1000',
    ],
    [
      'max_pages zero',
      paging({ type: 'page_number', max_pages: 0 }),
      'endpoints.list.pagination.max_pages',
      'must be at least 1',
    ],
    [
      'page_size fractional',
      paging({ type: 'page_number', page_size_param: 'n', page_size: 2.5 }),
      'endpoints.list.pagination.page_size',
      'must be a whole number',
    ],
    [
      'start_page negative',
      paging({ type: 'page_number', start_page: -1 }),
      'endpoints.list.pagination.start_page',
      'must not be negative',
    ],
    [
      'total_path malformed',
      paging({ type: 'offset', limit: 5, total_path: 'a..b' }),
      'endpoints.list.pagination.total_path',
      'must be a dot path',
    ],
    [
      'inject_into body on GET',
      paging({ type: 'page_number', inject_into: 'body' }),
      'endpoints.list.pagination.inject_into',
      'GET requests carry no body',
    ],
    [
      'managed parameter also declared',
      paging({ type: 'page_number', page_param: 'q' }),
      'endpoints.list.pagination.page_param',
      "remove it from the endpoint's parameters",
    ],
    [
      'two paging parameters with one name',
      paging({ type: 'offset', limit: 5, offset_param: 'n', limit_param: 'n' }),
      'endpoints.list.pagination.limit_param',
      'is already used by pagination.offset_param',
    ],
    [
      'paging parameter named like the api key',
      (d) => {
        d.connection.auth = { type: 'api_key', key_param: 'page' };
        d.endpoints.list.pagination = { type: 'page_number' };
      },
      'endpoints.list.pagination.page_param',
      'collides with connection.auth.key_param',
    ],
    [
      'pagination on HEAD',
      (d) => {
        d.endpoints.list.method = 'HEAD';
        d.endpoints.list.pagination = { type: 'page_number' };
      },
      'endpoints.list.pagination',
      'HEAD answers have no body',
    ],
    [
      'pagination typo',
      paging({ type: 'page_number', page_sise: 10 }),
      'endpoints.list.pagination.page_sise',
      'did you mean "page_size"?',
    ],
    [
      'next_url without next_url_path',
      paging({ type: 'next_url' }),
      'endpoints.list.pagination.next_url_path',
      'is required for type next_url',
    ],
    [
      'next_url_path on page_number',
      paging({ type: 'page_number', next_url_path: 'next' }),
      'endpoints.list.pagination.next_url_path',
      'does not apply to pagination type page_number',
    ],
    [
      'next_url_path without a type',
      paging({ next_url_path: 'next', has_more_path: 'more' }),
      'endpoints.list.pagination.next_url_path',
      'needs pagination.type (next_url)',
    ],
    [
      'next_url_path that is not a dot path',
      paging({ type: 'next_url', next_url_path: 'links..next' }),
      'endpoints.list.pagination.next_url_path',
      'must be a dot path',
    ],
    [
      'cursor_param on next_url',
      paging({ type: 'next_url', next_url_path: 'next', cursor_param: 'cursor' }),
      'endpoints.list.pagination.cursor_param',
      'does not apply to pagination type next_url',
    ],
  ];

  it.each(cases)('refuses %s, naming the field', (_label, mutate, field, reason) => {
    expect(errorsOf(mutate)).toContainEqual({ field, reason: expect.stringContaining(reason) });
  });

  it('locates pagination and auth errors in YAML', () => {
    const result = parseConnectorYaml(
      [
        'id: acme',
        'name: Acme',
        'type: rest_api',
        'connection:',
        '  base_url: https://api.acme.test',
        '  auth:',
        '    type: oauth2',
        '    grant_type: client_credentials',
        '    token_url: /relative',
        'endpoints:',
        '  list:',
        '    path: /items',
        '    pagination:',
        '      type: offset',
        '      page_size: 10',
      ].join('\n'),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      {
        field: 'connection.auth.token_url',
        reason: expect.stringContaining('absolute'),
        line: 9,
        column: 16,
      },
    ]);
  });

  it('reports rule errors once the shape is right, with positions', () => {
    const result = parseConnectorYaml(
      [
        'id: acme',
        'name: Acme',
        'type: rest_api',
        'connection:',
        '  base_url: https://api.acme.test',
        'endpoints:',
        '  list:',
        '    path: /items',
        '    pagination:',
        '      type: offset',
        '      page_size: 10',
      ].join('\n'),
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    // A missing key points at its parent mapping (which starts at its first key).
    expect(result.errors).toEqual([
      {
        field: 'endpoints.list.pagination.limit',
        reason: expect.stringContaining('is required for type offset'),
        line: 10,
        column: 7,
      },
      {
        field: 'endpoints.list.pagination.page_size',
        reason: 'does not apply to pagination type offset',
        line: 11,
        column: 18,
      },
    ]);
  });
});

describe('cache_ttl_seconds', () => {
  const base = (method: string, extra: Record<string, unknown> = {}) => ({
    id: 'cached',
    name: 'Cached',
    type: 'rest_api',
    connection: { base_url: 'https://api.example.com' },
    endpoints: { e: { method, path: '/x', ...extra } },
  });

  it('is accepted on reads and refused on writes with the field path', () => {
    expect(parseConnectorDefinition(base('GET', { cache_ttl_seconds: 60 })).ok).toBe(true);
    expect(parseConnectorDefinition(base('POST', { cache_ttl_seconds: 60 })).ok).toBe(true);
    const put = parseConnectorDefinition(base('PUT', { cache_ttl_seconds: 60 }));
    expect(put.ok).toBe(false);
    if (!put.ok) expect(put.errors).toEqual([expect.objectContaining({ field: 'endpoints.e.cache_ttl_seconds', reason: expect.stringContaining('skip the write') })]);
  });

  it('must be a positive whole number of seconds up to 7 days', () => {
    for (const bad of [0, 1.5, 8 * 24 * 3600, '60']) {
      const r = parseConnectorDefinition(base('GET', { cache_ttl_seconds: bad }));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors[0]!.field).toBe('endpoints.e.cache_ttl_seconds');
    }
  });
});
