import {
  calibratedWeights,
  fitCalibration,
  populationWeight,
  type CalibrationInput,
  type CalibrationSample,
  type TypeCalibration,
} from './calibration.js';
import { rng } from './generator.js';
import { normaliseRecord } from './normalise.js';
import type { ErRecord } from './record.js';
import { comparePair, DEFAULT_MODEL, UNCALIBRATED_MODEL } from './scoring.js';

const cal: TypeCalibration = {
  bias: -2,
  tf: 0.5,
  population: 1,
  levels: { name: { exact: 1, one_edit: 3 }, state: { same: 2, different: -4, missing: -1 } },
  cross: { exact: { different: 1.5 } },
  tfDifferentState: 0.25,
};

describe('calibratedWeights', () => {
  it('sums the bias, the level weights, the term-frequency weight and the name-and-state interaction', () => {
    const out: Record<string, number> = {};
    const z = calibratedWeights(
      cal,
      'ORG',
      { levels: { name: 'exact', state: 'different' }, tfWeight: 10, tfFeature: 'name' },
      {},
      out,
    );
    // name 1 + 0.5·10; state −4; interaction 1.5 + 0.25·10; legal_form and city missing: no table entry.
    expect(out).toEqual({ name: 6, state: -4, name_and_state: 4 });
    expect(z).toBeCloseTo(-2 + 6 - 4 + 4, 10);
  });
  it('weighs a missing feature by its `missing` level and keeps the Fellegi–Sunter weight of a feature it has no table for', () => {
    const out: Record<string, number> = {};
    const z = calibratedWeights(
      cal,
      'ORG',
      { levels: { name: 'one_edit', context: 'two_or_more' }, tfFeature: 'name' },
      { context: 3.5 },
      out,
    );
    expect(out).toEqual({ name: 3, context: 3.5, state: -1 });
    expect(z).toBeCloseTo(-2 + 3 + 3.5 - 1, 10);
  });
  it("adds a near name's term-frequency weight times its coefficient, and only to a near name", () => {
    const fuzzy = { ...cal, tfFuzzy: 0.25 };
    // The name's share of an organisation's calibrated weight.
    const nameWeight = (c: TypeCalibration, input: Omit<CalibrationInput, 'tfFeature'>) => {
      const parts: Record<string, number> = {};
      calibratedWeights(c, 'ORG', { ...input, tfFeature: 'name' }, {}, parts);
      return parts.name;
    };
    expect(nameWeight(fuzzy, { levels: { name: 'one_edit' }, tfFuzzyWeight: 8 })).toBeCloseTo(
      3 + 0.25 * 8,
      10,
    );
    // The exact level reads tfWeight alone; a calibration without the coefficient ignores the input.
    expect(nameWeight(fuzzy, { levels: { name: 'exact' }, tfWeight: 10, tfFuzzyWeight: 8 })).toBeCloseTo(
      1 + 0.5 * 10,
      10,
    );
    expect(nameWeight(cal, { levels: { name: 'one_edit' }, tfFuzzyWeight: 8 })).toBe(3);
  });
  it('gives a level the fit never saw no weight', () => {
    const out: Record<string, number> = {};
    expect(
      calibratedWeights(
        cal,
        'ORG',
        { levels: { name: 'two_edits', state: 'same' }, tfFeature: 'name' },
        {},
        out,
      ),
    ).toBe(0);
  });
});

