/**
 * The system connector templates (seed §7 Tier 1–3) in `templates/`: every
 * file parses at start-up, and every template calls its API the way the
 * API's documentation says — real paths, parameters, auth placement and
 * paging — and maps the API's real response shape into records.
 *
 * Real: the template YAML as shipped, the parser, the rest_api executor, the
 * undici HTTP client and an HTTP server (the shared fixture server) answering
 * with recorded responses in each API's shape
 * (`test/fixtures/templates/<template-id>/`). Mocked: nothing. The only edits
 * to a template are `connection.base_url` (pointed at the fixture server,
 * keeping the API's path prefix) and, for the paging tests, a smaller page
 * size so two recorded pages stay small.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer, type FixtureRequest, type FixtureServer } from '@af/testing';
import { request } from 'undici';
import { parse as parseYaml } from 'yaml';
import {
  ConnectorError,
  executeEndpoint,
  parseConnectorDefinition,
  parseConnectorYaml,
  requiredCredentials,
  type ConnectorDefinition,
  type EndpointResult,
} from '@af/connectors';
import { loadTemplates, TEMPLATES_DIR, type ConnectorTemplate } from '../../src/infra/template-catalog.js';

const TEMPLATE_IDS = [
  'congress-gov',
  'courtlistener-recap',
  'fec-campaign-finance',
  'federal-register',
  'opencorporates',
  'propublica-nonprofits',
  'sec-edgar-full-text-search',
  'usaspending-awards',
  'wikidata-sparql',
];
/** The template `search_web` runs through (category web_search, not a data source): its own tests are web-actions.e2e-spec.ts. */
const WEB_SEARCH_TEMPLATE = 'tavily-web-search';
/** data_source_connectors.category values (seed §3). */
const CATEGORIES = ['government', 'finance', 'corporate', 'nonprofit', 'general'];

const FIXTURES = join(__dirname, '../fixtures/templates');
const recorded = (templateId: string, file: string): unknown =>
  JSON.parse(readFileSync(join(FIXTURES, templateId, file), 'utf8'));

/** Raw YAML, edited before it is validated. */
type RawDefinition = Record<string, any>;

let templates: ConnectorTemplate[];
let server: FixtureServer;

beforeAll(async () => {
  templates = loadTemplates();
  server = await startFixtureServer();
});
afterEach(() => server.reset());
afterAll(async () => {
  await server?.close();
});

/**
 * The shipped template with `base_url` pointed at the fixture server (the
 * API's path prefix kept) and optional edits, validated like any definition.
 */
function templateDefinition(id: string, pathPrefix: string, edit?: (raw: RawDefinition) => void): ConnectorDefinition {
  const template = templates.find((t) => t.id === id);
  if (!template) throw new Error(`no template ${id}`);
  const raw = parseYaml(template.yaml) as RawDefinition;
  raw.connection.base_url = `${server.url}${pathPrefix}`;
  edit?.(raw);
  const parsed = parseConnectorDefinition(raw);
  if (!parsed.ok) throw new Error(`${id}: ${JSON.stringify(parsed.errors)}`);
  expect(parsed.warnings).toEqual([]);
  return parsed.definition;
}

function run(
  def: ConnectorDefinition,
  endpoint: string,
  inputs: Record<string, unknown>,
  credentials: Record<string, string> = {},
): Promise<EndpointResult> {
  return executeEndpoint(def, endpoint, inputs, credentials, { http: request });
}

/** Serves recorded pages chosen by one query (or body) value. */
function byParam(
  param: string,
  pages: Record<string, unknown>,
  from: 'query' | 'body' = 'query',
): (req: FixtureRequest) => { json: unknown } | { status: number; json: unknown } {
  return (req) => {
    const value =
      from === 'query'
        ? req.query[param]
        : String((JSON.parse(req.body) as Record<string, unknown>)[param]);
    const key = typeof value === 'string' ? value : '';
    return Object.hasOwn(pages, key)
      ? { json: pages[key] }
      : { status: 400, json: { error: `no recorded page for ${param}=${key}` } };
  };
}

