import { decide, effectiveThresholds, MIN_AUTO_THRESHOLD } from './decision.js';
import { normaliseRecord, type NormalisedRecord } from './normalise.js';
import type { ErRecord } from './record.js';
import { clusterLevels, compareLevels, firstNameLevel, idLevel, namesClose, sharedContext } from './levels.js';
import { DEFAULT_MODEL, comparePair, levelWeight, type NameFrequency, UNCALIBRATED_MODEL } from './scoring.js';

let n = 0;
const rec = (r: Partial<ErRecord> & { name: string }) =>
  normaliseRecord({ recordId: `r${++n}`, entityType: 'PERSON', ...r }).record;
const p = (a: Partial<ErRecord> & { name: string }, b: Partial<ErRecord> & { name: string }) =>
  comparePair(rec(a), rec(b)).probability;

describe('comparePair', () => {
  it('is near-certain on a shared id even when the names differ a lot', () => {
    const c = comparePair(
      rec({ entityType: 'ORG', name: 'Acme Inc', externalIds: { ein: '04-3568784' } }),
      rec({ entityType: 'ORG', name: 'ACME Holdings', externalIds: { ein: '043568784' } }),
    );
    expect(c.sharedId).toBe('ein');
    expect(c.method).toBe('external_id');
    expect(c.probability).toBeGreaterThan(0.99);
  });
  it('forbids a merge on conflicting ids of one kind, whatever the names', () => {
    const c = comparePair(
      rec({
        entityType: 'ORG',
        name: 'Smith Family Foundation',
        state: 'NY',
        externalIds: { ein: '11-1111111' },
      }),
      rec({
        entityType: 'ORG',
        name: 'Smith Family Foundation',
        state: 'NY',
        externalIds: { ein: '22-2222222' },
      }),
    );
    expect(c.conflict).toBe('ein');
    expect(c.probability).toBe(0);
  });
  it('does not treat ids of different kinds as a conflict', () => {
    const c = comparePair(
      rec({ entityType: 'ORG', name: 'Acme Inc', externalIds: { ein: '04-3568784' } }),
      rec({ entityType: 'ORG', name: 'Acme Inc', externalIds: { cik: '123' } }),
    );
    expect(c.conflict).toBeUndefined();
  });
  it('gives one city name in two states its own level, and none to two cities in two states', () => {
    const levels = (a: Partial<ErRecord>, b: Partial<ErRecord>) =>
      compareLevels(rec({ name: 'Donna Ramirez', ...a }), rec({ name: 'Donna Ramirez', ...b })).levels;
    expect(levels({ state: 'IN', city: 'Wenville' }, { state: 'IN', city: 'Wenvile' }).city).toBe('same');
    expect(levels({ state: 'IN', city: 'Wenville' }, { state: 'IN', city: 'Ashland' }).city).toBe('different');
    expect(levels({ state: 'IN', city: 'Wenville' }, { state: 'WA', city: 'Wenville' }).city).toBe('same_elsewhere');
    expect(levels({ state: 'IN', city: 'Wenville' }, { state: 'WA', city: 'Ashland' }).city).toBeUndefined();
    expect(levels({ city: 'Wenville' }, { state: 'WA', city: 'Ashland' }).city).toBe('different');
    // A state keyed wrong keeps the city: more likely the same person than a namesake in another town.
    const base = { name: 'Donna Ramirez', state: 'IN', city: 'Wenville' };
    expect(p(base, { ...base, state: 'WA' })).toBeGreaterThan(p(base, { ...base, state: 'WA', city: 'Ashland' }));
    expect(p(base, { ...base, state: 'WA' })).toBeLessThan(p(base, base));
  });
  it('scores agreement above disagreement, attribute by attribute', () => {
    const base = { name: 'Ezekiel Okonkwo', state: 'CA', city: 'Fresno' };
    expect(p(base, base)).toBeGreaterThan(p(base, { ...base, city: 'Oakland' }));
    expect(p(base, { ...base, city: 'Oakland' })).toBeGreaterThan(
      p(base, { ...base, city: 'Oakland', state: 'TX' }),
    );
    expect(p(base, { ...base, name: 'Ezekiel Okonkow' })).toBeGreaterThan(
      p(base, { ...base, name: 'Ezekiel Adebayo' }),
    );
  });
  it('treats missing attributes as neutral', () => {
    const a = rec({ name: 'Ezekiel Okonkwo', state: 'CA' });
    const c = comparePair(a, rec({ name: 'Ezekiel Okonkwo' }));
    expect(c.levels.state).toBeUndefined();
    expect(c.weights.state).toBeUndefined();
  });
  it('merges nickname, format and title variants of one person', () => {
    expect(
      p(
        { name: 'Bill Okonkwo', state: 'CA', city: 'Fresno' },
        { name: 'Dr. Okonkwo, William', state: 'CA', city: 'Fresno' },
      ),
    ).toBeGreaterThan(0.9);
  });
  it.each([
    // A nickname with a typo is no nickname to normalisation, but is one edit from one.
    ['Bfilly Zeltelvin', 'William Zeltelvin', 'one_edit'],
    ['Amggie Mormor', 'Margaret Mormor', 'one_edit'],
    ['JAKK JORASH', 'John Jorash', 'one_edit'],
    ['Mr. Manly Dunkel', 'Amanda Dunkel', 'one_edit'],
    // An initial may be the nickname's (Betty is Elizabeth).
    ['B. Thompson', 'Betty Thompson', 'initial'],
    ['B. Thompson', 'Elizabeth Thompson', 'initial'],
    ['E. Thompson', 'Betty Thompson', 'initial'],
    // Still different: another name's nickname, another initial, two edits from every nickname.
    ['Bfilly Zeltelvin', 'Robert Zeltelvin', 'different'],
    ['K. Thompson', 'Betty Thompson', 'different'],
    ['Bxfxlly Zeltelvin', 'William Zeltelvin', 'different'],
  ])('compares first names through their nicknames: %s against %s is %s, either way round', (a, b, want) => {
    const level = (x: string, y: string) => compareLevels(rec({ name: x }), rec({ name: y })).levels.first_name;
    expect(level(a, b)).toBe(want);
    expect(level(b, a)).toBe(want);
    expect(firstNameLevel(rec({ name: a }).person!.first, rec({ name: b }).person!.first)).toBe(want);
  });
  it('keeps same-name people in different states and cities out of auto-merge', () => {
    expect(
      p(
        { name: 'John Smith', state: 'CA', city: 'Fresno' },
        { name: 'John Smith', state: 'TX', city: 'Austin' },
      ),
    ).toBeLessThan(0.9);
  });
  it('keeps sibling organisations (other legal form) out of auto-merge', () => {
    expect(
      p(
        { entityType: 'ORG', name: 'Walton Family Foundation', state: 'AR' },
        { entityType: 'ORG', name: 'Walton Family Fund', state: 'AR' },
      ),
    ).toBeLessThan(0.9);
  });
  it('applies the term-frequency adjustment: a common surname weighs less than a rare one', () => {
    const a = rec({ name: 'John Smith', state: 'CA' });
    const b = rec({ name: 'John Smith', state: 'CA' });
    const common = comparePair(a, b, () => 0.01);
    const rare = comparePair(a, b, () => 0.00001);
    expect(rare.weight).toBeGreaterThan(common.weight);
    expect(common.levels.last_name).toBe('exact');
  });
  it('is symmetric in probability', () => {
    const a = rec({ name: 'Smith, Jon Q', state: 'CA', employer: 'Acme' });
    const b = rec({ name: 'Jonathan Smith', state: 'CA' });
    expect(comparePair(a, b).probability).toBeCloseTo(comparePair(b, a).probability, 10);
  });
  it('names its match method', () => {
    expect(comparePair(rec({ name: 'Ann Lee' }), rec({ name: 'Lee, Ann' })).method).toBe('exact_name');
    expect(comparePair(rec({ name: 'Ann Lee' }), rec({ name: 'Anne Lee' })).method).toBe('fuzzy_name');
  });
});

