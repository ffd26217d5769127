/**
 * Regression tests for what held up under a security probe and must keep
 * holding: every spelling of a loopback / private / metadata address, names
 * that resolve to loopback through the system resolver, redirect hops to
 * such addresses, and `file_parser` file-root traversal and symbolic links.
 * Real: undici over TCP to fixture servers, the system resolver (`localhost`
 * resolves offline through /etc/hosts), the file system under a temporary
 * CONNECTOR_FILE_ROOT. Nothing is mocked. (egress.int-spec.ts and
 * file-parser.int-spec.ts cover the basic cases; these are the rest.)
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '@af/testing';
import { parseConnectorDefinition } from '@af/connectors';
import { executeEndpoint, parseConnectorYaml, type ConnectorDefinition, type ExecutionContext } from '@af/connectors';
import { createGuardedHttp, type GuardedHttp } from '../../src/infra/guarded-http.js';
import { failure } from '@af/connectors/testing';

let server: FixtureServer;
let other: FixtureServer;
const clients: GuardedHttp[] = [];

function guarded(allow: string): GuardedHttp {
  const http = createGuardedHttp({ allow });
  clients.push(http);
  return http;
}

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
  server.route('GET', '/internal', { json: { secret: 'internal data' } });
  other.route('GET', '/internal', { json: { secret: 'internal data' } });
});

describe('SSRF: every spelling of loopback is refused before anything is sent', () => {
  const loopback = (port: number) => [
    `http://127.1:${port}/internal`,
    `http://127.0.1:${port}/internal`,
    `http://0x7f.0.0.1:${port}/internal`,
    `http://0x7f.1:${port}/internal`,
    `http://0177.0.0.1:${port}/internal`,
    `http://0177.1:${port}/internal`,
    `http://017700000001:${port}/internal`,
    `http://0x7f000001:${port}/internal`,
    `http://2130706433:${port}/internal`,
    `http://127.000.000.001:${port}/internal`,
    `http://127.255.255.254:${port}/internal`,
    `http://[::1]:${port}/internal`,
    `http://[0:0:0:0:0:0:0:1]:${port}/internal`,
    `http://[::ffff:127.0.0.1]:${port}/internal`,
    `http://[::ffff:7f00:1]:${port}/internal`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${port}/internal`,
    `http://localhost:${port}/internal`,
    `http://LOCALHOST:${port}/internal`,
  ];

  it.each(loopback(0).map((u, i) => [u.replace(':0/', ':<port>/'), i]))('refuses %s', async (_label, i) => {
    const url = loopback(server.port)[i as number]!;
    const err = await failure(guarded('')(url));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toMatch(/^egress to .* refused: .*loopback address/);
    expect(server.requests).toHaveLength(0);
  });

  it('a fully qualified localhost. is never reached either (refused, or not resolvable here)', async () => {
    await expect(guarded('')(`http://localhost.:${server.port}/internal`)).rejects.toThrow(/refused|ENOTFOUND|EAI_AGAIN/);
    expect(server.requests).toHaveLength(0);
  });

  it('an allow-list entry for one port does not open other ports through another spelling', async () => {
    const http = guarded(`127.0.0.1:${server.port}`);
    expect((await http(`http://127.1:${server.port}/internal`)).statusCode).toBe(200);
    for (const url of loopback(other.port)) {
      const err = await failure(http(url));
      expect([url, err.code]).toEqual([url, 'FAILED_PRECONDITION']);
    }
    expect(other.requests).toHaveLength(0);
  });
});

describe('SSRF: private, link-local and metadata addresses in any spelling', () => {
  it.each([
    ['http://2852039166/latest/meta-data/', /cloud metadata address/],
    ['http://0xa9fea9fe/latest/meta-data/', /cloud metadata address/],
    ['http://0251.0376.0251.0376/latest/meta-data/', /cloud metadata address/],
    ['http://169.254.43518/latest/meta-data/', /cloud metadata address/],
    ['http://[::ffff:169.254.169.254]/latest/meta-data/', /cloud metadata address/],
    ['http://[::ffff:a9fe:a9fe]/latest/meta-data/', /cloud metadata address/],
    ['http://169.254.1.1/', /link-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://10.1/', /private network address/],
    ['http://0x0a000001/', /private network address/],
    ['http://167772161/', /private network address/],
    ['http://[::ffff:10.0.0.1]/', /private network address/],
    ['http://[::ffff:192.168.0.1]/', /private network address/],
    ['http://172.16.0.1/', /private network address/],
    ['http://[fc00::1]/', /unique local|private/],
    ['http://[fd12:3456::1]/', /unique local|private/],
    ['http://0/', /unspecified address/],
    ['http://[::]/', /unspecified address/],
  ])('refuses %s', async (url, reason) => {
    const err = await failure(guarded('')(url));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toMatch(reason);
  });
});

describe('SSRF: redirect hops to private addresses in any spelling', () => {
  it('re-checks every hop: loopback in any spelling, metadata and private addresses are refused and never reached', async () => {
    const targets = [
      `http://127.1:${other.port}/internal`,
      `http://0x7f.0.0.1:${other.port}/internal`,
      `http://2130706433:${other.port}/internal`,
      `http://[::ffff:127.0.0.1]:${other.port}/internal`,
      `http://[::1]:${other.port}/internal`,
      `http://localhost:${other.port}/internal`,
      'http://0xa9fea9fe/latest/meta-data/iam',
      'http://[::ffff:169.254.169.254]/latest/meta-data/',
      'http://10.0.0.1/admin',
    ];
    // Only the first hop's server is allowed (its port only).
    const http = guarded(`127.0.0.1:${server.port}`);
    for (const [i, location] of targets.entries()) {
      for (const status of [301, 302, 303, 307, 308]) {
        server.route('GET', `/hop/${i}/${status}`, { status, headers: { location } });
        const err = await failure(http(`${server.url}/hop/${i}/${status}`));
        expect([location, status, err.code]).toEqual([location, status, 'FAILED_PRECONDITION']);
        expect(err.message).toMatch(/refused/);
      }
    }
    // A redirect chain that reaches a refused address on its second hop is refused too.
    server.route('GET', '/chain/1', { status: 302, headers: { location: '/chain/2' } });
    server.route('GET', '/chain/2', { status: 302, headers: { location: `http://0177.1:${other.port}/internal` } });
    expect((await failure(http(`${server.url}/chain/1`))).code).toBe('FAILED_PRECONDITION');
    expect(other.requests).toHaveLength(0);
  });

  it('through the rest_api executor, a redirect to loopback fails the call and the credential goes nowhere', async () => {
    const parsed = parseConnectorDefinition({
      id: 'hop-api',
      name: 'Hop',
      type: 'rest_api',
      connection: { base_url: server.url, auth: { type: 'bearer_token' }, timeout_seconds: 5 },
      endpoints: { search: { method: 'GET', path: '/search', response_mapping: { results_path: 'results' } } },
    });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    server.route('GET', '/search', { status: 302, headers: { location: `http://[::ffff:7f00:1]:${other.port}/internal` } });
    const err = await failure(
      executeEndpoint(parsed.definition, 'search', {}, { token: 'sk-hop-secret-1' }, { http: guarded(`127.0.0.1:${server.port}`) }),
    );
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).not.toContain('sk-hop-secret-1');
    expect(other.requests).toHaveLength(0);
  });
});

describe('file_parser: traversal and symbolic links out of CONNECTOR_FILE_ROOT', () => {
  let root: string;
  let outside: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'af-held-root-'));
    outside = await mkdtemp(join(tmpdir(), 'af-held-outside-'));
    const docs = join(root, 'docs');
    await mkdir(join(docs, 'a'), { recursive: true });
    await writeFile(join(docs, 'a', 'ok.json'), JSON.stringify([{ v: 'inside' }]));
    await writeFile(join(root, 'other.json'), JSON.stringify([{ v: 'root-level secret' }]));
    await mkdir(join(root, 'neighbour'));
    await writeFile(join(root, 'neighbour', 'n.json'), JSON.stringify([{ v: 'neighbour secret' }]));
    await writeFile(join(outside, 'outside.json'), JSON.stringify([{ v: 'outside secret' }]));
    // A link to a folder outside the root, one to a neighbouring folder inside the root,
    // a link to the root itself, and a dangling one.
    await symlink(outside, join(docs, 'a', 'out-dir.json'));
    await symlink(outside, join(docs, 'out-dir'));
    await symlink(join(root, 'neighbour'), join(docs, 'neighbour-dir'));
    await symlink(root, join(docs, 'up'));
    await symlink(join(outside, 'missing.json'), join(docs, 'a', 'dangling.json'));
    await symlink(join(outside, 'outside.json'), join(docs, 'a', 'z-escape.json'));
    // A connector folder that is itself a link out of the root.
    await symlink(outside, join(root, 'linked-out'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const definition = (directory: string): ConnectorDefinition => {
    const parsed = parseConnectorYaml(`
id: held-files
name: Held files
type: file_parser
connection: { source: directory, directory: "${directory}", pattern: "**/*.json", accepted_formats: [json] }
endpoints:
  rows: { parser: json }
