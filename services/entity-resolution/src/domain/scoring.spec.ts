import { decide, effectiveThresholds, MIN_AUTO_THRESHOLD } from './decision.js';
import { normaliseRecord } from './normalise.js';
import type { ErRecord } from './record.js';
import { comparePair } from './scoring.js';

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
