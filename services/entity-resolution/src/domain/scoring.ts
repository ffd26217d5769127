/**
 * Pairwise scoring by Fellegi–Sunter: each compared attribute falls in one
 * agreement level with an m probability (level seen among true matches) and
 * a u probability (level seen among non-matches); the match weight is
 * log2(prior odds) + Σ log2(m/u), and exact name agreement takes its u from
 * the name's observed frequency (term-frequency adjustment: "John Smith"
 * agreeing is weaker evidence than "Ezekiel Okonkwo"). The probability is
 * 2^W / (1 + 2^W). Missing values are neutral (weight 0), as in Splink.
 * Two different ids of one kind are a conflict: the pair can never merge.
 */
import type { NormalisedRecord } from './normalise.js';
import { soundex } from './phonetic.js';
import { ID_KINDS } from './record.js';
import { jaroWinkler, tokenSet } from './similarity.js';

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
  jaroWinkler: number;
  /** `external_id`, `exact_name` or `fuzzy_name` (the log's match_method). */
  method: string;
}

/** How often a name value (a surname, an organisation's core name) occurs among records of its type (0..1); undefined when unknown. */
export type NameFrequency = (entityType: string, value: string) => number | undefined;

export interface ScoringModel {
  /** log2 of the prior odds that two blocked people match. */
  priorLog2Odds: number;
  /** The same for organisations: their blocks are narrower (rare words, ids), so a blocked pair is likelier a match. */
  orgPriorLog2Odds: number;
  /** Lowest u used for a term-frequency-adjusted exact match (bounds the weight of unique names). */
  minTfU: number;
}

export const DEFAULT_MODEL: ScoringModel = { priorLog2Odds: -10, orgPriorLog2Odds: -8, minTfU: 3e-5 };

type Level = readonly [name: string, m: number, u: number];
const w = (l: Level) => Math.log2(l[1] / l[2]);

// m / u per level, set from the labelled generator at medium corruption (see docs/entity-resolution.md).
const LAST = {
  exact: ['exact', 0.86, 0.003],
  jw: ['jw_0.92', 0.08, 0.003],
  jw2: ['jw_0.88', 0.03, 0.006],
  phon: ['phonetic', 0.02, 0.02],
  diff: ['different', 0.02, 0.973],
} as const;
const FIRST = {
  exact: ['exact', 0.84, 0.03],
  initial: ['initial', 0.08, 0.04],
  jw: ['jw_0.9', 0.06, 0.01],
  diff: ['different', 0.02, 0.92],
} as const;
const MIDDLE = { same: ['same', 0.6, 0.15], diff: ['different', 0.03, 0.4] } as const;
const ORG = {
  exact: ['exact', 0.75, 0.001],
  strong: ['token_set_0.9', 0.17, 0.0005],
  weak: ['token_set_0.7', 0.06, 0.01],
  diff: ['different', 0.02, 0.9885],
} as const;
const FORM = { same: ['same', 0.85, 0.35], diff: ['different', 0.01, 0.3] } as const;
const ID = { same: ['same', 0.95, 1e-8] } as const;
const STATE = { same: ['same', 0.88, 0.06], diff: ['different', 0.12, 0.94] } as const;
const CITY = { same: ['same', 0.75, 0.01], diff: ['different', 0.25, 0.99] } as const;
const EMPLOYER = { same: ['same', 0.7, 0.01], diff: ['different', 0.3, 0.99] } as const;
const TITLE = { same: ['same', 0.6, 0.1] } as const;

export function comparePair(
  a: NormalisedRecord,
  b: NormalisedRecord,
  freq?: NameFrequency,
  model: ScoringModel = DEFAULT_MODEL,
): Comparison {
  const levels: Record<string, string> = {};
  const weights: Record<string, number> = {};
  const put = (feature: string, level: Level, weight = w(level)) => {
    levels[feature] = level[0];
    weights[feature] = weight;
  };
  const tfExact = (feature: string, level: Level, value: string) => {
    const f = freq?.(a.entityType, value);
    const u = f === undefined ? level[2] : Math.max(f, model.minTfU);
    put(feature, level, Math.log2(level[1] / u));
  };

  let conflict: string | undefined;
  let sharedId: string | undefined;
  for (const kind of ID_KINDS) {
    const x = a.ids[kind];
    const y = b.ids[kind];
    if (!x || !y) continue;
    if (x === y) {
      sharedId ??= kind;
      put(`id_${kind}`, ID.same);
    } else conflict ??= kind;
  }

  const jw = jaroWinkler(a.canonical, b.canonical);
  if (a.person && b.person) {
    const pa = a.person;
    const pb = b.person;
    if (pa.last === pb.last) tfExact('last_name', LAST.exact, pa.last);
    else if (jaroWinkler(pa.last, pb.last) >= 0.92) put('last_name', LAST.jw);
    else if (jaroWinkler(pa.last, pb.last) >= 0.88) put('last_name', LAST.jw2);
    else if (soundex(pa.last) === soundex(pb.last)) put('last_name', LAST.phon);
    else put('last_name', LAST.diff);
    if (pa.first && pb.first) {
      if (pa.first === pb.first) put('first_name', FIRST.exact);
      else if ((pa.first.length === 1 || pb.first.length === 1) && pa.first[0] === pb.first[0])
        put('first_name', FIRST.initial);
      else if (jaroWinkler(pa.first, pb.first) >= 0.9) put('first_name', FIRST.jw);
      else put('first_name', FIRST.diff);
    }
    if (pa.middle && pb.middle) put('middle', pa.middle[0] === pb.middle[0] ? MIDDLE.same : MIDDLE.diff);
    if (a.employer && b.employer)
      put(
        'employer',
        tokenSet(a.employer.split(' '), b.employer.split(' ')) >= 0.8 ? EMPLOYER.same : EMPLOYER.diff,
      );
    if (a.title && b.title && a.title === b.title) put('title', TITLE.same);
  } else if (a.org && b.org) {
    if (a.org.core === b.org.core) tfExact('name', ORG.exact, a.org.core);
    else {
      const ts = tokenSet(a.tokens, b.tokens);
      const cjw = jaroWinkler(a.org.core, b.org.core);
      // Token pairing forgives one typo per word, so it must agree with the whole-name similarity too.
      if ((ts >= 0.9 && cjw >= 0.93) || cjw >= 0.97) put('name', ORG.strong);
      else if (ts >= 0.7 || cjw >= 0.9) put('name', ORG.weak);
      else put('name', ORG.diff);
    }
    if (a.org.legalForm && b.org.legalForm)
      put('legal_form', a.org.legalForm === b.org.legalForm ? FORM.same : FORM.diff);
  }
  if (a.state && b.state) put('state', a.state === b.state ? STATE.same : STATE.diff);
  // A city name says little across states (there is a Springfield in most of them).
  if (a.city && b.city && (!a.state || !b.state || a.state === b.state))
    put('city', a.city === b.city || jaroWinkler(a.city, b.city) >= 0.93 ? CITY.same : CITY.diff);

  let weight = a.entityType === 'ORG' ? model.orgPriorLog2Odds : model.priorLog2Odds;
  for (const v of Object.values(weights)) weight += v;
  const probability = conflict ? 0 : 1 / (1 + Math.pow(2, -weight));
  const method = sharedId ? 'external_id' : a.canonical === b.canonical ? 'exact_name' : 'fuzzy_name';
  return {
    levels,
    weights,
    weight,
    probability,
    ...(conflict ? { conflict } : {}),
    ...(sharedId ? { sharedId } : {}),
    jaroWinkler: jw,
    method,
  };
}