describe('decide', () => {
  it('merges at or above the auto threshold, reviews the band, creates below', () => {
    const t = { auto: 0.9, review: 0.5 };
    expect(decide(0.9, false, t)).toBe('auto_merge');
    expect(decide(0.89, false, t)).toBe('flag_review');
    expect(decide(0.5, false, t)).toBe('flag_review');
    expect(decide(0.49, false, t)).toBe('create_new');
  });
  it('never auto-merges below 0.7, whatever the configuration', () => {
    expect(MIN_AUTO_THRESHOLD).toBe(0.7);
    expect(decide(0.69, false, { auto: 0.3, review: 0.1 })).toBe('flag_review');
    expect(decide(0.7, false, { auto: 0.3, review: 0.1 })).toBe('auto_merge');
    expect(effectiveThresholds({ auto: 0.2, review: 0.9 })).toEqual({ auto: 0.7, review: 0.7 });
  });
  it('never merges or reviews a conflict', () => {
    expect(decide(1, true)).toBe('create_new');
  });
});

describe('id level', () => {
  it('tells ids of other kinds from missing ids', () => {
    expect(idLevel({ ein: '12-3456789' }, { fec_id: 'C00000001' })).toBe('other_kinds');
    expect(idLevel({ ein: '12-3456789' }, {})).toBe('not_shared');
    expect(idLevel({}, {})).toBe('not_shared');
    expect(idLevel({ ein: '1' }, { ein: '1' }, 'ein')).toBe('same');
  });
  it('weighs a corporation against a committee (EIN against FEC id) below the same pair without ids', () => {
    const corp = { entityType: 'ORG' as const, name: 'Summit Energy Group', state: 'IL' };
    const withIds = comparePair(
      rec({ ...corp, externalIds: { ein: '78-1416994' } }),
      rec({ ...corp, name: 'Summit Energy Group PAC', externalIds: { fec_id: 'C75714332' } }),
    );
    const without = comparePair(rec(corp), rec({ ...corp, name: 'Summit Energy Group PAC' }));
    expect(withIds.levels.external_id).toBe('other_kinds');
    expect(withIds.probability).toBeLessThan(without.probability);
  });
});

