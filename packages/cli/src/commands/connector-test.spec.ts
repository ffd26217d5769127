/**
 * `af connector test` through connector-runtime's executor with real undici
 * against a local HTTP server standing in for the upstream API.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '@af/testing';
import { parse } from 'yaml';
import { loadHttp } from '../http.js';
import { CliError } from '../io.js';
import { testConnector } from './connector-test.js';

let api: FixtureServer;
let file: string;

beforeAll(async () => {
  api = await startFixtureServer();
  const dir = mkdtempSync(join(tmpdir(), 'af-cli-test-'));
  file = join(dir, 'filings.connector.yaml');
  writeFileSync(
    file,
    readFileSync(join(__dirname, '../../test/fixtures/filings.connector.yaml'), 'utf8').replace(
      'http://127.0.0.1:1',
      api.url,
    ),
  );
});
afterAll(() => api.close());
beforeEach(() => api.reset());

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) } };
}

const items = {
  data: {
    items: [
      { org: { name: 'Acme' }, total: 1200, filed_on: '2024-03-01', tags: ['a'] },
      { org: { name: 'Beta' }, total: 99.5, filed_on: '2024-04-02', tags: [] },
      { org: { name: 'Gamma' }, total: 10, tags: ['b', 'c'] },
    ],
  },
};

describe('af connector test', () => {
  it('calls the endpoint with the params and credential, prints the records and a pasteable output_schema', async () => {
    api.route('GET', '/v1/filings', { json: items });
    const t = io();
    expect(
      await testConnector(
        file,
        'search',
        { params: ['q=acme', 'year=2024'], credentials: ['api_key=sk-test-123'] },
        t.io,
        loadHttp,
      ),
    ).toBe(0);
    const [req] = api.requestsTo('GET', '/v1/filings');
    expect(req!.query).toEqual({ q: 'acme', year: '2024', api_key: 'sk-test-123' });
    expect(t.out[0]).toMatch(/^filings-api search: 3 records in \d+ ms$/);
    expect(JSON.parse(t.out[1]!)).toEqual([
      { name: 'Acme', amount: 1200, filed: '2024-03-01', tags: ['a'] },
      { name: 'Beta', amount: 99.5, filed: '2024-04-02', tags: [] },
      { name: 'Gamma', amount: 10, filed: null, tags: ['b', 'c'] },
    ]);
    const yamlStart = t.out.findIndex((l) => l.startsWith('output_schema:'));
    expect(parse(t.out[yamlStart]!)).toEqual({
      output_schema: {
        type: 'record_set',
        fields: [
          { name: 'name', type: 'string' },
          { name: 'amount', type: 'number' },
          { name: 'filed', type: 'date' },
          { name: 'tags', type: 'string[]' },
        ],
      },
    });
    expect(t.out.at(-1)).toBe('# not in every record: filed (67%)');
    expect(t.err).toEqual([]);
  });

  it('reports each page of a paginated endpoint on stderr as it arrives, the records on stdout', async () => {
    api.route('GET', '/v1/pages', (req) => {
      const page = Number(req.query.page ?? 1);
      return { json: { items: page <= 2 ? [{ n: page * 10 + 1 }, { n: page * 10 + 2 }] : [] } };
    });
    const paged = join(dirname(file), 'paged.connector.yaml');
    writeFileSync(paged, readFileSync(join(__dirname, '../../test/fixtures/paged.connector.yaml'), 'utf8').replace('http://127.0.0.1:1', api.url));
    const t = io();
    expect(await testConnector(paged, 'pages', { json: true }, t.io, loadHttp)).toBe(0);
    expect(t.err).toEqual(['page 1: 2 records (2 so far)', 'page 2: 2 records (4 so far)', 'page 3: 0 records (4 so far)']);
    expect(JSON.parse(t.out.join('\n')).result.results).toEqual([{ n: 11 }, { n: 12 }, { n: 21 }, { n: 22 }]);
  });

  it('prints one JSON document with --json', async () => {
    api.route('GET', '/v1/filings', { json: items });
    const t = io();
    await testConnector(
      file,
      'search',
      { params: ['q=x'], credentials: ['api_key=k'], json: true },
      t.io,
      loadHttp,
    );
    const doc = JSON.parse(t.out.join('\n'));
    expect(doc.result.count).toBe(3);
    expect(doc.inferred_output_schema.fields[0]).toEqual({ name: 'name', type: 'string', presence: 1 });
    expect(doc.duration_ms).toEqual(expect.any(Number));
    expect(doc.warnings).toEqual([]);
  });

  it('says which credential is missing, and refuses unknown endpoints and bad inputs', async () => {
    const t = io();
    await expect(testConnector(file, 'search', { params: ['q=x'] }, t.io, loadHttp)).rejects.toThrow(
      new CliError('connector "filings-api" needs --credential api_key=…'),
    );
    await expect(
      testConnector(file, 'lookup', { credentials: ['api_key=k'] }, t.io, loadHttp),
    ).rejects.toThrow('connector "filings-api" has no endpoint "lookup"; it has search');
    const bad = await testConnector(
      file,
      'search',
      { params: ['year=soon'], credentials: ['api_key=k'] },
      t.io,
      loadHttp,
    ).catch((e: CliError) => e);
    expect(bad).toBeInstanceOf(CliError);
    expect((bad as CliError).message).toMatch(/^INVALID_ARGUMENT: /);
    expect((bad as CliError).details).toEqual(
      expect.arrayContaining([
        'inputs.q: is required by endpoint "search"',
        expect.stringMatching(/^inputs\.year: expected an integer/),
      ]),
    );
    expect(api.requests).toHaveLength(0);
  });

  it('reports the upstream’s failure by code, without the credential', async () => {
    api.route('GET', '/v1/filings', { status: 401, json: { error: 'bad key sk-secret-999' } });
    const err = (await testConnector(
      file,
      'search',
      { params: ['q=x'], credentials: ['api_key=sk-secret-999'] },
      io().io,
      loadHttp,
    ).catch((e: CliError) => e)) as CliError;
    expect(err.message).toMatch(/^AUTH_FAILED: /);
    expect(err.message).not.toContain('sk-secret-999');
  });

  it('refuses an invalid file, pointing at the problems', async () => {
    const t = io();
    const broken = join(__dirname, '../../test/fixtures/broken.connector.yaml');
    expect(await testConnector(broken, 'search', {}, t.io, loadHttp)).toBe(1);
    expect(t.err.at(-1)).toBe(
      `${broken} is not a valid connector; fix it first (af connector validate ${broken})`,
    );
    expect(t.err[0]).toMatch(/broken\.connector\.yaml:1:5: id: /);
  });
});
