import { DEFAULT_THRESHOLDS } from './decision.js';
import { normaliseRecord } from './normalise.js';
import type { ErRecord } from './record.js';
import { AMBIGUITY_MARGIN, nearIds, resolveOne, type Candidate } from './resolve-one.js';

const rec = (id: string, r: Partial<ErRecord> & { name: string }) =>
  normaliseRecord({ recordId: id, entityType: 'ORG', ...r }).record;
const cand = (id: string, r: Partial<ErRecord> & { name: string }): Candidate => {
  const record = rec(id, r);
  return { record, clusterId: id, clusterIds: record.ids };
};

describe('resolveOne', () => {
  const foundation = cand('f', {
    name: 'Walton Family Foundation',
    state: 'AR',
    city: 'Bentonville',
    externalIds: { ein: '11-1111111' },
  });
  const fund = cand('u', {
    name: 'Walton Family Fund',
    state: 'AR',
    city: 'Bentonville',
    externalIds: { ein: '22-2222222' },
  });
  it('merges a record that matches one cluster well', () => {
    const out = resolveOne(
      rec('x', { name: 'WALTON FAMILY FOUNDATION', state: 'AR', city: 'Bentonville' }),
      [foundation],
      { thresholds: DEFAULT_THRESHOLDS },
    );
    expect(out.decision).toBe('auto_merge');
    expect(out.clusterId).toBe('f');
  });
  it('sends to review a record that matches two clusters which cannot be one entity (sibling organisations)', () => {
    const out = resolveOne(
      rec('x', { name: 'Walton Family', state: 'AR', city: 'Bentonville' }),
      [foundation, fund],
      { thresholds: DEFAULT_THRESHOLDS },
    );
    expect(out.probability).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.auto);
    expect(out.decision).toBe('flag_review');
  });
  it('chooses itself between two incompatible matching clusters when it says far more for one', () => {
    // Two pieces of one trust (another state each) both match; the record shares its city with one.
    const here = cand('h', { name: 'Danpeltor Family Trust', state: 'IL', city: 'Jorfield' });
    const there = cand('t', { name: 'Danpeltor Family Trust', state: 'WI' });
    const record = rec('x', { name: 'Danpeltor Family Trust', state: 'IL', city: 'Jorfield' });
    const out = resolveOne(record, [here, there], { thresholds: DEFAULT_THRESHOLDS });
    expect(out.decision).toBe('auto_merge');
    expect(out.clusterId).toBe('h');
    // Without the city and state it cannot tell them apart.
    const bare = resolveOne(rec('y', { name: 'Danpeltor Family Trust' }), [here, there], {
      thresholds: DEFAULT_THRESHOLDS,
    });
    expect(bare.decision).toBe('flag_review');
    expect(AMBIGUITY_MARGIN).toBeGreaterThan(0);
  });
  it('never joins a cluster holding another id of the same kind', () => {
    const out = resolveOne(
      rec('x', { name: 'Walton Family Foundation', state: 'AR', externalIds: { ein: '33-3333333' } }),
      [foundation],
      { thresholds: DEFAULT_THRESHOLDS },
    );
    expect(out.decision).toBe('create_new');
    expect(out.probability).toBe(0);
  });
  it('merges on a shared id whatever the name says', () => {
    const out = resolveOne(
      rec('x', { name: 'WFF Holdings', externalIds: { ein: '111111111' } }),
      [foundation, fund],
      { thresholds: DEFAULT_THRESHOLDS },
    );
    expect(out.decision).toBe('auto_merge');
    expect(out.clusterId).toBe('f');
  });
});

