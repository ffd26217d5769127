/**
 * Agreement levels: how two records compare, feature by feature, before any
 * weight is put on it (scoring.ts weighs them). Each feature falls in one
 * level of `FEATURE_LEVELS`; a feature either record lacks has no level
 * (missing data), and a cluster compares through its best pair's names and
 * the best level any member reaches on every other feature (`clusterLevels`).
 */
import { NICKNAMES_OF } from './lexicon.js';
import { employerItem, isNeighbourItem } from './neighbours.js';
import type { NormalisedRecord } from './normalise.js';
import { soundex } from './phonetic.js';
import { ID_KINDS, type ExternalIds, type ResolvableType } from './record.js';
import { jaroWinkler, tokenSet, withinEdits } from './similarity.js';

/** Every feature and its levels, best first; the scorer emits exactly these. */
export const FEATURE_LEVELS: Record<ResolvableType, Record<string, readonly string[]>> = {
  PERSON: {
    external_id: ['same', 'other_kinds', 'not_shared'],
    last_name: ['exact', 'one_edit', 'jw_0.92', 'jw_0.88', 'phonetic', 'different'],
    first_name: ['exact', 'initial', 'one_edit', 'jw_0.88', 'different'],
    middle: ['same', 'different'],
    employer: ['same', 'different'],
    title: ['same', 'different'],
    state: ['same', 'different'],
    city: ['same', 'same_elsewhere', 'different'],
    context: ['two_or_more', 'one', 'none'],
  },
  ORG: {
    external_id: ['same', 'other_kinds', 'not_shared'],
    name: ['exact', 'one_edit', 'two_edits', 'token_set_1', 'token_set_0.8', 'token_set_0.6', 'different'],
    legal_form: ['same', 'different'],
    state: ['same', 'different'],
    city: ['same', 'same_elsewhere', 'different'],
    context: ['two_or_more', 'one', 'none'],
  },
};

/** A context item given with the record (not a neighbour read from relationships). */
const given = (item: string): boolean => !isNeighbourItem(item);

/** How many context items two sorted lists share. */
export function sharedContext(a: readonly string[], b: readonly string[]): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      n++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return n;
}

/**
 * Whether a pair's names are one name, so that a non-match is a namesake or a sibling rather than a
 * stranger: an organisation's exact core; a person's exact surname and first name.
 */
export function namesClose(type: ResolvableType, levels: Readonly<Record<string, string>>): boolean {
  if (type === 'ORG') return levels.name === 'exact';
  return levels.last_name === 'exact' && levels.first_name === 'exact';
}

export interface Levels {
  levels: Record<string, string>;
  conflict?: string;
  sharedId?: string;
}

/**
 * The id level: `same` when a kind agrees; `other_kinds` when both carry ids
 * but of no common kind (an organisation's EIN against a committee's FEC id:
 * often a corporation and its PAC); `not_shared` when either has none.
 */
export function idLevel(a: ExternalIds, b: ExternalIds, sharedId?: string): string {
  if (sharedId) return 'same';
  const ka = Object.keys(a).filter((k) => a[k as keyof ExternalIds]);
  const kb = Object.keys(b).filter((k) => b[k as keyof ExternalIds]);
  return ka.length > 0 && kb.length > 0 ? 'other_kinds' : 'not_shared';
}

/**
 * Two first names (formal, as normalised) compared through every spelling either may have been
 * written in: the name and its nicknames. A nickname with a typo (`Bfilly`, `Amggie`) is no
 * longer a nickname to normalisation, so it stays one edit from `billy` or `maggie`, not from
 * `william` or `margaret`; an initial may be a nickname's (`B.` for Betty, i.e. Elizabeth).
 */
export function firstNameLevel(a: string, b: string): string {
  if (a === b) return 'exact';
  if (a.length === 1 || b.length === 1) {
    const [initial, full] = a.length === 1 ? [a, b] : [b, a];
    if (full[0] === initial || NICKNAMES_OF[full]?.some((n) => n[0] === initial)) return 'initial';
    return 'different';
  }
  // The names as written first, then every nickname of either.
  const xs = [a, ...(NICKNAMES_OF[a] ?? [])];
  const ys = [b, ...(NICKNAMES_OF[b] ?? [])];
  for (const x of xs)
    for (const y of ys) if (x.length >= 3 && y.length >= 3 && withinEdits(x, y, 1)) return 'one_edit';
  return jaroWinkler(a, b) >= 0.88 ? 'jw_0.88' : 'different';
}