`);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.definition;
  };
  const ctx = (): ExecutionContext => ({ http: guarded(''), fileRoot: root });

  it('a connection.directory that climbs out of the root is refused when the connector is defined', () => {
    for (const directory of ['..', '../', 'docs/../..', 'docs/../../etc', '..\\\\outside', '/etc', '/tmp']) {
      const parsed = parseConnectorYaml(`
id: held-files
name: Held files
type: file_parser
connection: { source: directory, directory: "${directory}" }
endpoints:
  rows: { parser: json }
`);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.errors.map((e) => e.field)).toContain('connection.directory');
    }
  });

  it('a connection.directory that is a symbolic link out of the root is refused at call time', async () => {
    const err = await failure(executeEndpoint(definition('linked-out'), 'rows', {}, {}, ctx()));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('connection.directory resolves outside the file root');
    expect(JSON.stringify(err)).not.toContain('outside secret');
  });

  it('walking the folder never follows links out of it, to a folder or a file, nor to the root above it', async () => {
    const result = await executeEndpoint(definition('docs'), 'rows', {}, {}, ctx());
    expect(result.results).toEqual([{ v: 'inside', _file: 'a/ok.json' }]);
    const text = JSON.stringify(result);
    for (const leaked of ['outside secret', 'root-level secret', 'neighbour secret']) expect(text).not.toContain(leaked);
    expect(result.warnings).toEqual(
      expect.arrayContaining([
        '"a/dangling.json" links outside the connector\'s directory or not to a file; skipped',
        '"a/out-dir.json" links outside the connector\'s directory or not to a file; skipped',
        '"a/z-escape.json" links outside the connector\'s directory or not to a file; skipped',
      ]),
    );
  });

  it.each([
    ['../other.json', 'INVALID_ARGUMENT', 'must not contain ".." segments'],
    ['a/../../other.json', 'INVALID_ARGUMENT', 'must not contain ".." segments'],
    ['a/../..', 'INVALID_ARGUMENT', 'must not contain ".." segments'],
    ['..\\other.json', 'INVALID_ARGUMENT', 'must not contain ".." segments'],
    ['a\\..\\..\\other.json', 'INVALID_ARGUMENT', 'must not contain ".." segments'],
    ['/etc/passwd', 'INVALID_ARGUMENT', 'must be a relative path'],
    ['\\etc\\passwd', 'INVALID_ARGUMENT', 'must be a relative path'],
    ['C:\\Windows\\win.ini', 'INVALID_ARGUMENT', 'must be a relative path'],
    ['a/ok.json\0../../other.json', 'INVALID_ARGUMENT', 'must not contain NUL characters'],
    ['out-dir', 'INVALID_ARGUMENT', "resolves outside the connector's directory (through a symbolic link)"],
    ['out-dir/outside.json', 'INVALID_ARGUMENT', "resolves outside the connector's directory (through a symbolic link)"],
    ['neighbour-dir', 'INVALID_ARGUMENT', "resolves outside the connector's directory (through a symbolic link)"],
    ['up/other.json', 'INVALID_ARGUMENT', "resolves outside the connector's directory (through a symbolic link)"],
    ['up', 'INVALID_ARGUMENT', "resolves outside the connector's directory (through a symbolic link)"],
    ['a/z-escape.json', 'INVALID_ARGUMENT', "resolves outside the connector's directory (through a symbolic link)"],
    ['%2e%2e/other.json', 'NOT_FOUND', 'does not exist'],
  ])('refuses inputs.path %j', async (path, code, reason) => {
    const err = await failure(executeEndpoint(definition('docs'), 'rows', { path }, {}, ctx()));
    expect(err.code).toBe(code);
    expect(err.violations).toEqual([{ field: 'inputs.path', reason }]);
    expect(JSON.stringify(err)).not.toMatch(/secret/);
  });
});