describe('context comparison', () => {
  const base = { name: 'Maria Lopez', state: 'TX' };
  it('counts shared related entities and documents, case and punctuation folded', () => {
    expect(sharedContext(['a', 'b', 'c'], ['b', 'c', 'd'])).toBe(2);
    const a = rec({ ...base, context: ['Acme Corp', 'doc:17', 'Lopez for Texas'] });
    const b = rec({ ...base, context: ['ACME CORP.', 'doc:17'] });
    expect(compareLevels(a, b).levels.context).toBe('two_or_more');
    expect(compareLevels(a, rec({ ...base, context: ['doc:17'] })).levels.context).toBe('one');
    expect(compareLevels(a, rec({ ...base, context: ['other'] })).levels.context).toBe('none');
  });
  it('is missing data when either record has no context', () => {
    expect(compareLevels(rec({ ...base, context: ['x'] }), rec(base)).levels.context).toBeUndefined();
  });
  it('raises the probability with shared context and lowers it with none shared', () => {
    const a = { ...base, city: 'Austin' };
    const b = { name: 'M. Lopez', state: 'TX' };
    const plain = p(a, b);
    const shared = p({ ...a, context: ['acme corp', 'doc:1'] }, { ...b, context: ['Acme Corp', 'doc:1'] });
    const none = p({ ...a, context: ['acme corp'] }, { ...b, context: ['other inc'] });
    expect(shared).toBeGreaterThan(plain);
    expect(none).toBeLessThan(plain);
    expect(shared).toBeGreaterThan(0.9);
  });
});

