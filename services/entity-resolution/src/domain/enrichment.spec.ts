import { enrichmentRecords } from './enrichment.js';

const hints = [
  { field: 'contributor_name', entity_type: 'PERSON' },
  { field: 'contributor_employer', entity_type: 'ORG', relationship_type: 'WORKS_FOR' },
  { field: 'committee', entity_type: 'ORG', relationship_type: 'DONATED_TO' },
  { field: 'event', entity_type: 'EVENT' },
];

describe('enrichmentRecords', () => {
  it('makes the first plain hint the subject and relates the others to it, with the record attributes and ids', () => {
    const { records, skipped } = enrichmentRecords(
      [
        {
          contributor_name: 'Maria Lopez',
          contributor_employer: 'Acme Corp',
          committee: 'Friends of Summit PAC',
          state: 'TX',
          city: 'Austin',
          fec_id: 'c00523514',
          event: 'Gala 2024',
        },
      ],
      hints,
      'fec',
    );
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      name: 'Maria Lopez',
      entityType: 'PERSON',
      recordIndex: 0,
      state: 'TX',
      city: 'Austin',
      source: 'fec',
      externalIds: { fec_id: 'C00523514' },
    });
    expect(
      records[0]!.relationships!.map((r) => [r.type, r.target.name, r.target.entityType, r.properties]),
    ).toEqual([
      ['WORKS_FOR', 'Acme Corp', 'ORG', { source_field: 'contributor_employer', source_record_index: 0 }],
      ['DONATED_TO', 'Friends of Summit PAC', 'ORG', { source_field: 'committee', source_record_index: 0 }],
    ]);
    expect(skipped).toEqual([
      {
        record_index: 0,
        field: 'event',
        value: 'Gala 2024',
        reason: 'EVENT entities are not resolved (only PERSON and ORG are)',
      },
    ]);
  });

  it('reports a malformed id and a record that is not an object, and still resolves the rest', () => {
    const { records, skipped } = enrichmentRecords(
      [{ contributor_name: 'Acme Foundation', ein: '12-34' }, 'loose text', null],
      [{ field: 'contributor_name', entity_type: 'ORG' }],
      '',
    );
    expect(records.map((r) => [r.name, r.externalIds])).toEqual([['Acme Foundation', undefined]]);
    expect(skipped.map((s) => [s.record_index, s.field, s.reason])).toEqual([
      [0, 'ein', 'an EIN has nine digits (NN-NNNNNNN)'],
      [1, '', 'the record is not an object'],
      [2, '', 'the record is not an object'],
    ]);
  });

  it('resolves related values alone when the record has no subject; reads arrays and dot paths', () => {
    const { records } = enrichmentRecords(
      [{ sponsor: { name: 'Jane Roe' }, cosponsors: ['John Doe', 'Ann Lee'] }],
      [
        { field: 'sponsor.name', entity_type: 'PERSON', relationship_type: 'SPONSORED' },
        { field: 'cosponsors', entity_type: 'PERSON', relationship_type: 'COSPONSORED' },
      ],
      '',
    );
    expect(records.map((r) => [r.name, r.relationships])).toEqual([
      ['Jane Roe', undefined],
      ['John Doe', undefined],
      ['Ann Lee', undefined],
    ]);
  });

  it('finds names in text for an auto hint, and classifies fields by name without hints', () => {
    const auto = enrichmentRecords(
      [{ summary: 'Grant from the Gates Foundation to Maria Lopez' }],
      [{ field: 'summary', entity_type: 'auto' }],
      '',
    );
    expect(auto.records.map((r) => [r.name, r.entityType])).toEqual([
      ['Gates Foundation', 'ORG'],
      ['Maria Lopez', 'PERSON'],
    ]);
    const bare = enrichmentRecords(
      [{ contributor_name: 'John Smith', employer: 'Acme Corp', amount: 5 }],
      [],
      '',
    );
    expect(bare.records.map((r) => [r.name, r.entityType])).toEqual([
      ['John Smith', 'PERSON'],
      ['Acme Corp', 'ORG'],
    ]);
  });
});
