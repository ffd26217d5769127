/**
 * Pairwise scoring by Fellegi–Sunter: each compared attribute falls in one
 * agreement level with an m probability (level seen among true matches) and
 * a u probability (level seen among non-matches); the match weight is
 * log2(prior odds) + Σ log2(m/u), and exact name agreement takes its u from
 * the name's observed frequency (term-frequency adjustment: "John Smith"
 * agreeing is weaker evidence than "Ezekiel Okonkwo"). The probability is
 * 2^W / (1 + 2^W). Missing values are neutral (weight 0), as in Splink.
 * Two different ids of one kind are a conflict: the pair can never merge.
 *
 * The levels are fixed in levels.ts (`compareLevels`); the m / u values and the prior
 * are a `ScoringModel`, fitted without labels by expectation–maximisation
 * (`fitModel` in em.ts, u from random pairs, m and the prior by EM over
 * blocked pairs, as Splink does). `DEFAULT_MODEL` is such a fit plus a
 * calibration (`calibration.ts`): a logistic regression over the same
 * levels, fitted with labels, that replaces the prior and the Σ log2(m/u)
 * (the term-frequency weight still comes from m / u); `UNCALIBRATED_MODEL`
 * is the EM fit alone.
 */
import { calibratedWeights, populationWeight, type Calibration } from './calibration.js';
import { DEFAULT_CALIBRATION } from './calibration.default.js';
import { compareLevels, namesClose, type Levels } from './levels.js';
import { DEFAULT_FITTED_MODEL } from './model.default.js';
import type { NormalisedRecord } from './normalise.js';
import type { ResolvableType } from './record.js';
import { jaroWinkler } from './similarity.js';

export interface Comparison {
  /** Feature → level name, e.g. `last_name: "exact"`. */
  levels: Record<string, string>;
  /** Feature → log2(m/u) contribution. */
  weights: Record<string, number>;
  /** Total match weight including the prior. */
  weight: number;
  probability: number;
  /** The id kind on which both records carry different ids, if any. */
  conflict?: string;
  /** The id kind both records share, if any. */
  sharedId?: string;
  /** log2(m / u_tf) of the term-frequency-adjusted exact name, when the name agrees exactly. */
  tfWeight?: number;
  /**
   * When the names are near (`FUZZY_TF_LEVELS`): log2(m_exact / u_tf) of the more common of the two
   * spellings, the weight an exact agreement on it would have (read by the calibration only).
   */
  tfFuzzyWeight?: number;
  jaroWinkler: number;
  /** `external_id`, `exact_name` or `fuzzy_name` (the log's match_method). */
  method: string;
}

/** How often a name value (a surname, an organisation's core name) occurs among records of its type (0..1); undefined when unknown. */
export type NameFrequency = (entityType: string, value: string) => number | undefined;

/** Feature → level → probability. */
export type LevelTable = Record<string, Record<string, number>>;

export interface TypeModel {
  /** log2 of the prior odds that a random pair of this type is a match, in a population of `population` records. */
  priorLog2Odds: number;
  /**
   * Records of the type the prior was fitted on. A random pair's chance to match falls as 1/N (each
   * record has a few duplicates among N), as the frequency of a name does, so scoring in a population
   * of N records shifts the prior by log2(population / N).
   */
  population: number;
  /**
   * Other records of the same entity one record has on average (from the fit: 2·λ·blocked pairs / records).
   * A name's frequency counts the entity's own duplicates, which are no evidence that the name is common:
   * the term-frequency u takes the expected duplicates carrying the exact name off the count.
   */
  duplicates?: number;
  /** P(level | match) per feature. */
  m: LevelTable;
  /** P(level | non-match) per feature. */
  u: LevelTable;
  /**
   * P(level | non-match) of an attribute among pairs whose names are close (`namesClose`), where it
   * replaces `u`: independence of name and attributes fails there (see `CLOSE_NAME_U`). Absent: `u`.
   */
  uClose?: LevelTable;
}

export interface ScoringModel {
  PERSON: TypeModel;
  ORG: TypeModel;
  /** Lowest u used for a term-frequency-adjusted exact match (bounds the weight of unique names). */
  minTfU: number;
  /**
   * Per type, a logistic calibration over the same levels (`calibration.ts`): when present it
   * replaces the prior and the Σ log2(m/u) of that type; m / u still give the term-frequency weight.
   */
  calibration?: Calibration;
}

