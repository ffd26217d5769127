/**
 * Calibration of the Fellegi–Sunter comparison by logistic regression over
 * its own agreement levels, fitted with labelled pairs.
 *
 * Fellegi–Sunter adds log2(m/u) per feature as if the features were
 * independent given the match status. They are not: among organisations
 * with one exact name the non-matches are siblings in the same state, so a
 * different state says far less against a match than its random-pair u
 * claims; a record without its legal form is exactly what a sibling looks
 * like. Measured on the generator at 100k records, organisation pairs the
 * EM-fitted model put at 0.1–0.5 matched 80 % of the time. A logistic
 * regression on the same level indicators (plus "one side lacks it" and the
 * term-frequency-adjusted name weight as a continuous input) learns one
 * weight per level from labels instead of from the independence assumption,
 * keeps Fellegi–Sunter's explanation (a weight per feature, in bits) and is
 * calibrated by construction (it maximises the labels' likelihood).
 *
 * A near name (one or two edits apart) has a continuous input too: the
 * term-frequency weight of the more common of its two spellings (`tfFuzzy`).
 * A typo of a name no other entity carries is strong evidence, one of
 * "Smith" is not, and the difference grows with the population as an exact
 * name's does; without it, every near-name pair lost odds as the population
 * grew while exact names kept theirs.
 *
 * How the odds move with the population is learned too: the EM model's
 * prior scaling (`log2(model population / N)`) is an input with its own
 * coefficient, fitted on runs of several sizes. (With blocking the odds of a
 * candidate do not fall as 1/N the way a random pair's do, and the
 * term-frequency weight already grows with N.) The odds do not fall along
 * one line in log N all the way: candidates that look alike become more
 * common as the population grows, faster in large ones. So the term may bend
 * once, at a knee (`populationKnee`): beyond `records` the slope is
 * `population + coefficient`, fitted with a run larger than the knee while
 * the runs up to it keep fixing the slope below. Shared ids and conflicting
 * ids stay deterministic rules (see `weigh`).
 */
import type { ResolvableType } from './record.js';

/** Per type: weights in bits (log2 odds). */
export interface TypeCalibration {
  bias: number;
  /** Feature → level → weight; level `missing` when either side lacks the feature. */
  levels: Record<string, Record<string, number>>;
  /** Coefficient of the term-frequency-adjusted exact-name weight, log2(m / u_tf). */
  tf: number;
  /**
   * Coefficient of the term-frequency weight of a near name (one or two edits apart): the weight an
   * exact agreement on the more common of the two spellings would have (absent: 0).
   */
  tfFuzzy?: number;
  /** Coefficient of the population offset log2(model population / N). */
  population: number;
  /**
   * Where the population term bends: beyond `records` records of the type it adds
   * `coefficient × log2(records / N)` (absent: one slope at every size).
   */
  populationKnee?: { records: number; coefficient: number };
  /**
   * Interactions of the name with the state: name level → state level (`missing` when either
   * lacks it) → weight. A rare name in another state is the same entity moved; a common one is a
   * namesake, hence also `tfDifferentState`, multiplying the term-frequency weight when the states differ.
   */
  cross: Record<string, Record<string, number>>;
  tfDifferentState: number;
}

export type Calibration = Partial<Record<ResolvableType, TypeCalibration>>;

/** Features whose absence on one side is itself informative (a record without a legal form may be a sibling). */
export const MISSING_FEATURES: Record<ResolvableType, readonly string[]> = {
  PERSON: ['first_name', 'middle', 'employer', 'title', 'state', 'city'],
  ORG: ['legal_form', 'state', 'city'],
};

/** What the calibration reads of one comparison. */
export interface CalibrationInput {
  levels: Readonly<Record<string, string>>;
  /** log2(m / u_tf) when the term-frequency feature agrees exactly. */
  tfWeight?: number;
  /** The term-frequency feature, whose `exact` level is read through `tfWeight`. */
  tfFeature: string;
  /** log2(m_exact / u_tf) of the more common spelling when the term-frequency feature is a near match. */
  tfFuzzyWeight?: number;
}

/**
 * The calibrated weight (bits, before the population offset) and each feature's share of it
 * (`name_and_state` for the interaction). A level the fit never saw weighs 0.
 */
