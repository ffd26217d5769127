import { generateRecords, type LabelledRecord } from './generator.js';
import { clusterQuality } from './metrics.js';
import { normaliseRecord } from './normalise.js';
import type { ErRecord } from './record.js';
import { bridgeThreshold } from './decision.js';
import { resolveOne } from './resolve-one.js';
import { Resolver } from './resolver.js';

const norm = (r: Partial<ErRecord> & { recordId: string; name: string }) =>
  normaliseRecord({ entityType: 'PERSON', ...r }).record;
const T = { thresholds: { auto: 0.9, review: 0.5 } };

describe('bridging', () => {
  // Two partial records of one person: too little in common to merge each other (0.51: review).
  const a = () => norm({ recordId: 'a', name: 'Okonkwo, Ezekiel Q.', state: 'CA' });
  const b = () => norm({ recordId: 'b', name: 'E. Okonkwo', employer: 'Fresno Water Trust', city: 'Fresno' });
  // A fuller record matches both, each at or above the bridge threshold (0.99 for people at auto 0.9).
  const c = () =>
    norm({
      recordId: 'c',
      name: 'Ezekiel Q. Okonkwo',
      state: 'CA',
      employer: 'Fresno Water Trust',
      city: 'Fresno',
    });

  it("sets the bridge threshold at a share of the auto threshold's distance to 1 (a tenth for people, three tenths for organisations), floor applied", () => {
    expect(bridgeThreshold({ auto: 0.9, review: 0.5 }, 'PERSON')).toBeCloseTo(0.99, 10);
    expect(bridgeThreshold({ auto: 0.99, review: 0.5 }, 'PERSON')).toBeCloseTo(0.999, 10);
    expect(bridgeThreshold({ auto: 0.2, review: 0.1 }, 'PERSON')).toBeCloseTo(1 - 0.3 * 0.1, 10);
    expect(bridgeThreshold({ auto: 0.9, review: 0.5 }, 'ORG')).toBeCloseTo(0.97, 10);
    expect(bridgeThreshold({ auto: 0.99, review: 0.5 }, 'ORG')).toBeCloseTo(0.997, 10);
    expect(bridgeThreshold({ auto: 0.2, review: 0.1 }, 'ORG')).toBeCloseTo(1 - 0.3 * 0.3, 10);
  });
  it('bridges an organisation at 0.97, where a person at the same odds stays apart', () => {
    const org = (r: Partial<ErRecord> & { recordId: string; name: string }) =>
      normaliseRecord({ entityType: 'ORG', ...r }).record;
    // A has a place and no legal form, B a legal form and no place: B is only a review (0.84) for A.
    // C, with both, merges into A (0.998) and matches B at 0.985: a bridge for an organisation.
    const a = org({ recordId: 'a', name: 'Harbor Literacy Society', city: 'Salem' });
    const b = org({ recordId: 'b', name: 'Harbor Literacy Society Inc' });
    const c = org({ recordId: 'c', name: 'Harbor Literacy Society Inc', city: 'Salem' });
    expect(resolveOne(b, [{ record: a, clusterId: 'A', clusterIds: {} }], T).decision).toBe('flag_review');
    const out = resolveOne(
      c,
      [
        { record: a, clusterId: 'A', clusterIds: {} },
        { record: b, clusterId: 'B', clusterIds: {} },
      ],
      T,
    );
    expect(out).toMatchObject({ decision: 'auto_merge', clusterId: 'A' });
    expect(out.bridge).toEqual([{ clusterId: 'B', probability: expect.any(Number) }]);
    expect(out.bridge![0]!.probability).toBeGreaterThanOrEqual(0.97);
    expect(out.bridge![0]!.probability).toBeLessThan(0.99);
    const r = new Resolver();
    for (const x of [a, b, c]) r.add(x);
    expect(new Set(r.clusters().map((x) => x.clusterId)).size).toBe(1);
    // A person: B (a state) matches C (a state and the employer A has) at 0.986, below 0.99: not bridged.
    const pa = norm({ recordId: 'a', name: 'Ezekiel Okonkwo', employer: 'Fresno Water Trust' });
    const pb = norm({ recordId: 'b', name: 'Ezekiel Okonkwo', state: 'OR' });
    const pc = norm({ recordId: 'c', name: 'Ezekiel Okonkwo', state: 'OR', employer: 'Fresno Water Trust' });
    const toB = resolveOne(pc, [{ record: pb, clusterId: 'B', clusterIds: {} }], T).probability;
    expect(toB).toBeGreaterThanOrEqual(0.97);
    expect(toB).toBeLessThan(0.99);
    const person = resolveOne(
      pc,
      [
        { record: pa, clusterId: 'A', clusterIds: {} },
        { record: pb, clusterId: 'B', clusterIds: {} },
      ],
      T,
    );
    expect(person).toMatchObject({ decision: 'auto_merge', clusterId: 'A' });
    expect(person.bridge).toBeUndefined();
  });
  it('names the other cluster a record matching two clusters shows to be the same entity', () => {
    const out = resolveOne(
      c(),
      [
        { record: a(), clusterId: 'A', clusterIds: {} },
        { record: b(), clusterId: 'B', clusterIds: {} },
      ],
      T,
    );
    expect(out.decision).toBe('auto_merge');
    expect(out.clusterId).toBe('B');
    expect(out.bridge).toEqual([{ clusterId: 'A', probability: expect.any(Number) }]);
    expect(out.bridge![0]!.probability).toBeGreaterThanOrEqual(0.99);
  });
  it('bridges nothing below the bridge threshold, into an incompatible cluster, or when the record does not merge', () => {
    const strict = resolveOne(
      c(),
      [
        { record: a(), clusterId: 'A', clusterIds: {} },
        { record: b(), clusterId: 'B', clusterIds: {} },
      ],
      { thresholds: { auto: 0.9999, review: 0.5 } },
    );
    expect(strict.bridge).toBeUndefined();
    // The other cluster holds an id the chosen one contradicts.
    const conflicting = resolveOne(
      c(),
      [
        { record: a(), clusterId: 'A', clusterIds: { fec_id: 'H0CA00001' } },
        { record: b(), clusterId: 'B', clusterIds: { fec_id: 'H0CA00002' } },
      ],
      T,
    );
    expect(conflicting.bridge).toBeUndefined();
    const alone = resolveOne(a(), [{ record: b(), clusterId: 'B', clusterIds: {} }], T);
    expect(alone.decision).not.toBe('auto_merge');
    expect(alone.bridge).toBeUndefined();
  });
  it('joins the bridged clusters in the batch resolver, whatever order the partial records came in', () => {
    for (const order of [
      [a(), b(), c()],
      [b(), a(), c()],
    ]) {
      const r = new Resolver();
      const [first, second, third] = order.map((x) => r.add(x));
      expect(first!.decision).toBe('create_new');
      expect(second!.decision).not.toBe('auto_merge');
      expect(third!.decision).toBe('auto_merge');
      expect(new Set(r.clusters().map((x) => x.clusterId)).size).toBe(1);
    }
  });
});