/**
 * m / u of the context comparison when a fitted model has none (the records it was fitted on carried
 * no context): among true matches about a third share two or more related entities or documents and
 * a third one; among random pairs sharing one is rare (a common employer, a large committee) and two
 * rarer still. Deliberately moderate, so context tips the review band but never outweighs a name.
 */
export const CONTEXT_PRIOR = {
  m: { two_or_more: 0.3, one: 0.3, none: 0.4 },
  u: { two_or_more: 0.0005, one: 0.01, none: 0.9895 },
} as const;

/**
 * The close-name u the default model adds to its EM fit. Two distinct organisations with one exact
 * core name are a family's foundation, fund, PAC and company: registries refuse a second entity of
 * the same name and legal form in a jurisdiction, so siblings differ in legal form, and among
 * non-matches with one core name sharing the legal form is the rare coincidence (taken as 1 in 100,
 * against 1 in 6 among random pairs). EM cannot learn this from unlabelled pairs without reading
 * the very agreement it estimates (a pair agreeing on the form looks like a match, so non-matches
 * seem never to agree), hence a stated value rather than a fitted one.
 */
export const CLOSE_NAME_U: Partial<Record<ResolvableType, LevelTable>> = {
  ORG: { legal_form: { same: 0.01, different: 0.99 } },
};

/** The feature whose `exact` level is term-frequency adjusted. */
export const TF_FEATURE: Record<ResolvableType, string> = { PERSON: 'last_name', ORG: 'name' };

/**
 * The near levels of the term-frequency feature whose evidence also depends on how common the name
 * is: a typo of a name no one else carries says far more than one of "Smith", and it says more the
 * more records there are, as an exact name does. Their term-frequency weight is that of the more
 * common of the two spellings (the likely correct one, and the conservative choice, as Splink does
 * for fuzzy levels), an input of the calibration beside the level itself.
 */
export const FUZZY_TF_LEVELS: Record<ResolvableType, readonly string[]> = {
  PERSON: ['one_edit', 'jw_0.92', 'jw_0.88'],
  ORG: ['one_edit', 'two_edits'],
};

/** The value whose frequency adjusts an exact name match: the surname of a person, the core name of an organisation. */
export function tfValue(r: NormalisedRecord): string {
  return r.person ? r.person.last : (r.org?.core ?? r.canonical);
}

export const DEFAULT_MODEL: ScoringModel = {
  ...DEFAULT_FITTED_MODEL,
  ORG: { ...DEFAULT_FITTED_MODEL.ORG, uClose: CLOSE_NAME_U.ORG! },
  calibration: DEFAULT_CALIBRATION,
};

/** The EM fit alone, without the calibration (what the calibration is fitted against). */
export const UNCALIBRATED_MODEL: ScoringModel = { ...DEFAULT_MODEL, calibration: undefined };

/** The least number of other-entity records a term-frequency u assumes for any name. */
export const TF_FLOOR_RECORDS = 0.5;

/** The probability a shared external id gives at least. */
export const SHARED_ID_PROBABILITY = 0.999;

/**
 * Weight of one level: log2(m/u), with u replaced by the value's frequency for a TF-adjusted exact
 * name, and by the close-name u (`TypeModel.uClose`) when the names are close and the model has one.
 */
export function levelWeight(
  tm: TypeModel,
  feature: string,
  level: string,
  tfU?: number,
  close = false,
): number {
  const prior = feature === 'context' && !tm.u.context ? CONTEXT_PRIOR : undefined;
  const m = prior ? prior.m[level as keyof typeof CONTEXT_PRIOR.m] : tm.m[feature]?.[level];
  const closeU = close ? tm.uClose?.[feature]?.[level] : undefined;
  const u =
    tfU ?? closeU ?? (prior ? prior.u[level as keyof typeof CONTEXT_PRIOR.u] : tm.u[feature]?.[level]);
  if (m === undefined || u === undefined || m <= 0 || u <= 0) return 0;
  return Math.log2(m / u);
}

