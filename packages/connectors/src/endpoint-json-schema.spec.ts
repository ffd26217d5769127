import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFixtureServer, type FixtureServer } from '@af/testing';
import { request } from 'undici';
import { parseConnectorDefinition, parseConnectorYaml } from './connector-definition.js';
import type { ConnectorDefinition } from './connector-definition.schema.js';
import { endpointJsonSchemas, typeSchema } from './endpoint-json-schema.js';
import { executeEndpoint } from './execute-endpoint.js';
import { RSS_RECORD_FIELDS } from './types/rss-feed/rss-feed-schema.js';

const fixture = (name: string) => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

describe('endpointJsonSchemas', () => {
  const parsed = parseConnectorYaml(fixture('fec-contributions.connector.yaml'));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const schemas = endpointJsonSchemas(parsed.definition);

  it('gives one entry per endpoint, in declaration order', () => {
    expect(schemas.map((s) => s.name)).toEqual(Object.keys(parsed.definition.endpoints));
  });

  it('turns parameters into an input schema that accepts good inputs and refuses bad ones', () => {
    const ajv = new Ajv({ strict: false });
    for (const s of schemas) {
      const validate = ajv.compile(s.inputSchema);
      const required = (s.inputSchema.required as string[] | undefined) ?? [];
      const props = s.inputSchema.properties as Record<string, { type?: string }>;
      if (required.length > 0) expect(validate({})).toBe(false);
      expect(validate({ not_a_parameter: 1, ...Object.fromEntries(required.map((r) => [r, sample(props[r]?.type)])) })).toBe(false);
      expect(validate(Object.fromEntries(required.map((r) => [r, sample(props[r]?.type)])))).toBe(true);
    }
  });

  it('describes the call_connector envelope with the mapped record fields', () => {
    const withFields = schemas.find((s) => {
      const items = ((s.outputSchema.properties as Record<string, { items?: { properties?: object } }>).results?.items ?? {}) as { properties?: object };
      return items.properties && Object.keys(items.properties).length > 0;
    });
    expect(withFields).toBeDefined();
    expect(withFields!.outputSchema.required).toEqual(['results', 'count']);
    const ajv = new Ajv({ strict: false });
    expect(ajv.validate(withFields!.outputSchema, { results: [], count: 0 })).toBe(true);
    expect(ajv.validate(withFields!.outputSchema, { results: 'nope', count: 0 })).toBe(false);
  });

  it('maps seed types, including arrays and dates', () => {
    expect(typeSchema('integer[]')).toEqual({ type: 'array', items: { type: 'integer' } });
    expect(typeSchema('date')).toEqual({ type: 'string', format: 'date' });
    expect(typeSchema('record')).toEqual({ type: 'object' });
    expect(typeSchema('mystery')).toEqual({});
  });
});

function sample(type: string | undefined): unknown {
  switch (type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'x';
  }
}

function parsed(input: Record<string, unknown>): ConnectorDefinition {
  const result = parseConnectorDefinition(input);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.definition;
}

function recordSchema(def: ConnectorDefinition, endpoint: string): Record<string, any> {
  const schema = endpointJsonSchemas(def).find((e) => e.name === endpoint)?.outputSchema as Record<string, any>;
  return schema.properties.results.items;
}

