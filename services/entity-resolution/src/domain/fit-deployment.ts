/**
 * Fitting the scoring model to a deployment's own records (`er fit`), as the
 * default model was fitted to generated ones:
 *
 * 1. m / u and the prior by EM on the records, no labels read (`fitModel`,
 *    as Splink estimates them on the data it links). A type with fewer than
 *    MIN_EM_RECORDS records keeps the default tables.
 * 2. The calibration (a logistic regression over the comparison levels, see
 *    calibration.ts) from the records' labels (`entity_id`: which records are
 *    one entity), when there are enough of both kinds of pair; otherwise the
 *    default calibration, whose level weights do not depend on the tables
 *    (only its term-frequency input does, and that comes from the new ones).
 *
 * The calibration samples are what `calibrationSamples` collects: every
 * record is resolved with the uncalibrated model and each comparison with a
 * candidate cluster is one sample, labelled by whether the cluster's best
 * record is of the record's entity. Pairs sharing or conflicting on an id are
 * left out (deterministic rules decide them).
 */
import { fitCalibration, type CalibrationSample } from './calibration.js';
import { fitModel, type FitOptions, type FitReport } from './em.js';
import type { NormalisedRecord } from './normalise.js';
import { ENTITY_TYPES, type ResolvableType } from './record.js';
import { idsConflict } from './resolve-one.js';
import { Resolver } from './resolver.js';
import { DEFAULT_MODEL, TF_FEATURE, type ScoringModel } from './scoring.js';
import type { ModelFileFit } from './model-file.js';

/** Fewest records of a type EM is fitted on (fewer: the default tables of the type). */
export const MIN_EM_RECORDS = 1_000;
/** Fewest matching and fewest non-matching labelled pairs of a type the calibration is fitted with. */
export const MIN_CALIBRATION_PAIRS = 200;

/** Labelled comparisons of `records` resolved in order with `model` (its calibration ignored), per type. */
export function calibrationSamples(
  records: readonly NormalisedRecord[],
  entityOf: (recordId: string) => string | undefined,
  model: ScoringModel,
  samples: Record<ResolvableType, CalibrationSample[]> = { PERSON: [], ORG: [] },
): Record<ResolvableType, CalibrationSample[]> {
  const uncalibrated: ScoringModel = { ...model, calibration: undefined };
  const resolver: Resolver = new Resolver({
    model: uncalibrated,
    observe: (record, best, cmp) => {
      if (cmp.sharedId || cmp.conflict || idsConflict(record.ids, best.clusterIds)) return;
      const a = entityOf(record.recordId);
      const b = entityOf(best.record.recordId);
      if (a === undefined || b === undefined) return;
      const type = record.entityType;
      const population = resolver.population(type);
      samples[type].push({
        levels: cmp.levels,
        ...(cmp.tfWeight !== undefined ? { tfWeight: cmp.tfWeight } : {}),
        ...(cmp.tfFuzzyWeight !== undefined ? { tfFuzzyWeight: cmp.tfFuzzyWeight } : {}),
        tfFeature: TF_FEATURE[type],
        offset: population ? Math.log2(uncalibrated[type].population / Math.max(population, 2)) : 0,
        ...(population ? { records: population } : {}),
        match: a === b,
      });
    },
  });
  resolver.primeFrequencies(records);
  for (const r of records) resolver.add(r);
  return samples;
}

export interface DeploymentFit {
  model: ScoringModel;
  fit: ModelFileFit;
  em: FitReport[];
  /** Per type fitted with labels: pairs, matches, iterations and log loss (bits). */
  calibration: Array<{ entityType: ResolvableType; samples: number; matches: number; iterations: number; logLoss: number }>;
}

/**
 * The model of `records` (normalised, in input order). `entityOf` gives a
 * record's label (its true entity), or undefined when it has none; without
 * labels the default calibration is kept.
 */
export function fitDeploymentModel(
  records: readonly NormalisedRecord[],
  entityOf?: (recordId: string) => string | undefined,
  /** now: the fit's time stamp; em: the EM fit's sample sizes and iterations (defaults of `fitModel`). */
  opts: { now?: Date; em?: FitOptions } = {},
): DeploymentFit {
  const counts: Record<ResolvableType, number> = { PERSON: 0, ORG: 0 };
  for (const r of records) counts[r.entityType]++;
  const tables: ModelFileFit['tables'] = {};
  for (const type of ENTITY_TYPES) tables[type] = counts[type] >= MIN_EM_RECORDS ? 'em' : 'default';
  // EM reads only the types it is fitted for.
  const fitted = fitModel(
    records.filter((r) => tables[r.entityType] === 'em'),
    opts.em,
  );
  const model: ScoringModel = { ...DEFAULT_MODEL, calibration: { ...DEFAULT_MODEL.calibration } };
  for (const type of ENTITY_TYPES) if (tables[type] === 'em') model[type] = fitted.model[type];
  const calibrationOf: ModelFileFit['calibration'] = { PERSON: 'default', ORG: 'default' };
  const calibration: DeploymentFit['calibration'] = [];
  if (entityOf) {
    const samples = calibrationSamples(records, entityOf, model);
    for (const type of ENTITY_TYPES) {
      const matches = samples[type].filter((s) => s.match).length;
      if (matches < MIN_CALIBRATION_PAIRS || samples[type].length - matches < MIN_CALIBRATION_PAIRS) continue;
      const fit = fitCalibration(type, samples[type]);
      model.calibration![type] = fit.calibration;
      calibrationOf[type] = 'labels';
      calibration.push({ entityType: type, samples: fit.samples, matches: fit.matches, iterations: fit.iterations, logLoss: fit.logLoss });
    }
  }
  return {
    model,
    fit: { fitted_at: (opts.now ?? new Date()).toISOString(), records: counts, calibration: calibrationOf, tables },
    em: fitted.report.filter((r) => tables[r.entityType] === 'em'),
    calibration,
  };
}
