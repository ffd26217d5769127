import { normaliseRecord } from './normalise.js';
import { Resolver } from './resolver.js';
import {
  MIN_STATS_POPULATION,
  statsPopulation,
  storedFrequency,
  termFrequency,
  termKeys,
  tfKey,
  tfKeyOf,
} from './term-stats.js';

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
  it("counts the record's own key and each candidate's once, and reads them as the batch resolver does", () => {
    const probe = rec('p', 'PERSON', 'Olga Belqin');
    const cands = [
      rec('a', 'PERSON', 'Olga Belquin'),
      rec('b', 'PERSON', 'O. Belquin'),
      rec('c', 'PERSON', 'Ann Belqin'),
    ];
    expect(termKeys(probe, cands)).toEqual([tfKey(probe), tfKeyOf('PERSON', 'belquin')]);
    expect(tfKeyOf('ORG', 'acme holdings')).toBe('tf:O:acme holdings');
    // Counts read before the probe is stored: its own key counts others only, a candidate's counts
    // the candidate itself, which comes off.
    const counts = new Map([
      [tfKey(probe), 1],
      [tfKeyOf('PERSON', 'belquin'), 4],
    ]);
    const freq = storedFrequency(probe, counts, 2000);
    expect(freq('PERSON', 'belqin')).toBe(1 / 2000);
    expect(freq('PERSON', 'belquin')).toBe(3 / 2000);
    expect(freq('PERSON', 'zelvin')).toBeUndefined();
    expect(storedFrequency(probe, counts, MIN_STATS_POPULATION - 1)('PERSON', 'belquin')).toBeUndefined();
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
