import { crossReference } from './cross-reference.js';
import { extractEntities, guessType, namesInText } from './extraction.js';
import { analyse } from './graph-analytics.js';

describe('extractEntities', () => {
  it('reads the fields a connector hint names, with its type and relationship', () => {
    const out = extractEntities([{ officer: { name: 'Jane Roe' }, org: 'Acme Inc' }], {
      hints: [
        { field: 'officer.name', entity_type: 'PERSON', relationship_type: 'OFFICER_OF' },
        { field: 'org', entity_type: 'ORG' },
      ],
    });
    expect(out).toEqual([
      {
        name: 'Jane Roe',
        type: 'PERSON',
        source_field: 'officer.name',
        source_record_index: 0,
        confidence: 0.95,
        relationship_type: 'OFFICER_OF',
      },
      { name: 'Acme Inc', type: 'ORG', source_field: 'org', source_record_index: 0, confidence: 0.95 },
    ]);
  });
  it('classifies fields by name without hints and skips non-name fields', () => {
    const out = extractEntities([
      { contributor_name: 'John Smith', employer: 'Acme Corp', amount: 250, city: 'Austin' },
    ]);
    expect(out.map((e) => [e.name, e.type, e.source_field])).toEqual([
      ['John Smith', 'PERSON', 'contributor_name'],
      ['Acme Corp', 'ORG', 'employer'],
    ]);
  });
  it('filters by entity_types and applies the default relationship', () => {
    const out = extractEntities([{ contributor_name: 'John Smith', employer: 'Acme Corp' }], {
      entityTypes: ['ORG'],
      relationshipType: 'FUNDS',
    });
    expect(out).toEqual([expect.objectContaining({ name: 'Acme Corp', relationship_type: 'FUNDS' })]);
  });
  it('finds names in free text', () => {
    expect(namesInText('Yesterday Jane Roe met the Smith Family Foundation in Austin.')).toEqual([
      'Yesterday Jane Roe',
      'Smith Family Foundation',
    ]);
    const out = extractEntities(['The Riverside Health Alliance Inc hired Maria Lopez.']);
    expect(out.map((e) => e.type)).toEqual(['ORG', 'PERSON']);
  });
  it('ignores null, numbers and empty values', () => {
    expect(extractEntities([null, 3, { name: '  ' }])).toEqual([]);
  });
  it('guesses ORG from legal forms and org words', () => {
    expect(guessType('Acme LLC')).toBe('ORG');
    expect(guessType('National Rifle Association')).toBe('ORG');
    expect(guessType('Mary Jones')).toBe('PERSON');
  });
});

describe('crossReference', () => {
  const a = [
    { name: 'Acme Inc', ein: '04-3568784' },
    { name: 'John Smith', state: 'TX' },
    { name: 'Nobody Here' },
  ];
  const b = [
    { name: 'ACME INCORPORATED' },
    { name: 'Smith, John', state: 'TX', type: 'PERSON' },
    { name: 'Other Org LLC', external_ids: { ein: '043568784' } },
  ];
  it('matches by exact canonical name', () => {
    const out = crossReference(a, b, { strategy: 'exact', threshold: 0.8 });
    expect(out.matches.map((m) => [m.entity_a.name, m.entity_b.name])).toEqual([
      ['Acme Inc', 'ACME INCORPORATED'],
      ['John Smith', 'Smith, John'],
    ]);
    expect(out.unmatched_a).toEqual([{ name: 'Nobody Here' }]);
    expect(out.unmatched_b).toEqual([{ name: 'Other Org LLC', external_ids: { ein: '043568784' } }]);
    expect(out.count).toBe(2);
  });
  it('matches by external id in canonical form', () => {
    const out = crossReference(a, b, { strategy: 'external_id', threshold: 1 });
    expect(out.matches).toEqual([
      { entity_a: a[0], entity_b: b[2], match_score: 1, match_method: 'external_id' },
    ]);
  });
  it('matches fuzzy names through the scorer, above the threshold only', () => {
    const out = crossReference([{ name: 'Jon Smith', state: 'TX' }], [{ name: 'John Smith', state: 'TX' }], {
      strategy: 'fuzzy_name',
      threshold: 0.5,
    });
    expect(out.count).toBe(1);
    expect(
      crossReference([{ name: 'Jon Smith', state: 'TX' }], [{ name: 'John Smith', state: 'TX' }], {
        strategy: 'fuzzy_name',
        threshold: 0.9999,
      }).count,
    ).toBe(0);
  });
});

describe('analyse', () => {
  const nodes = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ id, name: id.toUpperCase(), type: 'ORG' }));
  // Two triangles joined by one bridge c–d.
  const edges = [
    ['a', 'b'],
    ['b', 'c'],
    ['a', 'c'],
    ['c', 'd'],
    ['d', 'e'],
    ['e', 'f'],
    ['d', 'f'],
  ].map(([source, target]) => ({ source: source!, target: target!, type: 'RELATED_TO' }));
  it('finds the two communities', () => {
    const out = analyse('community_detection', nodes, edges);
    expect(
      out.results.map((r) => (r.members as Array<{ entity_id: string }>).map((m) => m.entity_id)),
    ).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e', 'f'],
    ]);
    expect(out).toMatchObject({ nodeCount: 6, edgeCount: 7 });
  });
  it('ranks the bridge ends highest in betweenness and pagerank', () => {
    expect(
      analyse('betweenness', nodes, edges)
        .results.slice(0, 2)
        .map((r) => r.entity_id),
    ).toEqual(['c', 'd']);
    expect(['c', 'd']).toContain(analyse('pagerank', nodes, edges).results[0]!.entity_id);
  });
  it('finds the shortest path and components', () => {
    expect(analyse('shortest_path', nodes, edges, { from: 'a', to: 'f' }).results[0]).toMatchObject({
      length: 3,
    });
    expect(analyse('shortest_path', nodes, edges, { from: 'a', to: 'zz' }).results).toEqual([]);
    const comps = analyse(
      'connected_components',
      [...nodes, { id: 'z', name: 'Z', type: 'PERSON' }],
      edges,
    ).results;
    expect(comps.map((c) => c.member_count)).toEqual([6, 1]);
  });
  it('answers an empty graph with nothing', () => {
    expect(analyse('pagerank', [], [])).toEqual({ results: [], nodeCount: 0, edgeCount: 0 });
  });
});