describe('term frequency', () => {
  it("does not count a name's own duplicates as evidence that it is common", () => {
    const a = rec({ entityType: 'ORG', name: 'Vinnorridge Arts Partners Trust', state: 'IL' });
    const b = rec({ entityType: 'ORG', name: 'Vinnorridge Arts Partners Trust', city: 'Fairview' });
    const population = 40_000;
    // Three other records carry the name: about two of them are the entity's own duplicates.
    const three = comparePair(a, b, () => 3 / population, undefined, population);
    const thirty = comparePair(a, b, () => 30 / population, undefined, population);
    // The term-frequency weight (which the calibration reads) and the calibrated name weight.
    expect(three.tfWeight).toBeGreaterThan(thirty.tfWeight! + 3);
    expect(three.weights.name).toBeGreaterThan(thirty.weights.name! + 1);
    // Above the weight of the raw frequency: the expected duplicates came off the count.
    expect(three.tfWeight).toBeGreaterThan(
      Math.log2(DEFAULT_MODEL.ORG.m.name!.exact! / (3 / population)) + 0.5,
    );
  });
});

describe('term frequency of a near name', () => {
  const population = 500_000;
  // Frequencies by value: the usual spelling is carried by `usual` records, the typo by none other.
  const freqOf =
    (usual: number): NameFrequency =>
    (_type, value) =>
      value === 'belquin' ? usual / population : 0;
  const typo = rec({ name: 'Olga Belqin', state: 'MN' });
  const right = rec({ name: 'Olga Belquin', state: 'MN' });

  it("is the weight an exact agreement on the more common spelling would have, whichever side carries it", () => {
    const rare = comparePair(typo, right, freqOf(1), undefined, population);
    expect(rare.levels.last_name).toBe('one_edit');
    // Both orders read the usual spelling's count: the typo's own (none) is never the one used.
    expect(comparePair(right, typo, freqOf(1), undefined, population).tfFuzzyWeight).toBeCloseTo(
      rare.tfFuzzyWeight!,
      9,
    );
    const exactOnUsual = comparePair(right, rec({ name: 'Ann Belquin' }), freqOf(1), undefined, population);
    expect(rare.tfFuzzyWeight).toBeCloseTo(exactOnUsual.tfWeight!, 9);
    // A typo of a common name says less: lower weight, lower probability under the calibration.
    const common = comparePair(typo, right, freqOf(5_000), undefined, population);
    expect(common.tfFuzzyWeight).toBeLessThan(rare.tfFuzzyWeight! - 8);
    expect(common.probability).toBeLessThan(rare.probability);
    expect(DEFAULT_MODEL.calibration!.PERSON!.tfFuzzy).toBeGreaterThan(0);
  });
  it('is absent for an exact or a different name, and without frequencies', () => {
    expect(comparePair(right, right, freqOf(1), undefined, population).tfFuzzyWeight).toBeUndefined();
    expect(
      comparePair(typo, rec({ name: 'Olga Zelvin' }), freqOf(1), undefined, population).tfFuzzyWeight,
    ).toBeUndefined();
    expect(comparePair(typo, right).tfFuzzyWeight).toBeUndefined();
    // An organisation's core name two edits apart is a near name too.
    const org = (name: string) => rec({ entityType: 'ORG', name });
    const orgs = comparePair(
      org('Granite Climate Servces Sterwickmor'),
      org('Granite Climate Services Sterwikmor'),
      () => 0,
      undefined,
      population,
    );
    expect(orgs.levels.name).toBe('two_edits');
    expect(orgs.tfFuzzyWeight).toBeGreaterThan(0);
  });
  it('leaves the Fellegi–Sunter weights of the EM model alone (only the calibration reads it)', () => {
    const em = (usual: number) => comparePair(typo, right, freqOf(usual), UNCALIBRATED_MODEL, population);
    expect(em(1).tfFuzzyWeight).toBeGreaterThan(em(5_000).tfFuzzyWeight!);
    expect(em(1).weight).toBeCloseTo(em(5_000).weight, 9);
  });
});

