import { parseConnectorDefinition } from '../../connector-definition.js';
import type { RestApiConnectorDefinition } from '../../connector-definition.schema.js';
import {
  buildRestRequest,
  planRestRequest,
  renderRestRequest,
  requiredCredentialNames,
} from './rest-request.js';
import { thrown } from '../../testing.js';

const SECRET = 's3cr3t/key+with=chars';

function restDef(patch: (d: Record<string, any>) => void = () => {}): RestApiConnectorDefinition {
  const input: Record<string, any> = {
    id: 'acme',
    name: 'Acme',
    type: 'rest_api',
    connection: {
      base_url: 'https://api.acme.test/v1/',
      auth: { type: 'api_key', key_param: 'api_key' },
      headers: { 'X-Client': 'af' },
    },
    endpoints: {
      search: {
        path: '/orgs/{org}/things',
        parameters: [
          { name: 'org', type: 'string' },
          { name: 'q', type: 'string', required: true },
          { name: 'limit', type: 'integer', default: 10 },
          { name: 'since', type: 'date' },
          { name: 'tags', type: 'array' },
          { name: 'active', type: 'boolean' },
        ],
      },
      create: { method: 'POST', path: '/things' },
    },
  };
  patch(input);
  const result = parseConnectorDefinition(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.definition as RestApiConnectorDefinition;
}


describe('buildRestRequest', () => {
  it('joins base_url and path, encodes path parameters, and sends the rest as query in declared order', () => {
    const req = buildRestRequest(
      restDef(),
      'search',
      { q: 'a&b c', org: 'acme/east side', tags: ['x', 'y'], active: 'true' },
      { api_key: SECRET },
    );

    expect(req.method).toBe('GET');
    expect(req.displayUrl).toBe('https://api.acme.test/v1/orgs/acme%2Feast%20side/things');
    expect(req.url).toBe(
      `https://api.acme.test/v1/orgs/acme%2Feast%20side/things?q=a%26b%20c&limit=10&tags=x&tags=y&active=true&api_key=${encodeURIComponent(SECRET)}`,
    );
  });

  it('applies defaults for absent and null inputs, and lets given values override them', () => {
    expect(
      buildRestRequest(restDef(), 'search', { org: 'o', q: 'x', limit: null }, { api_key: 'k' }).url,
    ).toContain('limit=10');
    expect(
      buildRestRequest(restDef(), 'search', { org: 'o', q: 'x', limit: '25' }, { api_key: 'k' }).url,
    ).toContain('limit=25');
  });

  it('sends accept and static headers lower-cased; the api key stays out of the display URL', () => {
    const req = buildRestRequest(restDef(), 'search', { org: 'o', q: 'x' }, { api_key: SECRET });

    expect(req.headers).toEqual({ accept: 'application/json', 'x-client': 'af' });
    expect(req.displayUrl).not.toContain('api_key');
    expect(req.secrets).toEqual(expect.arrayContaining([SECRET, encodeURIComponent(SECRET)]));
  });

  it('puts an api key in the named header when auth.in is header', () => {
    const def = restDef(
      (d) => (d.connection.auth = { type: 'api_key', in: 'header', header_name: 'X-Api-Key' }),
    );

    const req = buildRestRequest(def, 'search', { org: 'o', q: 'x' }, { api_key: SECRET });

    expect(req.headers['x-api-key']).toBe(SECRET);
    expect(req.url).not.toContain(encodeURIComponent(SECRET));
  });

  it('falls back to key_param as the header name', () => {
    const def = restDef(
      (d) => (d.connection.auth = { type: 'api_key', in: 'header', key_param: 'Api-Token' }),
    );
    expect(buildRestRequest(def, 'search', { org: 'o', q: 'x' }, { api_key: 'k' }).headers['api-token']).toBe(
      'k',
    );
  });

  it('sends a bearer token in Authorization', () => {
    const def = restDef((d) => (d.connection.auth = { type: 'bearer_token' }));
    expect(
      buildRestRequest(def, 'search', { org: 'o', q: 'x' }, { token: 'tok' }).headers.authorization,
    ).toBe('Bearer tok');
  });

  it('puts bearer_token.scheme in front of the token when set (e.g. DRF "Token")', () => {
    const def = restDef((d) => (d.connection.auth = { type: 'bearer_token', scheme: 'Token' }));
    expect(def.connection.auth).toEqual({ type: 'bearer_token', scheme: 'Token' });
    expect(
      buildRestRequest(def, 'search', { org: 'o', q: 'x' }, { token: 'tok' }).headers.authorization,
    ).toBe('Token tok');
    expect(requiredCredentialNames(def.connection.auth)).toEqual(['token']);
  });

  it.each([['Token x'], [''], ['Bearer:'], ['a'.repeat(41)]])('refuses bearer_token.scheme %j', (scheme) => {
    const result = parseConnectorDefinition({
      id: 'acme',
      name: 'Acme',
      type: 'rest_api',
      connection: { base_url: 'https://api.acme.test', auth: { type: 'bearer_token', scheme } },
      endpoints: { ping: { path: '/ping' } },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      expect.objectContaining({
        field: 'connection.auth.scheme',
        reason: expect.stringMatching(/scheme name|at most 40/),
      }),
    ]);
  });

  it('sends no credentials with auth none', () => {
    const def = restDef((d) => delete d.connection.auth);
    const req = buildRestRequest(def, 'search', { org: 'o', q: 'x' }, {});
    expect(req.url).toBe('https://api.acme.test/v1/orgs/o/things?q=x&limit=10');
    expect(req.headers.authorization).toBeUndefined();
  });

  it('lists every input problem at once, each with its field path', () => {
    const err = thrown(() =>
      buildRestRequest(
        restDef(),
        'search',
        { limit: 'many', since: '2024-13-45', color: 'red' },
        { api_key: 'k' },
      ),
    );

    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.retryable).toBe(false);
    expect(err.violations).toEqual([
      {
        field: 'inputs.color',
        reason: 'is not a parameter of endpoint "search" (declared: org, q, limit, since, tags, active)',
      },
      { field: 'inputs.org', reason: 'is required by endpoint "search"' },
      { field: 'inputs.q', reason: 'is required by endpoint "search"' },
      { field: 'inputs.limit', reason: 'expected an integer, got a string that does not fit' },
      { field: 'inputs.since', reason: expect.stringContaining('expected a date') },
    ]);
    expect(err.message).toContain('inputs.q is required');
  });

  it('refuses inputs that are not an object', () => {
    const err = thrown(() => buildRestRequest(restDef(), 'search', ['x'] as never, { api_key: 'k' }));
    expect(err.violations).toEqual([{ field: 'inputs', reason: 'must be an object of parameter values' }]);
  });

  it('NOT_FOUND for an unknown endpoint, naming those that exist', () => {
    const err = thrown(() => buildRestRequest(restDef(), 'nope', {}, {}));
    expect(err).toMatchObject({
      code: 'NOT_FOUND',
      message: 'connector "acme" has no endpoint "nope"; it has search, create',
    });
    expect(thrown(() => buildRestRequest(restDef(), 'constructor', {}, {})).code).toBe('NOT_FOUND');
  });

  it('builds requests for methods other than GET (a POST without body parameters has no body)', () => {
    const req = buildRestRequest(restDef(), 'create', {}, { api_key: 'k' });

    expect(req.method).toBe('POST');
    expect(req.url).toBe('https://api.acme.test/v1/things?api_key=k');
    expect(req.body).toBeUndefined();
    expect(req.headers['content-type']).toBeUndefined();
  });

  it('FAILED_PRECONDITION when the credential the auth needs is missing or empty', () => {
    for (const creds of [{}, { api_key: '' }, { token: 'wrong-name' }] as Array<Record<string, string>>) {
      const err = thrown(() => buildRestRequest(restDef(), 'search', { org: 'o', q: 'x' }, creds));
      expect(err).toMatchObject({
        code: 'FAILED_PRECONDITION',
        message: expect.stringContaining('needs the credential "api_key"'),
      });
      expect(err.message).not.toContain('wrong-name');
    }
  });

  it('refuses a credential with control characters without echoing it', () => {
    const bad = 'abc\r\nX-Injected: 1';
    const err = thrown(() => buildRestRequest(restDef(), 'search', { org: 'o', q: 'x' }, { api_key: bad }));

    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).not.toContain('abc');
  });
});