/** The agreement level of every comparable attribute (no weights). */
export function compareLevels(a: NormalisedRecord, b: NormalisedRecord): Levels {
  const levels: Record<string, string> = {};
  let conflict: string | undefined;
  let sharedId: string | undefined;
  for (const kind of ID_KINDS) {
    const x = a.ids[kind];
    const y = b.ids[kind];
    if (!x || !y) continue;
    if (x === y) sharedId ??= kind;
    else conflict ??= kind;
  }
  // Missing ids are the norm, so "not shared" is a level (weakly against), not missing data.
  levels.external_id = idLevel(a.ids, b.ids, sharedId);

  if (a.person && b.person) {
    const pa = a.person;
    const pb = b.person;
    if (pa.last === pb.last) levels.last_name = 'exact';
    else if (pa.last.length >= 4 && pb.last.length >= 4 && withinEdits(pa.last, pb.last, 1))
      levels.last_name = 'one_edit';
    else {
      const jw = jaroWinkler(pa.last, pb.last);
      if (jw >= 0.92) levels.last_name = 'jw_0.92';
      else if (jw >= 0.88) levels.last_name = 'jw_0.88';
      else if (soundex(pa.last) === soundex(pb.last)) levels.last_name = 'phonetic';
      else levels.last_name = 'different';
    }
    if (pa.first && pb.first) levels.first_name = firstNameLevel(pa.first, pb.first);
    if (pa.middle && pb.middle) levels.middle = pa.middle[0] === pb.middle[0] ? 'same' : 'different';
    if (a.employer && b.employer)
      levels.employer = tokenSet(a.employer.split(' '), b.employer.split(' ')) >= 0.8 ? 'same' : 'different';
    if (a.title && b.title) levels.title = a.title === b.title ? 'same' : 'different';
  } else if (a.org && b.org) {
    const x = a.org.core;
    const y = b.org.core;
    if (x === y) levels.name = 'exact';
    else if (withinEdits(x, y, 1)) levels.name = 'one_edit';
    else if (Math.min(x.length, y.length) >= 12 && withinEdits(x, y, 2)) levels.name = 'two_edits';
    else {
      const ts = tokenSet(a.tokens, b.tokens);
      levels.name =
        ts >= 1 ? 'token_set_1' : ts >= 0.8 ? 'token_set_0.8' : ts >= 0.6 ? 'token_set_0.6' : 'different';
    }
    if (a.org.legalForm && b.org.legalForm)
      levels.legal_form = a.org.legalForm === b.org.legalForm ? 'same' : 'different';
  }
  if (a.state && b.state) levels.state = a.state === b.state ? 'same' : 'different';
  // One city name in two states is its own level: a Springfield in most states makes it weak evidence,
  // but a state keyed wrong (or a move within a metro across a state line) keeps the city; the
  // calibration learns how much it says. Different cities in different states say nothing more than
  // the states do, so they get no level.
  if (a.city && b.city) {
    const sameCity = a.city === b.city || jaroWinkler(a.city, b.city) >= 0.93;
    if (!a.state || !b.state || a.state === b.state) levels.city = sameCity ? 'same' : 'different';
    else if (sameCity) levels.city = 'same_elsewhere';
  }
  // Context: only when both records were seen with something (no context is missing data, not disagreement).
  // Sharing nothing is `none` only when both were given context of their own (documents): differing
  // neighbours from relationships are missing data too (neighbours.ts).
  if (a.context?.length && b.context?.length) {
    let n = sharedContext(a.context, b.context);
    // One employer is compared as `employer`; as a shared neighbour too it would count twice.
    if (levels.employer === 'same') {
      const shared = (item: string) => a.context!.includes(item) && b.context!.includes(item);
      if (shared(employerItem(a.employer)) || shared(employerItem(b.employer))) n--;
    }
    if (n > 0) levels.context = n >= 2 ? 'two_or_more' : 'one';
    else if (a.context.some(given) && b.context.some(given)) levels.context = 'none';
  }
  return { levels, ...(conflict ? { conflict } : {}), ...(sharedId ? { sharedId } : {}) };
}

/** The name features, which a cluster comparison takes from its best pair only. */
const NAME_FEATURES = new Set(['last_name', 'first_name', 'name', 'external_id']);

/**
 * A record against a cluster: the name levels of the best pair, and for every
 * other attribute (state, city, employer, title, middle initial, legal form)
 * the best level any retrieved member of the cluster reaches, since a cluster
 * holds every address and employer its records gave. A record whose best
 * peer lacks a city or moved state still agrees with the cluster's other
 * records. `different` only stands when no member agrees.
 */
export function clusterLevels(best: Levels, others: readonly Levels[], type: ResolvableType): Levels {
  if (others.length === 0) return best;
  const order = FEATURE_LEVELS[type];
  const levels = { ...best.levels };
  for (const o of others) {
    for (const [feature, level] of Object.entries(o.levels)) {
      if (NAME_FEATURES.has(feature)) continue;
      const rank = order[feature]!;
      const mine = levels[feature];
      if (mine === undefined || rank.indexOf(level) < rank.indexOf(mine)) levels[feature] = level;
    }
  }
  return { ...best, levels };
}
