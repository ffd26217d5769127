import { parseConnectorDefinition } from './connector-definition.js';
import type { RestApiConnectorDefinition } from './connector-definition.schema.js';
import { ConnectorError } from './connector-error.js';
import { buildRestRequest, requiredCredentialNames } from './rest-request.js';

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

function thrown(fn: () => unknown): ConnectorError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConnectorError);
    return err as ConnectorError;
  }
  throw new Error('expected a ConnectorError');
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

  it('UNIMPLEMENTED for methods other than GET', () => {
    expect(thrown(() => buildRestRequest(restDef(), 'create', {}, { api_key: 'k' })).code).toBe(
      'UNIMPLEMENTED',
    );
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
    expect(requiredCredentialNames({ type: 'none' })).toEqual([]);
  });
});