describe('requiredCredentialNames', () => {
  it('names the credential each auth scheme reads', () => {
    expect(requiredCredentialNames({ type: 'api_key', key_param: 'k', in: 'query' })).toEqual(['api_key']);
    expect(requiredCredentialNames({ type: 'bearer_token' })).toEqual(['token']);
    expect(requiredCredentialNames({ type: 'basic' })).toEqual(['username', 'password']);
    expect(
      requiredCredentialNames({
        type: 'oauth2',
        grant_type: 'client_credentials',
        token_url: 'https://auth.test/token',
        client_auth: 'body',
      }),
    ).toEqual(['client_id', 'client_secret']);
    expect(
      requiredCredentialNames({
        type: 'oauth2',
        grant_type: 'refresh_token',
        token_url: 'https://auth.test/token',
        client_auth: 'basic',
      }),
    ).toEqual(['client_id', 'client_secret', 'refresh_token']);
    expect(requiredCredentialNames({ type: 'none' })).toEqual([]);
  });
});

describe('buildRestRequest: methods, bodies and headers', () => {
  function def(patch: (d: Record<string, any>) => void = () => {}): RestApiConnectorDefinition {
    const input: Record<string, any> = {
      id: 'acme',
      name: 'Acme',
      type: 'rest_api',
      connection: {
        base_url: 'https://api.acme.test/v1',
        auth: { type: 'none' },
        headers: { 'X-Client': 'af' },
      },
      endpoints: {
        create: {
          method: 'POST',
          path: '/orgs/{org}/items',
          parameters: [
            { name: 'org', type: 'string', required: true },
            { name: 'title', type: 'string', required: true },
            { name: 'tags', type: 'array' },
            { name: 'meta', type: 'object' },
            { name: 'count', type: 'integer', default: 1 },
            { name: 'dry_run', type: 'boolean', in: 'query' },
            { name: 'X-Trace-Id', type: 'string', in: 'header' },
          ],
        },
      },
    };
    patch(input);
    const result = parseConnectorDefinition(input);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    return result.definition as RestApiConnectorDefinition;
  }

  it('sends POST parameters as a JSON body by default, typed, with query and header parameters placed', () => {
    const req = buildRestRequest(
      def(),
      'create',
      { org: 'a b', title: 'T', tags: ['x', 1], meta: { k: [1] }, dry_run: 'true', 'X-Trace-Id': 't-1' },
      {},
    );

    expect(req.method).toBe('POST');
    expect(req.url).toBe('https://api.acme.test/v1/orgs/a%20b/items?dry_run=true');
    expect(JSON.parse(req.body as string)).toEqual({
      title: 'T',
      tags: ['x', 1],
      meta: { k: [1] },
      count: 1,
    });
    expect(req.headers).toEqual({
      accept: 'application/json',
      'x-client': 'af',
      'x-trace-id': 't-1',
      'content-type': 'application/json',
    });
  });

  it('sends an empty JSON object when every body parameter is optional and absent', () => {
    const req = buildRestRequest(
      def(
        (d) =>
          (d.endpoints.create.parameters = [
            { name: 'org', type: 'string' },
            { name: 'note', type: 'string' },
          ]),
      ),
      'create',
      { org: 'o' },
      {},
    );
    expect(req.body).toBe('{}');
  });

  it('form-encodes the body with body_format: form (arrays repeat the key, objects as JSON text)', () => {
    const req = buildRestRequest(
      def((d) => (d.endpoints.create.body_format = 'form')),
      'create',
      { org: 'o', title: 'a b&c=d', tags: ['x', 'y'], meta: { k: 1 } },
      {},
    );
    expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(req.body).toBe('title=a+b%26c%3Dd&tags=x&tags=y&meta=%7B%22k%22%3A1%7D&count=1');
  });

  it.each(['PUT', 'PATCH'])('%s parameters default to the body too', (method) => {
    const req = buildRestRequest(
      def((d) => (d.endpoints.create.method = method)),
      'create',
      { org: 'o', title: 't' },
      {},
    );
    expect(req.method).toBe(method);
    expect(JSON.parse(req.body as string)).toEqual({ title: 't', count: 1 });
  });

  it('DELETE and HEAD parameters default to the query, and these requests carry no body', () => {
    for (const method of ['DELETE', 'HEAD']) {
      const req = buildRestRequest(
        def((d) => {
          d.endpoints.create.method = method;
          d.endpoints.create.parameters = [
            { name: 'org', type: 'string' },
            { name: 'force', type: 'boolean' },
          ];
        }),
        'create',
        { org: 'o', force: true },
        {},
      );
      expect(req.method).toBe(method);
      expect(req.url).toBe('https://api.acme.test/v1/orgs/o/items?force=true');
      expect(req.body).toBeUndefined();
    }
  });

  it('a DELETE may carry explicit body parameters', () => {
    const req = buildRestRequest(
      def((d) => {
        d.endpoints.create.method = 'DELETE';
        d.endpoints.create.parameters = [
          { name: 'org', type: 'string' },
          { name: 'ids', type: 'array', in: 'body' },
        ];
      }),
      'create',
      { org: 'o', ids: [1, 2] },
      {},
    );
    expect(req.body).toBe('{"ids":[1,2]}');
  });

  it('refuses header parameter values that would break the header, naming the input', () => {
    for (const value of ['a\r\nX-Evil: 1', 'emoji 🙂']) {
      const err = thrown(() =>
        buildRestRequest(def(), 'create', { org: 'o', title: 't', 'X-Trace-Id': value }, {}),
      );
      expect(err).toMatchObject({
        code: 'INVALID_ARGUMENT',
        violations: [{ field: 'inputs.X-Trace-Id', reason: expect.stringContaining('single-line Latin-1') }],
      });
    }
  });

  it('collects every input problem across locations at once', () => {
    const err = thrown(() => buildRestRequest(def(), 'create', { tags: 'x', dry_run: 'maybe' }, {}));
    expect(err.violations.map((v) => v.field)).toEqual([
      'inputs.org',
      'inputs.title',
      'inputs.tags',
      'inputs.dry_run',
    ]);
  });
});

