/**
 * `rest_api` connectors end to end over real HTTP: YAML → parseConnectorYaml →
 * executeEndpoint → the fixture server, for every method, every static auth
 * kind, every paginator and bad inputs. OAuth2 is in oauth.int-spec.ts.
 *
 * Twice: with undici's `request` (the executor reads the body stream) and with
 * the SSRF-guarded client production uses, whose `text` reads answers whole in
 * a dispatch handler — the same behaviour, limits and errors either way.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '@af/testing';
import { request } from 'undici';
import type { HttpRequestFn } from '@af/connectors';
import { createGuardedHttp, type GuardedHttp } from '../../src/infra/guarded-http.js';
import {
  executeEndpoint,
  parseConnectorYaml,
  requiredCredentials,
  type ConnectorDefinition,
} from '@af/connectors';
import { failure } from '@af/connectors/testing';

const guardedClients: GuardedHttp[] = [];
afterAll(async () => {
  await Promise.all(guardedClients.map((c) => c.close()));
});

describe.each([
  ['undici request, body stream', (): HttpRequestFn => request],
  [
    'guarded client, text read in a dispatch handler',
    (): HttpRequestFn => {
      if (!guardedClients[0]) guardedClients.push(createGuardedHttp({ allow: '127.0.0.1' }));
      return guardedClients[0]!;
    },
  ],
])('rest_api over %s', (_name, client) => {
    let server: FixtureServer;
  let other: FixtureServer;

  beforeAll(async () => {
    server = await startFixtureServer();
    other = await startFixtureServer();
  });
  afterAll(async () => {
    await server.close();
    await other.close();
  });
  beforeEach(() => {
    server.reset();
    other.reset();
  });

  function load(yaml: string): ConnectorDefinition {
    const result = parseConnectorYaml(yaml.replaceAll('BASE', `${server.url}/api`));
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    return result.definition;
  }

  const run = (
    def: ConnectorDefinition,
    endpoint: string,
    inputs: Record<string, unknown>,
    creds: Record<string, string> = {},
  ) => executeEndpoint(def, endpoint, inputs, creds, { http: client() });


  const ITEMS_YAML = `
id: items-api
name: Items
type: rest_api
connection:
  base_url: BASE
  headers:
    X-Client: agent-factory
endpoints:
  get_item:
    path: /items/{id}
    parameters:
      - { name: id, type: integer, required: true }
      - { name: expand, type: array }
      - { name: X-Request-Id, type: string, in: header }
    response_mapping:
      results_path: item
  create_item:
    method: POST
    path: /orgs/{org}/items
    parameters:
      - { name: org, type: string, required: true }
      - { name: title, type: string, required: true }
      - { name: price, type: number }
      - { name: labels, type: array }
      - { name: attrs, type: object }
      - { name: notify, type: boolean, in: query, default: false }
    response_mapping:
      results_path: created
  create_form:
    method: POST
    path: /forms
    body_format: form
    parameters:
      - { name: name, type: string }
      - { name: tags, type: array }
  replace_item:
    method: PUT
    path: /items/{id}
    parameters:
      - { name: id, type: string }
      - { name: title, type: string }
  patch_item:
    method: patch
    path: /items/{id}
    parameters:
      - { name: id, type: string }
      - { name: done, type: boolean }
  delete_item:
    method: DELETE
    path: /items/{id}
    parameters:
      - { name: id, type: string }
      - { name: hard, type: boolean }
      - { name: reason, type: string, in: body }
  probe:
    method: HEAD
    path: /items/{id}
    parameters:
      - { name: id, type: string }
    response_mapping:
      fields:
        status: status
        etag: headers.etag
`;

  describe('every method over real HTTP', () => {
    it('GET: path, repeated query values, header parameter and static headers; maps the body', async () => {
      server.route('GET', '/api/items/:id', (req) => ({
        json: { item: { id: Number(req.params.id), name: 'Lamp' } },
      }));

      const result = await run(load(ITEMS_YAML), 'get_item', {
        id: '42',
        expand: ['a', 'b'],
        'X-Request-Id': 'req-1',
      });

      expect(result).toEqual({ results: [{ id: 42, name: 'Lamp' }], count: 1 });
      const [req] = server.requests;
      expect(req).toMatchObject({
        method: 'GET',
        path: '/api/items/42',
        query: { expand: ['a', 'b'] },
        body: '',
      });
      expect(req?.headers).toMatchObject({
        'x-request-id': 'req-1',
        'x-client': 'agent-factory',
        accept: 'application/json',
      });
      expect(req?.headers['content-type']).toBeUndefined();
    });

    it('POST: JSON body of the body parameters (typed), query parameter with its default', async () => {
      server.route('POST', '/api/orgs/:org/items', (req) => ({
        status: 201,
        json: { created: { id: 'i-1', got: JSON.parse(req.body) } },
      }));

      const result = await run(load(ITEMS_YAML), 'create_item', {
        org: 'acme inc',
        title: 'Desk',
        price: '12.5',
        labels: ['x', 2],
        attrs: { color: 'red' },
      });

      expect(result.results).toEqual([
        { id: 'i-1', got: { title: 'Desk', price: 12.5, labels: ['x', 2], attrs: { color: 'red' } } },
      ]);
      const [req] = server.requests;
      expect(req).toMatchObject({
        method: 'POST',
        path: '/api/orgs/acme%20inc/items',
        query: { notify: 'false' },
      });
      expect(req?.headers['content-type']).toBe('application/json');
    });

    it('POST with body_format: form', async () => {
      server.route('POST', '/api/forms', { status: 204 });

      expect(await run(load(ITEMS_YAML), 'create_form', { name: 'A B', tags: ['t1', 't2'] })).toEqual({
        results: [],
        count: 0,
      });

      const [req] = server.requests;
      expect(req?.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(
        Object.fromEntries([...new URLSearchParams(req?.body)].map(([k, v], i) => [`${i}:${k}`, v])),
      ).toEqual({
        '0:name': 'A B',
        '1:tags': 't1',
        '2:tags': 't2',
      });
    });

    it('PUT and PATCH send their parameters as JSON', async () => {
      server.route('PUT', '/api/items/:id', (req) => ({ json: { method: 'PUT', body: JSON.parse(req.body) } }));
      server.route('PATCH', '/api/items/:id', (req) => ({
        json: { method: 'PATCH', body: JSON.parse(req.body) },
      }));

      expect((await run(load(ITEMS_YAML), 'replace_item', { id: '1', title: 'New' })).results).toEqual([
        { method: 'PUT', body: { title: 'New' } },
      ]);
      expect((await run(load(ITEMS_YAML), 'patch_item', { id: '1', done: 'true' })).results).toEqual([
        { method: 'PATCH', body: { done: true } },
      ]);
    });

    it('DELETE: query parameters by default, an explicit body parameter in the body; empty answer', async () => {
      server.route('DELETE', '/api/items/:id', { status: 200, body: '' });

      expect(await run(load(ITEMS_YAML), 'delete_item', { id: '9', hard: true, reason: 'dup' })).toEqual({
        results: [],
        count: 0,
      });

      const [req] = server.requests;
      expect(req).toMatchObject({
        method: 'DELETE',
        path: '/api/items/9',
        query: { hard: 'true' },
        body: '{"reason":"dup"}',
      });
    });

    it('HEAD: one record of status and headers, mapped', async () => {
      server.route('HEAD', '/api/items/:id', { headers: { etag: '"v3"' } });

      expect(await run(load(ITEMS_YAML), 'probe', { id: '1' })).toEqual({
        results: [{ status: 200, etag: '"v3"' }],
        count: 1,
      });
      expect(server.requests[0]?.method).toBe('HEAD');
    });

    it('HEAD of a large resource: its Content-Length is the resource\'s, not a body, so no size limit applies', async () => {
      server.route('HEAD', '/api/items/:id', { headers: { 'content-length': String(50 * 1024 * 1024), etag: '"big"' } });

      expect(await run(load(ITEMS_YAML), 'probe', { id: '2' })).toEqual({
        results: [{ status: 200, etag: '"big"' }],
        count: 1,
      });
    });

    it('maps upstream failures of writes like reads (422 → INVALID_ARGUMENT, 409 → UPSTREAM_ERROR)', async () => {
      server.route('POST', '/api/orgs/:org/items', { status: 422, json: { error: 'title taken' } });
      server.route('PUT', '/api/items/:id', { status: 409 });

      const invalid = await failure(run(load(ITEMS_YAML), 'create_item', { org: 'o', title: 't' }));
      expect(invalid).toMatchObject({ code: 'INVALID_ARGUMENT', status: 422 });
      expect(invalid.message).toContain('title taken');
      expect((await failure(run(load(ITEMS_YAML), 'replace_item', { id: '1' }))).code).toBe('UPSTREAM_ERROR');
    });
  });

  describe('static auth kinds over real HTTP', () => {
    const authYaml = (auth: string) => `
id: authed
name: Authed
type: rest_api
connection:
  base_url: BASE
  auth:
${auth}
endpoints:
  me:
    path: /me
    parameters:
      - { name: q, type: string }
  save:
    method: POST
    path: /me
    parameters:
      - { name: name, type: string }
`;
    const echo = () =>
      server.route('GET', '/api/me', (req) => ({
        json: {
          authorization: req.headers.authorization ?? null,
          query: req.query,
          key: req.headers['x-api-key'] ?? null,
        },
      }));

    it('api_key in the query', async () => {
      echo();
      const def = load(authYaml('    type: api_key\n    key_param: apikey'));
      expect(requiredCredentials(def)).toEqual(['api_key']);
      const [r] = (await run(def, 'me', { q: 'x' }, { api_key: 'k/1+=' })).results;
      expect(r).toEqual({ authorization: null, query: { q: 'x', apikey: 'k/1+=' }, key: null });
    });

    it('api_key in a header', async () => {
      echo();
      const def = load(authYaml('    type: api_key\n    in: header\n    header_name: X-Api-Key'));
      const [r] = (await run(def, 'me', {}, { api_key: 'hk' })).results;
      expect(r).toEqual({ authorization: null, query: {}, key: 'hk' });
    });

    it('bearer_token', async () => {
      echo();
      const def = load(authYaml('    type: bearer_token'));
      expect(requiredCredentials(def)).toEqual(['token']);
      expect((await run(def, 'me', {}, { token: 'tkn' })).results[0]).toMatchObject({
        authorization: 'Bearer tkn',
      });
    });

    it('bearer_token with another scheme (scheme: Token)', async () => {
      echo();
      const def = load(authYaml('    type: bearer_token\n    scheme: Token'));
      expect(requiredCredentials(def)).toEqual(['token']);
      expect((await run(def, 'me', {}, { token: 'tkn' })).results[0]).toMatchObject({ authorization: 'Token tkn' });
    });

    it('basic (username and password, UTF-8), on GET and POST', async () => {
      const seen: string[] = [];
      const check = (req: { headers: Record<string, unknown> }) => {
        const header = String(req.headers.authorization ?? '');
        const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8');
        seen.push(decoded);
        return decoded === 'zoë:p@ss:word' ? { json: { ok: true } } : { status: 401 };
      };
      server.route('GET', '/api/me', check);
      server.route('POST', '/api/me', check);
      const def = load(authYaml('    type: basic'));
      expect(requiredCredentials(def)).toEqual(['username', 'password']);

      expect((await run(def, 'me', {}, { username: 'zoë', password: 'p@ss:word' })).results).toEqual([
        { ok: true },
      ]);
      expect(
        (await run(def, 'save', { name: 'n' }, { username: 'zoë', password: 'p@ss:word' })).results,
      ).toEqual([{ ok: true }]);
      const refused = await failure(run(def, 'me', {}, { username: 'zoë', password: 'wrong-pass' }));
      expect(refused.code).toBe('AUTH_FAILED');
      expect(refused.message).not.toContain('wrong-pass');
      expect(seen).toEqual(['zoë:p@ss:word', 'zoë:p@ss:word', 'zoë:wrong-pass']);
    });

    it('FAILED_PRECONDITION for a missing credential, before sending anything', async () => {
      const def = load(authYaml('    type: basic'));
      const err = await failure(run(def, 'me', {}, { username: 'u' }));
      expect(err).toMatchObject({
        code: 'FAILED_PRECONDITION',
        message: expect.stringContaining('"password"'),
      });
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('paginators over real HTTP', () => {
    const ROWS = Array.from({ length: 23 }, (_, i) => ({ id: i + 1 }));
    const paged = (pagination: string, extra = '') =>
      load(`
id: paged
name: Paged
type: rest_api
connection:
  base_url: BASE
  auth: { type: api_key, key_param: key }
endpoints:
  list:
    path: /rows
    parameters:
      - { name: q, type: string }
${extra}
    pagination:
${pagination}
    response_mapping:
      results_path: data
      fields: { id: id }
`);
    const ids = (r: { results: Record<string, unknown>[] }) => r.results.map((x) => x.id);
    const all = ROWS.map((r) => r.id);

    it('page_number: page/per_page until a short page', async () => {
      server.route('GET', '/api/rows', (req) => {
        const page = Number(req.query.page);
        const size = Number(req.query.per_page);
        return { json: { data: ROWS.slice((page - 1) * size, page * size) } };
      });
      const def = paged(
        '      type: page_number\n      page_size_param: per_page\n      page_size: 10\n      max_pages: 50',
      );

      const result = await run(def, 'list', { q: 'z' }, { api_key: 'K' });

      expect(ids(result)).toEqual(all);
      expect(result).toMatchObject({ count: 23, has_more: false });
      expect(server.requests.map((r) => r.query)).toEqual(
        [1, 2, 3].map((p) => ({ q: 'z', page: String(p), per_page: '10', key: 'K' })),
      );
    });

    it('page_number from start_page 0 until an empty page (no page size)', async () => {
      server.route('GET', '/api/rows', (req) => ({
        json: { data: ROWS.slice(Number(req.query.p) * 10, Number(req.query.p) * 10 + 10) },
      }));
      const result = await run(
        paged('      type: page_number\n      page_param: p\n      start_page: 0'),
        'list',
        {},
        { api_key: 'K' },
      );
      expect(ids(result)).toEqual(all);
      expect(server.requests.map((r) => r.query.p)).toEqual(['0', '1', '2', '3']);
    });

    it('offset: offset/limit until total_path is reached', async () => {
      server.route('GET', '/api/rows', (req) => {
        const offset = Number(req.query.skip);
        // A server that keeps full pages going past the end would loop forever without the total.
        return {
          json: {
            data: ROWS.slice(offset, offset + 5).concat(offset >= 20 ? [{ id: 99 }, { id: 100 }] : []),
            meta: { total: 23 },
          },
        };
      });
      const def = paged(
        '      type: offset\n      offset_param: skip\n      limit_param: take\n      limit: 5\n      total_path: meta.total',
      );

      const result = await run(def, 'list', {}, { api_key: 'K' });

      expect(result.count).toBe(25);
      expect(ids(result).slice(0, 23)).toEqual(all);
      expect(result.has_more).toBe(false);
      expect(server.requests.map((r) => [r.query.skip, r.query.take])).toEqual([
        ['0', '5'],
        ['5', '5'],
        ['10', '5'],
        ['15', '5'],
        ['20', '5'],
      ]);
    });

    it('cursor: cursor from the body until has_more_path is false', async () => {
      server.route('GET', '/api/rows', (req) => {
        const start = req.query.after ? Number(req.query.after) : 0;
        const data = ROWS.slice(start, start + 7);
        return { json: { data, meta: { next: String(start + 7), more: start + 7 < ROWS.length } } };
      });
      const def = paged(
        '      type: cursor\n      cursor_param: after\n      next_cursor_path: meta.next\n      has_more_path: meta.more',
      );

      const result = await run(def, 'list', {}, { api_key: 'K' });

      expect(ids(result)).toEqual(all);
      expect(server.requests.map((r) => r.query.after)).toEqual([undefined, '7', '14', '21']);
    });

    it('cursor in a POST body (inject_into: body) for search endpoints', async () => {
      server.route('POST', '/api/rows', (req) => {
        const body = JSON.parse(req.body) as { cursor?: string; size: number; q: string };
        const start = body.cursor ? Number(body.cursor) : 0;
        return {
          json: {
            data: ROWS.slice(start, start + body.size).filter(() => body.q === 'all'),
            next: start + body.size < 23 ? String(start + body.size) : null,
          },
        };
      });
      const def = paged(
        '      type: cursor\n      cursor_param: cursor\n      next_cursor_path: next\n      page_size_param: size\n      page_size: 10\n      inject_into: body',
        '    method: POST',
      );

      const result = await run(def, 'list', { q: 'all' }, { api_key: 'K' });

      expect(ids(result)).toEqual(all);
      expect(server.requests.map((r) => JSON.parse(r.body))).toEqual([
        { q: 'all', size: 10 },
        { q: 'all', cursor: '10', size: 10 },
        { q: 'all', cursor: '20', size: 10 },
      ]);
      expect(server.requests.every((r) => r.query.key === 'K')).toBe(true);
    });

    it('link_header: follows rel="next" (absolute and relative), re-applying auth, until there is none', async () => {
      server.route('GET', '/api/rows', (req) => {
        const page = Number(req.query.page ?? 1);
        const links = [`<${server.url}/api/rows?page=1&per_page=10>; rel="first"`];
        if (page === 1)
          links.push(`<${server.url}/api/rows?page=2&per_page=10&key=leaked-by-server>; rel="next"`);
        if (page === 2) links.push('</api/rows?page=3&per_page=10>; rel="next"');
        return { json: { data: ROWS.slice((page - 1) * 10, page * 10) }, headers: { link: links.join(', ') } };
      });
      const def = paged('      type: link_header\n      page_size_param: per_page\n      page_size: 10');

      const result = await run(def, 'list', { q: 'x' }, { api_key: 'K' });

      expect(ids(result)).toEqual(all);
      expect(result.has_more).toBe(false);
      expect(server.requests.map((r) => r.query)).toEqual([
        { q: 'x', per_page: '10', key: 'K' },
        { page: '2', per_page: '10', key: 'K' },
        { page: '3', per_page: '10', key: 'K' },
      ]);
    });

    it('link_header: never follows a link to another origin (the credentials would go with it)', async () => {
      other.route('GET', '/api/rows', { json: { data: [{ id: 'stolen' }] } });
      server.route('GET', '/api/rows', {
        json: { data: ROWS.slice(0, 10) },
        headers: { link: `<${other.url}/api/rows?page=2>; rel="next"` },
      });

      const result = await run(paged('      type: link_header'), 'list', {}, { api_key: 'K' });

      expect(ids(result)).toEqual(all.slice(0, 10));
      expect(result).toMatchObject({
        has_more: true,
        warnings: [expect.stringContaining(`points away from ${server.url}`)],
      });
      expect(other.requests).toHaveLength(0);
    });

    it('next_url: follows the URL in the body (DRF "next"), re-applying auth, until it is null', async () => {
      server.route('GET', '/api/rows', (req) => {
        const page = Number(req.query.page ?? 1);
        const next =
          page === 1
            ? `${server.url}/api/rows?page=2&page_size=10&key=leaked-by-server`
            : page === 2
              ? '/api/rows?page=3&page_size=10'
              : null;
        return { json: { count: 23, next, previous: null, data: ROWS.slice((page - 1) * 10, page * 10) } };
      });
      const def = paged('      type: next_url\n      next_url_path: next\n      page_size_param: page_size\n      page_size: 10');

      const result = await run(def, 'list', { q: 'x' }, { api_key: 'K' });

      expect(ids(result)).toEqual(all);
      expect(result).toEqual({ results: expect.any(Array), count: 23, has_more: false });
      expect(server.requests.map((r) => r.query)).toEqual([
        { q: 'x', page_size: '10', key: 'K' },
        { page: '2', page_size: '10', key: 'K' },
        { page: '3', page_size: '10', key: 'K' },
      ]);
    });

    it('next_url: never follows a URL to another origin, and stops on a URL it already fetched', async () => {
      other.route('GET', '/api/rows', { json: { data: [{ id: 'stolen' }] } });
      server.route('GET', '/api/rows', { json: { data: ROWS.slice(0, 10), next: `${other.url}/api/rows?page=2` } });

      const away = await run(paged('      type: next_url\n      next_url_path: next'), 'list', {}, { api_key: 'K' });

      expect(ids(away)).toEqual(all.slice(0, 10));
      expect(away).toMatchObject({
        has_more: true,
        warnings: [`stopped paging: the next-page URL (at next) points away from ${server.url} and is not followed`],
      });
      expect(other.requests).toHaveLength(0);

      server.reset();
      server.route('GET', '/api/rows', { json: { data: [{ id: 1 }], next: `${server.url}/api/rows?page=2` } });
      const looped = await run(paged('      type: next_url\n      next_url_path: next'), 'list', {}, { api_key: 'K' });
      expect(looped).toMatchObject({
        count: 2,
        has_more: true,
        warnings: ['stopped paging: the next-page URL (at next) repeats an earlier page'],
      });
      expect(server.requests).toHaveLength(2);
    });

    it('max_pages stops an endless listing with has_more: true and a warning', async () => {
      server.route('GET', '/api/rows', (req) => ({ json: { data: [{ id: Number(req.query.page) }] } }));

      const result = await run(
        paged('      type: page_number\n      max_pages: 4'),
        'list',
        {},
        { api_key: 'K' },
      );

      expect(ids(result)).toEqual([1, 2, 3, 4]);
      expect(result).toMatchObject({
        has_more: true,
        warnings: [expect.stringContaining('pagination.max_pages is 4')],
      });
      expect(server.requests).toHaveLength(4);
    });

    it('caller-driven pagination (no type) still returns has_more / next_cursor for one page', async () => {
      server.route('GET', '/api/rows', (req) => ({
        json: { data: [{ id: req.query.cursor ?? 'first' }], next: 'c-2' },
      }));
      const full = load(`
id: paged
name: Paged
type: rest_api
connection: { base_url: BASE }
endpoints:
  list:
    path: /rows
    parameters: [{ name: cursor, type: string }]
    pagination: { next_cursor_path: next, cursor_param: cursor }
    response_mapping: { results_path: data }
`);
      expect(await run(full, 'list', {})).toEqual({
        results: [{ id: 'first' }],
        count: 1,
        has_more: true,
        next_cursor: 'c-2',
      });
      expect(await run(full, 'list', { cursor: 'c-2' })).toMatchObject({ results: [{ id: 'c-2' }] });
      expect(server.requests).toHaveLength(2);
    });
  });

  describe('bracketed query parameter names', () => {
    it('sends Rails-style keys the server decodes back, [] keys once per array element', async () => {
      server.route('GET', '/api/documents.json', (req) => ({ json: { results: [{ query: req.query }] } }));
      const def = load(`
id: fr
name: FR
type: rest_api
connection: { base_url: BASE }
endpoints:
  search:
    path: /documents.json
    parameters:
      - { name: "conditions[term]", type: string, required: true }
      - { name: "conditions[type][]", type: array }
      - { name: "conditions[publication_date][gte]", type: date }
      - { name: per_page, type: integer, default: 5 }
    response_mapping: { results_path: results }
`);

      const result = await run(def, 'search', {
        'conditions[term]': 'clean water',
        'conditions[type][]': ['RULE', 'PRORULE'],
        'conditions[publication_date][gte]': '2024-06-01',
      });

      expect(result.results[0]?.query).toEqual({
        'conditions[term]': 'clean water',
        'conditions[type][]': ['RULE', 'PRORULE'],
        'conditions[publication_date][gte]': '2024-06-01',
        per_page: '5',
      });
    });

    it('refuses a bracketed path parameter with a clear error before anything runs', () => {
      const result = parseConnectorYaml(`
id: fr
name: FR
type: rest_api
connection: { base_url: https://x.test }
endpoints:
  get:
    path: /documents/{doc[id]}
    parameters:
      - { name: "doc[id]", type: string, in: path }
`);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors.map((e) => [e.field, e.reason])).toEqual([
        ['endpoints.get.path', 'placeholder "{doc[id]}" cannot use a bracketed name: brackets are for query parameters only'],
        ['endpoints.get.parameters[0].name', '"doc[id]" has brackets, which a path placeholder cannot carry; only query parameters may use bracketed names'],
      ]);
    });
  });

  describe('bad inputs', () => {
    it('refuses inputs that do not fit, naming each field, without sending', async () => {
      const err = await failure(
        run(load(ITEMS_YAML), 'create_item', {
          org: 'o',
          price: 'cheap',
          labels: 'x',
          attrs: [1],
          colour: 'red',
        }),
      );
      expect(err.code).toBe('INVALID_ARGUMENT');
      expect(err.violations.map((v) => v.field)).toEqual([
        'inputs.colour',
        'inputs.title',
        'inputs.price',
        'inputs.labels',
        'inputs.attrs',
      ]);
      expect(server.requests).toHaveLength(0);
    });

    it('refuses a header parameter value that would inject a header', async () => {
      const err = await failure(
        run(load(ITEMS_YAML), 'get_item', { id: 1, 'X-Request-Id': 'a\r\nX-Admin: yes' }),
      );
      expect(err.violations).toEqual([
        { field: 'inputs.X-Request-Id', reason: expect.stringContaining('single-line') },
      ]);
      expect(server.requests).toHaveLength(0);
    });

    it('NOT_FOUND for an unknown endpoint, listing the ones there are', async () => {
      const err = await failure(run(load(ITEMS_YAML), 'nope', {}));
      expect(err.code).toBe('NOT_FOUND');
      expect(err.message).toContain('get_item, create_item');
    });

    it('refuses definitions that cannot run, naming field paths with YAML positions', () => {
      const result = parseConnectorYaml(`
id: broken
name: Broken
type: rest_api
connection:
  base_url: https://api.test
  auth: { type: basic, password: hunter2 }
endpoints:
  list:
    method: GET
    path: /things/{id}
    parameters:
      - { name: id, type: string, in: query }
      - { name: filter, type: object, in: body }
    pagination: { type: cursor, cursor_param: after }
`);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.errors).toEqual([
        { field: 'connection.auth.password', reason: 'is not a known field', line: 7, column: 34 },
      ]);

      const rules = parseConnectorYaml(`
id: broken
name: Broken
type: rest_api
connection:
  base_url: https://api.test
endpoints:
  list:
    method: GET
    path: /things/{id}
    parameters:
      - { name: id, type: string, in: query }
      - { name: filter, type: object, in: body }
    pagination: { type: cursor, cursor_param: after }
`);
      expect(rules.ok).toBe(false);
      if (rules.ok) return;
      expect(rules.errors.map((e) => [e.field, e.line])).toEqual([
        ['endpoints.list.parameters[0].in', 12],
        ['endpoints.list.parameters[1].in', 13],
        ['endpoints.list.pagination.next_cursor_path', 14],
      ]);
    });
  });

  describe('the seed rest_api example', () => {
    it('parses and runs against a stand-in upstream', async () => {
      const yaml = readFileSync(
        join(__dirname, '../../../../packages/connectors/src/fixtures/fec-contributions.connector.yaml'),
        'utf8',
      );
      const def = load(yaml.replace('https://api.open.fec.gov/v1', 'BASE'));
      server.route('GET', '/api/schedules/schedule_a/', (req) => ({
        json: {
          results: [
            {
              contributor_name: 'Ann',
              contribution_receipt_amount: 5,
              contribution_receipt_date: '2024-01-02',
              committee: { name: 'C' },
            },
          ],
          pagination: { last_indexes: { last_index: req.query.last_index ? null : 'idx-2' } },
        },
      }));

      const first = await run(def, 'search_contributions', { contributor_name: 'Ann' }, { api_key: 'fec-key' });
      expect(first).toEqual({
        results: [{ donor_name: 'Ann', amount: 5, date: '2024-01-02', recipient: 'C' }],
        count: 1,
        has_more: true,
        next_cursor: 'idx-2',
      });
      const second = await run(def, 'search_contributions', { last_index: 'idx-2' }, { api_key: 'fec-key' });
      expect(second).toMatchObject({ has_more: false });
      expect(server.requests[0]?.query).toEqual({
        contributor_name: 'Ann',
        per_page: '20',
        api_key: 'fec-key',
      });
      expect(server.requests[0]?.headers['x-client']).toBe('agent-factory');
    });
  });
});
