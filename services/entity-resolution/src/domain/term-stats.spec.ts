import { normaliseRecord } from './normalise.js';
import { Resolver } from './resolver.js';
import { MIN_STATS_POPULATION, statsPopulation, termFrequency, tfKey } from './term-stats.js';

const rec = (id: string, entityType: 'PERSON' | 'ORG', name: string) =>
  normaliseRecord({ recordId: id, entityType, name }).record;

describe('term statistics', () => {
  it('keys the surname of a person and the core name of an organisation', () => {
    expect(tfKey(rec('a', 'PERSON', 'Smith, John'))).toBe('P:smith'.replace('P:', 'tf:P:'));
    expect(tfKey(rec('b', 'ORG', 'The Acme Holdings Inc.'))).toBe('tf:O:acme holdings');
  });
  it('gives no frequency and no population scaling below the stable size', () => {
    expect(termFrequency(3, MIN_STATS_POPULATION - 1)).toBeUndefined();
    expect(statsPopulation(MIN_STATS_POPULATION - 1)).toBeUndefined();
    expect(termFrequency(3, 2000)).toBe(3 / 2000);
    expect(termFrequency(-1, 2000)).toBe(0);
    expect(statsPopulation(2000)).toBe(2000);
  });
  it('is what the batch resolver uses, so a stored graph of the same records scores alike', () => {
    const resolver = new Resolver();
    const records = Array.from({ length: 1200 }, (_, i) =>
      rec(`r${i}`, 'PERSON', `Person${i} Surname${i % 300}`),
    );
    resolver.primeFrequencies(records);
    // Four records carry each surname: three besides the record itself.
    expect(resolver.frequency('PERSON', 'surname7')).toBe(termFrequency(3, 1200));
    expect(resolver.population('PERSON')).toBe(statsPopulation(1200));
  });
});