describe('buildRestRequest: auth kinds', () => {
  const withAuth = (auth: Record<string, unknown>) =>
    restDef((d) => {
      d.connection.auth = auth;
    });

  it('basic: Authorization: Basic base64(username:password), and the encoding is a secret', () => {
    const req = buildRestRequest(
      withAuth({ type: 'basic' }),
      'search',
      { org: 'o', q: 'x' },
      {
        username: 'ann',
        password: 'pä:ss',
      },
    );
    const encoded = Buffer.from('ann:pä:ss', 'utf8').toString('base64');
    expect(req.headers.authorization).toBe(`Basic ${encoded}`);
    expect(req.secrets).toEqual(expect.arrayContaining(['pä:ss', encoded]));
    expect(req.url).not.toContain('api_key');
  });

  it('basic: FAILED_PRECONDITION for a missing password or a username with ":"', () => {
    expect(
      thrown(() =>
        buildRestRequest(withAuth({ type: 'basic' }), 'search', { org: 'o', q: 'x' }, { username: 'u' }),
      ),
    ).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('needs the credential "password" for basic auth'),
    });
    const err = thrown(() =>
      buildRestRequest(
        withAuth({ type: 'basic' }),
        'search',
        { org: 'o', q: 'x' },
        { username: 'a:b', password: 'p' },
      ),
    );
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('contains ":"');
  });

  const oauth = { type: 'oauth2', grant_type: 'refresh_token', token_url: 'https://auth.acme.test/token' };
  const oauthCreds = { client_id: 'cid', client_secret: 'csecret', refresh_token: 'rt' };

  it('oauth2: sends the access token it is given as a bearer token', () => {
    const req = buildRestRequest(withAuth(oauth), 'search', { org: 'o', q: 'x' }, oauthCreds, {
      accessToken: 'at-1',
    });
    expect(req.headers.authorization).toBe('Bearer at-1');
    expect(req.secrets).toEqual(expect.arrayContaining(['at-1', 'cid', 'csecret', 'rt']));
  });

  it('oauth2: FAILED_PRECONDITION without a token or without a stored client secret / refresh token', () => {
    expect(
      thrown(() => buildRestRequest(withAuth(oauth), 'search', { org: 'o', q: 'x' }, oauthCreds)).message,
    ).toContain('no access token was obtained');
    expect(
      thrown(() =>
        buildRestRequest(
          withAuth(oauth),
          'search',
          { org: 'o', q: 'x' },
          { client_id: 'c', client_secret: 's' },
          { accessToken: 'a' },
        ),
      ).message,
    ).toContain('needs the credential "refresh_token" for oauth2 auth');
  });

  it('oauth2: refuses an access token with control characters (UPSTREAM_ERROR, not echoed)', () => {
    const err = thrown(() =>
      buildRestRequest(withAuth(oauth), 'search', { org: 'o', q: 'x' }, oauthCreds, {
        accessToken: 'zq9\r\nX: y',
      }),
    );
    expect(err.code).toBe('UPSTREAM_ERROR');
    expect(err.message).not.toContain('zq9');
  });
});