export function comparePair(
  a: NormalisedRecord,
  b: NormalisedRecord,
  freq?: NameFrequency,
  model: ScoringModel = DEFAULT_MODEL,
  /** Records of the type being resolved against, when known (scales the prior). */
  population?: number,
): Comparison {
  return weigh(a, b, compareLevels(a, b), freq, model, population);
}

/** Weights and probability of a level vector (from `compareLevels`, or widened over a cluster by `clusterLevels`). */
export function weigh(
  a: NormalisedRecord,
  b: NormalisedRecord,
  { levels, conflict, sharedId }: Levels,
  freq?: NameFrequency,
  model: ScoringModel = DEFAULT_MODEL,
  population?: number,
  /**
   * Records of `b`'s cluster already known to carry `a`'s exact name value: the entity's own
   * duplicates, taken off the name's count when more than the expected number (a large entity's
   * own records are no evidence that its name is common).
   */
  ownNameRecords = 0,
): Comparison {
  const tm = model[a.entityType];
  const cal = model.calibration?.[a.entityType];
  const weights: Record<string, number> = {};
  // Under a calibration the Fellegi–Sunter weights are only read for features it has no table for.
  const fsWeights: Record<string, number> = cal ? {} : weights;
  const offset = population && population > 0 ? Math.log2(tm.population / Math.max(population, 2)) : 0;
  let weight = tm.priorLog2Odds + offset;
  const tfFeature = TF_FEATURE[a.entityType];
  const close = namesClose(a.entityType, levels);
  const n = population && population > 0 ? population : tm.population;
  const expectedDup = (tm.duplicates ?? 0) * (tm.m[tfFeature]?.exact ?? 0);
  // Other entities with a name value: the other records carrying it less the entity's own expected
  // duplicates, never below half a record (a name seen once may still have a namesake).
  const tfUOf = (r: NormalisedRecord, dup: number): number | undefined => {
    const f = freq?.(r.entityType, tfValue(r));
    return f === undefined ? undefined : Math.max(f - dup / n, TF_FLOOR_RECORDS / n, model.minTfU);
  };
  let tfWeight: number | undefined;
  let tfFuzzyWeight: number | undefined;
  const near = levels[tfFeature];
  if (near !== undefined && FUZZY_TF_LEVELS[a.entityType].includes(near)) {
    const ua = tfUOf(a, expectedDup);
    const ub = tfUOf(b, expectedDup);
    const mExact = tm.m[tfFeature]?.exact;
    if (ua !== undefined && ub !== undefined && mExact) tfFuzzyWeight = Math.log2(mExact / Math.max(ua, ub));
  }
  for (const [feature, level] of Object.entries(levels)) {
    const isTf = feature === tfFeature && level === 'exact';
    if (cal?.levels[feature] && !isTf) continue;
    const tfU = isTf ? tfUOf(a, Math.max(expectedDup, ownNameRecords)) : undefined;
    const v = levelWeight(tm, feature, level, tfU, close);
    if (isTf) tfWeight = v;
    fsWeights[feature] = v;
    weight += v;
  }
  if (cal)
    weight =
      populationWeight(cal, offset, population && population > 0 ? population : undefined) +
      calibratedWeights(
        cal,
        a.entityType,
        { levels, tfWeight, tfFeature, ...(tfFuzzyWeight !== undefined ? { tfFuzzyWeight } : {}) },
        fsWeights,
        weights,
      );
  // A shared id of one kind is a deterministic match rule (as ids are in Splink's deterministic
  // linkage): near-certain whatever the names say; only a conflicting id of another kind forbids it.
  const probability = conflict
    ? 0
    : sharedId
      ? Math.max(SHARED_ID_PROBABILITY, 1 / (1 + Math.pow(2, -weight)))
      : 1 / (1 + Math.pow(2, -weight));
  const method = sharedId ? 'external_id' : a.canonical === b.canonical ? 'exact_name' : 'fuzzy_name';
  return {
    levels,
    weights,
    weight,
    probability,
    ...(conflict ? { conflict } : {}),
    ...(sharedId ? { sharedId } : {}),
    ...(tfWeight !== undefined ? { tfWeight } : {}),
    ...(tfFuzzyWeight !== undefined ? { tfFuzzyWeight } : {}),
    jaroWinkler: jaroWinkler(a.canonical, b.canonical),
    method,
  };
}
