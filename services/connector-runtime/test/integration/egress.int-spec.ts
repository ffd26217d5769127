/**
 * The SSRF-guarded HTTP client against real sockets.
 * Real: undici, TCP connections, the fixture HTTP server (startFixtureServer).
 * Faked: DNS answers for made-up hostnames (`resolve`), to script rebinding.
 */
import { ConfigError, loadConfig } from '@af/service-kit';
import { freePort, startFixtureServer, type FixtureServer } from '@af/testing';
import { connectorRuntimeEnvSchema } from '../../src/config.js';
import { parseConnectorDefinition } from '@af/connectors';
import { DeadlineEmitter } from '@af/connectors';
import { ConnectorError } from '@af/connectors';
import { executeEndpoint } from '@af/connectors';
import { createEgressGuard, createGuardedHttp, egressHostCheck, type GuardedHttp, type ResolveHost } from '../../src/infra/guarded-http.js';
import { failure } from '@af/connectors/testing';

let server: FixtureServer;
let other: FixtureServer;
const clients: GuardedHttp[] = [];

beforeAll(async () => {
  server = await startFixtureServer();
  other = await startFixtureServer();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await server.close();
  await other.close();
});
beforeEach(() => {
  server.reset();
  other.reset();
});

function guarded(options: Parameters<typeof createGuardedHttp>[0]): GuardedHttp {
  const http = createGuardedHttp(options);
  clients.push(http);
  return http;
}

