import { normaliseRecord, type NormalisedRecord } from './normalise.js';
import {
  employerItem,
  isNeighbourItem,
  NEIGHBOUR_PREFIX,
  neighbourItem,
  withNeighbours,
} from './neighbours.js';
import type { ErRecord } from './record.js';
import { compareLevels } from './levels.js';
import { comparePair } from './scoring.js';

let n = 0;
const rec = (r: Partial<ErRecord> & { name: string }) =>
  normaliseRecord({ recordId: `r${++n}`, entityType: 'PERSON', ...r }).record;
const org = (name: string) => rec({ entityType: 'ORG', name });
const near = (...records: NormalisedRecord[]) => records.map((record) => ({ record }));

describe('neighbourItem', () => {
  it('names a person by formal first and last name, an organisation by its core name without legal form', () => {
    expect(neighbourItem(rec({ name: 'Smith, Bob J.' }))).toBe(`${NEIGHBOUR_PREFIX}person:robert smith`);
    expect(neighbourItem(rec({ name: 'Robert Smith' }))).toBe(neighbourItem(rec({ name: 'Dr. Bob Smith' })));
    expect(neighbourItem(org('Acme Widgets, Inc.'))).toBe(`${NEIGHBOUR_PREFIX}org:acme widgets`);
    expect(neighbourItem(org('ACME WIDGETS'))).toBe(neighbourItem(org('Acme Widgets LLC')));
  });
  it('has nothing to name for a name that normalises to nothing', () => {
    expect(neighbourItem(rec({ name: '...' }))).toBeUndefined();
    expect(neighbourItem(org('...'))).toBeUndefined();
  });
  it('cannot collide with a context item given with a record (those are folded to letters, digits and spaces)', () => {
    const given = rec({ name: 'Ann Lee', context: ['rel:org:acme widgets', 'Acme Widgets'] }).context!;
    expect(given.some(isNeighbourItem)).toBe(false);
    expect(isNeighbourItem(employerItem('acme'))).toBe(true);
  });
});

describe('withNeighbours', () => {
  it('adds the neighbours to the given context, sorted and de-duplicated, leaving the record itself out', () => {
    const ann = rec({ name: 'Ann Lee', context: ['doc 17'] });
    const out = withNeighbours(ann, [
      ...near(org('Zeta Fund'), org('Zeta Foundation'), org('ACME WIDGETS INC'), org('Acme Widgets'), rec({ name: 'Lee, Ann' })),
      { entityId: 'e-2' },
      { record: org('Acme Widgets'), entityId: 'e-1' },
    ]);
    expect(out.context).toEqual([
      'doc 17',
      `${NEIGHBOUR_PREFIX}entity:e-1`,
      `${NEIGHBOUR_PREFIX}entity:e-2`,
      `${NEIGHBOUR_PREFIX}org:acme widgets`,
      `${NEIGHBOUR_PREFIX}org:zeta`,
    ]);
    expect(out.context!.filter(isNeighbourItem)).toHaveLength(4);
    expect(ann.context).toEqual(['doc 17']);
  });
  it('returns the record unchanged when no neighbour adds an item', () => {
    const ann = rec({ name: 'Ann Lee' });
    expect(withNeighbours(ann, [])).toBe(ann);
    expect(withNeighbours(ann, near(rec({ name: 'Ann Lee' }), org('...'), rec({ name: '...' })))).toBe(ann);
  });
  it('keeps at most 200 items', () => {
    const many = Array.from({ length: 300 }, (_, i) => org(`Parks Council ${i}`));
    expect(withNeighbours(rec({ name: 'Ann Lee' }), near(...many)).context).toHaveLength(200);
  });
});

