import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { parseConnectorYaml } from '../../connector-definition.js';
import type { ConnectorDefinition } from '../../connector-definition.schema.js';
import { ConnectorError } from '../../connector-error.js';
import type { ExecutionContext, HttpRequestFn } from '../../connector-type.js';
import { endpointJsonSchemas } from '../../endpoint-json-schema.js';
import { connectorTimeoutMs, executeEndpoint, requiredCredentials } from '../../execute-endpoint.js';
import { globToRegExp, relativePathProblem } from './file-parser-directory.js';

const SEED = readFileSync(join(__dirname, '../../fixtures/seed-file-parser.connector.yaml'), 'utf8');
const IRS990 = readFileSync(join(__dirname, '../../../../../services/connector-runtime/test/fixtures/irs990/990-riverbend-2022.xml'), 'utf8');
const FULL_FORM = readFileSync(
  join(__dirname, '../../../../../services/connector-runtime/test/fixtures/irs990/irs-990-full-form.connector.yaml'),
  'utf8',
);

function parse(yaml: string): ConnectorDefinition {
  const parsed = parseConnectorYaml(yaml);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

function errorsOf(yaml: string) {
  const parsed = parseConnectorYaml(yaml);
  if (parsed.ok) throw new Error('expected the definition to be refused');
  return parsed.errors.map((e) => ({ field: e.field, reason: e.reason }));
}

const noHttp = (() => {
  throw new Error('no HTTP expected');
}) as unknown as HttpRequestFn;
const ctx: ExecutionContext = { http: noHttp };

async function fails(p: Promise<unknown>): Promise<ConnectorError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ConnectorError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

const header = (connection: string) => `
id: files
name: Files
type: file_parser
connection: ${connection}
`;

describe('file_parser definitions', () => {
  it('parse the seed example; the upload inputs become each endpoint’s parameters', () => {
    const parsed = parseConnectorYaml(SEED);
    expect(parsed.ok && parsed.warnings).toEqual([]);
    const def = parse(SEED);
    expect(requiredCredentials(def)).toEqual([]);
    expect(connectorTimeoutMs(def)).toBe(30_000);
    const schemas = endpointJsonSchemas(def);
    expect(schemas.map((s) => s.name)).toEqual(['parse_990', 'parse_990_officers', 'parse_990_grants']);
    expect(schemas[0]?.inputSchema).toEqual({
      type: 'object',
      properties: {
        file: { type: 'string', description: 'The file content: text, or base64 when encoding is base64' },
        encoding: { type: 'string', description: 'text or base64', default: 'text' },
        filename: {
          type: 'string',
          description: "The file's name; its extension must be an accepted format",
        },
      },
      required: ['file'],
      additionalProperties: false,
    });
  });

  it('keep their parameters stable when parsed again (stored definitions round-trip)', () => {
    const def = parse(SEED);
    const again = parseConnectorYaml(JSON.stringify(def));
    expect(again.ok && again.definition).toEqual(def);
  });

  it('refuse unknown keys and keys of another parser with their field paths', () => {
    expect(
      errorsOf(`${header('{ source: upload, max_file_size_md: 5 }')}
endpoints:
  x:
    parser: xml
    root_elemnt: Return
    delimiter: ","
    fields: [{ xpath: //EIN, field: ein, column: 2 }]
  c:
    parser: csv
    list_element: //Row
    fields: [{ column: A, field: a, xpath: //A }]
  j: { parser: json, fields: [] }
  p: { parser: pdf }
`),
    ).toEqual([
      {
        field: 'connection.max_file_size_md',
        reason: 'is not a known field; did you mean "max_file_size_mb"?',
      },
      { field: 'endpoints.x.root_elemnt', reason: 'is not a known field; did you mean "root_element"?' },
      { field: 'endpoints.x.delimiter', reason: 'is only used by csv endpoints' },
      { field: 'endpoints.x.fields[0].column', reason: 'is only used by csv fields; xml fields use xpath' },
      { field: 'endpoints.c.list_element', reason: 'is only used by xml endpoints' },
      { field: 'endpoints.c.fields[0].xpath', reason: 'is only used by xml fields; csv fields use column' },
      {
        field: 'endpoints.j.fields',
        reason: 'is not used by json endpoints: map fields with response_mapping.fields',
      },
      { field: 'endpoints.p.parser', reason: 'must be one of xml, csv, json' },
    ]);
  });

  it('check source-specific keys, paths, URLs and formats', () => {
    expect(
      errorsOf(`${header('{ source: upload, url: "https://x.test/a.xml", pattern: "*.xml", accepted_formats: [csv] }')}
endpoints:
  x: { parser: xml, fields: [{ xpath: //a, field: a }] }
`),
    ).toEqual([
      { field: 'connection.url', reason: 'is only used with source: url' },
      { field: 'connection.pattern', reason: 'is only used with source: directory' },
      { field: 'endpoints.x.parser', reason: 'xml is not in connection.accepted_formats (csv)' },
    ]);
    expect(
      errorsOf(`${header('{ source: url, url: "ftp://x.test/a.xml" }')}
endpoints: { j: { parser: json } }
`),
    ).toEqual([{ field: 'connection.url', reason: 'must use http or https, not "ftp"' }]);
    expect(
      errorsOf(`${header('{ source: directory, directory: "../etc", pattern: "/abs/*.xml" }')}
endpoints: { j: { parser: json } }
`),
    ).toEqual([
      { field: 'connection.directory', reason: 'must not contain ".." segments (below the file root)' },
      { field: 'connection.pattern', reason: 'must be a relative path' },
    ]);
  });

  it('check XPaths, field names, csv columns, results_path and parameters', () => {
    expect(
      errorsOf(`${header('{ source: upload }')}
endpoints:
  x:
    parser: xml
    root_element: count(//a)
    list_element: //irs:Grp
    fields:
      - { xpath: "//[", field: a }
      - { xpath: //b, field: a }
    response_mapping: { results_path: items }
    parameters: [{ name: url, type: string }, { name: filename, type: integer }]
  c:
    parser: csv
    has_header: false
    fields: [{ column: Name, field: name }]
`),
    ).toEqual([
      { field: 'endpoints.x.root_element', reason: 'must select elements (a path), not compute a value' },
      {
        field: 'endpoints.x.list_element',
        reason: 'uses a namespace prefix not declared in namespaces (Cannot resolve QName irs)',
      },
      { field: 'endpoints.x.fields[0].xpath', reason: 'is not a valid XPath expression' },
      { field: 'endpoints.x.fields[1].field', reason: 'duplicate field "a"' },
      {
        field: 'endpoints.x.response_mapping.results_path',
        reason: 'is not used by xml endpoints: every extracted record is one result',
      },
      {
        field: 'endpoints.x.parameters[0].name',
        reason: '"url" is not an input of source upload (inputs: file, encoding, filename)',
      },
      { field: 'endpoints.x.parameters[1].type', reason: 'must be string' },
      {
        field: 'endpoints.c.fields[0].column',
        reason: 'must be a column number: without has_header there are no column names',
      },
    ]);
  });
});

/**
 * IRS 990 e-file returns: `services/connector-runtime/test/fixtures/irs990/irs-990-full-form.connector.yaml`
 * is the connector to copy. The seed's example
 * (`src/fixtures/seed-file-parser.connector.yaml`, kept exactly as the
 * seed wrote it) uses two element names that are not in the Form 990 schema,
 * so it silently misses total expenses and every officer (shown below).
 */
describe('IRS 990: irs-990-full-form.connector.yaml, the connector to use for Form 990 returns', () => {
  it('lists the officers (one record per Form990PartVIISectionAGrp) and the key values, total expenses included', async () => {
    const def = parse(FULL_FORM);
    const base64 = Buffer.from(IRS990).toString('base64');
    const officers = await executeEndpoint(
      def,
      'parse_990_officers',
      { file: base64, encoding: 'base64' },
      {},
      ctx,
    );
    expect(officers.results).toEqual([
      {
        name: 'DAVID R OKAFOR',
        title: 'PRESIDENT & CEO',
        hours_per_week: 50,
        compensation: 312450,
        officer: true,
      },
      {
        name: 'MARIA L GONZALEZ',
        title: 'CFO & TREASURER',
        hours_per_week: 45,
        compensation: 214300,
        officer: true,
      },
      { name: 'JANET KIM-WALSH', title: 'BOARD CHAIR', hours_per_week: 4, compensation: 0, officer: true },
      { name: 'THOMAS A BRENNER', title: 'DIRECTOR', hours_per_week: 2, compensation: 0, officer: null },
      {
        name: 'PRIYA NATARAJAN MD',
        title: 'CHIEF MEDICAL OFFICER',
        hours_per_week: 40,
        compensation: 287915,
        officer: null,
      },
    ]);
    const filing = await executeEndpoint(
      def,
      'parse_990',
      { file: `data:application/xml;base64,${base64}`, encoding: 'base64' },
      {},
      ctx,
    );
    expect(filing.results).toEqual([
      {
        organization_name: 'RIVERBEND COMMUNITY HEALTH FOUNDATION',
        ein: '931234567',
        tax_year: 2022,
        period_end: '2022-12-31',
        gross_receipts: 18734562,
        total_revenue: 18211437,
        total_expenses: 17598204,
        total_assets: 43987120,
        is_501c3: true,
        people_listed: 5,
        schema_version: '2022v5.0',
      },
    ]);
  });

  it('has the seed’s filing and officer endpoints, and finds what the seed misses on the same return', async () => {
    const full = parse(FULL_FORM);
    const seed = parse(SEED);
    expect(Object.keys(full.endpoints)).toEqual(['parse_990', 'parse_990_officers']);
    expect(Object.keys(seed.endpoints)).toEqual(expect.arrayContaining(Object.keys(full.endpoints)));
    const fromFull = await executeEndpoint(full, 'parse_990', { file: IRS990 }, {}, ctx);
    const fromSeed = await executeEndpoint(seed, 'parse_990', { file: IRS990 }, {}, ctx);
    expect(fromSeed.results[0]?.total_expenses).toBeNull();
    expect(fromFull.results[0]?.total_expenses).toBe(17598204);
    expect((await executeEndpoint(seed, 'parse_990_officers', { file: IRS990 }, {}, ctx)).count).toBe(0);
    expect((await executeEndpoint(full, 'parse_990_officers', { file: IRS990 }, {}, ctx)).count).toBe(5);
  });
});

describe('IRS 990: the seed’s example as written (documents the seed; use irs-990-full-form.connector.yaml)', () => {
  it('parse_990 extracts the filing’s key values through the default namespace', async () => {
    const result = await executeEndpoint(
      parse(SEED),
      'parse_990',
      { file: IRS990, filename: '990.xml' },
      {},
      ctx,
    );
    expect(result).toEqual({
      results: [
        {
          organization_name: 'RIVERBEND COMMUNITY HEALTH FOUNDATION',
          ein: '931234567',
          tax_year: '2022',
          gross_receipts: 18734562,
          total_revenue: 18211437,
          // The seed's TotalExpensesGrp/TotalExpensesColumnAmt is not a Form 990 element.
          total_expenses: null,
          total_assets: 43987120,
        },
      ],
      count: 1,
      has_more: false,
    });
  });

  it('parse_990_grants lists Schedule I recipients', async () => {
    const result = await executeEndpoint(parse(SEED), 'parse_990_grants', { file: IRS990 }, {}, ctx);
    expect(result.results).toEqual([
      {
        recipient_name: 'EASTSIDE FAMILY FOOD BANK',
        recipient_ein: '930987654',
        grant_amount: 250000,
        purpose: 'CHILD NUTRITION PROGRAMS',
      },
      {
        recipient_name: 'WILLAMETTE VALLEY FREE CLINIC',
        recipient_ein: '931112223',
        grant_amount: 185000,
        purpose: 'PRIMARY CARE FOR UNINSURED PATIENTS',
      },
      {
        recipient_name: 'COLUMBIA GORGE YOUTH ALLIANCE',
        recipient_ein: '930445566',
        grant_amount: 80000,
        purpose: 'MENTAL HEALTH OUTREACH',
      },
    ]);
  });

  it('parse_990_officers runs but finds none: OfficerDirectorTrusteeEmplGrp is the 990-EZ group', async () => {
    const result = await executeEndpoint(parse(SEED), 'parse_990_officers', { file: IRS990 }, {}, ctx);
    expect(result).toEqual({
      results: [],
      count: 0,
      has_more: false,
      warnings: ['list_element "//OfficerDirectorTrusteeEmplGrp" matched nothing; no records'],
    });
  });
});

describe('uploads: inputs, size and format checks', () => {
  const def = () => parse(SEED);

  it.each([
    [{}, 'inputs.file', 'is required by endpoint "parse_990"'],
    [{ file: '<a/>', encoding: 'gzip' }, 'inputs.encoding', 'must be "text" or "base64"'],
    [
      { file: '<a/>', filename: '../990.xml' },
      'inputs.filename',
      'must be a file name of at most 255 characters, without folders',
    ],
    [{ file: 'not base64!', encoding: 'base64' }, 'inputs.file', 'is not valid base64'],
    [
      { file: '<a/>', sheet: 1 },
      'inputs.sheet',
      'is not a parameter of endpoint "parse_990" (declared: file, encoding, filename)',
    ],
  ])('refuses %j', async (inputs, field, reason) => {
    const err = await fails(executeEndpoint(def(), 'parse_990', inputs, {}, ctx));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toContainEqual({ field, reason });
  });

  it.each([
    [{ file: IRS990, filename: '990.pdf' }, 'is a .pdf file; accepted formats are xml'],
    [
      { file: Buffer.from('%PDF-1.7 ...').toString('base64'), encoding: 'base64', filename: '990.xml' },
      'is a PDF, not xml',
    ],
    [{ file: '{"ein": "1"}', filename: '990.xml' }, 'is named .xml but its content looks like JSON'],
    [{ file: 'ein,name\n1,a\n' }, 'looks like CSV (delimited text); accepted formats are xml'],
    [
      { file: '<Return><ReturnData></Return>' },
      'is not well-formed XML: Opening and ending tag mismatch: "ReturnData" != "Return" (line 1, column 9)',
    ],
    [
      { file: '<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>' },
      'declares a DOCTYPE; DTDs and entities are not allowed in XML files',
    ],
  ])('refuses a bad file %#: %s', async (inputs, reason) => {
    const err = await fails(executeEndpoint(def(), 'parse_990', inputs, {}, ctx));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toEqual([{ field: 'inputs.file', reason }]);
  });

  it('refuses files larger than max_file_size_mb, before decoding base64', async () => {
    const small = parse(`${header('{ source: upload, max_file_size_mb: 0.001 }')}
endpoints: { x: { parser: xml, fields: [{ xpath: //a, field: a }] } }
`);
    const text = `<a>${'x'.repeat(2000)}</a>`;
    const err = await fails(executeEndpoint(small, 'x', { file: text }, {}, ctx));
    expect(err.violations).toEqual([
      { field: 'inputs.file', reason: 'is 2 KB; files may be at most 1 KB (max_file_size_mb)' },
    ]);
    const b64 = await fails(
      executeEndpoint(
        small,
        'x',
        { file: Buffer.from(text).toString('base64'), encoding: 'base64' },
        {},
        ctx,
      ),
    );
    expect(b64.violations[0]?.field).toBe('inputs.file');
    expect(b64.violations[0]?.reason).toMatch(/max_file_size_mb/);
    const fits = await executeEndpoint(small, 'x', { file: '<a>ok</a>' }, {}, ctx);
    expect(fits.results).toEqual([{ a: 'ok' }]);
  });

  it('parses CSV and JSON uploads', async () => {
    const def2 = parse(`${header('{ source: upload, accepted_formats: [csv, json] }')}
endpoints:
  people:
    parser: csv
    fields: [{ column: name, field: name }, { column: age, field: age, type: integer }]
    response_mapping: { entity_type: person, fields: { who: name, age: age } }
  items:
    parser: json
    response_mapping: { results_path: data.items, fields: { id: id, owner: owner.login } }
`);
    const csv = await executeEndpoint(
      def2,
      'people',
      { file: 'name,age\nann,41\nbob,x\n', filename: 'people.csv' },
      {},
      ctx,
    );
    expect(csv).toEqual({
      results: [
        { who: 'ann', age: 41 },
        { who: 'bob', age: null },
      ],
      count: 2,
      has_more: false,
      warnings: ['field "age": 1 value is not an integer (first: "x" in line 3); returned as null'],
    });
    const json = await executeEndpoint(
      def2,
      'items',
      {
        file: JSON.stringify({ data: { items: [{ id: 1, owner: { login: 'a' } }, { id: 2 }] } }),
        filename: 'items.json',
      },
      {},
      ctx,
    );
    expect(json.results).toEqual([
      { id: 1, owner: 'a' },
      { id: 2, owner: null },
    ]);
    const badJson = await fails(
      executeEndpoint(def2, 'items', { file: '{"data": [', filename: 'items.json' }, {}, ctx),
    );
    expect(badJson.violations[0]?.reason).toMatch(/^is not valid JSON: /);
  });

  it('returns at most max_records with has_more', async () => {
    const def2 = parse(`${header('{ source: upload }')}
endpoints:
  rows: { parser: csv, max_records: 2 }
  items: { parser: json, max_records: 2 }
`);
    const csv = await executeEndpoint(def2, 'rows', { file: 'a\n1\n2\n3\n' }, {}, ctx);
    expect(csv).toMatchObject({ results: [{ a: '1' }, { a: '2' }], count: 2, has_more: true });
    expect(csv.warnings).toEqual(['more records than max_records (2); only the first 2 are returned']);
    const json = await executeEndpoint(def2, 'items', { file: '[1,2,3]' }, {}, ctx);
    expect(json).toMatchObject({ results: [{ value: 1 }, { value: 2 }], has_more: true });
  });

  it('knows its endpoints and honours cancellation', async () => {
    expect((await fails(executeEndpoint(def(), 'nope', {}, {}, ctx))).code).toBe('NOT_FOUND');
    const controller = new AbortController();
    controller.abort();
    const err = await fails(
      executeEndpoint(def(), 'parse_990', { file: IRS990 }, {}, { ...ctx, signal: controller.signal }),
    );
    expect(err.code).toBe('CANCELLED');
  });
});

describe('url sources (with a stub HTTP client)', () => {
  const byUrl = parse(`${header('{ source: url, accepted_formats: [xml], max_file_size_mb: 0.01 }')}
endpoints: { x: { parser: xml, fields: [{ xpath: //EIN, field: ein }] } }
`);
  const fixed = parse(`${header('{ source: url, url: "https://files.test/990.xml?token=abc" }')}
endpoints: { x: { parser: xml, fields: [{ xpath: //EIN, field: ein }] } }
`);

  function stub(statusCode: number, body: string | Buffer, headers: Record<string, string> = {}) {
    const calls: Array<{ url: string; method?: string }> = [];
    const http = (async (url: string, options: { method?: string }) => {
      calls.push({ url, method: options.method });
      return { statusCode, headers, body: Readable.from([Buffer.from(body)]) };
    }) as unknown as HttpRequestFn;
    return { http, calls };
  }

  it('downloads through ctx.http and parses the file', async () => {
    const { http, calls } = stub(200, '<Return xmlns="http://www.irs.gov/efile"><EIN>1</EIN></Return>');
    const result = await executeEndpoint(byUrl, 'x', { url: 'https://files.test/a/990.xml' }, {}, { http });
    expect(result.results).toEqual([{ ein: '1' }]);
    expect(calls).toEqual([{ url: 'https://files.test/a/990.xml', method: 'GET' }]);
    expect(endpointJsonSchemas(fixed)[0]?.inputSchema).toEqual({
      type: 'object',
      properties: {},
      additionalProperties: false,
    });
  });

  it('refuses bad URLs, oversized files and wrong formats as problems of the url input', async () => {
    const { http } = stub(200, '<a/>');
    const notHttp = await fails(executeEndpoint(byUrl, 'x', { url: 'file:///etc/passwd' }, {}, { http }));
    expect(notHttp.violations).toEqual([
      { field: 'inputs.url', reason: 'must use http or https, not "file"' },
    ]);
    const declared = stub(200, '<a/>', { 'content-length': '999999' });
    const big = await fails(
      executeEndpoint(byUrl, 'x', { url: 'https://files.test/990.xml' }, {}, { http: declared.http }),
    );
    expect(big.violations).toEqual([
      {
        field: 'inputs.url',
        reason:
          'the file at https://files.test/990.xml is 976.6 KB; files may be at most 10.2 KB (max_file_size_mb)',
      },
    ]);
    const streamed = stub(200, `<a>${'x'.repeat(20_000)}</a>`);
    const big2 = await fails(
      executeEndpoint(byUrl, 'x', { url: 'https://files.test/990.xml' }, {}, { http: streamed.http }),
    );
    expect(big2.violations[0]?.reason).toBe(
      'the file at https://files.test/990.xml is larger than that; files may be at most 10.2 KB (max_file_size_mb)',
    );
    const pdf = stub(200, '%PDF-1.4');
    const wrong = await fails(
      executeEndpoint(byUrl, 'x', { url: 'https://files.test/990' }, {}, { http: pdf.http }),
    );
    expect(wrong.violations[0]?.reason).toBe('the file at https://files.test/990 is a PDF, not xml');
  });

  it('maps HTTP failures and blames the upstream for a fixed URL, without its query string', async () => {
    const missing = stub(404, 'nope');
    const err = await fails(executeEndpoint(fixed, 'x', {}, {}, { http: missing.http }));
    expect(err.code).toBe('NOT_FOUND');
    expect(err.message).not.toContain('token=abc');
    const broken = stub(200, '<Return>');
    const upstream = await fails(executeEndpoint(fixed, 'x', {}, {}, { http: broken.http }));
    expect(upstream.code).toBe('UPSTREAM_ERROR');
    expect(upstream.message).toMatch(
      /^files\/x: the file at https:\/\/files\.test\/990\.xml is not well-formed XML/,
    );
    const down = (async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' });
    }) as unknown as HttpRequestFn;
    const unavailable = await fails(executeEndpoint(fixed, 'x', {}, {}, { http: down }));
    expect(unavailable.code).toBe('UNAVAILABLE');
    expect(unavailable.message).not.toContain('token=abc');
  });

  it('times out a download that does not finish', async () => {
    const hang = ((_url: string, options: { signal: AbortSignal }) =>
      new Promise((_, reject) =>
        options.signal.addEventListener('abort', () => reject(new Error('aborted'))),
      )) as unknown as HttpRequestFn;
    const err = await fails(executeEndpoint(fixed, 'x', {}, {}, { http: hang, timeoutMs: 50 }));
    expect(err.code).toBe('TIMEOUT');
    expect(err.message).toBe('files/x: the files were not read within 50 ms');
  });
});

