import { Bm25Index, parseTsvector } from './bm25-index.js';

const chunk = (id: string, text: string) => {
  const terms = new Map<string, number>();
  const ws = text.split(' ');
  for (const w of ws) terms.set(w, (terms.get(w) ?? 0) + 1);
  return { id, len: ws.length, terms };
};

describe('Bm25Index', () => {
  const ix = new Bm25Index();
  ix.setDocument('d1', [chunk('d1:1:0', 'crane maintenance ninety days'), chunk('d1:1:1', 'canteen hours')]);
  ix.setDocument('d2', [chunk('d2:1:0', 'crane crane licence'), chunk('d2:1:1', 'licence renewal fee')]);

  it('scores with Okapi BM25 over the documents in scope, best first', () => {
    const hits = ix.search(['crane', 'licence'], 10);
    expect(hits.map((h) => h.id)).toEqual(['d2:1:0', 'd2:1:1', 'd1:1:0']);
    // The formula by hand for d1:1:0 (n 4, avglen 3, df(crane) 2, tf 1, len 4).
    const idf = Math.log(1 + (4 - 2 + 0.5) / (2 + 0.5));
    expect(hits[2]!.score).toBeCloseTo((idf * 2.2) / (1 + 1.2 * (0.25 + (0.75 * 4) / 3)), 10);
  });

  it('restricts to the given documents and answers nothing for unknown lexemes', () => {
    expect(ix.search(['crane'], 10, ['d1']).map((h) => h.id)).toEqual(['d1:1:0']);
    expect(ix.search(['crane'], 10, ['nope'])).toEqual([]);
    expect(ix.search(['submarine'], 10)).toEqual([]);
    expect(ix.search([], 10)).toEqual([]);
  });

  it('keeps the top k with ties broken by id', () => {
    const t = new Bm25Index();
    t.setDocument('d', ['c', 'a', 'b'].map((x) => chunk(`d:1:${x}`, 'same words')));
    expect(t.search(['same'], 2).map((h) => h.id)).toEqual(['d:1:a', 'd:1:b']);
  });

  it('replaces and removes a document as a whole', () => {
    const t = new Bm25Index();
    t.setDocument('d', [chunk('d:1:0', 'alpha'), chunk('d:1:1', 'beta')]);
    t.setDocument('d', [chunk('d:2:0', 'alpha gamma')]);
    expect(t.size).toBe(1);
    expect(t.search(['alpha'], 5).map((h) => h.id)).toEqual(['d:2:0']);
    t.removeDocument('d');
    expect(t.size).toBe(0);
    expect(t.search(['alpha'], 5)).toEqual([]);
  });
});

describe('parseTsvector', () => {
  it('reads lexemes with their position counts, quotes and weights included', () => {
    const { terms, len } = parseTsvector(`'crane':1,4,9 'o''brien':2 'plain' 'weight':3A,5B`);
    expect([...terms]).toEqual([
      ['crane', 3],
      ["o'brien", 1],
      ['plain', 1],
      ['weight', 2],
    ]);
    expect(len).toBe(7);
  });
});