describe('neighbours in scoring', () => {
  const a = { name: 'Ezekiel Okonkwo', state: 'CA', city: 'Fresno' };
  const b = { name: 'E. Okonkwo', state: 'CA', city: 'Oakland' };
  const population = 100_000;
  const score = (x: ReturnType<typeof rec>, y: ReturnType<typeof rec>) =>
    comparePair(x, y, undefined, undefined, population);

  it('counts a shared neighbour as shared context and raises the probability', () => {
    const plain = score(rec(b), rec(a));
    const shared = score(
      withNeighbours(rec(b), near(org('FRIENDS OF FRESNO PARKS'))),
      withNeighbours(rec(a), near(org('Friends of Fresno Parks Inc'))),
    );
    expect(shared.levels.context).toBe('one');
    expect(plain.levels.context).toBeUndefined();
    expect(shared.probability).toBeGreaterThan(0.9);
    expect(plain.probability).toBeLessThan(0.9);
    const two = withNeighbours(rec(b), near(org('Friends of Fresno Parks'), rec({ name: 'Maria Lopez' })));
    expect(
      compareLevels(
        two,
        withNeighbours(rec(a), near(org('Friends of Fresno Parks'), rec({ name: 'Lopez, Maria' }))),
      ).levels.context,
    ).toBe('two_or_more');
  });

  it('shares a resolved neighbour by its entity whatever name the record used, and counts each neighbour once', () => {
    const ezekiel = { record: rec({ name: 'Ezekiel Okonkwo' }), entityId: 'p-1' };
    // The organisation named by "E. Okonkwo", resolved after E. Okonkwo merged into entity p-1.
    const named = withNeighbours(org('RIVERSIDE HEALTH ALLIANCE'), [{ entityId: 'p-1' }]);
    const stored = withNeighbours(org('Riverside Health Alliance Inc'), [ezekiel]);
    expect(compareLevels(named, stored).levels.context).toBe('one');
    // A record names a relative by name before it is resolved: against a stored neighbour (name and entity), one item.
    const byName = withNeighbours(rec({ name: 'Ezekiel Okonkwo', state: 'CA' }), near(org('Riverside Health Alliance')));
    const storedPerson = withNeighbours(rec({ name: 'E. Okonkwo', state: 'CA' }), [{ record: org('Riverside Health Alliance Inc'), entityId: 'o-1' }]);
    expect(compareLevels(byName, storedPerson).levels.context).toBe('one');
  });

  it('treats differing neighbours as missing data, while differing documents stay disagreement', () => {
    const x = withNeighbours(rec(b), near(org('Valley Arts Council')));
    const y = withNeighbours(rec(a), near(org('Friends of Fresno Parks')));
    expect(compareLevels(x, y).levels.context).toBeUndefined();
    expect(score(x, y).probability).toBe(score(rec(b), rec(a)).probability);
    // Documents on both sides, none shared: `none`, even when neighbours are there too.
    const xd = withNeighbours(rec({ ...b, context: ['doc 1'] }), near(org('Valley Arts Council')));
    const yd = withNeighbours(rec({ ...a, context: ['doc 2'] }), near(org('Friends of Fresno Parks')));
    expect(compareLevels(xd, yd).levels.context).toBe('none');
    // Documents on one side only: nothing to disagree on.
    expect(compareLevels(xd, y).levels.context).toBeUndefined();
  });

  it("does not count a person's employer twice: once as the employer, again as a related organisation", () => {
    const x = withNeighbours(rec({ ...b, employer: 'Acme Widgets Inc' }), near(org('Acme Widgets')));
    const y = withNeighbours(rec({ ...a, employer: 'ACME WIDGETS' }), near(org('Acme Widgets LLC')));
    const levels = compareLevels(x, y).levels;
    expect([levels.employer, levels.context]).toEqual(['same', undefined]);
    // Another organisation shared besides the employer still counts once.
    const x2 = withNeighbours(x, near(org('Friends of Fresno Parks')));
    const y2 = withNeighbours(y, near(org('Friends of Fresno Parks')));
    expect(compareLevels(x2, y2).levels.context).toBe('one');
    // Without an employer on one side, the shared organisation is the only place the pair agrees on it.
    const y3 = withNeighbours(rec(a), near(org('Acme Widgets LLC')));
    expect(compareLevels(x, y3).levels).toMatchObject({ context: 'one' });
    expect(compareLevels(x, y3).levels.employer).toBeUndefined();
  });
});