export function calibratedWeights(
  cal: TypeCalibration,
  type: ResolvableType,
  { levels, tfWeight, tfFeature, tfFuzzyWeight }: CalibrationInput,
  /** The Fellegi–Sunter weight per feature, for features the calibration has no table for. */
  fsWeights: Readonly<Record<string, number>>,
  out: Record<string, number>,
): number {
  let z = cal.bias;
  for (const [feature, level] of Object.entries(levels)) {
    const table = cal.levels[feature];
    // A feature the labelled pairs never carried (context) keeps its Fellegi–Sunter weight.
    if (!table) {
      const w = fsWeights[feature] ?? 0;
      out[feature] = w;
      z += w;
      continue;
    }
    let w = table[level] ?? 0;
    if (feature === tfFeature && level === 'exact' && tfWeight !== undefined) w += cal.tf * tfWeight;
    else if (feature === tfFeature && tfFuzzyWeight !== undefined) w += (cal.tfFuzzy ?? 0) * tfFuzzyWeight;
    out[feature] = w;
    z += w;
  }
  for (const feature of MISSING_FEATURES[type]) {
    if (levels[feature] !== undefined) continue;
    const w = cal.levels[feature]?.missing ?? 0;
    if (w !== 0) out[feature] = w;
    z += w;
  }
  const name = levels[tfFeature];
  if (name !== undefined) {
    const state = levels.state ?? 'missing';
    let w = cal.cross[name]?.[state] ?? 0;
    if (state === 'different' && name === 'exact' && tfWeight !== undefined)
      w += cal.tfDifferentState * tfWeight;
    if (w !== 0) out.name_and_state = w;
    z += w;
  }
  return z;
}

/**
 * The population term of a pair scored among `records` records of its type, in bits: the slope
 * times the offset log2(model population / N), plus the knee's bend beyond its size.
 */
export function populationWeight(cal: TypeCalibration, offset: number, records: number | undefined): number {
  let w = cal.population * offset;
  const knee = cal.populationKnee;
  if (knee && records !== undefined) w += knee.coefficient * kneeInput(knee.records, records);
  return w;
}

/** log2(knee / N) beyond the knee, 0 up to it. */
function kneeInput(knee: number, records: number): number {
  return records > knee ? Math.log2(knee / records) : 0;
}

/** One labelled comparison for `fitCalibration`. */
export interface CalibrationSample extends CalibrationInput {
  /** The population offset log2(model population / N) the pair was scored at. */
  offset: number;
  /** N: the records of the type the pair was scored among (read when the fit has a knee). */
  records?: number;
  match: boolean;
}

export interface CalibrationFit {
  calibration: TypeCalibration;
  samples: number;
  matches: number;
  iterations: number;
  /** Mean log loss (bits) of the labels under the fit. */
  logLoss: number;
}

/**
 * Maximum-likelihood logistic regression (Newton's method, a small ridge penalty so levels seen
 * only among matches stay finite) of the samples' labels on the level indicators and the
 * term-frequency weight.
 */
