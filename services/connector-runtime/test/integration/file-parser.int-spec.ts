/**
 * `file_parser` connectors over real I/O (real: undici over HTTP to a fixture
 * server, the file system under a temporary CONNECTOR_FILE_ROOT; mocked:
 * nothing). Calls go through `executeEndpoint` after `parseConnectorYaml`,
 * exactly as the service runs them.
 */
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '@af/testing';
import { request } from 'undici';
import { connectorRuntimeEnvSchema } from '../../src/config.js';
import {
  ConnectorError,
  executeEndpoint,
  parseConnectorYaml,
  type ConnectorDefinition,
  type ExecutionContext,
} from '@af/connectors';

const FIXTURES = join(__dirname, '../fixtures');
let server: FixtureServer;
let root: string;
let irs990: string;
let outside: string;

function definition(yaml: string): ConnectorDefinition {
  const parsed = parseConnectorYaml(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

async function fails(p: Promise<unknown>): Promise<ConnectorError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ConnectorError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

const IRS_FIELDS = `
    parser: xml
    root_element: Return/ReturnData/IRS990
    fields:
      - { xpath: //Filer/EIN, field: ein }
      - { xpath: //Filer/BusinessName/BusinessNameLine1Txt, field: name }
      - { xpath: GrossReceiptsAmt, field: gross_receipts, type: number }
`;

beforeAll(async () => {
  server = await startFixtureServer();
  irs990 = await readFile(join(FIXTURES, 'irs990/990-riverbend-2022.xml'), 'utf8');
  root = await mkdtemp(join(tmpdir(), 'af-file-root-'));
  outside = await mkdtemp(join(tmpdir(), 'af-outside-'));
  const filings = join(root, 'filings');
  await mkdir(join(filings, '2022'), { recursive: true });
  await mkdir(join(filings, '2023'), { recursive: true });
  await writeFile(join(filings, '2022', 'riverbend.xml'), irs990);
  await writeFile(
    join(filings, '2022', 'lakeside.xml'),
    irs990
      .replace('<EIN>931234567</EIN>', '<EIN>941112222</EIN>')
      .replace('RIVERBEND COMMUNITY HEALTH FOUNDATION', 'LAKESIDE ARTS COUNCIL')
      .replace(
        '<GrossReceiptsAmt>18734562</GrossReceiptsAmt>',
        '<GrossReceiptsAmt>912004</GrossReceiptsAmt>',
      ),
  );
  await writeFile(join(filings, '2022', 'broken.xml'), '<Return><ReturnData></Return>');
  await writeFile(join(filings, '2022', 'scan.xml'), Buffer.from('%PDF-1.7\n%binary'));
  await writeFile(join(filings, '2022', '.draft.xml'), irs990);
  await writeFile(join(filings, '2022', 'notes.txt'), 'not a filing');
  await writeFile(
    join(filings, '2023', 'riverbend.xml'),
    irs990.replace('<TaxYr>2022</TaxYr>', '<TaxYr>2023</TaxYr>'),
  );
  await writeFile(join(filings, '2023', 'huge.xml'), `<Return>${' '.repeat(2 * 1024 * 1024)}</Return>`);
  await writeFile(join(root, 'secret.xml'), '<Return><Filer><EIN>000000000</EIN></Filer></Return>');
  await writeFile(join(outside, 'outside.xml'), '<Return><Filer><EIN>111111111</EIN></Filer></Return>');
  await symlink(join(outside, 'outside.xml'), join(filings, '2022', 'escape.xml'));
  await symlink(join(root, 'secret.xml'), join(filings, '2022', 'sibling.xml'));
  await mkdir(join(root, 'grants'));
  for (const name of ['grants-2022.csv', 'grants-2023.csv']) {
    await writeFile(join(root, 'grants', name), await readFile(join(FIXTURES, 'files', name)));
  }
});

afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

beforeEach(() => server.reset());

describe('source: url over real HTTP', () => {
  const byUrl = () =>
    definition(`
id: irs-990-by-url
name: IRS 990 by URL
type: file_parser
connection: { source: url, accepted_formats: [xml], max_file_size_mb: 1, timeout_seconds: 5 }
endpoints:
  filing:
${IRS_FIELDS}
`);
  const ctx = (): ExecutionContext => ({ http: request });

  it('downloads a 990 filing and extracts its values', async () => {
    server.route('GET', '/efile/202301234567890123_public.xml', {
      body: irs990,
      headers: { 'content-type': 'application/xml' },
    });
    const result = await executeEndpoint(
      byUrl(),
      'filing',
      { url: `${server.url}/efile/202301234567890123_public.xml?sig=abc` },
      {},
      ctx(),
    );
    expect(result).toEqual({
      results: [
        { ein: '931234567', name: 'RIVERBEND COMMUNITY HEALTH FOUNDATION', gross_receipts: 18734562 },
      ],
      count: 1,
      has_more: false,
    });
    expect(server.requestsTo('GET', '/efile/202301234567890123_public.xml')[0]?.query).toEqual({
      sig: 'abc',
    });
  });

  it('parses CSV and JSON files from URLs with their own endpoints', async () => {
    server.route('GET', '/data/grants-2022.csv', {
      body: await readFile(join(FIXTURES, 'files/grants-2022.csv')),
    });
    server.route('GET', '/data/board.json', {
      body: await readFile(join(FIXTURES, 'files/board-roster.json')),
    });
    const def = definition(`
id: public-data
name: Public data files
type: file_parser
connection: { source: url, accepted_formats: [csv, json] }
endpoints:
  grants:
    parser: csv
    fields:
      - { column: Recipient, field: recipient }
      - { column: Amount, field: amount, type: number }
      - { column: Award Date, field: awarded, type: date }
      - { column: Multi-year, field: multi_year, type: boolean }
  board:
    parser: json
    response_mapping: { results_path: board, fields: { name: person.name, role: role, since: since } }
`);
    const grants = await executeEndpoint(
      def,
      'grants',
      { url: `${server.url}/data/grants-2022.csv` },
      {},
      ctx(),
    );
    expect(grants.results).toEqual([
      {
        recipient: 'Eastside Family Food Bank, Inc.',
        amount: 250000,
        awarded: '2022-03-01',
        multi_year: true,
      },
      {
        recipient: 'Willamette Valley Free Clinic',
        amount: 185000,
        awarded: '2022-06-15',
        multi_year: false,
      },
      { recipient: 'Columbia Gorge Youth Alliance', amount: 80000, awarded: '2022-09-30', multi_year: false },
    ]);
    const board = await executeEndpoint(def, 'board', { url: `${server.url}/data/board.json` }, {}, ctx());
    expect(board.results.map((r) => r.name)).toEqual([
      'JANET KIM-WALSH',
      'THOMAS A BRENNER',
      'ALICIA MORENO',
    ]);
  });

  it('refuses a file over max_file_size_mb by Content-Length and while streaming', async () => {
    const big = `<Return>${' '.repeat(1024 * 1024 + 10)}</Return>`;
    server.route('GET', '/big-declared.xml', {
      body: big,
      headers: { 'content-length': String(Buffer.byteLength(big)) },
    });
    server.route('GET', '/big-chunked.xml', (_req, { res }) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      const chunk = ' '.repeat(64 * 1024);
      res.write('<Return>');
      let sent = 0;
      const pump = () => {
        // Keeps streaming until the client hangs up.
        while (!res.destroyed && sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed && sent < 64 * 1024 * 1024) res.once('drain', pump);
      };
      pump();
    });
    const declared = await fails(
      executeEndpoint(byUrl(), 'filing', { url: `${server.url}/big-declared.xml` }, {}, ctx()),
    );
    expect(declared.code).toBe('INVALID_ARGUMENT');
    expect(declared.violations[0]?.reason).toBe(
      `the file at ${server.url}/big-declared.xml is ${Buffer.byteLength(big)} bytes; files may be at most 1048576 bytes (max_file_size_mb)`,
    );
    const started = Date.now();
    const chunked = await fails(
      executeEndpoint(byUrl(), 'filing', { url: `${server.url}/big-chunked.xml` }, {}, ctx()),
    );
    expect(chunked.violations[0]?.reason).toBe(
      `the file at ${server.url}/big-chunked.xml is larger than that; files may be at most 1 MB (max_file_size_mb)`,
    );
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('maps upstream statuses and times out a slow server', async () => {
    server.route('GET', '/gone.xml', { status: 404, body: 'not here' });
    server.route('GET', '/down.xml', { status: 503, body: 'maintenance' });
    server.route('GET', '/slow.xml', { body: irs990, delayMs: 2000 });
    expect(
      (await fails(executeEndpoint(byUrl(), 'filing', { url: `${server.url}/gone.xml` }, {}, ctx()))).code,
    ).toBe('NOT_FOUND');
    const down = await fails(
      executeEndpoint(byUrl(), 'filing', { url: `${server.url}/down.xml` }, {}, ctx()),
    );
    expect(down.code).toBe('UNAVAILABLE');
    expect(down.retryable).toBe(true);
    const slow = await fails(
      executeEndpoint(byUrl(), 'filing', { url: `${server.url}/slow.xml` }, {}, { ...ctx(), timeoutMs: 300 }),
    );
    expect(slow.code).toBe('TIMEOUT');
  });

  it('reports an unreachable host as UNAVAILABLE', async () => {
    const err = await fails(
      executeEndpoint(byUrl(), 'filing', { url: 'http://127.0.0.1:1/990.xml' }, {}, ctx()),
    );
    expect(err.code).toBe('UNAVAILABLE');
    expect(err.message).toContain('ECONNREFUSED');
  });
});

describe('source: directory below CONNECTOR_FILE_ROOT', () => {
  const filings = (extra = '') =>
    definition(`
id: irs-990-archive
name: IRS 990 archive
type: file_parser
connection:
  source: directory
  directory: filings
  pattern: "**/*.xml"
  accepted_formats: [xml]
  max_file_size_mb: 1
${extra}
endpoints:
  filing:
${IRS_FIELDS}
`);
  const ctx = (): ExecutionContext => ({ http: request, fileRoot: root });

  it('parses every matching file, tags records with _file and skips bad files with warnings', async () => {
    const result = await executeEndpoint(filings(), 'filing', {}, {}, ctx());
    expect(result.results).toEqual([
      { ein: '941112222', name: 'LAKESIDE ARTS COUNCIL', gross_receipts: 912004, _file: '2022/lakeside.xml' },
      {
        ein: '931234567',
        name: 'RIVERBEND COMMUNITY HEALTH FOUNDATION',
        gross_receipts: 18734562,
        _file: '2022/riverbend.xml',
      },
      {
        ein: '931234567',
        name: 'RIVERBEND COMMUNITY HEALTH FOUNDATION',
        gross_receipts: 18734562,
        _file: '2023/riverbend.xml',
      },
    ]);
    expect(result.has_more).toBe(false);
    expect(result.warnings).toEqual([
      '"2022/escape.xml" links outside the connector\'s directory or not to a file; skipped',
      '"2022/sibling.xml" links outside the connector\'s directory or not to a file; skipped',
      '"2022/broken.xml" is not well-formed XML: Opening and ending tag mismatch: "ReturnData" != "Return" (line 1, column 9); skipped',
      '"2022/scan.xml" is a PDF, not xml; skipped',
      '"2023/huge.xml" is 2 MB; files may be at most 1 MB (max_file_size_mb); skipped',
    ]);
  });

  it('reads one file or one folder named by the path input', async () => {
    const one = await executeEndpoint(filings(), 'filing', { path: '2023/riverbend.xml' }, {}, ctx());
    expect(one.results).toEqual([
      {
        ein: '931234567',
        name: 'RIVERBEND COMMUNITY HEALTH FOUNDATION',
        gross_receipts: 18734562,
        _file: '2023/riverbend.xml',
      },
    ]);
    const folder = await executeEndpoint(filings(), 'filing', { path: '2023' }, {}, ctx());
    expect(folder.results.map((r) => r._file)).toEqual(['2023/riverbend.xml']);
    expect(folder.warnings).toEqual([
      '"2023/huge.xml" is 2 MB; files may be at most 1 MB (max_file_size_mb); skipped',
    ]);
  });

  it.each([
    ['../secret.xml', 'INVALID_ARGUMENT', 'must not contain ".." segments'],
    ['/etc/passwd', 'INVALID_ARGUMENT', 'must be a relative path'],
    [
      '2022/escape.xml',
      'INVALID_ARGUMENT',
      "resolves outside the connector's directory (through a symbolic link)",
    ],
    ['2022/missing.xml', 'NOT_FOUND', 'does not exist'],
    [
      '2022/broken.xml',
      'INVALID_ARGUMENT',
      '"2022/broken.xml" is not well-formed XML: Opening and ending tag mismatch: "ReturnData" != "Return" (line 1, column 9)',
    ],
    ['2022/notes.txt', 'INVALID_ARGUMENT', '"2022/notes.txt" is a .txt file; accepted formats are xml'],
  ])('refuses path %j', async (path, code, reason) => {
    const err = await fails(executeEndpoint(filings(), 'filing', { path }, {}, ctx()));
    expect(err.code).toBe(code);
    expect(err.violations).toEqual([{ field: 'inputs.path', reason }]);
  });

  it('reads at most max_files files and says there are more', async () => {
    const result = await executeEndpoint(filings('  max_files: 2'), 'filing', {}, {}, ctx());
    expect(result.has_more).toBe(true);
    expect(result.warnings).toContain('6 files match; only the first 2 (max_files) were read');
    // In path order: 2022/broken.xml (skipped) and 2022/lakeside.xml.
    expect(result.results.map((r) => r._file)).toEqual(['2022/lakeside.xml']);
  });

  it('reads CSV files with the default pattern of the parser', async () => {
    const def = definition(`
id: grants-folder
name: Grants folder
type: file_parser
connection: { source: directory, directory: grants, accepted_formats: [csv] }
endpoints:
  grants:
    parser: csv
    fields:
      - { column: Recipient EIN, field: ein }
      - { column: Amount, field: amount, type: number }
    response_mapping: { fields: { ein: ein, amount: amount } }
`);
    const result = await executeEndpoint(def, 'grants', {}, {}, ctx());
    expect(result.results).toEqual([
      { ein: '930987654', amount: 250000, _file: 'grants-2022.csv' },
      { ein: '931112223', amount: 185000, _file: 'grants-2022.csv' },
      { ein: '930445566', amount: 80000, _file: 'grants-2022.csv' },
      { ein: '930987654', amount: 260000, _file: 'grants-2023.csv' },
      { ein: '934567890', amount: 120000.5, _file: 'grants-2023.csv' },
    ]);
  });

  it('needs the connector directory to exist under the root', async () => {
    const def = definition(`
id: nowhere
name: Nowhere
type: file_parser
connection: { source: directory, directory: does-not-exist }
endpoints: { j: { parser: json } }
`);
    const err = await fails(executeEndpoint(def, 'j', {}, {}, ctx()));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('does not exist under the file root');
  });
});

describe('CONNECTOR_FILE_ROOT setting', () => {
  const env = {
    SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789',
    DATABASE_URL: 'postgres://127.0.0.1:5432/x',
    NATS_URL: 'nats://127.0.0.1:4222',
    CREDENTIALS_KEYS: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
  };

  it('is optional and must be an absolute path when set', () => {
    expect(connectorRuntimeEnvSchema.parse(env).CONNECTOR_FILE_ROOT).toBeUndefined();
    expect(connectorRuntimeEnvSchema.parse({ ...env, CONNECTOR_FILE_ROOT: root }).CONNECTOR_FILE_ROOT).toBe(
      root,
    );
    const bad = connectorRuntimeEnvSchema.safeParse({ ...env, CONNECTOR_FILE_ROOT: 'relative/files' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['CONNECTOR_FILE_ROOT', 'must be an absolute path'],
    ]);
  });
});