describe('planRestRequest + renderRestRequest (one plan, many pages)', () => {
  it('adds page query parameters before the api key', () => {
    const def = restDef();
    const plan = planRestRequest(def, 'search', { org: 'o', q: 'x' }, { api_key: 'k' });
    const req = renderRestRequest(plan, { api_key: 'k' }, { overrides: { query: [['page', '2']] } });
    expect(req.url).toBe('https://api.acme.test/v1/orgs/o/things?q=x&limit=10&page=2&api_key=k');
  });

  it('merges body overrides into the planned body', () => {
    const def = restDef((d) => {
      d.endpoints.create.parameters = [{ name: 'filter', type: 'object' }];
    });
    const plan = planRestRequest(def, 'create', { filter: { a: 1 } }, { api_key: 'k' });
    expect(renderRestRequest(plan, { api_key: 'k' }, { overrides: { body: { page: 3 } } }).body).toBe(
      '{"filter":{"a":1},"page":3}',
    );
  });

  it('fetches a next-page URL as given, replacing an api key the server echoed with the stored one', () => {
    const def = restDef();
    const plan = planRestRequest(def, 'search', { org: 'o', q: 'x' }, { api_key: 'mine' });
    const req = renderRestRequest(
      plan,
      { api_key: 'mine' },
      {
        overrides: { url: 'https://api.acme.test/v1/orgs/o/things?q=x&api_key=echoed&page=2#frag' },
      },
    );
    expect(req.url).toBe('https://api.acme.test/v1/orgs/o/things?q=x&page=2&api_key=mine');
    expect(req.displayUrl).toBe('https://api.acme.test/v1/orgs/o/things');
    expect(req.headers['x-client']).toBe('af');
  });

  it.each([
    ['api_key in the query', { type: 'api_key', key_param: 'api_key', in: 'query' }, { api_key: 'k1' }],
    ['api_key in a header', { type: 'api_key', key_param: 'X-Key', in: 'header' }, { api_key: 'k1' }],
    ['basic', { type: 'basic' }, { username: 'u', password: 'p1' }],
    ['none', { type: 'none' }, {}],
  ])('rendering never changes the plan (%s): every page starts from it again', (_name, auth, credentials) => {
    const def = restDef((d) => {
      d.connection.auth = auth;
      d.endpoints.create.parameters = [{ name: 'filter', type: 'object' }];
    });
    for (const endpoint of ['search', 'create'] as const) {
      const inputs = endpoint === 'search' ? { org: 'o', q: 'x' } : { filter: { a: 1 } };
      const plan = planRestRequest(def, endpoint, inputs, credentials);
      const before = JSON.stringify(plan);
      const first = renderRestRequest(plan, credentials, { overrides: { query: [['page', '2']], body: { page: 2 } } });
      const second = renderRestRequest(plan, credentials);
      expect(JSON.stringify(plan)).toBe(before);
      expect(second.url).not.toContain('page=2');
      expect(second.body ?? '').not.toContain('"page"');
      expect(first.url).toContain('page=2');
      expect(second.headers).toEqual(first.headers);
      expect(second.secrets).toEqual(first.secrets);
    }
  });
});