describe('template catalog', () => {
  it('ships exactly the nine Tier 1–3 templates and the web-search one, each in <id>.yaml, all parsing without warnings', () => {
    expect(templates.map((t) => t.id)).toEqual([...TEMPLATE_IDS, WEB_SEARCH_TEMPLATE].sort());
    for (const id of [...TEMPLATE_IDS, WEB_SEARCH_TEMPLATE]) {
      const parsed = parseConnectorYaml(readFileSync(join(TEMPLATES_DIR, `${id}.yaml`), 'utf8'));
      expect(parsed.ok && parsed.definition.id).toBe(id);
      expect(parsed.ok && parsed.warnings).toEqual([]);
    }
  });

  it.each(TEMPLATE_IDS)('%s carries its catalogue metadata and consistent auth fields', (id) => {
    const def = templates.find((t) => t.id === id)?.definition;
    if (def?.type !== 'rest_api') throw new Error(`${id} is not a rest_api template`);
    expect(CATEGORIES).toContain(def.category);
    expect(def.tags?.length).toBeGreaterThan(2);
    expect(def.description?.length).toBeGreaterThan(40);
    expect(new URL(def.connection.base_url).protocol).toBe('https:');
    expect(Object.keys(def.connection.rate_limit ?? {})).not.toHaveLength(0);
    // The catalogue's auth fields are exactly the credentials the auth scheme reads.
    expect((def.auth_fields ?? []).map((f) => f.name).sort()).toEqual(requiredCredentials(def).sort());
    const endpoints = Object.entries(def.endpoints);
    expect(endpoints.filter(([, e]) => (e.description?.length ?? 0) < 20).map(([n]) => n)).toEqual([]);
    expect(endpoints.filter(([, e]) => !e.response_mapping?.entity_type).map(([n]) => n)).toEqual([]);
    // Entity hints for the graph (seed §6): at least one endpoint names PERSON / ORG / … fields.
    expect(endpoints.some(([, e]) => (e.response_mapping?.entity_extraction?.length ?? 0) > 0)).toBe(true);
  });

  it('a template that stops parsing is a start-up error naming the file, field and line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'templates-'));
    try {
      const yaml = readFileSync(join(TEMPLATES_DIR, 'fec-campaign-finance.yaml'), 'utf8');
      expect(yaml).toContain('      results_path: results\n');
      writeFileSync(join(dir, 'fec-campaign-finance.yaml'), yaml.replace('      results_path: results\n', '      results_pth: results\n'));
      expect(() => loadTemplates(dir)).toThrow(
        /connector template fec-campaign-finance\.yaml is invalid: endpoints\.search_contributions\.response_mapping(\.results_pth)? \(line \d+\)/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('fec-campaign-finance (OpenFEC)', () => {
  const ID = 'fec-campaign-finance';
  const key = { api_key: 'fec-test-key-7d1f' };

  it('search_contributions sends the filters and api_key in the query and pages with both keyset values', async () => {
    server.route(
      'GET',
      '/v1/schedules/schedule_a/',
      byParam('last_index', {
        '': recorded(ID, 'schedule-a-page1.json'),
        '4041720241946502113': recorded(ID, 'schedule-a-page2.json'),
      }),
    );
    const def = templateDefinition(ID, '/v1');
    const inputs = { contributor_name: 'Daniel Reyes', two_year_transaction_period: 2024, min_amount: 100, is_individual: true };

    const first = await run(def, 'search_contributions', inputs, key);
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/v1/schedules/schedule_a/' });
    expect(server.requests[0]?.query).toEqual({
      contributor_name: 'Daniel Reyes',
      two_year_transaction_period: '2024',
      min_amount: '100',
      is_individual: 'true',
      sort: '-contribution_receipt_date',
      per_page: '100',
      api_key: 'fec-test-key-7d1f',
    });
    expect(first).toMatchObject({ count: 2, has_more: true, next_cursor: '4041720241946502113' });
    expect(first.results[0]).toEqual({
      contribution_id: '4041720241946502118',
      contributor_name: 'REYES, DANIEL',
      contributor_employer: 'KAISER PERMANENTE',
      contributor_occupation: 'PHYSICIAN',
      contributor_city: 'OAKLAND',
      contributor_state: 'CA',
      contributor_zip: '946111742',
      amount: 3300,
      date: '2024-03-30',
      aggregate_ytd: 3300,
      receipt_type: null,
      memo_text: null,
      recipient_committee_id: 'C00735369',
      recipient_committee_name: 'FRIENDS OF ELENA MARTINEZ',
      recipient_party: 'DEMOCRATIC PARTY',
      report_year: 2024,
      pdf_url: 'https://docquery.fec.gov/cgi-bin/fecimg/?202404159634819204',
    });

    // The next page: the cursor plus the sort value of the last record, as OpenFEC's keyset paging requires.
    const second = await run(
      def,
      'search_contributions',
      { ...inputs, last_index: first.next_cursor, last_contribution_receipt_date: first.results[1]?.date },
      key,
    );
    expect(server.requests[1]?.query).toMatchObject({
      last_index: '4041720241946502113',
      last_contribution_receipt_date: '2024-03-28',
      api_key: 'fec-test-key-7d1f',
    });
    expect(second).toMatchObject({ count: 2, has_more: false });
    expect(second.next_cursor).toBeUndefined();
    expect(second.results.map((r) => [r.contributor_name, r.amount, r.date, r.contributor_employer])).toEqual([
      ['REYES, DANIEL', 500, '2024-02-14', 'SELF-EMPLOYED'],
      ['REYES, DANIELA', 100, '2024-01-09', 'NOT EMPLOYED'],
    ]);
  });

  it('search_candidates follows page numbers until pagination.count is reached', async () => {
    server.route(
      'GET',
      '/v1/candidates/search/',
      byParam('page', { '1': recorded(ID, 'candidates-search-page1.json'), '2': recorded(ID, 'candidates-search-page2.json') }),
    );
    const def = templateDefinition(ID, '/v1', (raw) => {
      raw.endpoints.search_candidates.pagination.page_size = 2;
    });

    const result = await run(def, 'search_candidates', { q: 'martinez', cycle: 2024 }, key);
    expect(server.requests.map((r) => r.query)).toEqual([
      { q: 'martinez', cycle: '2024', sort: 'name', page: '1', per_page: '2', api_key: 'fec-test-key-7d1f' },
      { q: 'martinez', cycle: '2024', sort: 'name', page: '2', per_page: '2', api_key: 'fec-test-key-7d1f' },
    ]);
    expect(result).toMatchObject({ count: 3, has_more: false });
    expect(result.results[0]).toEqual({
      candidate_id: 'H2CA15123',
      name: 'MARTINEZ, ELENA',
      party: 'DEMOCRATIC PARTY',
      office: 'House',
      state: 'CA',
      district: '15',
      incumbent_challenge: 'Incumbent',
      candidate_status: 'C',
      election_years: [2022, 2024],
      principal_committee_id: 'C00735369',
      principal_committee_name: 'FRIENDS OF ELENA MARTINEZ',
    });
    expect(result.results[2]).toMatchObject({ candidate_id: 'S4NM00218', office: 'Senate', incumbent_challenge: 'Open seat' });
  });

  it('get_committee puts the committee id in the path', async () => {
    server.route('GET', '/v1/committee/:id/', { json: recorded(ID, 'committee.json') });
    const result = await run(templateDefinition(ID, '/v1'), 'get_committee', { committee_id: 'C00735369' }, key);
    expect(server.requests[0]).toMatchObject({ path: '/v1/committee/C00735369/', query: { api_key: 'fec-test-key-7d1f' } });
    expect(result.results).toEqual([
      {
        committee_id: 'C00735369',
        name: 'FRIENDS OF ELENA MARTINEZ',
        committee_type: 'House',
        designation: 'Principal campaign committee',
        organization_type: null,
        party: 'DEMOCRATIC PARTY',
        state: 'CA',
        treasurer_name: 'HOLLAND, KATHERINE',
        street_1: '1570 THE ALAMEDA STE 220',
        city: 'SAN JOSE',
        zip: '95126',
        custodian_name_full: 'HOLLAND, KATHERINE',
        candidate_ids: ['H2CA15123'],
        filing_frequency: 'Q',
        first_file_date: '2021-11-18',
        last_file_date: '2024-04-15',
      },
    ]);
  });

  it('refuses to call without a stored api_key, before any request is sent', async () => {
    const def = templateDefinition(ID, '/v1');
    await expect(run(def, 'search_candidates', { q: 'martinez' }, {})).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      message: expect.stringContaining('needs the credential "api_key"'),
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('propublica-nonprofits (Nonprofit Explorer)', () => {
  const ID = 'propublica-nonprofits';

  it('search_organizations pages from page 0 until total_results, without credentials', async () => {
    server.route(
      'GET',
      '/nonprofits/api/v2/search.json',
      byParam('page', { '0': recorded(ID, 'search-page0.json'), '1': recorded(ID, 'search-page1.json') }),
    );
    const result = await run(templateDefinition(ID, '/nonprofits/api/v2'), 'search_organizations', { q: 'habitat for humanity' });
    expect(server.requests.map((r) => r.query)).toEqual([
      { q: 'habitat for humanity', page: '0' },
      { q: 'habitat for humanity', page: '1' },
    ]);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(result).toMatchObject({ count: 27, has_more: false });
    expect(result.results[0]).toEqual({
      ein: 911914868,
      ein_formatted: '91-1914868',
      name: 'HABITAT FOR HUMANITY INTERNATIONAL INC',
      sub_name: 'HABITAT FOR HUMANITY INTERNATIONAL INC',
      city: 'AMERICUS',
      state: 'GA',
      ntee_code: 'L20',
      subsection_code: 3,
      score: 1043.1,
    });
    expect(result.results[26]).toMatchObject({ name: 'HABITAT FOR HUMANITY OF NEBRASKA INC', ein_formatted: '47-0734981', ntee_code: null });
  });

  it('get_organization and list_filings read one /organizations/{ein}.json answer', async () => {
    server.route('GET', '/nonprofits/api/v2/organizations/:file', { json: recorded(ID, 'organization.json') });
    const def = templateDefinition(ID, '/nonprofits/api/v2');

    const org = await run(def, 'get_organization', { ein: '142007220' });
    expect(server.requests[0]?.path).toBe('/nonprofits/api/v2/organizations/142007220.json');
    expect(org.results).toEqual([
      {
        ein: 142007220,
        name: 'Pro Publica Inc',
        care_of_name: '% RICHARD TOFEL',
        address: '155 Avenue Of The Americas 13th Fl',
        city: 'New York',
        state: 'NY',
        zipcode: '10013-1507',
        ntee_code: 'A20',
        subsection_code: 3,
        ruling_date: '2008-02-01',
        tax_period: '2022-12-01',
        asset_amount: 89645381,
        income_amount: 58213406,
        revenue_amount: 54719012,
        guidestar_url: 'https://www.guidestar.org/profile/14-2007220',
        nccs_url: 'https://nccs.urban.org/nccs/datadictionary/search/orgprofile.php?ein=142007220',
      },
    ]);

    const filings = await run(def, 'list_filings', { ein: '142007220' });
    expect(filings.results).toEqual([
      {
        tax_period: 202212,
        tax_year: 2022,
        form_type: 0,
        pdf_url: null,
        total_revenue: 54719012,
        total_functional_expenses: 48207741,
        total_assets: 89645381,
        total_liabilities: 5932170,
        contributions_and_grants: 51211954,
        officer_compensation: 1990713,
        officer_compensation_pct: 0.0413,
        updated: '2024-01-11T20:31:11.000Z',
      },
      expect.objectContaining({ tax_year: 2021, total_revenue: 47155312, officer_compensation: 1934402 }),
    ]);

    const documents = await run(def, 'list_filing_documents', { ein: '142007220' });
    expect(documents.results).toEqual([
      {
        tax_period: 202312,
        tax_year: 2023,
        form_type: 0,
        form_name: '990',
        pdf_url: 'https://projects.propublica.org/nonprofits/download-filing?path=2024_11_EO%2F14-2007220_990_202312.pdf',
      },
    ]);
  });

  it('names the missing EIN instead of calling the API', async () => {
    const err = await run(templateDefinition(ID, '/nonprofits/api/v2'), 'get_organization', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'inputs.ein', reason: expect.stringContaining('required') }] });
    expect(server.requests).toHaveLength(0);
  });
});

describe('sec-edgar-full-text-search (EDGAR FTS)', () => {
  const ID = 'sec-edgar-full-text-search';

  it('full_text_search pages with from/size until hits.total.value, sending the declared User-Agent', async () => {
    server.route(
      'GET',
      '/LATEST/search-index',
      byParam('from', { '0': recorded(ID, 'search-index-from0.json'), '2': recorded(ID, 'search-index-from2.json') }),
    );
    const def = templateDefinition(ID, '/LATEST', (raw) => {
      raw.endpoints.full_text_search.pagination.limit = 2;
    });
    const result = await run(def, 'full_text_search', {
      q: '"material weakness"',
      dateRange: 'custom',
      startdt: '2021-01-01',
      enddt: '2022-12-31',
      forms: '10-K',
    });
    const query = { q: '"material weakness"', dateRange: 'custom', startdt: '2021-01-01', enddt: '2022-12-31', forms: '10-K' };
    expect(server.requests.map((r) => [r.path, r.query])).toEqual([
      ['/LATEST/search-index', { ...query, from: '0', size: '2' }],
      ['/LATEST/search-index', { ...query, from: '2', size: '2' }],
    ]);
    expect(server.requests[0]?.headers['user-agent']).toBe('AgentFactory connector-runtime (admin@example.org)');
    expect(result).toMatchObject({ count: 3, has_more: false });
    expect(result.results[0]).toEqual({
      filing_id: '0001759546-22-000011:ride-20211231.htm',
      accession_number: '0001759546-22-000011',
      form: '10-K',
      root_forms: ['10-K'],
      file_date: '2022-02-28',
      period_ending: '2021-12-31',
      file_type: '10-K',
      file_description: '10-K',
      company_names: ['Lordstown Motors Corp.  (RIDE)  (CIK 0001759546)'],
      ciks: ['0001759546'],
      business_states: ['OH'],
      incorporation_states: ['DE'],
      sics: ['3711'],
      items: [],
      score: 18.734,
    });
    expect(result.results[2]).toMatchObject({ accession_number: '0001759546-21-000022', file_date: '2021-03-01' });
  });

  it('company_lookup maps the entity suggestions to CIKs', async () => {
    server.route('GET', '/LATEST/search-index', { json: recorded(ID, 'company-lookup.json') });
    const result = await run(templateDefinition(ID, '/LATEST'), 'company_lookup', { keysTyped: 'tesla' });
    expect(server.requests[0]?.query).toEqual({ keysTyped: 'tesla' });
    expect(result.results).toEqual([
      { cik: '1318605', entity: 'Tesla, Inc.  (TSLA) ', tickers: 'TSLA' },
      { cik: '1860782', entity: 'Tesla Energy Operations, Inc. ', tickers: null },
      { cik: '1534872', entity: 'TESLA EXPLORATION LTD. ', tickers: null },
    ]);
  });
});

describe('usaspending-awards (USAspending API v2)', () => {
  const ID = 'usaspending-awards';
  const filters = {
    keywords: ['aircraft'],
    award_type_codes: ['A', 'B', 'C', 'D'],
    time_period: [{ start_date: '2019-10-01', end_date: '2024-09-30' }],
  };

  it('search_awards POSTs the filters as JSON and pages in the body while hasNext is true', async () => {
    server.route(
      'POST',
      '/api/v2/search/spending_by_award/',
      byParam('page', { '1': recorded(ID, 'spending-by-award-page1.json'), '2': recorded(ID, 'spending-by-award-page2.json') }, 'body'),
    );
    const def = templateDefinition(ID, '/api/v2', (raw) => {
      raw.endpoints.search_awards.pagination.page_size = 2;
    });
    const result = await run(def, 'search_awards', { filters });

    const expectedBody = {
      filters,
      fields: [
        'Award ID',
        'Recipient Name',
        'Recipient UEI',
        'Award Amount',
        'Start Date',
        'End Date',
        'Awarding Agency',
        'Awarding Sub Agency',
        'Description',
      ],
      sort: 'Award Amount',
      order: 'desc',
      subawards: false,
    };
    expect(server.requests.map((r) => [r.method, r.path, r.headers['content-type'], JSON.parse(r.body)])).toEqual([
      ['POST', '/api/v2/search/spending_by_award/', 'application/json', { ...expectedBody, page: 1, limit: 2 }],
      ['POST', '/api/v2/search/spending_by_award/', 'application/json', { ...expectedBody, page: 2, limit: 2 }],
    ]);
    expect(result).toMatchObject({ count: 3, has_more: false });
    // Records keep USAspending's column names (they contain spaces, which dot paths cannot address).
    expect(result.results[0]).toEqual({
      internal_id: 261358041,
      'Award ID': 'N0001919C0009',
      'Recipient Name': 'LOCKHEED MARTIN CORPORATION',
      'Recipient UEI': 'ZFN2JJXBLZT3',
      'Award Amount': 34127663285.06,
      'Start Date': '2019-01-31',
      'End Date': '2025-12-31',
      'Awarding Agency': 'Department of Defense',
      'Awarding Sub Agency': 'Department of the Navy',
      Description: 'F-35 LOT 12-14 PRODUCTION AND SUSTAINMENT',
      generated_internal_id: 'CONT_AWD_N0001919C0009_9700_-NONE-_-NONE-',
      awarding_agency_id: 1173,
      agency_slug: 'department-of-defense',
      recipient_id: 'bc13e9ee-ccb1-b2cf-1bc1-a4fa3e7bd0f1-C',
    });
    expect(result.results[2]).toMatchObject({ 'Recipient Name': 'SIKORSKY AIRCRAFT CORPORATION' });
  });

  it('get_award maps the nested recipient, agency and period of performance', async () => {
    server.route('GET', '/api/v2/awards/:id/', { json: recorded(ID, 'award.json') });
    const result = await run(templateDefinition(ID, '/api/v2'), 'get_award', {
      award_id: 'CONT_AWD_N0001919C0009_9700_-NONE-_-NONE-',
    });
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/api/v2/awards/CONT_AWD_N0001919C0009_9700_-NONE-_-NONE-/', body: '' });
    expect(result.results).toEqual([
      {
        award_id: 'CONT_AWD_N0001919C0009_9700_-NONE-_-NONE-',
        piid: 'N0001919C0009',
        fain: null,
        category: 'contract',
        type: 'DEFINITIVE CONTRACT',
        description: 'F-35 LOT 12-14 PRODUCTION AND SUSTAINMENT',
        total_obligation: 34127663285.06,
        base_and_all_options_value: 34988701942,
        date_signed: '2019-01-31',
        start_date: '2019-01-31',
        end_date: '2025-12-31',
        recipient_name: 'LOCKHEED MARTIN CORPORATION',
        recipient_uei: 'ZFN2JJXBLZT3',
        recipient_hash: 'bc13e9ee-ccb1-b2cf-1bc1-a4fa3e7bd0f1',
        parent_recipient_name: 'LOCKHEED MARTIN CORPORATION',
        awarding_agency: 'Department of Defense',
        awarding_sub_agency: 'Department of the Navy',
        funding_agency: 'Department of Defense',
        place_of_performance_state: 'TX',
      },
    ]);
  });

  it('search_recipients POSTs the keyword with page and limit in the body and stops when hasNext is false', async () => {
    server.route('POST', '/api/v2/recipient/', { json: recorded(ID, 'recipients.json') });
    const result = await run(templateDefinition(ID, '/api/v2'), 'search_recipients', { keyword: 'lockheed martin' });
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      keyword: 'lockheed martin',
      award_type: 'all',
      sort: 'amount',
      order: 'desc',
      page: 1,
      limit: 100,
    });
    expect(result).toMatchObject({ count: 2, has_more: false });
    expect(result.results).toEqual([
      {
        recipient_id: 'ec0e33e0-11ab-c3e7-f4f8-5b4d2dbd12d9-P',
        name: 'LOCKHEED MARTIN CORPORATION',
        uei: 'S2PDJVAW8WK5',
        duns: '834951691',
        recipient_level: 'P',
        amount: 52318440219.37,
      },
      expect.objectContaining({ recipient_id: 'bc13e9ee-ccb1-b2cf-1bc1-a4fa3e7bd0f1-C', recipient_level: 'C' }),
    ]);
  });

  it('refuses filters that are not an object, naming the input', async () => {
    await expect(run(templateDefinition(ID, '/api/v2'), 'search_awards', { filters: 'aircraft' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      violations: [{ field: 'inputs.filters', reason: expect.stringContaining('expected an object') }],
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('opencorporates (OpenCorporates API v0.4)', () => {
  const ID = 'opencorporates';
  const token = { api_key: 'oc-token-92ad41' };

  it('search_companies sends api_token in the query and pages until total_count', async () => {
    server.route(
      'GET',
      '/v0.4/companies/search',
      byParam('page', { '1': recorded(ID, 'companies-search-page1.json'), '2': recorded(ID, 'companies-search-page2.json') }),
    );
    const def = templateDefinition(ID, '/v0.4', (raw) => {
      raw.endpoints.search_companies.pagination.page_size = 2;
    });
    const result = await run(def, 'search_companies', { q: 'blue harbor', country_code: 'us' }, token);
    expect(server.requests.map((r) => r.query)).toEqual([
      { q: 'blue harbor', country_code: 'us', page: '1', per_page: '2', api_token: 'oc-token-92ad41' },
      { q: 'blue harbor', country_code: 'us', page: '2', per_page: '2', api_token: 'oc-token-92ad41' },
    ]);
    expect(result).toMatchObject({ count: 3, has_more: false });
    expect(result.results[1]).toEqual({
      name: 'BLUE HARBOR CAPITAL PARTNERS, L.P.',
      company_number: '4450986',
      jurisdiction_code: 'us_de',
      incorporation_date: '2007-11-02',
      dissolution_date: '2019-06-30',
      company_type: 'Limited Partnership',
      current_status: 'Cancelled',
      inactive: true,
      registered_address: '251 LITTLE FALLS DRIVE, WILMINGTON, DE, 19808',
      registry_url: 'https://icis.corp.delaware.gov/Ecorp/EntitySearch/NameSearch.aspx',
      opencorporates_url: 'https://opencorporates.com/companies/us_de/4450986',
      previous_names: [{ company_name: 'BLUE HARBOUR CAPITAL PARTNERS, L.P.', start_date: '2007-11-02', end_date: '2008-03-18' }],
    });
    expect(result.results[2]).toMatchObject({ name: 'BLUE HARBOR HOLDINGS OF NEW YORK INC.', jurisdiction_code: 'us_ny' });
  });

  it('get_company puts jurisdiction and number in the path and returns officers and the registered agent', async () => {
    server.route('GET', '/v0.4/companies/:jurisdiction/:number', { json: recorded(ID, 'company.json') });
    const result = await run(templateDefinition(ID, '/v0.4'), 'get_company', { jurisdiction_code: 'us_de', company_number: '5217348' }, token);
    expect(server.requests[0]).toMatchObject({ path: '/v0.4/companies/us_de/5217348', query: { api_token: 'oc-token-92ad41' } });
    expect(result.count).toBe(1);
    expect(result.results[0]).toMatchObject({
      name: 'BLUE HARBOR HOLDINGS LLC',
      current_status: 'Active',
      registered_address: '1209 ORANGE ST, WILMINGTON, DE, 19801',
      agent_name: 'THE CORPORATION TRUST COMPANY',
      officers: [
        { officer: expect.objectContaining({ id: 318840212, name: 'MARGARET A. OKONKWO', position: 'manager', start_date: '2012-09-14' }) },
        { officer: expect.objectContaining({ name: 'THE CORPORATION TRUST COMPANY', position: 'agent' }) },
      ],
    });
  });

  it('search_officers maps each officer with the company they serve', async () => {
    server.route('GET', '/v0.4/officers/search', { json: recorded(ID, 'officers-search.json') });
    const result = await run(templateDefinition(ID, '/v0.4'), 'search_officers', { q: 'margaret okonkwo' }, token);
    expect(server.requests[0]?.query).toEqual({ q: 'margaret okonkwo', page: '1', per_page: '30', api_token: 'oc-token-92ad41' });
    expect(result).toMatchObject({ count: 2, has_more: false });
    expect(result.results[1]).toEqual({
      officer_id: 207715903,
      name: 'MARGARET OKONKWO',
      position: 'director',
      start_date: '2016-04-01',
      end_date: '2021-09-30',
      inactive: true,
      occupation: 'INVESTMENT MANAGER',
      nationality: 'BRITISH',
      company_name: 'HARBOUR LANE NOMINEES LIMITED',
      company_number: '10102341',
      company_jurisdiction: 'gb',
      opencorporates_url: 'https://opencorporates.com/officers/207715903',
    });
  });

  it('a rejected token is AUTH_FAILED and the token never appears in the error', async () => {
    server.route('GET', '/v0.4/companies/search', {
      status: 401,
      json: { error: { message: 'Invalid Api Token: oc-token-92ad41' } },
    });
    const err = await run(templateDefinition(ID, '/v0.4'), 'search_companies', { q: 'blue harbor' }, token).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ code: 'AUTH_FAILED' });
    expect(JSON.stringify({ message: (err as ConnectorError).message, violations: (err as ConnectorError).violations })).not.toContain(
      'oc-token-92ad41',
    );
  });
});

describe('wikidata-sparql (Wikidata Query Service)', () => {
  const ID = 'wikidata-sparql';
  const QUERY =
    'SELECT ?item ?itemLabel ?itemDescription WHERE { ?item rdfs:label "Apple"@en. SERVICE wikibase:label { bd:serviceParam wikibase:language "en". } } LIMIT 10';

  it('entity_lookup sends query and format=json to /sparql and maps results.bindings', async () => {
    server.route('GET', '/sparql', { json: recorded(ID, 'entity-lookup.json') });
    const result = await run(templateDefinition(ID, ''), 'entity_lookup', { query: QUERY });
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/sparql', query: { query: QUERY, format: 'json' } });
    expect(server.requests[0]?.headers['user-agent']).toBe('AgentFactory connector-runtime (admin@example.org)');
    expect(result.results).toEqual([
      { item: 'http://www.wikidata.org/entity/Q312', label: 'Apple Inc.', description: 'American multinational technology company' },
      { item: 'http://www.wikidata.org/entity/Q213710', label: 'Apple Records', description: 'record label founded by the Beatles' },
      { item: 'http://www.wikidata.org/entity/Q20156937', label: 'Apple Bank for Savings', description: null },
    ]);
  });

  it('relationships maps one record per statement; sparql_query passes the bindings through', async () => {
    server.route('GET', '/sparql', { json: recorded(ID, 'relationships.json') });
    const def = templateDefinition(ID, '');
    const result = await run(def, 'relationships', { query: 'SELECT ?item ?itemLabel ?property ?propertyLabel ?value ?valueLabel WHERE { }' });
    expect(result.results[0]).toEqual({
      item: 'http://www.wikidata.org/entity/Q312',
      item_label: 'Apple Inc.',
      property: 'http://www.wikidata.org/entity/P355',
      property_label: 'has subsidiary',
      value: 'http://www.wikidata.org/entity/Q1063849',
      value_label: 'Beats Electronics',
    });
    expect(result.results.map((r) => [r.property_label, r.value_label])).toEqual([
      ['has subsidiary', 'Beats Electronics'],
      ['has subsidiary', 'FileMaker Inc.'],
      ['owned by', 'The Vanguard Group'],
    ]);

    const raw = await run(def, 'sparql_query', { query: 'SELECT * WHERE { }' });
    expect(raw.count).toBe(3);
    expect(raw.results[2]?.valueLabel).toEqual({ 'xml:lang': 'en', type: 'literal', value: 'The Vanguard Group' });
  });
});

describe('federal-register (Federal Register API v1)', () => {
  const ID = 'federal-register';

  it('list_documents pages with page/per_page until count', async () => {
    server.route(
      'GET',
      '/api/v1/documents.json',
      byParam('page', { '1': recorded(ID, 'documents-page1.json'), '2': recorded(ID, 'documents-page2.json') }),
    );
    const def = templateDefinition(ID, '/api/v1', (raw) => {
      raw.endpoints.list_documents.pagination.page_size = 2;
    });
    const result = await run(def, 'list_documents', {});
    expect(server.requests.map((r) => r.query)).toEqual([
      { order: 'newest', page: '1', per_page: '2' },
      { order: 'newest', page: '2', per_page: '2' },
    ]);
    expect(result).toMatchObject({ count: 3, has_more: false });
    expect(result.results[1]).toEqual({
      document_number: '2024-28004',
      title: 'Notice of Blocking and Unblocking of Persons Pursuant to Certain Sanctions Authorities',
      type: 'Notice',
      abstract:
        "The Department of the Treasury's Office of Foreign Assets Control (OFAC) is publishing the names of one or more persons that have been placed on or removed from OFAC's Specially Designated Nationals and Blocked Persons List.",
      publication_date: '2024-12-02',
      agency: 'Treasury Department',
      agencies: [
        expect.objectContaining({ name: 'Treasury Department', id: 497 }),
        expect.objectContaining({ name: 'Foreign Assets Control Office', parent_id: 497 }),
      ],
      html_url:
        'https://www.federalregister.gov/documents/2024/12/02/2024-28004/notice-of-blocking-and-unblocking-of-persons-pursuant-to-certain-sanctions-authorities',
      pdf_url: 'https://www.govinfo.gov/content/pkg/FR-2024-12-02/pdf/2024-28004.pdf',
    });
    expect(result.results[2]).toMatchObject({ document_number: '2024-27987', type: 'Proposed Rule', agency: 'Interior Department' });
  });

  it('search_documents sends the bracketed conditions[...] filters (arrays once per value) and pages until count', async () => {
    server.route(
      'GET',
      '/api/v1/documents.json',
      byParam('page', { '1': recorded(ID, 'documents-page1.json'), '2': recorded(ID, 'documents-page2.json') }),
    );
    const def = templateDefinition(ID, '/api/v1', (raw) => {
      raw.endpoints.search_documents.pagination.page_size = 2;
    });
    const filters = {
      'conditions[term]': 'sanctions "blocked persons"',
      'conditions[type][]': ['NOTICE', 'PRORULE'],
      'conditions[agencies][]': ['treasury-department'],
      'conditions[publication_date][gte]': '2024-11-01',
      'conditions[publication_date][lte]': '2024-12-31',
    };

    const result = await run(def, 'search_documents', filters);

    const expectedQuery = (page: string) => ({
      'conditions[term]': 'sanctions "blocked persons"',
      'conditions[type][]': ['NOTICE', 'PRORULE'],
      'conditions[agencies][]': 'treasury-department',
      'conditions[publication_date][gte]': '2024-11-01',
      'conditions[publication_date][lte]': '2024-12-31',
      order: 'newest',
      page,
      per_page: '2',
    });
    expect(server.requests.map((r) => r.query)).toEqual([expectedQuery('1'), expectedQuery('2')]);
    // Rails reads repeated [] keys as one array: each value is its own pair on the wire.
    expect(server.requests[0]?.url).toContain('conditions%5Btype%5D%5B%5D=NOTICE&conditions%5Btype%5D%5B%5D=PRORULE');
    expect(result).toMatchObject({ count: 3, has_more: false });
    expect(result.results.map((r) => [r.document_number, r.type])).toEqual([
      [expect.any(String), expect.any(String)],
      ['2024-28004', 'Notice'],
      ['2024-27987', 'Proposed Rule'],
    ]);
  });

  it('search_documents refuses a malformed date filter under its bracketed name, before any request', async () => {
    const err = await run(templateDefinition(ID, '/api/v1'), 'search_documents', { 'conditions[publication_date][gte]': '11/01/2024' }).catch(
      (e: unknown) => e,
    );
    expect(err).toMatchObject({
      code: 'INVALID_ARGUMENT',
      violations: [{ field: 'inputs.conditions[publication_date][gte]', reason: expect.stringContaining('expected a date') }],
    });
    expect(server.requests).toHaveLength(0);
  });

  it('get_document reads an executive order; list_agencies reads the bare agency list', async () => {
    server.route('GET', '/api/v1/documents/:file', { json: recorded(ID, 'document-2025-02004.json') });
    server.route('GET', '/api/v1/agencies', { json: recorded(ID, 'agencies.json') });
    const def = templateDefinition(ID, '/api/v1');

    const eo = await run(def, 'get_document', { document_number: '2025-02004' });
    expect(server.requests[0]?.path).toBe('/api/v1/documents/2025-02004.json');
    expect(eo.results[0]).toMatchObject({
      document_number: '2025-02004',
      title: 'Protecting American Communities From Criminal Aliens',
      type: 'Presidential Document',
      subtype: 'Executive Order',
      executive_order_number: 14187,
      president: 'Donald Trump',
      signing_date: '2025-01-20',
      citation: '90 FR 8491',
      agency: 'Executive Office of the President',
      effective_on: null,
    });

    const agencies = await run(def, 'list_agencies', {});
    expect(server.requests[1]?.path).toBe('/api/v1/agencies');
    expect(agencies.results.map((a) => [a.agency_id, a.name, a.short_name, a.parent_id])).toEqual([
      [1, 'Action', null, null],
      [145, 'Environmental Protection Agency', 'EPA', null],
      [197, 'Fish and Wildlife Service', 'FWS', 253],
    ]);
  });
});

describe('congress-gov (Congress.gov API v3)', () => {
  const ID = 'congress-gov';
  const key = { api_key: 'congress-test-key-51c0' };

  it('list_bills pages with offset/limit until pagination.count, api_key in the query', async () => {
    server.route(
      'GET',
      '/v3/bill/:congress',
      byParam('offset', { '0': recorded(ID, 'bills-offset0.json'), '2': recorded(ID, 'bills-offset2.json') }),
    );
    const def = templateDefinition(ID, '/v3', (raw) => {
      raw.endpoints.list_bills.pagination.limit = 2;
    });
    const result = await run(def, 'list_bills', { congress: 118 }, key);
    expect(server.requests.map((r) => [r.path, r.query])).toEqual([
      ['/v3/bill/118', { sort: 'updateDate desc', format: 'json', offset: '0', limit: '2', api_key: 'congress-test-key-51c0' }],
      ['/v3/bill/118', { sort: 'updateDate desc', format: 'json', offset: '2', limit: '2', api_key: 'congress-test-key-51c0' }],
    ]);
    expect(result).toMatchObject({ count: 3, has_more: false });
    expect(result.results[0]).toEqual({
      congress: 118,
      type: 'HR',
      number: '8070',
      title: 'Servicemember Quality of Life Improvement and National Defense Authorization Act for Fiscal Year 2025',
      origin_chamber: 'House',
      latest_action_date: '2024-12-23',
      latest_action: 'Became Public Law No: 118-159.',
      update_date: '2025-01-15',
      url: 'https://api.congress.gov/v3/bill/118/hr/8070?format=json',
    });
    expect(result.results[2]).toMatchObject({ type: 'S', number: '2226', origin_chamber: 'Senate' });
  });

  it('get_bill fills congress, type and number into the path and maps the sponsor', async () => {
    server.route('GET', '/v3/bill/:congress/:type/:number', { json: recorded(ID, 'bill-118-hr-8070.json') });
    const result = await run(templateDefinition(ID, '/v3'), 'get_bill', { congress: 118, billType: 'hr', billNumber: 8070 }, key);
    expect(server.requests[0]).toMatchObject({
      path: '/v3/bill/118/hr/8070',
      query: { format: 'json', api_key: 'congress-test-key-51c0' },
    });
    expect(result.results).toEqual([
      {
        congress: 118,
        type: 'HR',
        number: '8070',
        title: 'Servicemember Quality of Life Improvement and National Defense Authorization Act for Fiscal Year 2025',
        introduced_date: '2024-04-18',
        origin_chamber: 'House',
        policy_area: 'Armed Forces and National Security',
        sponsor_bioguide_id: 'R000575',
        sponsor_name: 'Rep. Rogers, Mike D. [R-AL-3]',
        sponsor_party: 'R',
        sponsor_state: 'AL',
        cosponsor_count: 1,
        latest_action_date: '2024-12-23',
        latest_action: 'Became Public Law No: 118-159.',
        laws: [{ number: '118-159', type: 'Public Law' }],
        update_date: '2025-01-15T17:42:11Z',
      },
    ]);
  });

  it('list_house_votes reads houseRollCallVotes of one congress and session', async () => {
    server.route('GET', '/v3/house-vote/:congress/:session', { json: recorded(ID, 'house-votes-119-1.json') });
    const result = await run(templateDefinition(ID, '/v3'), 'list_house_votes', { congress: 119, session: 1 }, key);
    expect(server.requests[0]).toMatchObject({
      path: '/v3/house-vote/119/1',
      query: { format: 'json', offset: '0', limit: '250', api_key: 'congress-test-key-51c0' },
    });
    expect(result).toMatchObject({ count: 2, has_more: false });
    expect(result.results[0]).toEqual({
      congress: 119,
      session: 1,
      roll_call_number: 23,
      start_date: '2025-01-22T14:31:00-05:00',
      vote_type: 'Yea-and-Nay',
      result: 'Passed',
      legislation_type: 'S',
      legislation_number: '5',
      legislation_url: 'https://congress.gov/bill/119/senate-bill/5',
      source_data_url: 'https://clerk.house.gov/evs/2025/roll023.xml',
      url: 'https://api.congress.gov/v3/house-vote/119/1/23',
    });
  });
});

describe('courtlistener-recap (CourtListener REST API v4)', () => {
  const ID = 'courtlistener-recap';
  const token = { token: 'cl-token-5f3a9e' };
  const tokenHeader = 'Token cl-token-5f3a9e';
  const PAGE2_CURSOR = 'cz0xNy44NjUzMyZzPTY3MzU5NDgyJnQ9ciZkPTIwMjQtMTEtMjAmcD0y';
  /** A recorded page as the API would send it from this origin (its next/previous URLs point at the API itself). */
  const fromHere = (file: string): unknown =>
    JSON.parse(JSON.stringify(recorded(ID, file)).replaceAll('https://www.courtlistener.com', server.url));

  it('search_recap sends "Authorization: Token …" and follows the next URL of every page until it is null', async () => {
    server.route(
      'GET',
      '/api/rest/v4/search/',
      byParam('cursor', { '': fromHere('search-recap.json'), [PAGE2_CURSOR]: fromHere('search-recap-page2.json') }),
    );
    const def = templateDefinition(ID, '/api/rest/v4');
    expect(requiredCredentials(def)).toEqual(['token']);

    const result = await run(def, 'search_recap', { q: '"Meridian Holdings"' }, token);

    expect(server.requests.map((r) => [r.path, r.query])).toEqual([
      ['/api/rest/v4/search/', { q: '"Meridian Holdings"', type: 'r', order_by: 'score desc' }],
      // The next URL as the API gave it: cursor plus the original query.
      ['/api/rest/v4/search/', { cursor: PAGE2_CURSOR, order_by: 'score desc', q: '"Meridian Holdings"', type: 'r' }],
    ]);
    expect(server.requests.every((r) => r.headers.authorization === tokenHeader)).toBe(true);
    expect(result).toMatchObject({ count: 22, has_more: false });
    expect(result.next_cursor).toBeUndefined();
    expect(result.warnings).toBeUndefined();
    expect(result.results[0]).toEqual({
      case_name: 'Federal Trade Commission v. Meridian Holdings Group, Inc.',
      docket_number: '1:23-cv-03872',
      court: 'District Court, District of Columbia',
      court_id: 'dcd',
      date_filed: '2023-12-29',
      date_terminated: null,
      docket_id: 68412390,
      assigned_to: 'Amit Priyavadan Mehta',
      cause: '15:45 Federal Trade Commission Act',
      nature_of_suit: '890 Other Statutory Actions',
      parties: ['Federal Trade Commission', 'Meridian Holdings Group, Inc.', 'Meridian Capital Partners LLC', 'Thomas R. Whitfield'],
      attorneys: ['Sarah E. Lindquist', 'Marcus J. Delgado', 'Helen Park'],
      firms: ['Federal Trade Commission', 'Wilmer Cutler Pickering Hale and Dorr LLP'],
      url: '/docket/68412390/federal-trade-commission-v-meridian-holdings-group-inc/',
    });
    expect(result.results[21]).toMatchObject({
      case_name: 'Ortega v. Meridian Holdings Group, Inc.',
      docket_id: 66213081,
      court_id: 'nysd',
      parties: ['Luis Ortega', 'Meridian Holdings Group, Inc.'],
    });
  });

  it('search_recap never sends the token to a next URL on another host', async () => {
    // The recorded page names www.courtlistener.com; the connector here talks to the fixture server.
    server.route('GET', '/api/rest/v4/search/', { json: recorded(ID, 'search-recap.json') });

    const result = await run(templateDefinition(ID, '/api/rest/v4'), 'search_recap', { q: '"Meridian Holdings"' }, token);

    expect(server.requests).toHaveLength(1);
    expect(result).toMatchObject({
      count: 20,
      has_more: true,
      warnings: [`stopped paging: the next-page URL (at next) points away from ${server.url} and is not followed`],
    });
  });

  it('refuses to call without a stored token, before any request is sent', async () => {
    const err = await run(templateDefinition(ID, '/api/rest/v4'), 'search_opinions', { q: 'x' }, {}).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('needs the credential "token"') });
    expect(server.requests).toHaveLength(0);
  });

  it('list_dockets pages by page number (non-cursor ordering) until count', async () => {
    server.route(
      'GET',
      '/api/rest/v4/dockets/',
      byParam('page', { '1': recorded(ID, 'dockets-page1.json'), '2': recorded(ID, 'dockets-page2.json') }),
    );
    const result = await run(
      templateDefinition(ID, '/api/rest/v4'),
      'list_dockets',
      { court__id: 'nysd', date_filed__gte: '2024-11-01' },
      token,
    );
    expect(server.requests.map((r) => r.query)).toEqual([
      { court__id: 'nysd', date_filed__gte: '2024-11-01', order_by: '-date_filed', page: '1' },
      { court__id: 'nysd', date_filed__gte: '2024-11-01', order_by: '-date_filed', page: '2' },
    ]);
    expect(server.requests.every((r) => r.headers.authorization === tokenHeader)).toBe(true);
    expect(result).toMatchObject({ count: 23, has_more: false });
    expect(result.results[0]).toEqual({
      docket_id: 69001234,
      case_name: 'Securities and Exchange Commission v. Harborview Capital Management LP',
      docket_number: '1:24-cv-09210',
      court_id: 'nysd',
      date_filed: '2024-11-30',
      date_terminated: null,
      date_last_filing: '2024-12-05',
      assigned_to: 'Jed S. Rakoff',
      referred_to: 'Sarah Netburn',
      cause: '15:78m(a) Securities Exchange Act',
      nature_of_suit: 'Securities/Commodities',
      jury_demand: 'None',
      pacer_case_id: '631200',
      url: '/docket/69001234/securities-and-exchange-commission-v-harborview-capital-management-lp/',
    });
    expect(result.results[22]).toMatchObject({ docket_id: 68799428, date_filed: '2024-11-08', docket_number: '1:24-cv-09056' });
  });

  it('search_opinions maps case law hits; a last page (next: null) ends the call with has_more false', async () => {
    server.route('GET', '/api/rest/v4/search/', { json: recorded(ID, 'search-opinions.json') });
    const result = await run(
      templateDefinition(ID, '/api/rest/v4'),
      'search_opinions',
      { q: 'antitrust monopoly', court: 'cadc dcd', filed_after: '01/01/2024' },
      token,
    );
    expect(server.requests[0]?.query).toEqual({
      q: 'antitrust monopoly',
      type: 'o',
      order_by: 'score desc',
      court: 'cadc dcd',
      filed_after: '01/01/2024',
    });
    expect(result).toMatchObject({ count: 2, has_more: false });
    expect(result.next_cursor).toBeUndefined();
    expect(result.results[0]).toEqual({
      case_name: 'National Association of Realtors v. United States',
      court: 'Court of Appeals for the D.C. Circuit',
      court_id: 'cadc',
      date_filed: '2024-04-05',
      docket_number: '23-5065',
      cluster_id: 9421177,
      docket_id: 67110832,
      judge: 'Srinivasan, Millett, Childs',
      citations: ['97 F.4th 943'],
      cite_count: 14,
      status: 'Published',
      snippet: 'The Antitrust Division of the Department of Justice ... closing the <mark>antitrust</mark> investigation',
      url: '/opinion/9421177/national-association-of-realtors-v-united-states/',
    });
  });
});
