/**
 * Unsupervised fit of the Fellegi–Sunter model, as Splink does it: the u
 * probabilities from random pairs (almost all of them non-matches), then the
 * m probabilities and the prior by expectation–maximisation over the pairs
 * blocking proposes, u held fixed. No labels are read. Pairs with
 * conflicting ids are left out (they can never merge, whatever the weights).
 */
import { BlockIndex, blockKeys, DEFAULT_BLOCKING, type BlockIndexOptions } from './blocking.js';
import type { NormalisedRecord } from './normalise.js';
import type { ResolvableType } from './record.js';
import { compareLevels, FEATURE_LEVELS } from './levels.js';
import { CLOSE_NAME_U, type LevelTable, type ScoringModel, type TypeModel } from './scoring.js';

export interface FitOptions {
  /** Records per type the fit reads (a prefix of the input); default 30,000. */
  sample?: number;
  /** Random pairs per type for u; default 200,000. */
  randomPairs?: number;
  /** At most this many EM iterations; default 40. */
  iterations?: number;
  seed?: number;
  blocking?: BlockIndexOptions;
  minTfU?: number;
}

export interface FitReport {
  entityType: ResolvableType;
  records: number;
  blockedPairs: number;
  randomPairs: number;
  /** Share of blocked pairs EM takes for matches. */
  lambda: number;
  iterations: number;
}