describe('bracketed query parameter names (Rails / PHP style)', () => {
  const def = () =>
    restDef((d) => {
      d.connection.auth = { type: 'none' };
      d.endpoints.docs = {
        path: '/documents.json',
        parameters: [
          { name: 'conditions[term]', type: 'string' },
          { name: 'conditions[type][]', type: 'array' },
          { name: 'conditions[publication_date][gte]', type: 'date' },
        ],
      };
    });

  it('sends them as query keys, repeating [] keys per array element, and takes inputs by the full name', () => {
    const req = buildRestRequest(
      def(),
      'docs',
      {
        'conditions[term]': 'clean air',
        'conditions[type][]': ['RULE', 'PRORULE'],
        'conditions[publication_date][gte]': '2024-01-01',
      },
      {},
    );
    expect(req.url).toBe(
      'https://api.acme.test/v1/documents.json?conditions%5Bterm%5D=clean%20air&conditions%5Btype%5D%5B%5D=RULE&conditions%5Btype%5D%5B%5D=PRORULE&conditions%5Bpublication_date%5D%5Bgte%5D=2024-01-01',
    );
    expect([...new URL(req.url).searchParams]).toEqual([
      ['conditions[term]', 'clean air'],
      ['conditions[type][]', 'RULE'],
      ['conditions[type][]', 'PRORULE'],
      ['conditions[publication_date][gte]', '2024-01-01'],
    ]);
  });

  it('reports a bad input under its bracketed name', () => {
    const err = thrown(() =>
      buildRestRequest(
        def(),
        'docs',
        { 'conditions[publication_date][gte]': 'last week', 'conditions[x]': 1 },
        {},
      ),
    );
    expect(err.violations).toEqual([
      {
        field: 'inputs.conditions[x]',
        reason: expect.stringContaining('is not a parameter of endpoint "docs"'),
      },
      {
        field: 'inputs.conditions[publication_date][gte]',
        reason: expect.stringContaining('expected a date'),
      },
    ]);
  });
});