const fixedDns =
  (map: Record<string, string[]>): ResolveHost =>
  async (hostname) => {
    const found = map[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };


describe('guarded http: destinations', () => {
  it('refuses loopback by default, before connecting, naming the host but not the URL or its query', async () => {
    server.route('GET', '/search', { json: { ok: true } });
    const http = guarded({ allow: '' });
    const err = await failure(http(`${server.url}/search?api_key=sk-live-123`));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe(
      `egress to 127.0.0.1:${server.port} refused: 127.0.0.1 is a loopback address; an operator can allow it with CONNECTOR_EGRESS_ALLOW`,
    );
    expect(err.message).not.toContain('sk-live-123');
    expect(err.message).not.toContain('/search');
    expect(server.requests).toHaveLength(0);
  });

  it('lets an allow-listed address through, passing method, headers and body', async () => {
    server.route('POST', '/items', (req) => ({ status: 201, json: { got: JSON.parse(req.body), auth: req.headers.authorization } }));
    const http = guarded({ allow: '127.0.0.1' });
    const res = await http(`${server.url}/items`, {
      method: 'POST',
      headers: { authorization: 'Bearer t0k', 'content-type': 'application/json' },
      body: JSON.stringify({ a: 1 }),
    });
    expect(res.statusCode).toBe(201);
    expect(await res.body.json()).toEqual({ got: { a: 1 }, auth: 'Bearer t0k' });
  });

  it('passes undici query options on', async () => {
    server.route('GET', '/q', (req) => ({ json: req.query }));
    const http = guarded({ allow: '127.0.0.1' });
    const res = await http(`${server.url}/q`, { query: { a: '1', b: 'x y' } });
    expect(await res.body.json()).toEqual({ a: '1', b: 'x y' });
  });

  it('sends to the checked URL whatever origin or path the options carry', async () => {
    server.route('GET', '/checked', { json: { where: 'checked' } });
    other.route('GET', '/elsewhere', { json: { where: 'elsewhere' } });
    const http = guarded({ allow: `127.0.0.1:${server.port}` });
    const sneaky = { origin: other.url, path: '/elsewhere' } as unknown as Parameters<GuardedHttp>[1];
    const res = await http(`${server.url}/checked`, sneaky);
    expect(await res.body.json()).toEqual({ where: 'checked' });
    expect(other.requests).toHaveLength(0);
  });

  it('checks every request, not only the first, against the same decisions', async () => {
    server.route('GET', '/x', { json: {} });
    const http = guarded({ allow: `127.0.0.1:${server.port}` });
    for (let i = 0; i < 3; i++) {
      expect((await http(`${server.url}/x`)).statusCode).toBe(200);
      expect((await failure(http(`${other.url}/x`))).message).toContain(`egress to 127.0.0.1:${other.port} refused`);
    }
    expect(other.requests).toHaveLength(0);
  });

  it('refuses schemes other than http and https without suggesting the allow-list', async () => {
    const http = guarded({ allow: '127.0.0.1' });
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/x', 'gopher://127.0.0.1:70/_x']) {
      const err = await failure(http(url));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toMatch(/refused: the scheme "(file|ftp|gopher)" is not allowed \(only http and https\)$/);
    }
  });

  it('refuses an invalid URL without echoing it', async () => {
    const err = await failure(guarded({ allow: '' })('not a url ?key=abc'));
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', message: 'the request URL is not a valid absolute URL' });
  });

  it('refuses metadata, unspecified and IPv4-mapped loopback literals whatever their spelling', async () => {
    const http = guarded({ allow: '10.0.0.0/8' });
    const cases: Array<[string, RegExp]> = [
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a cloud metadata address/],
      ['http://[fd00:ec2::254]/latest/', /cloud metadata address/],
      ['http://100.100.100.200/latest/', /cloud metadata address/],
      [`http://[::ffff:127.0.0.1]:${server.port}/`, /\(IPv4 127\.0\.0\.1\) is a loopback address/],
      [`http://0x7f000001:${server.port}/`, /127\.0\.0\.1 is a loopback address/],
      [`http://2130706433:${server.port}/`, /127\.0\.0\.1 is a loopback address/],
      [`http://0.0.0.0:${server.port}/`, /the unspecified address, which connectors may never reach$/],
      ['http://192.168.1.1/', /a private network address/],
      ['http://100.64.0.1/', /carrier-grade NAT/],
    ];
    for (const [url, reason] of cases) {
      const err = await failure(http(url));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.message).toMatch(reason);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('resolves host names itself and connects to the address it checked', async () => {
    server.route('GET', '/ok', (req) => ({ json: { host: req.headers.host } }));
    const http = guarded({ allow: '127.0.0.1', resolve: fixedDns({ 'fixture.test': ['127.0.0.1'] }) });
    const res = await http(`http://fixture.test:${server.port}/ok`);
    expect(await res.body.json()).toEqual({ host: `fixture.test:${server.port}` });
  });

  it('refuses a name when ANY of its addresses is refused', async () => {
    const http = guarded({ allow: '127.0.0.1', resolve: fixedDns({ 'mixed.test': ['127.0.0.1', '10.0.0.7'] }) });
    const err = await failure(http(`http://mixed.test:${server.port}/`));
    expect(err.message).toContain('mixed.test resolves to 10.0.0.7, a private network address');
    expect(server.requests).toHaveLength(0);
  });

  it('DNS rebinding: an answer that turns private between the check and the connection is refused at connect time', async () => {
    let calls = 0;
    const rebinding: ResolveHost = async () => {
      calls++;
      return [{ address: calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
    };
    server.route('GET', '/internal', { json: { secret: 'internal data' } });
    const http = guarded({ allow: '', resolve: rebinding });
    const err = await failure(http(`http://rebind.test:${server.port}/internal`));
    expect(calls).toBe(2);
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toBe(
      `egress to rebind.test:${server.port} refused: rebind.test resolves to 127.0.0.1, a loopback address; an operator can allow it with CONNECTOR_EGRESS_ALLOW`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('host:port entries allow that host on that port only', async () => {
    server.route('GET', '/x', { json: {} });
    const dns = fixedDns({ 'api.internal': ['127.0.0.1'] });
    const http = guarded({ allow: `api.internal:${server.port}`, resolve: dns });
    expect((await http(`http://api.internal:${server.port}/x`)).statusCode).toBe(200);
    await failure(http(`http://api.internal:${other.port}/x`));
    await failure(http(`${server.url}/x`)); // the same address by IP is not the named host
  });

  it('passes DNS failures on as network errors (not refusals)', async () => {
    const http = guarded({ allow: '', resolve: fixedDns({}) });
    await expect(http('http://no-such-host.test/')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('a caller abort ends a DNS lookup that hangs', async () => {
    const hanging: ResolveHost = () => new Promise(() => undefined);
    const http = guarded({ allow: '', resolve: hanging });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('caller gave up')), 30);
    await expect(http('http://slow-dns.test/', { signal: ctl.signal })).rejects.toThrow('caller gave up');
  });

  it('takes a deadline as an EventEmitter too (as undici does): it ends a hanging lookup, and an answered one stops listening', async () => {
    const hanging: ResolveHost = () => new Promise(() => undefined);
    const deadline = new DeadlineEmitter();
    setTimeout(() => deadline.abort(new Error('deadline passed')), 30);
    await expect(guarded({ allow: '', resolve: hanging })('http://slow-dns.test/', { signal: deadline })).rejects.toThrow('deadline passed');

    server.route('GET', '/named', { json: { ok: true } });
    const live = new DeadlineEmitter();
    const http = guarded({ allow: '127.0.0.1', resolve: fixedDns({ 'named.test': ['127.0.0.1'] }) });
    const res = await http(`http://named.test:${server.port}/named`, { signal: live });
    expect(await res.body.json()).toEqual({ ok: true });
    await new Promise((r) => setImmediate(r)); // undici lets go of the signal when the body closes
    expect(live.listenerCount('abort')).toBe(0);
    const gone = new DeadlineEmitter();
    gone.abort(new Error('already over'));
    await expect(http(`http://named.test:${server.port}/named`, { signal: gone })).rejects.toThrow('already over');
  });
});

describe('guarded http: redirects', () => {
  it('follows a same-origin redirect, keeping the headers', async () => {
    server.route('GET', '/old', { status: 302, headers: { location: '/new?page=2' } });
    server.route('GET', '/new', (req) => ({ json: { query: req.query, auth: req.headers.authorization } }));
    const http = guarded({ allow: '127.0.0.1' });
    const res = await http(`${server.url}/old`, { headers: { Authorization: 'Bearer abc' } });
    expect(res.statusCode).toBe(200);
    expect(await res.body.json()).toEqual({ query: { page: '2' }, auth: 'Bearer abc' });
  });

  it('drops credentials (any non-allow-listed header) when a redirect changes origin', async () => {
    server.route('GET', '/start', { status: 301, headers: { location: `${other.url}/landing` } });
    other.route('GET', '/landing', (req) => ({ json: { headers: req.headers } }));
    const http = guarded({ allow: '127.0.0.1' });
    const res = await http(`${server.url}/start`, {
      headers: {
        authorization: 'Bearer abc',
        'api-key': 'k1',
        'x-api-key': 'k2',
        'x-custom-token': 'k3',
        cookie: 'session=1',
        accept: 'application/json',
        'user-agent': 'af-test',
      },
    });
    const { headers } = (await res.body.json()) as { headers: Record<string, string> };
    expect(headers).toMatchObject({ accept: 'application/json', 'user-agent': 'af-test' });
    for (const h of ['authorization', 'api-key', 'x-api-key', 'x-custom-token', 'cookie']) expect(headers[h]).toBeUndefined();
    expect(JSON.stringify(headers)).not.toMatch(/abc|k1|k2|k3|session/);
  });

  it('drops credentials given in undici flat-array form too', async () => {
    server.route('GET', '/start', { status: 302, headers: { location: `${other.url}/landing` } });
    other.route('GET', '/landing', (req) => ({ json: { auth: req.headers.authorization ?? null } }));
    const http = guarded({ allow: '127.0.0.1' });
    const res = await http(`${server.url}/start`, { headers: ['Authorization', 'Bearer abc'] });
    expect(await res.body.json()).toEqual({ auth: null });
  });

  it('re-checks every hop: a redirect to a refused host is refused and never sent', async () => {
    server.route('GET', '/start', { status: 302, headers: { location: `${other.url}/internal` } });
    const http = guarded({ allow: `127.0.0.1:${server.port}` });
    const err = await failure(http(`${server.url}/start`));
    expect(err.message).toBe(
      `egress to 127.0.0.1:${other.port} refused: 127.0.0.1 is a loopback address; an operator can allow it with CONNECTOR_EGRESS_ALLOW`,
    );
    expect(other.requests).toHaveLength(0);
  });

  it('refuses redirects to metadata endpoints and to other schemes', async () => {
    server.route('GET', '/meta', { status: 307, headers: { location: 'http://169.254.169.254/latest/meta-data/iam' } });
    server.route('GET', '/file', { status: 302, headers: { location: 'file:///etc/passwd' } });
    const http = guarded({ allow: '127.0.0.1' });
    expect((await failure(http(`${server.url}/meta`))).message).toContain('cloud metadata address');
    expect((await failure(http(`${server.url}/file`))).message).toContain('the scheme "file" is not allowed');
  });

  it('gives up after 5 redirects with UPSTREAM_ERROR', async () => {
    server.route('GET', '/loop/:n', (req) => ({ status: 302, headers: { location: `/loop/${Number(req.params.n) + 1}` } }));
    const http = guarded({ allow: '127.0.0.1' });
    const err = await failure(http(`${server.url}/loop/0`));
    expect(err).toMatchObject({ code: 'UPSTREAM_ERROR', message: `127.0.0.1:${server.port}: more than 5 redirects`, status: 302 });
    expect(server.requests).toHaveLength(6);
  });

  it('maxRedirects 0 hands every 3xx back as it is', async () => {
    server.route('GET', '/r', { status: 302, headers: { location: '/elsewhere' } });
    const http = guarded({ allow: '127.0.0.1', maxRedirects: 0 });
    const res = await http(`${server.url}/r`);
    expect(res.statusCode).toBe(302);
    await res.body.dump();
    expect(server.requests).toHaveLength(1);
    expect(() => createGuardedHttp({ allow: '', maxRedirects: -1 })).toThrow(/maxRedirects/);
  });

  it('returns a redirect without a usable Location as it is', async () => {
    server.route('GET', '/none', { status: 302 });
    const http = guarded({ allow: '127.0.0.1' });
    const res = await http(`${server.url}/none`);
    expect(res.statusCode).toBe(302);
    await res.body.dump();
  });

  it('303 after POST continues as GET without the body; 307 repeats the POST with it', async () => {
    server.route('POST', '/see-other', { status: 303, headers: { location: '/result' } });
    server.route('POST', '/temp', { status: 307, headers: { location: '/again' } });
    server.route('GET', '/result', (req) => ({ json: { method: req.method, body: req.body, type: req.headers['content-type'] ?? null } }));
    server.route('POST', '/again', (req) => ({ json: { method: req.method, body: req.body } }));
    const http = guarded({ allow: '127.0.0.1' });
    const post = { method: 'POST' as const, headers: { 'content-type': 'text/plain' }, body: 'payload' };
    expect(await (await http(`${server.url}/see-other`, post)).body.json()).toEqual({ method: 'GET', body: '', type: null });
    expect(await (await http(`${server.url}/temp`, post)).body.json()).toEqual({ method: 'POST', body: 'payload' });
  });
});

describe('guarded http: text (the answer read whole, as the rest_api executor reads it)', () => {
  const limits = { maxBytes: 1000, errorBytes: 100, label: 'items-api' };

  it('answers status, headers and the body as text, through the same checks and redirects', async () => {
    server.route('GET', '/old', { status: 302, headers: { location: '/new' } });
    server.route('GET', '/new', (req) => ({ json: { auth: req.headers.authorization }, headers: { 'X-RateLimit-Remaining': '7' } }));
    const http = guarded({ allow: '127.0.0.1' });
    const res = await http.text(`${server.url}/old`, { headers: { authorization: 'Bearer abc' } }, limits);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('7');
    expect(JSON.parse(res.text)).toEqual({ auth: 'Bearer abc' });

    const refused = await failure(guarded({ allow: '' }).text(`${server.url}/new?api_key=sk-1`, {}, limits));
    expect(refused.code).toBe('FAILED_PRECONDITION');
    expect(refused.message).not.toContain('sk-1');
    server.route('GET', '/out', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } });
    expect((await failure(http.text(`${server.url}/out`, {}, limits))).message).toContain('169.254.169.254');
  });

  it('keeps UTF-8 intact across chunks and a byte order mark as it is', async () => {
    const text = '\ufeff' + '{"name":"Zoë ' + 'ü'.repeat(300) + '"}';
    server.route('GET', '/utf8', (_req, raw) => {
      const bytes = Buffer.from(text, 'utf8');
      raw.res.writeHead(200, { 'content-type': 'application/json' });
      raw.res.write(bytes.subarray(0, 17)); // splits the two bytes of "ë"
      raw.res.end(bytes.subarray(17));
    });
    const res = await guarded({ allow: '127.0.0.1' }).text(`${server.url}/utf8`, {}, limits);
    expect(res.text).toBe(text);
  });

  it('refuses a 2xx body over maxBytes, declared or as it streams in, and the client stays usable', async () => {
    const http = guarded({ allow: '127.0.0.1' });
    server.route('GET', '/declared', { body: 'x'.repeat(1001) });
    const declared = await failure(http.text(`${server.url}/declared`, {}, limits));
    expect(declared.code).toBe('UPSTREAM_ERROR');
    expect(declared.message).toBe('items-api: the response is larger than 1000 bytes');

    server.route('GET', '/chunked', (_req, raw) => {
      raw.res.writeHead(200, { 'content-type': 'text/plain' }); // no content-length: chunked
      raw.res.write('y'.repeat(600));
      setTimeout(() => raw.res.end('y'.repeat(600)), 20);
    });
    const streamed = await failure(http.text(`${server.url}/chunked`, {}, limits));
    expect(streamed.message).toBe('items-api: the response is larger than 1000 bytes');

    server.route('GET', '/exact', { body: 'z'.repeat(1000) });
    expect((await http.text(`${server.url}/exact`, {}, limits)).text).toBe('z'.repeat(1000));
  });

  it('keeps only the first errorBytes of an answer that is not 2xx', async () => {
    server.route('GET', '/fail', { status: 503, body: 'e'.repeat(5000) });
    const res = await guarded({ allow: '127.0.0.1' }).text(`${server.url}/fail`, {}, limits);
    expect(res.statusCode).toBe(503);
    expect(res.text).toBe('e'.repeat(100));
  });

  it('ends on the signal with its reason, before or after the answer starts, and lets go of it afterwards', async () => {
    const http = guarded({ allow: '127.0.0.1' });
    server.hold('GET', '/slow');
    server.route('GET', '/slow', { json: { ok: true } });
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error('caller gave up')), 30);
    await expect(http.text(`${server.url}/slow`, { signal: ctl.signal }, limits)).rejects.toThrow('caller gave up');

    server.route('GET', '/trickle', (_req, raw) => {
      raw.res.writeHead(200, { 'content-type': 'text/plain' });
      raw.res.write('part');
      setTimeout(() => raw.res.end('rest'), 2000).unref();
    });
    const deadline = new DeadlineEmitter();
    setTimeout(() => deadline.abort(new Error('deadline passed')), 50);
    await expect(http.text(`${server.url}/trickle`, { signal: deadline }, limits)).rejects.toThrow('deadline passed');

    server.route('GET', '/fast', { json: { ok: true } });
    const live = new DeadlineEmitter();
    expect((await http.text(`${server.url}/fast`, { signal: live }, limits)).text).toBe('{"ok":true}');
    expect(live.listenerCount('abort')).toBe(0);

    const before = server.count('GET', '/fast');
    const gone = new AbortController();
    gone.abort(new Error('already over'));
    await expect(http.text(`${server.url}/fast`, { signal: gone.signal }, limits)).rejects.toThrow('already over');
    expect(server.count('GET', '/fast')).toBe(before);
  });

  it('passes a closed port on as a network error', async () => {
    const port = await freePort();
    const err = await guarded({ allow: '127.0.0.1' })
      .text(`http://127.0.0.1:${port}/x`, {}, limits)
      .then(() => undefined, (e: unknown) => e as NodeJS.ErrnoException);
    expect(err).not.toBeInstanceOf(ConnectorError);
    expect(err?.code).toBe('ECONNREFUSED');
  });
});

describe('per-connector allow-lists', () => {
  const ALICE = '8f14e45f-ceea-467f-a0e6-9b3c1f2a7d10';
  const BOB = '1c2d3e4f-0000-4000-8000-00000000b0b0';

  it("scoped entries open a destination for their owner's connector only, not for another user's connector of the same id", async () => {
    server.route('GET', '/x', { json: { ok: true } });
    const guard = createEgressGuard({ allow: `${ALICE}/fec-mirror=127.0.0.1` });
    try {
      expect((await guard.forConnector(ALICE, 'fec-mirror')(`${server.url}/x`)).statusCode).toBe(200);
      const bobs = await failure(guard.forConnector(BOB, 'fec-mirror')(`${server.url}/x`));
      expect(bobs.code).toBe('FAILED_PRECONDITION');
      expect(bobs.message).toBe(
        `egress to 127.0.0.1:${server.port} refused: 127.0.0.1 is a loopback address; an operator can allow it with CONNECTOR_EGRESS_ALLOW`,
      );
      await failure(guard.forConnector(ALICE, 'other-connector')(`${server.url}/x`));
      await failure(guard.forConnector('', 'fec-mirror')(`${server.url}/x`));
      expect(server.count('GET', '/x')).toBe(1);
      expect(guard.forConnector(ALICE, 'fec-mirror')).toBe(guard.forConnector(ALICE, 'fec-mirror'));
      expect(guard.forConnector(ALICE, 'a')).toBe(guard.forConnector(BOB, 'b')); // unscoped connectors share one pool
      // Bob's look-alike never shares Alice's pool (a connection opened under her allowance).
      expect(guard.forConnector(BOB, 'fec-mirror')).toBe(guard.forConnector(ALICE, 'a'));
      expect(guard.forConnector(ALICE, 'fec-mirror')).not.toBe(guard.forConnector(BOB, 'fec-mirror'));
    } finally {
      await guard.close();
    }
  });

  it("a scoped host:port entry follows the owner through DNS and redirects: Bob's redirect to it is refused", async () => {
    other.route('GET', '/hop', { status: 302, headers: { location: `${server.url}/x` } });
    server.route('GET', '/x', { json: {} });
    const guard = createEgressGuard({ allow: `${ALICE}/fec-mirror=127.0.0.1:${server.port},127.0.0.1:${other.port}` });
    try {
      expect((await guard.forConnector(ALICE, 'fec-mirror')(`${other.url}/hop`)).statusCode).toBe(200);
      const err = await failure(guard.forConnector(BOB, 'fec-mirror')(`${other.url}/hop`));
      expect(err.message).toContain(`egress to 127.0.0.1:${server.port} refused`);
      expect(server.count('GET', '/x')).toBe(1);
    } finally {
      await guard.close();
    }
  });

  it("createGuardedHttp with a scope applies that owner's connector's entries", async () => {
    server.route('GET', '/x', { json: {} });
    const http = guarded({ allow: `${ALICE}/fec-mirror=127.0.0.1`, scope: { owner: ALICE, id: 'fec-mirror' } });
    expect((await http(`${server.url}/x`)).statusCode).toBe(200);
    const bobs = guarded({ allow: `${ALICE}/fec-mirror=127.0.0.1`, scope: { owner: BOB, id: 'fec-mirror' } });
    expect((await failure(bobs(`${server.url}/x`))).code).toBe('FAILED_PRECONDITION');
  });

  it("the database host check scopes by the connector's owner; without an owner only plain entries apply", async () => {
    const check = egressHostCheck(`${ALICE}/warehouse=db.internal:5432,10.9.9.9`, fixedDns({ 'db.internal': ['10.1.2.3'], 'plain.internal': ['10.9.9.9'] }));
    await expect(check({ host: 'db.internal', port: 5432, connectorId: 'warehouse', ownerUserId: ALICE })).resolves.toBeUndefined();
    const bobs = await failure(check({ host: 'db.internal', port: 5432, connectorId: 'warehouse', ownerUserId: BOB }));
    expect(bobs).toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: 'egress to db.internal refused: db.internal resolves to 10.1.2.3, a private network address; an operator can allow it with CONNECTOR_EGRESS_ALLOW',
    });
    await failure(check({ host: 'db.internal', port: 5432, connectorId: 'warehouse' }));
    await expect(check({ host: 'plain.internal', port: 5432, connectorId: 'any', ownerUserId: BOB })).resolves.toBeUndefined();
  });

  it('the old connector-id=… form stops the service at start-up, naming the variable and the new form', () => {
    expect(() => createEgressGuard({ allow: 'fec-mirror=127.0.0.1' })).toThrow(
      'CONNECTOR_EGRESS_ALLOW: entry 1 ("fec-mirror=127.0.0.1"): "fec-mirror=…" would open to every user who names a connector "fec-mirror": name the owner too, as <owner-user-id>/fec-mirror=127.0.0.1',
    );
    const env = { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: 'postgres://x/y', NATS_URL: 'nats://x:4222', CREDENTIALS_KEYS: `k1:${Buffer.alloc(32).toString('base64')}` };
    let err: unknown;
    try {
      loadConfig(connectorRuntimeEnvSchema, { ...env, CONNECTOR_EGRESS_ALLOW: '10.0.0.0/8,fec-mirror=api.internal:8443' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      { variable: 'CONNECTOR_EGRESS_ALLOW', reason: expect.stringContaining('as <owner-user-id>/fec-mirror=api.internal:8443') },
    ]);
    expect(loadConfig(connectorRuntimeEnvSchema, { ...env, CONNECTOR_EGRESS_ALLOW: `10.0.0.0/8,${ALICE}/fec-mirror=api.internal:8443` }).CONNECTOR_EGRESS_ALLOW).toContain(ALICE);
  });

  it('an invalid allow-list fails the factory and the service config, naming the variable', async () => {
    expect(() => createGuardedHttp({ allow: '10.0.0.0/99' })).toThrow(/^CONNECTOR_EGRESS_ALLOW: entry 1/);
    const env = { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: 'postgres://x/y', NATS_URL: 'nats://x:4222', CREDENTIALS_KEYS: `k1:${Buffer.alloc(32).toString('base64')}` };
    const err = (() => {
      try {
        loadConfig(connectorRuntimeEnvSchema, { ...env, CONNECTOR_EGRESS_ALLOW: 'localhost' });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      { variable: 'CONNECTOR_EGRESS_ALLOW', reason: expect.stringContaining('a hostname needs a port') },
    ]);
    expect(loadConfig(connectorRuntimeEnvSchema, env).CONNECTOR_EGRESS_ALLOW).toBe('');
  });
});

describe('through the rest_api executor', () => {
  const def = (baseUrl: string) => {
    const parsed = parseConnectorDefinition({
      id: 'guarded-api',
      name: 'Guarded',
      type: 'rest_api',
      connection: { base_url: baseUrl, auth: { type: 'api_key', key_param: 'api_key', in: 'query' }, timeout_seconds: 5 },
      endpoints: { search: { method: 'GET', path: '/search', response_mapping: { results_path: 'results' } } },
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.definition;
  };

  it('a refused destination fails the call with FAILED_PRECONDITION and no key in the message', async () => {
    const err = await failure(
      executeEndpoint(def(server.url), 'search', {}, { api_key: 'sk-live-999' }, { http: guarded({ allow: '' }) }),
    );
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('egress to 127.0.0.1');
    expect(err.message).not.toContain('sk-live-999');
    expect(server.requests).toHaveLength(0);
  });

  it('an allowed destination runs normally', async () => {
    server.route('GET', '/search', { json: { results: [{ id: 1 }] } });
    const result = await executeEndpoint(def(server.url), 'search', {}, { api_key: 'k' }, { http: guarded({ allow: '127.0.0.1' }) });
    expect(result).toMatchObject({ results: [{ id: 1 }], count: 1 });
  });

  it('a closed port is a network error (UNAVAILABLE), not a refusal', async () => {
    const port = await freePort();
    const err = await failure(
      executeEndpoint(def(`http://127.0.0.1:${port}`), 'search', {}, { api_key: 'k' }, { http: guarded({ allow: '127.0.0.1' }) }),
    );
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.status).toBeUndefined();
  });
});