/** mulberry32, so a fit is reproducible. */
function rand(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Pattern {
  levels: Array<[string, string]>;
  count: number;
}

function addPattern(patterns: Map<string, Pattern>, levels: Record<string, string>): void {
  const entries = Object.entries(levels).sort((x, y) => (x[0] < y[0] ? -1 : 1));
  const key = entries.map(([f, l]) => `${f}=${l}`).join('|');
  const p = patterns.get(key);
  if (p) p.count++;
  else patterns.set(key, { levels: entries, count: 1 });
}

/** Observed level shares per feature with add-half smoothing (no level ever has probability 0). */
function shares(counts: Map<string, Map<string, number>>, type: ResolvableType): LevelTable {
  const out: LevelTable = {};
  for (const [feature, levels] of Object.entries(FEATURE_LEVELS[type])) {
    const c = counts.get(feature) ?? new Map<string, number>();
    let total = 0;
    for (const l of levels) total += c.get(l) ?? 0;
    // A feature never observed (no record carried it) gets no table: scoring falls back to its prior, if any.
    if (total === 0) continue;
    out[feature] = {};
    for (const l of levels) out[feature]![l] = ((c.get(l) ?? 0) + 0.5) / (total + 0.5 * levels.length);
  }
  return out;
}

function fitType(
  records: readonly NormalisedRecord[],
  type: ResolvableType,
  opts: Required<Omit<FitOptions, 'minTfU'>>,
): { model: TypeModel; report: FitReport } {
  const recs = records.filter((r) => r.entityType === type).slice(0, opts.sample);
  const r = rand(opts.seed);
  // u: random pairs.
  const uCounts = new Map<string, Map<string, number>>();
  let randomPairs = 0;
  if (recs.length > 1) {
    for (let i = 0; i < opts.randomPairs; i++) {
      const a = recs[Math.floor(r() * recs.length)]!;
      const b = recs[Math.floor(r() * recs.length)]!;
      if (a === b) continue;
      const lv = compareLevels(a, b);
      if (lv.conflict) continue;
      randomPairs++;
      for (const [f, l] of Object.entries(lv.levels)) {
        const m = uCounts.get(f) ?? uCounts.set(f, new Map()).get(f)!;
        m.set(l, (m.get(l) ?? 0) + 1);
      }
    }
  }
  const u = shares(uCounts, type);

  // Session 1, pairs the name blocking proposes (each record against the candidates before it):
  // EM learns m of every feature except the names, which blocking selected on (as in Splink, a
  // session never estimates the comparisons of its own blocking rule).
  const nameFeatures = type === 'PERSON' ? ['last_name', 'first_name'] : ['name'];
  const index = new BlockIndex(opts.blocking);
  const byName = new Map<string, Pattern>();
  let blockedPairs = 0;
  recs.forEach((rec, pos) => {
    const keys = blockKeys(rec);
    for (const c of index.candidates(keys)) {
      const lv = compareLevels(rec, recs[c]!);
      if (lv.conflict) continue;
      blockedPairs++;
      addPattern(byName, lv.levels);
    }
    index.add(pos, keys);
  });
  // Session 2, pairs that share an external id (almost all of them the same entity, whatever their
  // names): EM learns m of the names, the id comparison being this session's blocking rule.
  const byId = new Map<string, Pattern>();
  const idBlocks = new Map<string, number[]>();
  recs.forEach((rec, pos) => {
    for (const [kind, value] of Object.entries(rec.ids)) {
      const key = `${kind}:${value}`;
      const block = idBlocks.get(key) ?? idBlocks.set(key, []).get(key)!;
      for (const c of block.slice(-30)) {
        const lv = compareLevels(rec, recs[c]!);
        if (!lv.conflict) addPattern(byId, lv.levels);
      }
      block.push(pos);
    }
  });

  const features = FEATURE_LEVELS[type];
  const init: LevelTable = {};
  for (const [f, levels] of Object.entries(features)) {
    init[f] = {};
    let z = 0;
    levels.forEach((_, i) => (z += 2 ** (-2 * i)));
    levels.forEach((l, i) => (init[f]![l] = 2 ** (-2 * i) / z));
  }
  const one = em([...byName.values()], init, u, new Set(nameFeatures), type, opts.iterations);
  const two = em([...byId.values()], one.m, u, new Set(['external_id']), type, opts.iterations);
  const m: LevelTable = { ...one.m };
  for (const f of nameFeatures) m[f] = two.m[f]!;
  for (const f of Object.keys(m)) if (!u[f]) delete m[f];
  // The prior is that of a random pair, as the weights are against random pairs: the matches among
  // blocked pairs (session 1's share) over all pairs of the sample.
  const allPairs = (recs.length * (recs.length - 1)) / 2;
  const matches = Math.max(1, one.lambda * blockedPairs);
  const prior = matches / Math.max(allPairs, matches + 1);
  return {
    model: {
      priorLog2Odds: Math.log2(prior / (1 - prior)),
      population: recs.length,
      // Every match pair gives each of its two records one duplicate.
      duplicates: (2 * matches) / Math.max(1, recs.length),
      m,
      u,
    },
    report: {
      entityType: type,
      records: recs.length,
      blockedPairs,
      randomPairs,
      lambda: one.lambda,
      iterations: one.iterations + two.iterations,
    },
  };
}

/** EM with u fixed; `skip` features neither enter the posterior nor get re-estimated (their m is kept). */
function em(
  list: readonly Pattern[],
  start: LevelTable,
  u: LevelTable,
  skip: ReadonlySet<string>,
  type: ResolvableType,
  iterations: number,
): { m: LevelTable; lambda: number; iterations: number } {
  const m: LevelTable = structuredClone(start);
  let lambda = 0.1;
  let it = 0;
  for (; it < iterations && list.length > 0; it++) {
    const acc = new Map<string, Map<string, number>>();
    let matched = 0;
    let total = 0;
    for (const p of list) {
      let lm = Math.log(lambda);
      let lu = Math.log(1 - lambda);
      for (const [f, l] of p.levels) {
        if (skip.has(f)) continue;
        lm += Math.log(m[f]?.[l] ?? 1);
        lu += Math.log(u[f]?.[l] ?? 1);
      }
      const post = 1 / (1 + Math.exp(lu - lm));
      const w = post * p.count;
      matched += w;
      total += p.count;
      for (const [f, l] of p.levels) {
        if (skip.has(f)) continue;
        const a = acc.get(f) ?? acc.set(f, new Map()).get(f)!;
        a.set(l, (a.get(l) ?? 0) + w);
      }
    }
    const next = shares(acc, type);
    let delta = Math.abs(matched / total - lambda);
    for (const f of Object.keys(next)) {
      if (skip.has(f)) continue;
      for (const l of Object.keys(next[f]!)) delta = Math.max(delta, Math.abs(next[f]![l]! - m[f]![l]!));
      m[f] = next[f]!;
    }
    lambda = Math.min(0.999, Math.max(1e-6, matched / total));
    if (delta < 1e-6) {
      it++;
      break;
    }
  }
  return { m, lambda, iterations: it };
}

/** Fit m / u / prior for both types from unlabelled records. */
export function fitModel(
  records: readonly NormalisedRecord[],
  opts: FitOptions = {},
): { model: ScoringModel; report: FitReport[] } {
  const o = {
    sample: opts.sample ?? 30_000,
    randomPairs: opts.randomPairs ?? 200_000,
    iterations: opts.iterations ?? 40,
    seed: opts.seed ?? 1,
    blocking: opts.blocking ?? DEFAULT_BLOCKING,
  };
  const person = fitType(records, 'PERSON', o);
  const org = fitType(records, 'ORG', o);
  // The close-name u is stated, not fitted (see CLOSE_NAME_U): every fit carries it.
  const withClose = (type: ResolvableType, tm: TypeModel): TypeModel =>
    CLOSE_NAME_U[type] ? { ...tm, uClose: CLOSE_NAME_U[type] } : tm;
  return {
    model: {
      PERSON: withClose('PERSON', person.model),
      ORG: withClose('ORG', org.model),
      minTfU: opts.minTfU ?? 1e-7,
    },
    report: [person.report, org.report],
  };
}
