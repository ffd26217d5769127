/**
 * Term-frequency and population statistics, shared by the batch resolver
 * (counted over the whole input) and the service (counted from the stored
 * graph: one `tf:` row per entity in the block table, and the entities of
 * the type in the owner's namespace), so a single record is scored with the
 * same frequencies and prior scaling as a bulk load.
 */
import type { NormalisedRecord } from './normalise.js';
import { tfValue } from './scoring.js';

/** Below this many records of a type the estimates are unstable: no term frequency, the model's own prior. */
export const MIN_STATS_POPULATION = 1000;

/** The key under which a record's term-frequency value is counted (never searched as a block). */
export function tfKey(r: NormalisedRecord): string {
  return `tf:${r.entityType === 'PERSON' ? 'P' : 'O'}:${tfValue(r)}`;
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