describe('compiled endpoint plans', () => {
  it('are reused across calls of the same definition without leaking one call’s inputs into the next', () => {
    const def = restDef((d) => {
      d.endpoints.search.parameters.push({ name: 'X-Trace', type: 'string', in: 'header' });
    });
    const a = buildRestRequest(def, 'search', { org: 'a', q: '1', 'X-Trace': 't1' }, { api_key: 'k1' });
    const b = buildRestRequest(def, 'search', { org: 'b/c', q: '2' }, { api_key: 'k2' });
    expect(a.url).toBe('https://api.acme.test/v1/orgs/a/things?q=1&limit=10&api_key=k1');
    expect(a.headers['x-trace']).toBe('t1');
    expect(b.url).toBe('https://api.acme.test/v1/orgs/b%2Fc/things?q=2&limit=10&api_key=k2');
    expect(b.headers['x-trace']).toBeUndefined();
    expect(b.secrets).not.toContain('k1');
  });

  it('follow an endpoint replaced on the definition object', () => {
    const def = restDef();
    expect(buildRestRequest(def, 'search', { org: 'o', q: 'x' }, { api_key: 'k' }).displayUrl).toBe(
      'https://api.acme.test/v1/orgs/o/things',
    );
    const other = restDef((d) => (d.endpoints.search.path = '/v2/{org}/items'));
    (def.endpoints as Record<string, unknown>).search = other.endpoints.search;
    expect(buildRestRequest(def, 'search', { org: 'o', q: 'x' }, { api_key: 'k' }).displayUrl).toBe(
      'https://api.acme.test/v1/v2/o/items',
    );
  });

  it('keep inherited names out: an endpoint called "constructor" or "__proto__" is NOT_FOUND', () => {
    const def = restDef();
    buildRestRequest(def, 'search', { org: 'o', q: 'x' }, { api_key: 'k' });
    expect(thrown(() => buildRestRequest(def, '__proto__', {}, {})).code).toBe('NOT_FOUND');
    expect(thrown(() => buildRestRequest(def, 'constructor', {}, {})).code).toBe('NOT_FOUND');
  });
});
