import { acceptModelValue, extractInputs, findDates, findNames, findNumbers, type PlaybookInput } from './input-extraction.js';

const input = (name: string, type: PlaybookInput['type'], over: Partial<PlaybookInput> = {}): PlaybookInput => ({ name, type, required: false, extractFrom: 'query', ...over });
const names = (text: string) => findNames(text).map((f) => f.value);

describe('findNames', () => {
  it.each([
    ['Investigate the Omidyar Foundation', ['Omidyar Foundation']],
    ['investigate the Omidyar Foundation and Koch Network', ['Omidyar Foundation', 'Koch Network']],
    ['Who funds Bank of America?', ['Bank of America']],
    ['Find "acme holdings llc" filings', ['acme holdings llc']],
    ['Find “Acme Corp” and Beta Labs', ['Acme Corp', 'Beta Labs']],
    ["check 'Gamma Inc' now", ['Gamma Inc']],
    ['Omidyar Network funds whom?', ['Omidyar Network']],
    ['Acme funds whom?', []],
    ['Investigate. Then Acme Corp.', ['Acme Corp']],
    ['the Bill & Melinda Gates Foundation', ['Bill & Melinda Gates Foundation']],
    ['look at Johnson &', ['Johnson']],
    ['nothing capitalised here', []],
    ['I think so', []],
    ['filings since March 5, 2024 for Acme Corp', ['Acme Corp']],
    ["don't touch Acme's filings", ["Acme's"]],
  ])('%j → %j', (text, expected) => {
    expect(names(text)).toEqual(expected);
  });
});

describe('findDates', () => {
  it('reads ISO, month-day-year and day-month-year dates in order', () => {
    expect(findDates('from 5 March 2024 to 2024-04-01 and Jan. 2nd, 2023').map((d) => [d.value, d.rule])).toEqual([
      ['2024-03-05', 'day_month_year'],
      ['2024-04-01', 'iso_date'],
      ['2023-01-02', 'month_day_year'],
    ]);
    expect(findDates('Sept 30 2022').map((d) => d.value)).toEqual(['2022-09-30']);
  });

  it.each(['2024-02-30', '2024-13-01', 'February 30, 2024', '32 May 2024', '2024/03/05', 'March 2024'])('%j is no date', (text) => {
    expect(findDates(text)).toEqual([]);
  });
});

describe('findNumbers', () => {
  it('reads plain, signed, decimal and grouped numbers, not digits of dates or names', () => {
    expect(findNumbers('top 10 grants over 1,250.5 or -3 since 2024-01-02, form 990-PF, id A12').map((f) => f.value)).toEqual([10, 1250.5, -3]);
    expect(findNumbers('no numbers')).toEqual([]);
  });
});

