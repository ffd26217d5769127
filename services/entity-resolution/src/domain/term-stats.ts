/**
 * Term-frequency and population statistics, shared by the batch resolver
 * (counted over the whole input) and the service (counted from the stored
 * graph: one `tf:` row per entity in the block table, and the entities of
 * the type in the owner's namespace), so a single record is scored with the
 * same frequencies and prior scaling as a bulk load.
 */
import type { NormalisedRecord } from './normalise.js';
import { tfValue, type NameFrequency } from './scoring.js';

/** Below this many records of a type the estimates are unstable: no term frequency, the model's own prior. */
export const MIN_STATS_POPULATION = 1000;

/** The key under which a record's term-frequency value is counted (never searched as a block). */
export function tfKey(r: NormalisedRecord): string {
  return tfKeyOf(r.entityType, tfValue(r));
}

/** The term-frequency key of a name value of a type. */
export function tfKeyOf(entityType: string, value: string): string {
  return `tf:${entityType === 'PERSON' ? 'P' : 'O'}:${value}`;
}

/**
 * The term-frequency keys to count for a record about to be scored against stored candidates: its
 * own, then each other value the candidates carry (a near name's weight reads the more common of
 * the two spellings).
 */
export function termKeys(record: NormalisedRecord, candidates: readonly NormalisedRecord[]): string[] {
  return [...new Set([tfKey(record), ...candidates.map(tfKey)])];
}

/**
 * Name frequencies from stored counts per term-frequency key (`termKeys`), read before the record
 * is stored: its own key counts only other entities; a candidate's key counts the candidate too,
 * which is taken off as the batch resolver takes a record off its own count. A value not counted
 * has no frequency (its weight stays untuned rather than guessed).
 */
export function storedFrequency(
  record: NormalisedRecord,
  counts: ReadonlyMap<string, number>,
  population: number,
): NameFrequency {
  const own = tfKey(record);
  return (type, value) => {
    const key = tfKeyOf(type, value);
    const n = counts.get(key);
    if (n === undefined) return undefined;
    return termFrequency(key === own ? n : n - 1, population);
  };
}

/** The population the prior is scaled to, or undefined while too small. */
export function statsPopulation(population: number): number | undefined {
  return population < MIN_STATS_POPULATION ? undefined : population;
}

/**
 * Share of the population carrying the value besides the record itself (a pair's own two
 * occurrences are no evidence against it), or undefined while the population is too small.
 */
export function termFrequency(others: number, population: number): number | undefined {
  return population < MIN_STATS_POPULATION ? undefined : Math.max(0, others) / population;
}
