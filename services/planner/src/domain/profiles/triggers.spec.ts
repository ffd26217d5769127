import { MAX_MATCH_CHARS, matchTriggers, prepareSemantic, SEMANTIC_UNAVAILABLE, type Trigger } from './triggers.js';

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

describe('prepareSemantic', () => {
  const pbs = [
    { playbookId: 'interlocks', triggers: [sem('board interlocks'), kw('investigate')] },
    { playbookId: 'grants', triggers: [sem(' grant history ')] },
  ];
  const model = (scores: Record<string, number>, fail?: Error) => {
    const calls: Array<{ query: string; patterns: readonly string[] }> = [];
    return {
      calls,
      name: 'openai:stub',
      threshold: 0.8,
      async similarities(query: string, patterns: readonly string[]) {
        calls.push({ query, patterns });
        if (fail) throw fail;
        return patterns.map((p) => scores[p] ?? 0);
      },
    };
  };

  it('asks the model once per message for every distinct semantic pattern and matches at the threshold, naming the model', async () => {
    const m = model({ 'board interlocks': 0.8, 'grant history': 0.79 });
    const prep = await prepareSemantic('directors on several boards', [...pbs, { playbookId: 'dup', triggers: [sem('board interlocks')] }], m);
    expect(m.calls).toEqual([{ query: 'directors on several boards', patterns: ['board interlocks', 'grant history'] }]);
    expect(prep.notes).toEqual(["semantic triggers matched by embedding model 'openai:stub' (cosine similarity >= 0.8)"]);
    const out = matchTriggers('directors on several boards', pbs, prep.semantic);
    expect(out).toEqual({ matches: [{ playbookId: 'interlocks', trigger: sem('board interlocks'), matchedAs: 'semantic' }], notes: [] });
  });

  it('keyword and regex triggers keep their order ahead of semantic ones', async () => {
    const prep = await prepareSemantic('investigate grants', pbs, model({ 'grant history': 0.95, 'board interlocks': 0.9 }));
    const out = matchTriggers('investigate grants', pbs, prep.semantic);
    expect(out.matches.map((m) => [m.playbookId, m.matchedAs])).toEqual([['interlocks', 'keyword'], ['grants', 'semantic']]);
  });

  it('no model or no semantic trigger: nothing asked; matchTriggers notes the missing model', async () => {
    expect(await prepareSemantic('x', pbs, undefined)).toEqual({ notes: [] });
    const m = model({});
    expect(await prepareSemantic('x', [{ playbookId: 'a', triggers: [kw('x'), sem('  ')] }], m)).toEqual({ notes: [] });
    expect(m.calls).toEqual([]);
  });

  it('a failing model falls back to keywords with a note naming the model and the error', async () => {
    const prep = await prepareSemantic('board interlocks of Acme', pbs, model({}, new Error('HTTP 500 upstream')));
    const out = matchTriggers('board interlocks of Acme', pbs, prep.semantic);
    expect(out.matches).toEqual([{ playbookId: 'interlocks', trigger: sem('board interlocks'), matchedAs: 'keyword' }]);
    expect(out.notes).toEqual(["semantic matching with embedding model 'openai:stub' failed (HTTP 500 upstream); semantic triggers were matched as keywords"]);
  });

  it('a model answering the wrong number of scores, or NaN, counts as failing', async () => {
    const short = { ...model({}), similarities: async () => [0.9] };
    expect(await prepareSemantic('x', pbs, short)).toEqual({ semantic: { unavailable: "semantic matching with embedding model 'openai:stub' failed (expected 2 similarities, got 1); semantic triggers were matched as keywords" }, notes: [] });
    const nan = { ...model({}), similarities: async () => [Number.NaN, 1] };
    expect((await prepareSemantic('x', pbs, nan)).semantic).toEqual({ unavailable: expect.stringContaining('failed (expected 2 similarities, got 2)') });
  });
});