describe('output record shapes the types produce themselves', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  const HTML = `<!DOCTYPE html><html><head><title>Corps</title></head><body><table class="results">
    <tr><th>Entity</th><th>Filed</th><th>Status</th><th>Capital</th><th>Tags</th></tr>
    <tr><td class="name"><a href="/corp/1">ACME HOLDINGS</a></td><td class="date">03/15/2021</td><td class="status">Active</td>
        <td class="capital">$1,250,000.00</td><td><i>llc</i><i>de</i></td></tr>
    <tr><td class="name"><a>Acme Labs</a></td><td class="date">someday</td><td class="status">?</td>
        <td class="capital">n/a</td><td></td></tr>
  </table></body></html>`;

  const scraper = () =>
    parsed({
      id: 'corps',
      name: 'Corps',
      type: 'web_scraper',
      connection: { base_url: server.url, respect_robots: false, delay_ms: 0 },
      endpoints: {
        search: {
          path: '/corps',
          extraction: {
            item_selector: 'table.results tr',
            fields: {
              name: { selector: 'td.name', required: true },
              url: { selector: 'td.name a', attr: 'href' },
              filed: { selector: 'td.date', type: 'date' },
              active: { selector: 'td.status', type: 'boolean' },
              capital: { selector: 'td.capital', type: 'number' },
              tags: { selector: 'i', multiple: true },
              title: 'td.name a',
            },
          },
        },
        described: {
          path: '/corps',
          extraction: { fields: { title: 'title' } },
          output_schema: { type: 'record_set', fields: [{ name: 'title', type: 'string', description: 'page title' }] },
        },
      },
    });

  it('web_scraper: one property per extraction field, typed by type / attr / multiple / required', () => {
    const record = recordSchema(scraper(), 'search');

    expect(record).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1 },
        url: { type: ['string', 'null'], description: expect.stringContaining('absolute URL') },
        filed: { type: ['string', 'null'], description: expect.stringContaining('YYYY-MM-DD') },
        active: { type: ['boolean', 'null'] },
        capital: { type: ['number', 'null'] },
        tags: { type: 'array', items: { type: 'string' } },
        title: { type: ['string', 'null'] },
      },
      required: ['name', 'url', 'filed', 'active', 'capital', 'tags', 'title'],
      additionalProperties: false,
    });
  });

  it('web_scraper: the records the scraper really returns match the schema, and wrong ones do not', async () => {
    server.route('GET', '/corps', { body: HTML, headers: { 'content-type': 'text/html' } });
    const def = scraper();
    const result = await executeEndpoint(def, 'search', {}, {}, { http: request });
    expect(result.count).toBe(2);
    expect(result.results[1]).toMatchObject({ url: null, filed: null, active: null, capital: null, tags: [] });

    const ajv = new Ajv({ strict: false });
    const envelope = endpointJsonSchemas(def).find((e) => e.name === 'search')!.outputSchema;
    expect(ajv.validate(envelope, result)).toBe(true);
    expect(ajv.validate(envelope, { ...result, results: [{ ...result.results[0], capital: '1,250,000' }] })).toBe(false);
    expect(ajv.validate(envelope, { ...result, results: [{ ...result.results[0], name: null }] })).toBe(false);
    expect(ajv.validate(envelope, { ...result, results: [{ ...result.results[0], extra: 1 }] })).toBe(false);
  });

  it('web_scraper: required multiple fields are non-empty lists; html fields are text; output_schema still wins', () => {
    const def = parsed({
      id: 'x',
      name: 'X',
      type: 'web_scraper',
      connection: { base_url: 'https://x.test' },
      endpoints: {
        e: {
          path: '/',
          extraction: {
            fields: {
              ids: { selector: 'li', type: 'integer', multiple: true, required: true },
              body: { selector: 'main', type: 'html' },
              pic: { selector: 'img', attr: 'src' },
            },
          },
        },
      },
    });
    expect(recordSchema(def, 'e').properties).toEqual({
      ids: { type: 'array', items: { type: 'integer' }, minItems: 1 },
      body: { type: ['string', 'null'], description: expect.stringContaining('inner HTML') },
      pic: { type: ['string', 'null'], description: expect.stringContaining('absolute URL') },
    });
    expect(recordSchema(scraper(), 'described')).toEqual({
      type: 'object',
      properties: { title: { type: 'string', description: 'page title' } },
    });
  });

  const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Notices</title>
    <item><title>Meeting</title><link>https://x.test/a</link><description>&lt;p&gt;Open &lt;b&gt;meeting&lt;/b&gt;&lt;/p&gt;</description>
      <pubDate>Wed, 01 May 2024 10:00:00 GMT</pubDate><guid>a-1</guid><category>Notice</category><category>Meetings</category></item>
    <item><title>Undated</title></item>
  </channel></rss>`;

  const feedDef = (mapping?: Record<string, string>) =>
    parsed({
      id: 'news',
      name: 'News',
      type: 'rss_feed',
      connection: { feeds: [{ url: `${server.url}/feed.xml`, name: 'notices' }] },
      endpoints: { recent: { parameters: [], ...(mapping ? { response_mapping: { fields: mapping } } : {}) } },
    });

  it('rss_feed without a mapping: the normalised item (RSS_RECORD_FIELDS), and real items match it', async () => {
    const record = recordSchema(feedDef(), 'recent');
    expect(Object.keys(record.properties)).toEqual([...RSS_RECORD_FIELDS]);
    expect(record.required).toEqual([...RSS_RECORD_FIELDS]);
    expect(record.properties.categories).toEqual({ type: 'array', items: { type: 'string' } });
    expect(record.properties.feed).toMatchObject({ type: 'string' });
    expect(record.properties.author).toEqual({ type: ['string', 'null'] });

    server.route('GET', '/feed.xml', { body: RSS, headers: { 'content-type': 'application/rss+xml' } });
    const result = await executeEndpoint(feedDef(), 'recent', {}, {}, { http: request });
    expect(result.count).toBe(2);
    const ajv = new Ajv({ strict: false });
    const envelope = endpointJsonSchemas(feedDef()).find((e) => e.name === 'recent')!.outputSchema;
    expect(ajv.validate(envelope, result)).toBe(true);
    expect(ajv.validate(envelope, { ...result, results: [{ ...result.results[0], categories: 'Notice' }] })).toBe(false);
    expect(ajv.validate(envelope, { ...result, results: [{ title: 'only a title' }] })).toBe(false);
  });

  it('rss_feed with a mapping: the mapped names, typed where they read a normalised field as it is', () => {
    const record = recordSchema(feedDef({ headline: 'title', when: 'published_at', tags: 'categories', raw_date: 'pubDate' }), 'recent');
    expect(record).toEqual({
      type: 'object',
      properties: {
        headline: { type: ['string', 'null'] },
        when: { type: ['string', 'null'], description: expect.stringContaining('ISO 8601') },
        tags: { type: ['array', 'null'], items: { type: 'string' } },
        raw_date: {},
      },
      required: ['headline', 'when', 'tags', 'raw_date'],
    });
  });

  it('other types keep the mapped-fields shape (no type-specific guessing)', () => {
    const gql = parsed({
      id: 'gh',
      name: 'GH',
      type: 'graphql',
      connection: { endpoint: 'https://x.test/graphql' },
      endpoints: { q: { query: '{ viewer { login } }', response_mapping: { results_path: 'data.viewer', fields: { title: 'login' } } } },
    });
    expect(recordSchema(gql, 'q')).toEqual({ type: 'object', properties: { title: {} }, required: ['title'] });
  });
});
