import { MAX_MATCH_CHARS, matchTriggers, SEMANTIC_UNAVAILABLE, type Trigger } from './triggers.js';

const kw = (pattern: string, priority = 0): Trigger => ({ pattern, type: 'keyword', priority });
const re = (pattern: string, priority = 0): Trigger => ({ pattern, type: 'regex', priority });
const sem = (pattern: string, priority = 0): Trigger => ({ pattern, type: 'semantic', priority });

describe('matchTriggers', () => {
  it('keyword: case-insensitive substring', () => {
    const out = matchTriggers('Please INVESTIGATE Nonprofit Acme', [{ playbookId: 'a', triggers: [kw('investigate nonprofit')] }]);
    expect(out).toEqual({ matches: [{ playbookId: 'a', trigger: kw('investigate nonprofit'), matchedAs: 'keyword' }], notes: [] });
    expect(matchTriggers('investigate a nonprofit', [{ playbookId: 'a', triggers: [kw('investigate nonprofit')] }]).matches).toEqual([]);
  });

  it('regex: case-insensitive; an invalid one is skipped with a note', () => {
    const out = matchTriggers('Who funds ACME?', [{ playbookId: 'a', triggers: [re('^who\\s+funds\\b')] }, { playbookId: 'b', triggers: [re('(unclosed')] }]);
    expect(out.matches.map((m) => [m.playbookId, m.matchedAs])).toEqual([['a', 'regex']]);
    expect(out.notes).toEqual(['trigger /(unclosed/ is not a valid regular expression and was skipped']);
  });

  it('semantic without a model: says so and matches as a keyword', () => {
    const pbs = [{ playbookId: 'a', triggers: [sem('board interlocks')] }];
    expect(matchTriggers('find board interlocks for Acme', pbs)).toEqual({ matches: [{ playbookId: 'a', trigger: sem('board interlocks'), matchedAs: 'keyword' }], notes: [SEMANTIC_UNAVAILABLE] });
    expect(matchTriggers('directors on several boards', pbs)).toEqual({ matches: [], notes: ['semantic matching unavailable: no embedding model configured'] });
  });

  it('semantic with a matcher uses it and adds no note', () => {
    const pbs = [{ playbookId: 'a', triggers: [sem('board interlocks')] }];
    const out = matchTriggers('directors on several boards', pbs, (q, p) => q.includes('boards') && p === 'board interlocks');
    expect(out).toEqual({ matches: [{ playbookId: 'a', trigger: sem('board interlocks'), matchedAs: 'semantic' }], notes: [] });
  });

  it('orders by trigger priority, then attachment priority, exact before semantic, longer pattern, id', () => {
    const q = 'investigate nonprofit officers';
    expect(matchTriggers(q, [{ playbookId: 'low', triggers: [kw('investigate', 0)] }, { playbookId: 'high', triggers: [kw('officers', 5)] }]).matches.map((m) => m.playbookId)).toEqual(['high', 'low']);
    expect(matchTriggers(q, [{ playbookId: 'a', triggers: [kw('investigate')], priority: 0 }, { playbookId: 'b', triggers: [kw('investigate')], priority: 3 }]).matches.map((m) => m.playbookId)).toEqual(['b', 'a']);
    expect(matchTriggers(q, [{ playbookId: 'a', triggers: [kw('investigate')] }, { playbookId: 'b', triggers: [kw('investigate nonprofit')] }]).matches.map((m) => m.playbookId)).toEqual(['b', 'a']);
    expect(matchTriggers(q, [{ playbookId: 'b', triggers: [kw('officers')] }, { playbookId: 'a', triggers: [kw('officers')] }]).matches.map((m) => m.playbookId)).toEqual(['a', 'b']);
    expect(matchTriggers(q, [{ playbookId: 's', triggers: [sem('investigate nonprofit officers')] }, { playbookId: 'r', triggers: [re('officers')] }], () => true).matches.map((m) => m.playbookId)).toEqual(['r', 's']);
  });

  it('one entry per playbook, its best trigger', () => {
    const out = matchTriggers('investigate officers', [{ playbookId: 'a', triggers: [kw('investigate', 1), kw('officers', 4), kw('absent', 9)] }]);
    expect(out.matches).toEqual([{ playbookId: 'a', trigger: kw('officers', 4), matchedAs: 'keyword' }]);
  });

  it('blank patterns, no triggers and empty messages match nothing', () => {
    expect(matchTriggers('anything', [{ playbookId: 'a', triggers: [kw('  ')] }, { playbookId: 'b', triggers: [] }]).matches).toEqual([]);
    expect(matchTriggers('', [{ playbookId: 'a', triggers: [kw('x')] }]).matches).toEqual([]);
  });

  it('looks at the first MAX_MATCH_CHARS characters only', () => {
    const long = `${'x'.repeat(MAX_MATCH_CHARS)} needle`;
    expect(matchTriggers(long, [{ playbookId: 'a', triggers: [kw('needle')] }]).matches).toEqual([]);
  });
});