export function fitCalibration(
  type: ResolvableType,
  samples: readonly CalibrationSample[],
  /** knee: records beyond which the population term may bend (needs samples scored beyond it, with `records`). */
  opts: { ridge?: number; iterations?: number; knee?: number } = {},
): CalibrationFit {
  const ridge = opts.ridge ?? 1;
  const knee = opts.knee;
  if (knee !== undefined && !(Number.isFinite(knee) && knee > 0))
    throw new Error(`knee: must be a positive number of records, got ${String(knee)}`);
  // Columns: bias, tf, population offset, tf when the states differ, the knee's bend, the near
  // name's tf, then every indicator seen.
  const columns = new Map<string, number>([
    ['bias', 0],
    ['tf', 1],
    ['population', 2],
    ['tf_different_state', 3],
    ['population_knee', 4],
    ['tf_fuzzy', 5],
  ]);
  const FIXED = columns.size;
  let beyondKnee = 0;
  let tfFuzzySeen = false;
  // One row per distinct input vector (most comparisons repeat one), weighted by how many samples
  // carry it and how many of those match: the likelihood is the same, the Newton steps far cheaper.
  const rows: Array<{ cols: number[]; xs: number[]; n: number; matches: number }> = [];
  const rowOf = new Map<string, number>();
  let samplesSeen = 0;
  let matchesSeen = 0;
  for (const s of samples) {
    const cols: number[] = [0];
    for (const [feature, level] of Object.entries(s.levels))
      cols.push(column(columns, `${feature}=${level}`));
    for (const feature of MISSING_FEATURES[type])
      if (s.levels[feature] === undefined) cols.push(column(columns, `${feature}=missing`));
    const tf = s.levels[s.tfFeature] === 'exact' && s.tfWeight !== undefined ? s.tfWeight : 0;
    const tfFuzzy = s.levels[s.tfFeature] !== 'exact' && s.tfFuzzyWeight !== undefined ? s.tfFuzzyWeight : 0;
    const name = s.levels[s.tfFeature];
    const state = s.levels.state ?? 'missing';
    if (name !== undefined) cols.push(column(columns, `cross=${name}|${state}`));
    const tfDifferent = name !== undefined && state === 'different' ? tf : 0;
    const bend = knee !== undefined && s.records !== undefined ? kneeInput(knee, s.records) : 0;
    if (bend !== 0) beyondKnee++;
    if (tfFuzzy !== 0) tfFuzzySeen = true;
    const xs = cols.map(() => 1);
    for (const [j, x] of [
      [1, tf],
      [2, s.offset],
      [3, tfDifferent],
      [4, bend],
      [5, tfFuzzy],
    ] as const)
      if (x !== 0) {
        cols.push(j);
        xs.push(x);
      }
    const key = `${cols.join(',')}|${xs.join(',')}`;
    let at = rowOf.get(key);
    if (at === undefined) {
      at = rows.length;
      rowOf.set(key, at);
      rows.push({ cols, xs, n: 0, matches: 0 });
    }
    const row = rows[at]!;
    row.n++;
    samplesSeen++;
    if (s.match) {
      row.matches++;
      matchesSeen++;
    }
  }
  if (knee !== undefined && beyondKnee === 0)
    throw new Error(
      `knee: no sample was scored among more than ${knee} records, so the bend cannot be fitted`,
    );
  const k = columns.size;
  const beta = new Float64Array(k);
  let iterations = 0;
  let loss = 0;
  for (; iterations < (opts.iterations ?? 50); iterations++) {
    const grad = new Float64Array(k);
    const hess = new Float64Array(k * k);
    loss = 0;
    for (const { cols, xs, n, matches } of rows) {
      let z = 0;
      for (let i = 0; i < cols.length; i++) z += beta[cols[i]!]! * xs[i]!;
      const p = 1 / (1 + Math.exp(-z));
      if (matches > 0) loss -= matches * Math.log(Math.max(p, 1e-300));
      if (n > matches) loss -= (n - matches) * Math.log(Math.max(1 - p, 1e-300));
      const g = n * p - matches;
      const h = n * p * (1 - p);
      for (let i = 0; i < cols.length; i++) {
        const j = cols[i]!;
        const xj = xs[i]!;
        grad[j]! += g * xj;
        for (let m = 0; m < cols.length; m++) hess[j * k + cols[m]!]! += h * xj * xs[m]!;
      }
    }
    for (let j = 0; j < k; j++) {
      grad[j]! += ridge * beta[j]!;
      hess[j * k + j]! += ridge;
    }
    const step = solve(hess, grad, k);
    let largest = 0;
    for (let j = 0; j < k; j++) {
      beta[j]! -= step[j]!;
      largest = Math.max(largest, Math.abs(step[j]!));
    }
    if (largest < 1e-6) {
      iterations++;
      break;
    }
  }
  // Natural log odds → bits.
  const bits = (x: number) => Number((x / Math.LN2).toPrecision(4));
  const calibration: TypeCalibration = {
    bias: bits(beta[0]!),
    tf: bits(beta[1]!),
    population: bits(beta[2]!),
    levels: {},
    cross: {},
    tfDifferentState: bits(beta[3]!),
    ...(tfFuzzySeen ? { tfFuzzy: bits(beta[5]!) } : {}),
    ...(knee !== undefined ? { populationKnee: { records: knee, coefficient: bits(beta[4]!) } } : {}),
  };
  for (const [name, j] of columns) {
    if (j < FIXED) continue;
    const [feature, level] = name.split('=') as [string, string];
    if (feature === 'cross') {
      const [nameLevel, stateLevel] = level.split('|') as [string, string];
      (calibration.cross[nameLevel] ??= {})[stateLevel] = bits(beta[j]!);
      continue;
    }
    (calibration.levels[feature] ??= {})[level] = bits(beta[j]!);
  }
  return {
    calibration,
    samples: samplesSeen,
    matches: matchesSeen,
    iterations,
    logLoss: loss / Math.max(samplesSeen, 1) / Math.LN2,
  };
}

function column(columns: Map<string, number>, name: string): number {
  let j = columns.get(name);
  if (j === undefined) {
    j = columns.size;
    columns.set(name, j);
  }
  return j;
}

/** Solve A x = b for a small symmetric positive-definite A (Gaussian elimination with pivoting). */
function solve(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const m = Float64Array.from(a);
  const x = Float64Array.from(b);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r * n + c]!) > Math.abs(m[piv * n + c]!)) piv = r;
    if (piv !== c) {
      for (let j = 0; j < n; j++) [m[c * n + j], m[piv * n + j]] = [m[piv * n + j]!, m[c * n + j]!];
      [x[c], x[piv]] = [x[piv]!, x[c]!];
    }
    const d = m[c * n + c]!;
    if (Math.abs(d) < 1e-12) continue;
    for (let r = c + 1; r < n; r++) {
      const f = m[r * n + c]! / d;
      if (f === 0) continue;
      for (let j = c; j < n; j++) m[r * n + j]! -= f * m[c * n + j]!;
      x[r]! -= f * x[c]!;
    }
  }
  for (let c = n - 1; c >= 0; c--) {
    let s = x[c]!;
    for (let j = c + 1; j < n; j++) s -= m[c * n + j]! * x[j]!;
    const d = m[c * n + c]!;
    x[c] = Math.abs(d) < 1e-12 ? 0 : s / d;
  }
  return x;
}