describe('resolveOne', () => {
  it('creates a new entity when there are no candidates', () => {
    expect(resolveOne(norm({ recordId: 'a', name: 'Ann Lee' }), [], T)).toEqual({
      decision: 'create_new',
      probability: 0,
    });
  });
  it('merges into the best candidate cluster', () => {
    const rec = norm({ recordId: 'a', name: 'Ezekiel Okonkwo', state: 'CA', city: 'Fresno' });
    const out = resolveOne(
      rec,
      [
        {
          record: norm({ recordId: 'b', name: 'Ezekiel Adeyemi', state: 'CA' }),
          clusterId: 'B',
          clusterIds: {},
        },
        {
          record: norm({ recordId: 'c', name: 'Okonkwo, Ezekiel', state: 'CA', city: 'Fresno' }),
          clusterId: 'C',
          clusterIds: {},
        },
      ],
      T,
    );
    expect(out).toMatchObject({ decision: 'auto_merge', clusterId: 'C' });
  });
  it('never joins a cluster whose ids conflict with the record, even through a member without ids', () => {
    const rec = norm({
      recordId: 'a',
      entityType: 'ORG',
      name: 'Smith Family Foundation',
      state: 'NY',
      externalIds: { ein: '11-1111111' },
    });
    const out = resolveOne(
      rec,
      [
        {
          record: norm({ recordId: 'b', entityType: 'ORG', name: 'Smith Family Foundation', state: 'NY' }),
          clusterId: 'B',
          clusterIds: { ein: '22-2222222' },
        },
      ],
      T,
    );
    expect(out.decision).toBe('create_new');
    expect(out.probability).toBe(0);
  });
  it('ignores candidates of another type and the record itself', () => {
    const rec = norm({ recordId: 'a', name: 'Jordan Lee' });
    const out = resolveOne(
      rec,
      [
        {
          record: norm({ recordId: 'b', entityType: 'ORG', name: 'Jordan Lee' }),
          clusterId: 'B',
          clusterIds: {},
        },
        { record: rec, clusterId: 'A', clusterIds: {} },
      ],
      T,
    );
    expect(out.decision).toBe('create_new');
  });
  it('sends the ambiguous band to review', () => {
    const rec = norm({ recordId: 'a', name: 'J. Okonkwo', state: 'CA', city: 'Fresno' });
    const out = resolveOne(
      rec,
      [
        {
          record: norm({ recordId: 'b', name: 'John Okonkwo', state: 'CA', city: 'Oakland' }),
          clusterId: 'B',
          clusterIds: {},
        },
      ],
      T,
    );
    expect(out.decision).toBe('flag_review');
    expect(out.probability).toBeGreaterThanOrEqual(0.5);
    expect(out.probability).toBeLessThan(0.9);
  });
});