describe('extractInputs', () => {
  it('fills entity names, dates and numbers from the message, in order', () => {
    const out = extractInputs('Compare the Omidyar Foundation with "Koch Network" since 2020-01-01, top 5', [
      input('org', 'entity_name'),
      input('other', 'entity_name'),
      input('since', 'date'),
      input('limit', 'number'),
    ]);
    expect(out.values).toEqual({ org: 'Omidyar Foundation', other: 'Koch Network', since: '2020-01-01', limit: 5 });
    expect(out.extracted.map((e) => [e.name, e.source, e.rule])).toEqual([
      ['org', 'query', 'capitalised'],
      ['other', 'query', 'quoted'],
      ['since', 'query', 'iso_date'],
      ['limit', 'query', 'number'],
    ]);
    expect(out.clarify).toBeUndefined();
  });

  it('a list takes every quoted name, else every capitalised run', () => {
    expect(extractInputs('map "A Corp", "B Corp" and Gamma Labs', [input('orgs', 'list')]).values).toEqual({ orgs: ['A Corp', 'B Corp'] });
    expect(extractInputs('map Acme Corp and Beta Labs', [input('orgs', 'list')]).values).toEqual({ orgs: ['Acme Corp', 'Beta Labs'] });
  });

  it('explicit values win; defaults fill what was not found; inputs without extract_from are not extracted', () => {
    const out = extractInputs('Investigate Acme Corp', [input('org', 'entity_name'), input('year', 'number', { default: 2023 }), input('note', 'string', { extractFrom: undefined })], { org: 'Given Inc' });
    expect(out.values).toEqual({ org: 'Given Inc', year: 2023 });
    expect(out.extracted.map((e) => e.source)).toEqual(['provided', 'default']);
  });

  it('an enum input takes only an allowed value, in the enum’s spelling', () => {
    expect(extractInputs('filings of Acme Corp by "ProPublica"', [input('source', 'string', { enum: ['propublica', 'irs'] })]).values).toEqual({ source: 'propublica' });
    expect(extractInputs('filings of Acme Corp', [input('source', 'string', { enum: ['irs'] })]).values).toEqual({});
  });

  it('a missing required input is a clarify request, never a guess', () => {
    const out = extractInputs('investigate it please', [input('org', 'entity_name', { required: true, description: 'organisation to investigate' }), input('since', 'date', { required: true })]);
    expect(out.values).toEqual({});
    expect(out.clarify).toEqual({
      type: 'clarify',
      message: "Which organisation to investigate should I use for 'org'? Which since should I use for 'since' (a date, e.g. 2024-03-05)?",
      questions: [
        { input: 'org', type: 'entity_name', question: "Which organisation to investigate should I use for 'org'?" },
        { input: 'since', type: 'date', question: "Which since should I use for 'since' (a date, e.g. 2024-03-05)?" },
      ],
    });
  });

  it('empty or null explicit values do not count as given', () => {
    const out = extractInputs('', [input('org', 'entity_name', { required: true, enum: ['a', 'b'] }), input('n', 'list', { required: true })], { org: '', n: null });
    expect(out.clarify?.questions.map((q) => q.question)).toEqual(["Which org should I use for 'org'? One of: a, b.", "Which n should I use for 'n' (one or more, comma separated)?"]);
  });
});

describe('inputs read by the model (modelValues)', () => {
  const org: PlaybookInput = { name: 'org_name', type: 'entity_name', required: true, extractFrom: 'query' };
  const since: PlaybookInput = { name: 'since', type: 'date', required: false, extractFrom: 'query' };
  const kind: PlaybookInput = { name: 'kind', type: 'string', required: false, extractFrom: 'query', enum: ['Grants', 'Filings'] };

  it('takes the model\'s values where the patterns find nothing (lower-case names), marked rule model', () => {
    const out = extractInputs('what does the omidyar foundation fund since march 5 2024?', [org, since], {}, { org_name: 'Omidyar Foundation', since: '2024-03-05' });
    expect(out.values).toEqual({ org_name: 'Omidyar Foundation', since: '2024-03-05' });
    expect(out.extracted).toEqual([
      { name: 'org_name', value: 'Omidyar Foundation', source: 'query', rule: 'model' },
      { name: 'since', value: '2024-03-05', source: 'query', rule: 'model' },
    ]);
    expect(out.clarify).toBeUndefined();
  });

  it('a name the message does not contain is invented: dropped, and the required input asked for', () => {
    const out = extractInputs('investigate something for me', [org], {}, { org_name: 'Gates Foundation' });
    expect(out.values).toEqual({});
    expect(out.clarify?.questions).toEqual([expect.objectContaining({ input: 'org_name' })]);
  });

  it('null from the model is missing (no fallback to guessing by patterns); given values still win', () => {
    expect(extractInputs('investigate the Ford Foundation', [org], {}, { org_name: null }).clarify).toBeDefined();
    expect(extractInputs('investigate the Ford Foundation', [org], { org_name: 'Given' }, { org_name: 'Ford Foundation' }).values).toEqual({ org_name: 'Given' });
  });

  it('acceptModelValue checks dates, numbers, lists and enums', () => {
    expect(acceptModelValue(since, '2024-02-30', 'q')).toBeUndefined();
    expect(acceptModelValue(since, 'March 5, 2024', 'q')).toBe('2024-03-05');
    expect(acceptModelValue({ name: 'n', type: 'number', required: false }, '1,250.5', 'q')).toBe(1250.5);
    expect(acceptModelValue({ name: 'n', type: 'number', required: false }, 'many', 'q')).toBeUndefined();
    expect(acceptModelValue({ name: 'l', type: 'list', required: false }, ['Acme', 'Zeta'], 'compare acme and beta')).toEqual(['Acme']);
    expect(acceptModelValue(kind, 'grants', 'show grants')).toBe('Grants');
    expect(acceptModelValue(kind, 'loans', 'show loans')).toBeUndefined();
  });
});
