/**
 * `cross_reference`: match the records of two datasets by exact canonical
 * name, fuzzy name (the resolver's scorer) or a shared external id, one
 * best match per record of A; both unmatched sides are returned.
 */
import { canonicalIds } from './external-ids.js';
import { normaliseRecord, type NormalisedRecord } from './normalise.js';
import { guessType } from './extraction.js';
import { comparePair } from './scoring.js';
import { BlockIndex, blockKeys } from './blocking.js';

export type MatchStrategy = 'exact' | 'fuzzy_name' | 'external_id';

export interface CrossMatch {
  entity_a: Record<string, unknown>;
  entity_b: Record<string, unknown>;
  match_score: number;
  match_method: string;
}

const NAME_FIELDS = [
  'name',
  'entity_name',
  'canonical_name',
  'full_name',
  'organization',
  'org_name',
  'company',
  'committee_name',
  'contributor_name',
];

/** A record as the resolver sees it: name from the first name-like field, type given or guessed. */
export function asRecord(
  rec: Record<string, unknown>,
  index: number,
  side: string,
): NormalisedRecord | undefined {
  const name = NAME_FIELDS.map((f) => rec[f]).find(
    (v): v is string => typeof v === 'string' && v.trim().length > 0,
  );
  if (!name) return undefined;
  const t = String(rec.type ?? rec.entity_type ?? '').toUpperCase();
  const entityType = t === 'PERSON' || t === 'ORG' ? t : guessType(name);
  const rawIds = (rec.external_ids && typeof rec.external_ids === 'object' ? rec.external_ids : {}) as Record<
    string,
    unknown
  >;
  for (const k of ['ein', 'fec_id', 'cik'])
    if (rec[k] !== undefined && rawIds[k] === undefined) rawIds[k] = rec[k];
  const { ids } = canonicalIds(rawIds);
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return normaliseRecord({
    recordId: `${side}${index}`,
    entityType,
    name,
    externalIds: ids,
    ...(str(rec.city) ? { city: str(rec.city)! } : {}),
    ...(str(rec.state) ? { state: str(rec.state)! } : {}),
    ...(str(rec.employer) ? { employer: str(rec.employer)! } : {}),
  }).record;
}

export function crossReference(
  a: readonly Record<string, unknown>[],
  b: readonly Record<string, unknown>[],
  opts: { strategy: MatchStrategy; threshold: number },
): {
  matches: CrossMatch[];
  unmatched_a: Record<string, unknown>[];
  unmatched_b: Record<string, unknown>[];
  count: number;
} {
  const nb = b.map((r, i) => asRecord(r, i, 'b'));
  const index = new BlockIndex({ maxBlockSize: 1000, maxCandidates: 100 });
  nb.forEach((r, i) => r && index.add(i, blockKeys(r)));
  const matchedB = new Set<number>();
  const matches: CrossMatch[] = [];
  const unmatchedA: Record<string, unknown>[] = [];
  a.forEach((recA, i) => {
    const na = asRecord(recA, i, 'a');
    let best: { j: number; score: number; method: string } | undefined;
    if (na) {
      const cands = opts.strategy === 'fuzzy_name' ? index.candidates(blockKeys(na)) : nb.map((_, j) => j);
      for (const j of cands) {
        const nbj = nb[j];
        if (!nbj || matchedB.has(j)) continue;
        let score = 0;
        let method: string = opts.strategy;
        if (opts.strategy === 'exact')
          score = na.canonical === nbj.canonical && na.entityType === nbj.entityType ? 1 : 0;
        else if (opts.strategy === 'external_id')
          score = Object.entries(na.ids).some(([k, v]) => nbj.ids[k as keyof typeof nbj.ids] === v) ? 1 : 0;
        else if (na.entityType === nbj.entityType) {
          const cmp = comparePair(na, nbj);
          score = cmp.probability;
          method = cmp.method;
        }
        if (score >= opts.threshold && (!best || score > best.score)) best = { j, score, method };
      }
    }
    if (best) {
      matchedB.add(best.j);
      matches.push({
        entity_a: recA,
        entity_b: b[best.j]!,
        match_score: best.score,
        match_method: best.method,
      });
    } else unmatchedA.push(recA);
  });
  const unmatched_b = b.filter((_, j) => !matchedB.has(j));
  return { matches, unmatched_a: unmatchedA, unmatched_b, count: matches.length };
}