describe('legal form given one core name (close-name u, the EM model)', () => {
  const org = (name: string, state?: string) => rec({ entityType: 'ORG', name, ...(state ? { state } : {}) });
  it('counts an agreeing legal form far more when the core names are one (siblings differ in form)', () => {
    const em = (x: NormalisedRecord, y: NormalisedRecord) => comparePair(x, y, undefined, UNCALIBRATED_MODEL);
    const exact = em(org('Corhal Family Foundation', 'MD'), org('Corhal Family Fdn', 'VA'));
    const typo = em(org('Corhal Family Foundation', 'MD'), org('Corhal Famliy Fdn', 'VA'));
    expect(exact.levels.legal_form).toBe('same');
    expect(typo.levels.legal_form).toBe('same');
    const tm = DEFAULT_MODEL.ORG;
    expect(exact.weights.legal_form).toBeCloseTo(
      Math.log2(tm.m.legal_form!.same! / tm.uClose!.legal_form!.same!),
      6,
    );
    expect(typo.weights.legal_form).toBeCloseTo(
      Math.log2(tm.m.legal_form!.same! / tm.u.legal_form!.same!),
      6,
    );
    expect(exact.weights.legal_form).toBeGreaterThan(typo.weights.legal_form! + 3);
  });
  it('still all but forbids one core name under two legal forms, and leaves a missing form neutral', () => {
    const sibling = comparePair(org('Corhal Family Foundation', 'MD'), org('Corhal Family PAC', 'MD'));
    expect(sibling.levels.legal_form).toBe('different');
    expect(sibling.weights.legal_form).toBeLessThan(-8);
    const bare = comparePair(org('Corhal Family Foundation', 'MD'), org('Corhal Family', 'MD'));
    expect(bare.levels.legal_form).toBeUndefined();
    expect(bare.probability).toBeLessThan(
      comparePair(org('Corhal Family Foundation', 'MD'), org('Corhal Family Fdn', 'MD')).probability,
    );
  });
  it('knows which pairs have close names, and falls back to u without a close-name table', () => {
    expect(namesClose('ORG', { name: 'exact' })).toBe(true);
    expect(namesClose('ORG', { name: 'one_edit' })).toBe(false);
    expect(namesClose('ORG', {})).toBe(false);
    expect(namesClose('PERSON', { last_name: 'exact', first_name: 'exact' })).toBe(true);
    expect(namesClose('PERSON', { last_name: 'exact', first_name: 'initial' })).toBe(false);
    const { uClose: _dropped, ...plain } = DEFAULT_MODEL.ORG;
    expect(levelWeight(plain, 'legal_form', 'same', undefined, true)).toBeCloseTo(
      levelWeight(plain, 'legal_form', 'same'),
      9,
    );
    // An unknown level or feature weighs nothing.
    expect(levelWeight(DEFAULT_MODEL.ORG, 'legal_form', 'sideways', undefined, true)).toBe(0);
    expect(levelWeight(DEFAULT_MODEL.ORG, 'no_such_feature', 'same', undefined, true)).toBe(0);
  });
});

describe('clusterLevels', () => {
  it('takes the names of the best pair and the best level of every other attribute over the cluster', () => {
    const best = { levels: { last_name: 'exact', first_name: 'exact', state: 'different' } };
    const other = { levels: { last_name: 'different', first_name: 'initial', state: 'same', city: 'same' } };
    const out = clusterLevels(best, [other], 'PERSON');
    expect(out.levels).toEqual({ last_name: 'exact', first_name: 'exact', state: 'same', city: 'same' });
    expect(clusterLevels(best, [], 'PERSON')).toBe(best);
  });
});