describe('resolveOne against a cluster', () => {
  it('scores a record against the whole cluster: its other records give the place and the legal form', () => {
    const record = rec('x', { name: 'Lorsonmar Family Foundation', state: 'PA', city: 'Miburg' });
    const one = cand('a', { name: 'Lorsonmar Family Foundation', state: 'TN', city: 'Newport' });
    const two = { ...cand('b', { name: 'Lorsonmar Family', state: 'PA', city: 'Miburg' }), clusterId: 'a' };
    const alone = resolveOne(record, [one], { thresholds: DEFAULT_THRESHOLDS });
    const together = resolveOne(record, [one, two], { thresholds: DEFAULT_THRESHOLDS });
    expect(together.clusterId).toBe('a');
    expect(together.probability).toBeGreaterThan(alone.probability);
    expect(together.comparison?.levels.state).toBe('same');
    expect(together.comparison?.levels.city).toBe('same');
  });
  it('compares ids with every id the cluster holds', () => {
    const record = rec('x', { name: 'Summit Energy Group', state: 'IL', externalIds: { ein: '78-1416994' } });
    const pac = cand('p', { name: 'Summit Energy Group PAC', state: 'IL' });
    const out = resolveOne(record, [{ ...pac, clusterIds: { fec_id: 'C75714332' } }], {
      thresholds: DEFAULT_THRESHOLDS,
    });
    expect(out.comparison?.levels.external_id).toBe('other_kinds');
  });
  it("counts the cluster's own records of the name as duplicates, not as namesakes", () => {
    const record = rec('x', { name: 'Quinvalvale Capital Institute Trust', state: 'NY' });
    const members = ['a', 'b', 'c', 'd', 'e'].map((id) => ({
      ...cand(id, { name: 'Quinvalvale Capital Institute', state: 'OH' }),
      clusterId: 'a',
    }));
    const population = 40_000;
    // Six records carry the name in all: the record itself and the five of the cluster.
    const freq = () => 5 / population;
    const one = resolveOne(record, members.slice(0, 1), { thresholds: DEFAULT_THRESHOLDS, freq, population });
    const five = resolveOne(record, members, { thresholds: DEFAULT_THRESHOLDS, freq, population });
    expect(five.clusterId).toBe('a');
    expect(five.comparison!.weights.name!).toBeGreaterThan(one.comparison!.weights.name! + 1.5);
  });
});

describe('ids one keyed character apart', () => {
  it('tells keying errors from other ids', () => {
    expect(nearIds({ ein: '16-3066986' }, { ein: '16-4066986' })).toBe(true);
    expect(nearIds({ ein: '16-3066986', cik: '0000000001' }, { ein: '16-3066986', cik: '0000000002' })).toBe(
      true,
    );
    expect(nearIds({ ein: '16-3066986' }, { ein: '16-4066987' })).toBe(false);
    expect(nearIds({ ein: '16-3066986' }, { fec_id: 'C12345678' })).toBe(false);
    expect(nearIds({}, {})).toBe(false);
    expect(nearIds({ cik: '0000103694' }, { cik: '0009103694' })).toBe(true);
  });
  const trust = cand('t', {
    name: 'Quintorfield Energy Coalition Trust',
    state: 'IN',
    city: 'Beldale',
    externalIds: { ein: '16-3066986' },
  });
  it('sends a record whose id is one digit off an otherwise matching cluster to review, never merging it', () => {
    const out = resolveOne(
      rec('x', {
        name: 'Quintorfield Energy Coalition Trust',
        state: 'IN',
        city: 'Beldale',
        externalIds: { ein: '16-4066986' },
      }),
      [trust],
      { thresholds: DEFAULT_THRESHOLDS },
    );
    expect(out.decision).toBe('flag_review');
    expect(out.clusterId).toBe('t');
    expect(out.comparison?.conflict).toBe('ein');
  });
  it('asks about the keying error rather than a weaker match in the review band', () => {
    const record = rec('x', {
      name: 'Quintorfield Energy Coalition Trust',
      state: 'IN',
      city: 'Beldale',
      externalIds: { ein: '16-4066986' },
    });
    // No legal form, no city: a review-band match on its own.
    const weaker = cand('w', { name: 'Quintorfield Energy Coalition', state: 'IN' });
    const alone = resolveOne(record, [weaker], { thresholds: DEFAULT_THRESHOLDS });
    expect(alone.decision).toBe('flag_review');
    expect(alone.clusterId).toBe('w');
    const out = resolveOne(record, [weaker, trust], { thresholds: DEFAULT_THRESHOLDS });
    expect(out.decision).toBe('flag_review');
    expect(out.clusterId).toBe('t');
    // The same item at any lower review threshold.
    expect(resolveOne(record, [weaker, trust], { thresholds: { auto: 0.9, review: 0.01 } }).clusterId).toBe(
      't',
    );
  });
  it('keeps a record new when its id is further off or the rest does not match well', () => {
    const far = resolveOne(
      rec('x', {
        name: 'Quintorfield Energy Coalition Trust',
        state: 'IN',
        externalIds: { ein: '17-4066986' },
      }),
      [trust],
      { thresholds: DEFAULT_THRESHOLDS },
    );
    expect(far.decision).toBe('create_new');
    const weak = resolveOne(
      rec('x', { name: 'Quintorfield Water Coalition', state: 'WA', externalIds: { ein: '16-4066986' } }),
      [trust],
      { thresholds: DEFAULT_THRESHOLDS },
    );
    expect(weak.decision).toBe('create_new');
  });
});
