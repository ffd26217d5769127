import { editDistance, nearestName } from '../index.js';

describe('nearestName', () => {
  it.each([
    ['pull_990', ['pull_990_data', 'fec_data'], 'pull_990_data'],
    ['serch_web', ['search_web', 'search_documents'], 'search_web'],
    ['ENTITY_NAME', ['entity_name'], 'entity_name'],
    ['x', ['entity_name', 'fec_data'], undefined],
    ['completely_different', ['fec_data'], undefined],
    ['web', ['web', 'webb'], 'web'],
  ])('%s among %j → %s', (name, candidates, expected) => {
    expect(nearestName(name, candidates)).toBe(expected);
  });

  it('editDistance is Levenshtein with an early exit', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abcdef', 'uvwxyz', 2)).toBe(3);
  });
});
