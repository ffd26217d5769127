import { queryTerms, scoreFile } from './team-file-search.js';

describe('team file search', () => {
  it('splits a query into distinct lower-case terms', () => {
    expect(queryTerms('Grant  budget, grant 2026!')).toEqual(['grant', 'budget', '2026']);
    expect(queryTerms('  ')).toEqual([]);
  });

  it('ranks title matches above text matches and gives a snippet around the first match', () => {
    const terms = queryTerms('budget');
    const inTitle = scoreFile({ title: 'Budget 2026', text: 'numbers' }, terms)!;
    const inText = scoreFile({ title: 'Notes', text: 'We discussed the budget today.' }, terms)!;
    expect(inTitle.score).toBeGreaterThan(inText.score);
    expect(inText.snippet).toBe('We discussed the budget today.');
    expect(scoreFile({ title: 'Notes', text: 'nothing here' }, terms)).toBeUndefined();
  });

  it('caps the count of one term and cuts long text with ellipses', () => {
    const long = `${'x '.repeat(200)}budget ${'budget '.repeat(100)}${'y '.repeat(200)}`;
    const hit = scoreFile({ title: 'a', text: long }, ['budget'])!;
    expect(hit.score).toBe(20);
    expect(hit.snippet.startsWith('…')).toBe(true);
    expect(hit.snippet.endsWith('…')).toBe(true);
    expect(hit.snippet.length).toBeLessThanOrEqual(202);
  });

  it('searches a binary document by its title only', () => {
    expect(scoreFile({ title: 'budget.pdf' }, ['budget'])).toEqual({ score: 3, snippet: '' });
    expect(scoreFile({ title: 'budget.pdf' }, [])).toBeUndefined();
  });
});