describe('Resolver', () => {
  it('clusters variants of one organisation and keeps a sibling apart', () => {
    const r = new Resolver();
    const out = [
      {
        recordId: '1',
        entityType: 'ORG' as const,
        name: 'Riverside Health Alliance Inc',
        state: 'CA',
        externalIds: { ein: '04-3568784' },
      },
      {
        recordId: '2',
        entityType: 'ORG' as const,
        name: 'RIVERSIDE HEALTH ALLIANCE, INCORPORATED',
        state: 'CA',
      },
      {
        recordId: '3',
        entityType: 'ORG' as const,
        name: 'Riverside Hlth Alliance',
        externalIds: { ein: '043568784' },
      },
      {
        recordId: '4',
        entityType: 'ORG' as const,
        name: 'Riverside Health Alliance Foundation',
        state: 'CA',
        externalIds: { ein: '99-9999999' },
      },
    ].map((rec) => r.add(normaliseRecord(rec).record));
    expect(out.map((o) => o.clusterId)).toEqual(['1', '1', '1', '4']);
    expect(out.map((o) => o.decision)).toEqual(['create_new', 'auto_merge', 'auto_merge', 'create_new']);
    expect(r.clusters()).toHaveLength(4);
  });
  it('reaches its quality floor on generated data (medium corruption, 5,000 records)', () => {
    const r = new Resolver();
    const labels = new Map<string, string>();
    let review = 0;
    for (const rec of generateRecords({ records: 5000, seed: 42 })) {
      labels.set(rec.recordId, rec.entityId);
      if (r.add(normaliseRecord(rec).record).decision === 'flag_review') review++;
    }
    const q = clusterQuality(r.clusters().map((c) => ({ ...c, entityId: labels.get(c.recordId)! })));
    expect(q.precision).toBeGreaterThan(0.97);
    expect(q.bcubedF1).toBeGreaterThan(0.93);
    expect(review / 5000).toBeLessThan(0.06);
  });
});

describe('generateRecords', () => {
  const take = (seed: number, n = 300): LabelledRecord[] => [...generateRecords({ records: n, seed })];
  it('is deterministic per seed and differs across seeds', () => {
    expect(take(1)).toEqual(take(1));
    expect(take(1)).not.toEqual(take(2));
  });
  it('yields exactly the requested count with unique record ids and labels', () => {
    const recs = take(3, 1000);
    expect(recs).toHaveLength(1000);
    expect(new Set(recs.map((r) => r.recordId)).size).toBe(1000);
    expect(
      recs.every(
        (r) => r.entityId && (r.entityType === 'PERSON' || r.entityType === 'ORG') && r.name.length > 0,
      ),
    ).toBe(true);
    expect(new Set(recs.map((r) => r.entityId)).size).toBeLessThan(1000);
  });
  it('produces both types, ids in several formats, and duplicates that are not adjacent', () => {
    const recs = take(4, 3000);
    expect(recs.some((r) => r.entityType === 'ORG')).toBe(true);
    expect(recs.some((r) => r.externalIds?.ein && !r.externalIds.ein.includes('-'))).toBe(true);
    expect(recs.some((r) => r.externalIds?.ein?.includes('-'))).toBe(true);
    const adjacent = recs.filter((r, i) => i > 0 && recs[i - 1]!.entityId === r.entityId).length;
    expect(adjacent / recs.length).toBeLessThan(0.05);
  });
  it('corrupts more at higher levels', () => {
    const distinctNames = (c: 'low' | 'high') => {
      const recs = [...generateRecords({ records: 2000, seed: 5, corruption: c })];
      return new Set(recs.map((r) => `${r.entityId}|${r.name}`)).size;
    };
    expect(distinctNames('high')).toBeGreaterThan(distinctNames('low'));
  });
});

describe('clusterQuality', () => {
  it('is perfect for the true clustering', () => {
    const q = clusterQuality([
      { recordId: 'a', entityId: 'x', clusterId: '1' },
      { recordId: 'b', entityId: 'x', clusterId: '1' },
      { recordId: 'c', entityId: 'y', clusterId: '2' },
    ]);
    expect(q).toMatchObject({ precision: 1, recall: 1, f1: 1, bcubedF1: 1 });
  });
  it('counts pairs and B-cubed for a wrong merge and a missed one', () => {
    const q = clusterQuality([
      { recordId: 'a', entityId: 'x', clusterId: '1' },
      { recordId: 'b', entityId: 'x', clusterId: '2' },
      { recordId: 'c', entityId: 'y', clusterId: '2' },
    ]);
    expect(q.truePairs).toBe(1);
    expect(q.predictedPairs).toBe(1);
    expect(q.precision).toBe(0);
    expect(q.recall).toBe(0);
    // B-cubed precision: a 1, b ½, c ½ → 2/3; recall: a ½, b ½, c 1 → 2/3.
    expect(q.bcubedPrecision).toBeCloseTo(2 / 3, 10);
    expect(q.bcubedRecall).toBeCloseTo(2 / 3, 10);
  });
});
