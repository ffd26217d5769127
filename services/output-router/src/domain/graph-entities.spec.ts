import { recordsToEntities, retryDelayMs } from './graph-entities.js';

describe('recordsToEntities', () => {
  it('maps named records with a resolvable type, counting the rest', () => {
    const r = recordsToEntities(
      [
        { name: 'River Trust', type: 'org', city: 'Austin', amount: 3 },
        { name: 'Ann Lee', entity_type: 'PERSON', employer: 'River Trust' },
        { name: 'Hill Fund' },
        { title: 'no name', type: 'ORG' },
        { name: 'Place', type: 'LOCATION' },
      ],
      { nameField: 'name', defaultType: 'ORG' },
    );
    expect(r.entities).toEqual([
      { name: 'River Trust', type: 'ORG', source_record_index: 0, city: 'Austin' },
      { name: 'Ann Lee', type: 'PERSON', source_record_index: 1, employer: 'River Trust' },
      { name: 'Hill Fund', type: 'ORG', source_record_index: 2 },
    ]);
    expect(r.skipped).toBe(2);
  });

  it('uses the configured name field and skips untyped records without a default', () => {
    const r = recordsToEntities([{ org: 'A Co' }, { org: 'B', type: 'ORG' }], { nameField: 'org' });
    expect(r.entities.map((e) => e.name)).toEqual(['B']);
    expect(r.skipped).toBe(1);
  });
});

describe('retryDelayMs', () => {
  it('doubles from the base and stops at the cap', () => {
    expect([1, 2, 3, 4].map((a) => retryDelayMs(a, 1000))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(30, 1000, 60_000)).toBe(60_000);
  });
});
