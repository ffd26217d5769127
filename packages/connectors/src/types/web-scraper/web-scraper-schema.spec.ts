import {
  parseConnectorDefinition,
  parseConnectorYaml,
  type ParseConnectorResult,
} from '../../connector-definition.js';
import { webScraperType } from './web-scraper.js';
import type { WebScraperConnectorDefinition } from './web-scraper-schema.js';

const YAML = `id: state-corps
name: State corporations
type: web_scraper
connection:
  base_url: https://sos.example.gov
endpoints:
  search:
    path: /corp/{state}/search
    parameters:
      - name: state
        type: string
        required: true
      - name: name
        type: string
    extraction:
      item_selector: table.results tr
      fields:
        name: td.name
        url: {selector: "td.name a", attr: href}
        filed: {selector: td.date, type: date, required: true}
    pagination:
      next_selector: a.next
    response_mapping:
      entity_type: corporation
      entity_extraction:
        - field: name
          entity_type: ORG
    output_schema:
      type: record_set
      fields:
        - name: name
          type: string
`;

function base(patch: (d: Record<string, any>) => void = () => {}): Record<string, any> {
  const d: Record<string, any> = {
    id: 'corps',
    name: 'Corps',
    type: 'web_scraper',
    connection: { base_url: 'https://sos.example.gov' },
    endpoints: {
      search: {
        path: '/search',
        parameters: [{ name: 'q', type: 'string' }],
        extraction: { item_selector: 'li', fields: { name: 'a' } },
      },
    },
  };
  patch(d);
  return d;
}

function errorsOf(result: ParseConnectorResult) {
  if (result.ok) throw new Error(`expected errors, got ${JSON.stringify(result.definition)}`);
  return result.errors;
}

describe('web_scraper definitions', () => {
  it('parses a full definition and fills the defaults', () => {
    const result = parseConnectorYaml(YAML);

    expect(result).toMatchObject({ ok: true, warnings: [] });
    if (!result.ok) return;
    const def = result.definition as WebScraperConnectorDefinition;
    expect(def.connection).toEqual({
      base_url: 'https://sos.example.gov',
      respect_robots: true,
      delay_ms: 1000,
    });
    expect(def.endpoints.search?.extraction.fields).toEqual({
      name: { selector: 'td.name', multiple: false, required: false },
      url: { selector: 'td.name a', attr: 'href', multiple: false, required: false },
      filed: { selector: 'td.date', type: 'date', multiple: false, required: true },
    });
    expect(def.endpoints.search?.pagination).toEqual({ next_selector: 'a.next', max_pages: 5 });
    expect(webScraperType.requiredCredentials(def)).toEqual([]);
    expect(webScraperType.timeoutMs(def)).toBe(30_000);
  });

  it('refuses an invalid CSS selector with its path, line and the parser message', () => {
    const errors = errorsOf(
      parseConnectorYaml(YAML.replace('item_selector: table.results tr', 'item_selector: "table[results"')),
    );

    expect(errors).toEqual([
      {
        field: 'endpoints.search.extraction.item_selector',
        reason: expect.stringContaining('is not a CSS selector cheerio supports'),
        line: 16,
        column: 22,
      },
    ]);
  });

  it.each([
    [
      'connection.base_url',
      (d: any) => (d.connection.base_url = 'https://x.test/?a=1'),
      'must not contain a query string',
    ],
    ['connection.delay_ms', (d: any) => (d.connection.delay_ms = -1), 'must be at least 0'],
    ['connection.respect_robots', (d: any) => (d.connection.respect_robots = 'no'), 'must be a boolean'],
    [
      'connection.user_agent',
      (d: any) => (d.connection.user_agent = 'bot\r\nX-Evil: 1'),
      'must be printable ASCII',
    ],
    [
      'connection.headers.User-Agent',
      (d: any) => (d.connection.headers = { 'User-Agent': 'x' }),
      'set connection.user_agent instead',
    ],
    ['connection.useragent', (d: any) => (d.connection.useragent = 'x'), 'did you mean "user_agent"?'],
    [
      'endpoints.search.path',
      (d: any) => (d.endpoints.search.path = '/s?q=1'),
      'must not contain a query string',
    ],
    [
      'endpoints.search.path',
      (d: any) => (d.endpoints.search.path = '/s/{id}'),
      'placeholder {id} is not a declared parameter',
    ],
    [
      'endpoints.search.parameters[0].type',
      (d: any) => {
        d.endpoints.search.path = '/s/{q}';
        d.endpoints.search.parameters[0].type = 'object';
      },
      'must be string, number, integer, date or boolean',
    ],
    [
      'endpoints.search.extraction.fields',
      (d: any) => (d.endpoints.search.extraction.fields = {}),
      'must declare at least one field',
    ],
    [
      'endpoints.search.extraction.fields.name.selector',
      (d: any) => (d.endpoints.search.extraction.fields.name = 'a::before'),
      'Pseudo-elements are not supported',
    ],
    [
      'endpoints.search.extraction.fields.name.type',
      (d: any) => (d.endpoints.search.extraction.fields.name = { selector: 'a', type: 'money' }),
      'must be one of string, number',
    ],
    [
      'endpoints.search.extraction.fields.name.selectr',
      (d: any) => (d.endpoints.search.extraction.fields.name = { selectr: 'a' }),
      'did you mean "selector"?',
    ],
    [
      'endpoints.search.extraction.fields.name.type',
      (d: any) => (d.endpoints.search.extraction.fields.name = { selector: 'a', attr: 'href', type: 'html' }),
      'cannot be combined with attr',
    ],
    ['endpoints.search.extraction', (d: any) => delete d.endpoints.search.extraction, 'is required'],
    [
      'endpoints.search.pagination.max_pages',
      (d: any) => (d.endpoints.search.pagination = { next_selector: 'a', max_pages: 51 }),
      'must be at most 50',
    ],
    [
      'endpoints.search.response_mapping.fields',
      (d: any) => (d.endpoints.search.response_mapping = { fields: { a: 'b' } }),
      'declare fields under extraction.fields',
    ],
    [
      'endpoints.search.response_mapping.entity_extraction[0].field',
      (d: any) =>
        (d.endpoints.search.response_mapping = {
          entity_extraction: [{ field: 'owner', entity_type: 'ORG' }],
        }),
      '"owner" is not a field of extraction.fields',
    ],
  ])('refuses %s (%#)', (field, patch, reason) => {
    expect(errorsOf(parseConnectorDefinition(base(patch)))).toContainEqual({
      field,
      reason: expect.stringContaining(reason),
    });
  });

  it('warns when the delays alone exceed the timeout', () => {
    const result = parseConnectorDefinition(
      base((d) => {
        d.connection.delay_ms = 10_000;
        d.connection.timeout_seconds = 20;
        d.endpoints.search.pagination = { next_selector: 'a.next', max_pages: 3 };
      }),
    );

    expect(result).toMatchObject({
      ok: true,
      warnings: [
        {
          field: 'endpoints.search.pagination.max_pages',
          reason: expect.stringContaining('cannot finish within the 20 s timeout'),
        },
      ],
    });
  });
});
