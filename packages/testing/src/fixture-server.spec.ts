import { request } from 'undici';
import { matchPath, startFixtureServer, type FixtureServer } from './fixture-server.js';

describe('startFixtureServer', () => {
  let server: FixtureServer;

  beforeEach(async () => {
    server = await startFixtureServer();
  });

  afterEach(async () => {
    await server.close();
  });

  async function get(path: string, init: Parameters<typeof request>[1] = {}) {
    const res = await request(`${server.url}${path}`, init);
    return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
  }

  it('listens on a loopback port and answers a canned JSON route', async () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    server.route('GET', '/v1/search', { json: { results: [{ id: 1 }] } });

    const res = await get('/v1/search?q=acme&page=2');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(JSON.parse(res.text)).toEqual({ results: [{ id: 1 }] });
  });

  it('records every request with path, query (repeated keys as arrays), headers and body', async () => {
    server.route('POST', '/items', { status: 201, json: {} });

    await get('/items?tag=a&tag=b&q=x%20y', {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'x-api-key': 'k' },
    });

    expect(server.requests).toHaveLength(1);
    const [r] = server.requests;
    expect(r).toMatchObject({
      method: 'POST',
      path: '/items',
      url: '/items?tag=a&tag=b&q=x%20y',
      query: { tag: ['a', 'b'], q: 'x y' },
      body: '{"a":1}',
    });
    expect(r?.headers['x-api-key']).toBe('k');
  });

  it('counts requests per method and path, ignoring the query string', async () => {
    server.route('GET', '/a', { json: 1 });
    await get('/a?x=1');
    await get('/a?x=2');
    await get('/a', { method: 'DELETE' });

    expect(server.count('GET', '/a')).toBe(2);
    expect(server.count('get', '/a?x=1')).toBe(2);
    expect(server.count('DELETE', '/a')).toBe(1);
    expect(server.count('GET', '/b')).toBe(0);
    expect(server.requestsTo('GET', '/a').map((r) => r.query.x)).toEqual(['1', '2']);
  });

  it('answers 404 for a route nobody registered, and still records the request', async () => {
    const res = await get('/nowhere');

    expect(res.status).toBe(404);
    expect(JSON.parse(res.text).error).toContain('GET /nowhere');
    expect(server.count('GET', '/nowhere')).toBe(1);
  });

  it('sends status, headers and a raw body as given', async () => {
    server.route('GET', '/raw', { status: 429, body: 'not json {', headers: { 'retry-after': '7' } });

    const res = await get('/raw');

    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    expect(res.text).toBe('not json {');
  });

  it('passes :name segments and the recorded request to a handler', async () => {
    server.route('GET', '/orgs/:ein/filings', (req) => ({
      json: { ein: req.params.ein, q: req.query.year },
    }));

    const res = await get('/orgs/12%2F34/filings?year=2020');

    expect(JSON.parse(res.text)).toEqual({ ein: '12/34', q: '2020' });
    expect(server.count('GET', '/orgs/:ein/filings')).toBe(1);
  });

  it('lets a handler write the raw response itself', async () => {
    server.route('GET', '/drop', (_req, { res }) => {
      res.socket?.destroy();
    });

    await expect(get('/drop')).rejects.toThrow();
  });

  it('answers 500 when a handler throws', async () => {
    server.route('GET', '/boom', () => {
      throw new Error('handler broke');
    });

    const res = await get('/boom');

    expect(res.status).toBe(500);
    expect(res.text).toContain('handler broke');
  });

  it('answers after delayMs', async () => {
    server.route('GET', '/slow', { delayMs: 20, json: { ok: true } });

    const res = await get('/slow');

    expect(JSON.parse(res.text)).toEqual({ ok: true });
  });

  it('replaces a route registered twice', async () => {
    server.route('GET', '/v', { json: 1 }).route('GET', '/v', { json: 2 });

    expect((await get('/v')).text).toBe('2');
  });

  it('holds requests to a route until the gate is released', async () => {
    server.route('GET', '/held', { json: { done: true } });
    const gate = server.hold('GET', '/held');
    let settled = false;
    const pending = get('/held').then((res) => {
      settled = true;
      return res;
    });

    await gate.arrived();

    expect(gate.waiting).toBe(1);
    expect(server.count('GET', '/held')).toBe(1);
    expect(settled).toBe(false);

    gate.release();
    const res = await pending;

    expect(res.status).toBe(200);
    expect(gate.waiting).toBe(0);
    expect(gate.released).toBe(true);
    // A released gate lets later requests straight through.
    expect((await get('/held')).status).toBe(200);
  });

  it('resolves arrived(n) once n requests reached the gate', async () => {
    server.route('GET', '/h', { json: 1 });
    const gate = server.hold('GET', '/h');
    const first = get('/h');
    const second = get('/h');

    await gate.arrived(2);

    expect(gate.waiting).toBe(2);
    gate.release();
    await Promise.all([first, second]);
    await expect(gate.arrived(1)).resolves.toBeUndefined();
  });

  it('does not hold other routes', async () => {
    server.route('GET', '/free', { json: 'free' });
    server.hold('GET', '/held');

    expect((await get('/free')).text).toBe('"free"');
  });

  it('close() destroys held connections, so the client sees the connection drop', async () => {
    server.route('GET', '/held', { json: 1 });
    const gate = server.hold('GET', '/held');
    const pending = get('/held');
    await gate.arrived();

    await server.close();

    await expect(pending).rejects.toThrow();
    expect(server.count('GET', '/held')).toBe(1);
  });

  it('reset() forgets routes and requests and releases gates', async () => {
    server.route('GET', '/x', { json: 1 });
    const gate = server.hold('GET', '/y');
    await get('/x');

    server.reset();

    expect(server.requests).toHaveLength(0);
    expect(gate.released).toBe(true);
    expect((await get('/x')).status).toBe(404);
  });
});

describe('matchPath', () => {
  it.each([
    ['/a/b', '/a/b', {}],
    ['/a/:id', '/a/42', { id: '42' }],
    ['/a/:id/c', '/a/x%20y/c', { id: 'x y' }],
    ['/a/:id', '/a/%E0%A4%A', { id: '%E0%A4%A' }],
  ])('%s matches %s', (pattern, path, params) => {
    expect(matchPath(pattern, path)).toEqual(params);
  });

  it.each([
    ['/a/b', '/a/c'],
    ['/a/:id', '/a/'],
    ['/a/:id', '/a/1/2'],
    ['/a', '/a/'],
  ])('%s does not match %s', (pattern, path) => {
    expect(matchPath(pattern, path)).toBeUndefined();
  });
});