describe('directory sources without a file root', () => {
  it('fail with FAILED_PRECONDITION naming the setting', async () => {
    const def = parse(`${header('{ source: directory }')}
endpoints: { x: { parser: xml, fields: [{ xpath: //a, field: a }] } }
`);
    const err = await fails(executeEndpoint(def, 'x', {}, {}, ctx));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('CONNECTOR_FILE_ROOT');
  });
});

describe('globToRegExp and relativePathProblem', () => {
  it.each([
    ['*.xml', '990.xml', true],
    ['*.xml', 'sub/990.xml', false],
    ['**/*.xml', 'sub/deeper/990.xml', true],
    ['**/*.xml', '990.xml', true],
    ['20??/*.csv', '2022/a.csv', true],
    ['*.{csv,tsv}', 'a.tsv', true],
    ['*.{csv,tsv}', 'a.json', false],
    ['a+b.xml', 'a+b.xml', true],
    ['a+b.xml', 'aab.xml', false],
  ])('%s matches %s: %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
  });

  it.each([
    ['filings/2022', undefined],
    ['../x', 'must not contain ".." segments'],
    ['a/../../x', 'must not contain ".." segments'],
    ['/etc', 'must be a relative path'],
    ['C:\\x', 'must be a relative path'],
    ['a\0b', 'must not contain NUL characters'],
  ])('%j → %s', (path, problem) => {
    expect(relativePathProblem(path)).toBe(problem);
  });
});