describe('fitCalibration', () => {
  // Labels drawn from a known logistic model in bits: the fit must recover it.
  const truth = { bias: -3, exact: 4, different: -2, tf: 0.5, tfFuzzy: 0.3, population: 0.7 };
  const r = rng(11);
  const samples: CalibrationSample[] = [];
  for (let i = 0; i < 40_000; i++) {
    const exact = r() < 0.5;
    const state = r() < 0.3 ? 'different' : r() < 0.5 ? 'same' : undefined;
    const tfWeight = exact ? 2 + r() * 8 : undefined;
    const tfFuzzyWeight = exact ? undefined : 2 + r() * 8;
    const offset = r() * 4 - 2;
    const z =
      truth.bias +
      (exact ? truth.exact + truth.tf * tfWeight! : truth.tfFuzzy * tfFuzzyWeight!) +
      (state === 'different' ? truth.different : 0) +
      truth.population * offset;
    const levels: Record<string, string> = { name: exact ? 'exact' : 'one_edit' };
    if (state) levels.state = state;
    samples.push({
      levels,
      tfWeight,
      tfFuzzyWeight,
      tfFeature: 'name',
      offset,
      match: r() < 1 / (1 + Math.pow(2, -z)),
    });
  }
  const fit = fitCalibration('ORG', samples, { ridge: 0.01 });

  it('predicts the log odds (in bits) of the model the labels were drawn from', () => {
    const c = fit.calibration;
    expect(fit.samples).toBe(40_000);
    expect(fit.matches).toBe(samples.filter((s) => s.match).length);
    expect(c.population).toBeCloseTo(truth.population, 1);
    expect(c.tfFuzzy).toBeCloseTo(truth.tfFuzzy, 1);
    // Indicators overlap (bias, one level per feature, the interaction), so compare predictions, not coefficients.
    for (const exact of [true, false])
      for (const state of ['same', 'different', undefined])
        for (const offset of [-1, 0, 1.5]) {
          const levels: Record<string, string> = { name: exact ? 'exact' : 'one_edit' };
          if (state) levels.state = state;
          const tfWeight = exact ? 6 : undefined;
          const tfFuzzyWeight = exact ? undefined : 9;
          const z =
            c.population * offset +
            calibratedWeights(c, 'ORG', { levels, tfWeight, tfFuzzyWeight, tfFeature: 'name' }, {}, {});
          const want =
            truth.bias +
            (exact ? truth.exact + truth.tf * 6 : truth.tfFuzzy * 9) +
            (state === 'different' ? truth.different : 0) +
            truth.population * offset;
          expect(Math.abs(z - want)).toBeLessThan(0.35);
        }
  });
  it('converges, and its log loss is below that of always predicting the base rate', () => {
    expect(fit.iterations).toBeLessThan(50);
    const base = fit.matches / fit.samples;
    const baseLoss = -(base * Math.log2(base) + (1 - base) * Math.log2(1 - base));
    expect(fit.logLoss).toBeLessThan(baseLoss);
  });
  it('keeps a level seen only among matches finite (ridge)', () => {
    const only = fitCalibration('ORG', [
      { levels: { name: 'exact' }, tfFeature: 'name', offset: 0, match: true },
      { levels: { name: 'exact' }, tfFeature: 'name', offset: 0, match: true },
      { levels: { name: 'different' }, tfFeature: 'name', offset: 0, match: false },
    ]);
    expect(Number.isFinite(only.calibration.levels.name!.exact!)).toBe(true);
    // No near name carried a term-frequency weight: the fit has no coefficient for it.
    expect(only.calibration).not.toHaveProperty('tfFuzzy');
    expect(only.calibration.levels.name!.exact!).toBeGreaterThan(only.calibration.levels.name!.different!);
  });
});

describe('the default calibration', () => {
  let n = 0;
  const org = (r: Partial<ErRecord> & { name: string }) =>
    normaliseRecord({ recordId: `o${++n}`, entityType: 'ORG', ...r }).record;
  const person = (r: Partial<ErRecord> & { name: string }) =>
    normaliseRecord({ recordId: `p${++n}`, entityType: 'PERSON', ...r }).record;

  it('is used by the default model, and the EM model alone is still available', () => {
    expect(DEFAULT_MODEL.calibration?.ORG).toBeDefined();
    expect(DEFAULT_MODEL.calibration?.PERSON).toBeDefined();
    expect(UNCALIBRATED_MODEL.calibration).toBeUndefined();
  });
  it('takes a rare organisation name with one legal form in another state for the same organisation, more than the EM model does', () => {
    const a = org({ name: 'Quinvalridge Harbor Trust', state: 'MD' });
    const b = org({ name: 'QUINVALRIDGE HARBOR TRUST', state: 'VA' });
    const freq = () => 1 / 40_000;
    const calibrated = comparePair(a, b, freq, DEFAULT_MODEL, 40_000);
    const em = comparePair(a, b, freq, UNCALIBRATED_MODEL, 40_000);
    expect(calibrated.probability).toBeGreaterThan(em.probability);
    expect(calibrated.probability).toBeGreaterThan(0.5);
  });
  it('still keeps siblings apart: one core name under two legal forms is no match', () => {
    const cmp = comparePair(
      org({ name: 'Corhal Family Foundation', state: 'MD' }),
      org({ name: 'Corhal Family PAC', state: 'MD' }),
      () => 1 / 40_000,
      DEFAULT_MODEL,
      40_000,
    );
    expect(cmp.levels.legal_form).toBe('different');
    expect(cmp.probability).toBeLessThan(0.5);
  });
  it('holds a common full name in another state below the auto threshold (a namesake), and a rare one above review', () => {
    const common = comparePair(
      person({ name: 'Jennifer Williams', state: 'IL' }),
      person({ name: 'Jennifer Williams', state: 'NC' }),
      () => 400 / 60_000,
      DEFAULT_MODEL,
      60_000,
    );
    const rare = comparePair(
      person({ name: 'Fatima Kelmorford', state: 'TN' }),
      person({ name: 'Fatima Kelmorford', state: 'VA' }),
      () => 1 / 60_000,
      DEFAULT_MODEL,
      60_000,
    );
    expect(common.probability).toBeLessThan(0.9);
    expect(rare.probability).toBeGreaterThan(common.probability);
    expect(rare.weights.name_and_state).toBeDefined();
  });
});

