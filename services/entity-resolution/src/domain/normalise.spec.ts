import { canonicalId, canonicalIds } from './external-ids.js';
import { normaliseOrg, normalisePerson, normaliseRecord } from './normalise.js';
import { fold } from './text.js';

describe('fold', () => {
  it.each([
    ['José Ñúñez', 'jose nunez'],
    ["O'Brien", 'obrien'],
    ['AT&T', 'at and t'],
    ['  Straße   Müller ', 'strasse muller'],
    ['Smith-Jones, Jr.', 'smith jones jr'],
    ['', ''],
  ])('%s → %s', (raw, out) => expect(fold(raw)).toBe(out));
});

describe('normalisePerson', () => {
  it('reads "Last, First M." as first-name-first', () => {
    expect(normalisePerson('Smith, John Q.')).toEqual({
      first: 'john',
      middle: 'q',
      last: 'smith',
      canonical: 'john smith',
    });
  });
  it('drops titles and suffixes on either side of the comma', () => {
    expect(normalisePerson('Dr. John Smith Jr.').canonical).toBe('john smith');
    expect(normalisePerson('Smith Jr., Hon. John').canonical).toBe('john smith');
    expect(normalisePerson('Mrs. Mary Ann Lee PhD')).toEqual({
      first: 'mary',
      middle: 'a',
      last: 'lee',
      canonical: 'mary lee',
    });
  });
  it('maps nicknames to the formal first name', () => {
    expect(normalisePerson('Bill Gates').canonical).toBe('william gates');
    expect(normalisePerson('GATES, BILL').canonical).toBe('william gates');
    expect(normalisePerson('Peggy Olson').first).toBe('margaret');
  });
  it('folds accents and case', () => {
    expect(normalisePerson('JOSÉ ÁLVAREZ').canonical).toBe('jose alvarez');
  });
  it('keeps an initial as the first name', () => {
    expect(normalisePerson('J. Smith')).toMatchObject({ first: 'j', last: 'smith' });
  });
  it('handles one-word and empty names', () => {
    expect(normalisePerson('Cher')).toEqual({ first: '', middle: '', last: 'cher', canonical: 'cher' });
    expect(normalisePerson('Mr.').canonical).toBe('');
  });
});

describe('normaliseOrg', () => {
  it.each([
    ['Acme Inc.', 'acme', 'corporation'],
    ['ACME, INCORPORATED', 'acme', 'corporation'],
    ['Acme Corp', 'acme', 'corporation'],
    ['The Acme Company', 'acme', 'corporation'],
    ['Acme L.L.C.', 'acme', 'llc'],
    ['Acme Limited Liability Company', 'acme', 'llc'],
    ['Smith Family Foundation', 'smith family', 'foundation'],
    ['Smith Family Fdn', 'smith family', 'foundation'],
    ['Smith Family Fund', 'smith family', 'fund'],
    ['Friends of Jane PAC', 'friends of jane', 'pac'],
    ['Friends of Jane Political Action Committee', 'friends of jane', 'pac'],
    ['Acme Holdings Co Inc', 'acme holdings', 'corporation'],
    ['Natl Assn of Realtors', 'national association of realtors', ''],
    ['Intl Rescue Cmte', 'international rescue committee', ''],
    ['Procter & Gamble Co', 'procter and gamble', 'corporation'],
  ])('%s → core %s, form %s', (raw, core, form) => {
    const o = normaliseOrg(raw);
    expect(o.core).toBe(core);
    expect(o.legalForm).toBe(form);
  });
  it('never strips a legal form that is the whole name', () => {
    expect(normaliseOrg('Fund').core).toBe('fund');
    expect(normaliseOrg('Inc').core).toBe('inc');
  });
  it('tells sibling foundations apart by their legal form', () => {
    expect(normaliseOrg('Walton Family Foundation').canonical).not.toBe(
      normaliseOrg('Walton Family Fund').canonical,
    );
  });
});

describe('external ids', () => {
  it.each([
    ['ein', '04-3568784', '04-3568784'],
    ['ein', '043568784', '04-3568784'],
    ['ein', ' 04 3568784 ', '04-3568784'],
    ['fec_id', 'c00523514', 'C00523514'],
    ['fec_id', 'H8CA05035', 'H8CA05035'],
    ['cik', '1234567', '0001234567'],
    ['cik', 'CIK0001234567', '0001234567'],
  ] as const)('%s %s → %s', (kind, raw, out) =>
    expect(canonicalId(kind, raw)).toEqual({ ok: true, value: out }),
  );

  it.each([
    ['ein', '04-356878'],
    ['ein', 'AB-CDEFGHI'],
    ['fec_id', 'X00523514'],
    ['fec_id', 'C0052351'],
    ['cik', '12345678901'],
    ['cik', '0000'],
  ] as const)('%s %s is malformed', (kind, raw) => expect(canonicalId(kind, raw).ok).toBe(false));

  it('reports malformed and unknown kinds by name and keeps the good ones', () => {
    const { ids, problems } = canonicalIds({ ein: '04-3568784', cik: 'x', duns: '123', fec_id: '' });
    expect(ids).toEqual({ ein: '04-3568784' });
    expect(problems.map((p) => p.kind).sort()).toEqual(['cik', 'duns']);
    expect(problems.find((p) => p.kind === 'duns')?.reason).toMatch(/unknown id kind/);
  });
});

describe('normaliseRecord', () => {
  it('normalises a person with attributes and ids', () => {
    const { record, problems } = normaliseRecord({
      recordId: 'r1',
      entityType: 'PERSON',
      name: 'Smith, Bob',
      externalIds: { fec_id: 'h8ca05035' },
      city: 'San José',
      state: 'ca',
      employer: 'Acme, Inc.',
    });
    expect(problems).toEqual([]);
    expect(record).toMatchObject({
      canonical: 'robert smith',
      tokens: ['robert', 'smith'],
      city: 'san jose',
      state: 'ca',
      employer: 'acme',
      ids: { fec_id: 'H8CA05035' },
    });
  });
  it('normalises an organisation: tokens exclude the legal form', () => {
    const { record } = normaliseRecord({ recordId: 'r2', entityType: 'ORG', name: 'The Acme Holdings LLC' });
    expect(record.tokens).toEqual(['acme', 'holdings']);
    expect(record.org?.legalForm).toBe('llc');
  });
});
