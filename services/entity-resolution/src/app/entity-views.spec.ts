import { entityViews, type MemberRow } from './entity-views.js';

const row = (over: Partial<MemberRow> & Pick<MemberRow, 'id' | 'rootId' | 'name'>): MemberRow => ({
  canonicalName: over.name.toLowerCase(),
  type: 'PERSON',
  subtype: '',
  confidence: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  source: '',
  aliases: [],
  externalIds: {},
  ...over,
});

describe('entityViews', () => {
  it("unions a merged tree's facts under its root: the root's name, every other name and alias, the oldest id of each kind", () => {
    const [v] = entityViews(
      [
        row({ id: 'a', rootId: 'r', name: 'Lopez, Maria', aliases: ['M. Lopez'], externalIds: { fec_id: 'H8TX05035' }, source: 'fec', updatedAt: '2026-01-03T00:00:00.000Z' }),
        row({ id: 'r', rootId: 'r', name: 'Maria Lopez', canonicalName: 'maria lopez', subtype: 'donor', confidence: 0.8, source: 'irs', createdAt: '2026-01-02T00:00:00.000Z' }),
        row({ id: 'b', rootId: 'r', name: 'MARIA LOPEZ', externalIds: { fec_id: 'H0OTHER', ein: '04-3568784' }, source: 'fec' }),
      ],
      ['r'],
    );
    expect(v).toEqual({
      id: 'r',
      name: 'Maria Lopez',
      canonicalName: 'maria lopez',
      type: 'PERSON',
      subtype: 'donor',
      aliases: ['Lopez, Maria', 'M. Lopez', 'MARIA LOPEZ'],
      externalIds: { fec_id: 'H8TX05035', ein: '04-3568784' },
      confidence: 0.8,
      mergeCount: 3,
      sourceCount: 2,
      firstSeen: '2026-01-01T00:00:00.000Z',
      lastSeen: '2026-01-03T00:00:00.000Z',
      source: 'irs',
      members: [
        { id: 'r', name: 'Maria Lopez', source: 'irs' },
        { id: 'a', name: 'Lopez, Maria', source: 'fec' },
        { id: 'b', name: 'MARIA LOPEZ', source: 'fec' },
      ],
    });
  });

  it('answers the roots asked for in their order, leaving out a root without rows', () => {
    const views = entityViews([row({ id: 'x', rootId: 'x', name: 'Acme Inc', type: 'ORG' }), row({ id: 'y', rootId: 'y', name: 'Beta LLC', type: 'ORG' })], ['y', 'gone', 'x']);
    expect(views.map((v) => [v.id, v.name, v.aliases])).toEqual([
      ['y', 'Beta LLC', []],
      ['x', 'Acme Inc', []],
    ]);
  });
});