describe('the population knee', () => {
  it('adds nothing up to the knee and coefficient × log2(knee / N) beyond it', () => {
    const bent: TypeCalibration = {
      ...cal,
      population: 0.5,
      populationKnee: { records: 100_000, coefficient: 0.25 },
    };
    expect(populationWeight(bent, 2, 50_000)).toBeCloseTo(1, 10);
    expect(populationWeight(bent, -1, 100_000)).toBeCloseTo(-0.5, 10);
    // 400k: two doublings beyond the knee.
    expect(populationWeight(bent, -3, 400_000)).toBeCloseTo(-1.5 - 0.5, 10);
    // Without a knee, or without N, one slope.
    expect(populationWeight(cal, -3, 400_000)).toBe(-3);
    expect(populationWeight(bent, -3, undefined)).toBeCloseTo(-1.5, 10);
  });

  // Labels whose log odds fall with log2 N at 0.6 bits per doubling up to 100k records and 1.4 beyond.
  const truth = { bias: -2, exact: 4, below: 0.6, beyond: 1.4, knee: 100_000, modelPopulation: 25_000 };
  const r = rng(5);
  const samples: CalibrationSample[] = [];
  for (const records of [20_000, 50_000, 100_000, 400_000])
    for (let i = 0; i < 15_000; i++) {
      const exact = r() < 0.5;
      const offset = Math.log2(truth.modelPopulation / records);
      const z =
        truth.bias +
        (exact ? truth.exact : 0) +
        truth.below * offset +
        (truth.beyond - truth.below) * Math.min(0, Math.log2(truth.knee / records));
      samples.push({
        levels: { name: exact ? 'exact' : 'one_edit' },
        tfFeature: 'name',
        offset,
        records,
        match: r() < 1 / (1 + Math.pow(2, -z)),
      });
    }

  it('fits the slope below the knee and the bend beyond it', () => {
    const fit = fitCalibration('ORG', samples, { ridge: 0.01, knee: truth.knee });
    const c = fit.calibration;
    expect(c.populationKnee).toEqual({ records: truth.knee, coefficient: expect.any(Number) });
    expect(c.population).toBeCloseTo(truth.below, 0);
    expect(c.populationKnee!.coefficient).toBeCloseTo(truth.beyond - truth.below, 0);
    // The fitted term predicts the odds at 1M (extrapolated past the largest run) within a bit, where one slope misses by more.
    const at = (records: number, c2: TypeCalibration) =>
      populationWeight(c2, Math.log2(truth.modelPopulation / records), records);
    const want =
      truth.below * Math.log2(truth.modelPopulation / 1e6) +
      (truth.beyond - truth.below) * Math.log2(truth.knee / 1e6);
    const straight = fitCalibration('ORG', samples, { ridge: 0.01 }).calibration;
    expect(Math.abs(at(1e6, c) - want)).toBeLessThan(1);
    expect(Math.abs(at(1e6, straight) - want)).toBeGreaterThan(Math.abs(at(1e6, c) - want));
    expect(fit.logLoss).toBeLessThan(fitCalibration('ORG', samples, { ridge: 0.01 }).logLoss);
  });
  it('bends the weight of a scored pair beyond the knee, and only there', () => {
    const a = normaliseRecord({
      recordId: 'k1',
      entityType: 'ORG',
      name: 'Quinvalridge Harbor Trust',
      state: 'MD',
    }).record;
    const b = normaliseRecord({
      recordId: 'k2',
      entityType: 'ORG',
      name: 'Quinvalridge Harbour Trust',
      state: 'MD',
    }).record;
    const base = DEFAULT_MODEL.calibration!.ORG!;
    const bent = {
      ...DEFAULT_MODEL,
      calibration: {
        ...DEFAULT_MODEL.calibration,
        ORG: { ...base, populationKnee: { records: 100_000, coefficient: -0.5 } },
      },
    };
    const weight = (model: typeof DEFAULT_MODEL, records: number) =>
      comparePair(a, b, undefined, model, records).weight;
    expect(weight(bent, 80_000)).toBeCloseTo(weight(DEFAULT_MODEL, 80_000), 10);
    // 400k: two doublings beyond the knee at −0.5 bits each, so one bit more.
    expect(weight(bent, 400_000) - weight(DEFAULT_MODEL, 400_000)).toBeCloseTo(1, 10);
  });
  it('refuses a knee that is not a positive number of records, and one no sample was scored beyond', () => {
    expect(() => fitCalibration('ORG', samples, { knee: 0 })).toThrow(
      'knee: must be a positive number of records, got 0',
    );
    expect(() => fitCalibration('ORG', samples, { knee: Number.NaN })).toThrow(
      'knee: must be a positive number of records, got NaN',
    );
    expect(() => fitCalibration('ORG', samples, { knee: 1e6 })).toThrow(
      'knee: no sample was scored among more than 1000000 records, so the bend cannot be fitted',
    );
  });
});
