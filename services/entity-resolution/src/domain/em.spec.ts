import { fitModel } from './em.js';
import { generateRecords } from './generator.js';
import { normaliseRecord } from './normalise.js';
import { FEATURE_LEVELS } from './levels.js';
import { CLOSE_NAME_U } from './scoring.js';

const records = [...generateRecords({ records: 6000, seed: 3 })].map((r) => normaliseRecord(r).record);
const { model, report } = fitModel(records, { randomPairs: 40_000, sample: 4000 });
const w = (t: 'PERSON' | 'ORG', f: string, l: string) => Math.log2(model[t].m[f]![l]! / model[t].u[f]![l]!);

describe('fitModel (EM, no labels)', () => {
  it('fills every level of every observed feature with probabilities that sum to one', () => {
    for (const t of ['PERSON', 'ORG'] as const)
      for (const [f, levels] of Object.entries(FEATURE_LEVELS[t])) {
        // The generated records carry no context: no table, so scoring uses CONTEXT_PRIOR.
        if (f === 'context') {
          expect(model[t].m[f]).toBeUndefined();
          expect(model[t].u[f]).toBeUndefined();
          continue;
        }
        for (const table of [model[t].m, model[t].u]) {
          const sum = levels.reduce((s, l) => s + table[f]![l]!, 0);
          expect(sum).toBeCloseTo(1, 6);
          for (const l of levels) expect(table[f]![l]!).toBeGreaterThan(0);
        }
      }
  });
  it('learns that agreement is evidence for a match and disagreement against', () => {
    expect(w('PERSON', 'last_name', 'exact')).toBeGreaterThan(5);
    expect(w('PERSON', 'last_name', 'different')).toBeLessThan(-3);
    expect(w('PERSON', 'first_name', 'exact')).toBeGreaterThan(w('PERSON', 'first_name', 'initial'));
    expect(w('ORG', 'name', 'exact')).toBeGreaterThan(w('ORG', 'name', 'token_set_0.6'));
    expect(w('ORG', 'state', 'same')).toBeGreaterThan(0);
    expect(w('ORG', 'state', 'different')).toBeLessThan(0);
    expect(w('ORG', 'external_id', 'same')).toBeGreaterThan(8);
  });
  it('puts a random pair far below even odds, and reports what it read', () => {
    expect(model.PERSON.priorLog2Odds).toBeLessThan(-8);
    expect(model.ORG.priorLog2Odds).toBeLessThan(-8);
    for (const r of report) {
      expect(r.blockedPairs).toBeGreaterThan(0);
      expect(r.lambda).toBeGreaterThan(0);
      expect(r.lambda).toBeLessThan(1);
    }
  });
  it('carries the stated close-name u beside what it fitted', () => {
    expect(model.ORG.uClose).toEqual(CLOSE_NAME_U.ORG);
    expect(model.PERSON.uClose).toBeUndefined();
  });
  it('is reproducible for a seed', () => {
    expect(fitModel(records, { randomPairs: 40_000, sample: 4000 }).model).toEqual(model);
  });
});
