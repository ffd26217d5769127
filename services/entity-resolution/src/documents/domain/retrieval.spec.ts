import { chunkDocument } from './chunking.js';
import { extractiveDescription } from './describe.js';
import { detectFormat } from './file-type.js';
import { fuse, hitConfidence, reciprocalRankFusion, scoreFusion } from './fusion.js';
import { HashedEmbedder } from './hashed-embedder.js';
import type { Block } from './parsed.js';
import { analyseQuery, yearsIn } from './query-analysis.js';
import { estimateTokens } from './text.js';
import { BruteForceIndex, queryPlan, scanColumns } from './vector-index.js';

describe('chunkDocument', () => {
  const para = (n: number) => Array.from({ length: n }, (_, i) => `Sentence number ${i} talks about cranes and ships.`).join(' ');
  const blocks: Block[] = [
    { kind: 'heading', text: 'Handbook', level: 1, page: 1 },
    { kind: 'heading', text: 'Safety', level: 2, page: 1 },
    { kind: 'paragraph', text: para(10), page: 1 },
    { kind: 'table', text: 'a | b\n1 | 2', page: 2 },
    { kind: 'paragraph', text: para(10), page: 2 },
    { kind: 'heading', text: 'Travel', level: 2, page: 3 },
    { kind: 'paragraph', text: para(400), page: 3 },
  ];
  const chunks = chunkDocument(blocks, { targetTokens: 300 });

  it('makes a parent per section and children linked to it, with heading paths and pages', () => {
    const parents = chunks.filter((c) => c.kind === 'parent');
    expect(parents.map((p) => p.section)).toEqual(['Handbook > Safety', 'Handbook > Travel']);
    for (const c of chunks.filter((x) => x.kind === 'child')) {
      const parent = chunks[c.parentOrdinal!]!;
      expect(parent.kind).toBe('parent');
      expect(c.section).toBe(parent.section);
      expect(c.text.startsWith(c.section)).toBe(true);
    }
    expect(chunks.filter((c) => c.section === 'Handbook > Travel' && c.kind === 'child').every((c) => c.page === 3)).toBe(true);
  });

  it('keeps a table whole in a chunk of its own', () => {
    const t = chunks.filter((c) => c.table);
    expect(t).toHaveLength(1);
    expect(t[0]!.text).toBe('Handbook > Safety\na | b\n1 | 2');
    expect(t[0]!.page).toBe(2);
  });

  it('splits long text near the target size on sentence ends', () => {
    const travel = chunks.filter((c) => c.section === 'Handbook > Travel' && c.kind === 'child');
    expect(travel.length).toBeGreaterThan(5);
    for (const c of travel) {
      expect(c.tokens).toBeLessThanOrEqual(300 + 20);
      expect(c.text.trim().endsWith('.')).toBe(true);
    }
  });

  it('estimates about 1.3 tokens a word', () => {
    expect(estimateTokens('one two three four five six seven eight nine ten')).toBe(13);
  });
});

describe('HashedEmbedder', () => {
  const e = new HashedEmbedder(256);
  const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

  it('is deterministic and unit length', () => {
    const a = e.embed('Quarterly budget for the Rotterdam terminal');
    expect(Array.from(a)).toEqual(Array.from(e.embed('Quarterly budget for the Rotterdam terminal')));
    expect(cos(a, a)).toBeCloseTo(1, 5);
  });

  it('puts word-form variants and typos closer than unrelated text', () => {
    const q = e.embed('maintenance budget Rotterdam');
    expect(cos(q, e.embed('the maintainance budgets of Rotterdam'))).toBeGreaterThan(cos(q, e.embed('canteen opening hours in spring')) + 0.3);
  });

  it('embeds empty text as the zero vector', () => {
    expect(Array.from(e.embed('')).every((x) => x === 0)).toBe(true);
  });
});

describe('BruteForceIndex', () => {
  const unit = (xs: number[]) => { const n = Math.hypot(...xs); return Float32Array.from(xs.map((x) => x / n)); };

  it('returns the exact top k, honours the group filter, updates and removes', () => {
    const ix = new BruteForceIndex(3, 1);
    ix.upsert('a', unit([1, 0, 0]), 'doc-x');
    ix.upsert('b', unit([0.9, 0.1, 0]), 'doc-x');
    ix.upsert('c', unit([0, 1, 0]), 'doc-y');
    ix.upsert('d', unit([0, 0, 1]), 'doc-y');
    expect(ix.search(unit([1, 0, 0]), 2).map((h) => h.id)).toEqual(['a', 'b']);
    expect(ix.search(unit([1, 0, 0]), 2, ['doc-y']).map((h) => h.id)).toEqual(['c', 'd']);
    expect(ix.search(unit([1, 0, 0]), 5, ['doc-x', 'doc-never-seen']).map((h) => h.id)).toEqual(['a', 'b']);
    expect(ix.search(unit([1, 0, 0]), 5, [])).toEqual([]);
    ix.upsert('a', unit([0, 0, 1]), 'doc-x');
    expect(ix.search(unit([0, 0, 1]), 2).map((h) => h.id).sort()).toEqual(['a', 'd']);
    expect(ix.remove('b')).toBe(true);
    expect(ix.remove('b')).toBe(false);
    expect(ix.size).toBe(3);
    expect(ix.search(unit([1, 0, 0]), 5).map((h) => h.id)).not.toContain('b');
    // The last row (d) took b's place: it keeps its group.
    expect(ix.search(unit([0, 0, 1]), 5, ['doc-y']).map((h) => h.id)).toEqual(['d', 'c']);
    expect(ix.search(unit([0, 0, 1]), 5, ['doc-x']).map((h) => h.id)).toEqual(['a']);
    expect(() => ix.upsert('x', new Float32Array(2))).toThrow('vector has 2 dimensions, the index 3');
  });
});

describe('BruteForceIndex against a plain dot product', () => {
  it.each([300, 5000])('finds the same top k for dense and sparse queries over %i rows (columns fused four at a time, remainders one by one)', (count) => {
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const dims = 43;
    const ix = new BruteForceIndex(dims, 16);
    const rows = Array.from({ length: count }, () => Float32Array.from({ length: dims }, rnd));
    rows.forEach((v, i) => ix.upsert(`r${i}`, v));
    const sparse = new Float32Array(dims);
    for (const j of [0, 5, 6, 17, 30, 42]) sparse[j] = rnd();
    for (const q of [Float32Array.from({ length: dims }, rnd), sparse]) {
      const want = rows
        .map((v, i) => ({ id: `r${i}`, score: v.reduce((s, x, j) => s + x * q[j]!, 0) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 10);
      const got = ix.search(q, 10);
      expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
      got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i]!.score, 4));
    }
  });

  it('scans in slices (as the worker threads do) to the same answer as one scan, shared or not, filtered or not', () => {
    let seed = 11;
    const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const dims = 37;
    for (const shared of [false, true]) {
      const ix = new BruteForceIndex(dims, 16, shared);
      for (let i = 0; i < 4000; i++) ix.upsert(`r${i}`, Float32Array.from({ length: dims }, rnd), `doc-${i % 7}`);
      for (let i = 0; i < 4000; i += 13) ix.remove(`r${i}`);
      const q = Float32Array.from({ length: dims }, rnd);
      const block = ix.block;
      expect(block.data.buffer instanceof SharedArrayBuffer).toBe(shared);
      for (const groups of [undefined, ['doc-2', 'doc-5']]) {
        const whole = ix.search(q, 12, groups);
        if (groups) expect(whole.every((h) => Number(h.id.slice(1)) % 7 === 2 || Number(h.id.slice(1)) % 7 === 5)).toBe(true);
        const cuts = [0, 1, 999, 2500, block.size];
        const parts = cuts.slice(1).map((to, i) =>
          scanColumns(block.data, block.capacity, block.groups, { ...queryPlan(q), k: 12, from: cuts[i]!, to, allowed: ix.allowedMask(groups) }, { scores: new Float32Array(0) }),
        );
        expect(ix.hits(parts, 12)).toEqual(whole);
      }
    }
  });

  it('counts every write in the version a scan in another thread checks', () => {
    const ix = new BruteForceIndex(2, 16, true);
    const v0 = ix.block.version;
    ix.upsert('a', Float32Array.of(1, 0));
    ix.upsert('a', Float32Array.of(0, 1));
    ix.remove('a');
    ix.remove('a');
    expect(ix.block.version).toBe(v0 + 3);
  });
});

describe('reciprocalRankFusion', () => {
  it('ranks items both lists agree on first and keeps each list rank', () => {
    const f = reciprocalRankFusion([[{ id: 'a' }, { id: 'b' }, { id: 'c' }], [{ id: 'c' }, { id: 'a' }]]);
    expect(f.map((x) => x.id)).toEqual(['a', 'c', 'b']);
    expect(f[0]!.ranks).toEqual([1, 2]);
    expect(f[2]!.ranks).toEqual([2, undefined]);
    expect(f[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 10);
  });

  it('weighs each list: a half-weight list moves its items down, a zero-weight list adds none', () => {
    const lists = [[{ id: 'x' }, { id: 'a' }], [{ id: 'a' }, { id: 'b' }]];
    expect(reciprocalRankFusion(lists, 60, [1, 1]).map((f) => f.id)).toEqual(['a', 'x', 'b']);
    const half = reciprocalRankFusion(lists, 60, [0.5, 1]);
    expect(half.map((f) => f.id)).toEqual(['a', 'b', 'x']);
    expect(half[0]!.score).toBeCloseTo(0.5 / 62 + 1 / 61, 10);
    expect(reciprocalRankFusion(lists, 60, [0, 1]).map((f) => f.id)).toEqual(['a', 'b']);
  });

  it('is pure and order-stable: equal scores are ordered by id, the input lists are not changed', () => {
    const lists = [[{ id: 'b' }], [{ id: 'a' }]];
    const copy = JSON.stringify(lists);
    expect(reciprocalRankFusion(lists).map((f) => f.id)).toEqual(['a', 'b']);
    expect(JSON.stringify(lists)).toBe(copy);
    expect(reciprocalRankFusion([])).toEqual([]);
    expect(reciprocalRankFusion([[], []])).toEqual([]);
  });

  it('gives higher confidence to a hit both retrievers found', () => {
    expect(hitConfidence(0.6, [1, 1])).toBeGreaterThan(hitConfidence(0.6, [1, undefined]));
    expect(hitConfidence(undefined, [undefined, 3])).toBeLessThan(0.5);
  });
});

describe('scoreFusion', () => {
  const dense = [
    { id: 'a', score: 0.9 },
    { id: 'b', score: 0.8 },
    { id: 'c', score: 0.5 },
  ];
  const bm25 = [
    { id: 'c', score: 20 },
    { id: 'd', score: 4 },
    { id: 'a', score: 2 },
  ];

  it('adds min-max normalised scores by weight, keeping the gaps ranks lose', () => {
    const f = scoreFusion([dense, bm25]);
    // a: 1 + 0, b: 0.75 + none, c: 0 + 1, d: 0.111…
    expect(f.map((x) => x.id)).toEqual(['a', 'c', 'b', 'd']);
    expect(f[0]!.score).toBeCloseTo(1, 10);
    expect(f[2]!.score).toBeCloseTo(0.75, 10);
    expect(f.find((x) => x.id === 'd')!.score).toBeCloseTo(2 / 18, 10);
    expect(f.find((x) => x.id === 'c')!.ranks).toEqual([3, 1]);
    // RRF over the same lists puts c (ranked by both) first.
    expect(reciprocalRankFusion([dense, bm25])[0]!.id).toBe('a');
    expect(scoreFusion([dense, bm25], [0.5, 1])[0]!.id).toBe('c');
  });

  it('a list of equal scores counts them all as 1; a zero-weight list adds nothing; empty lists fuse to nothing', () => {
    expect(scoreFusion([[{ id: 'x', score: 3 }, { id: 'y', score: 3 }]]).map((f) => f.score)).toEqual([1, 1]);
    expect(scoreFusion([dense, bm25], [1, 0]).map((f) => f.id)).toEqual(['a', 'b', 'c']);
    expect(scoreFusion([[], []])).toEqual([]);
  });

  it('refuses a score that is not a finite number, naming the item', () => {
    expect(() => scoreFusion([[{ id: 'n', score: Number.NaN }]])).toThrow(/score of n/);
  });
});

describe('fuse', () => {
  const lists = [
    [{ id: 'x', score: 0.9 }, { id: 'a', score: 0.1 }],
    [{ id: 'a', score: 7 }, { id: 'b', score: 6.9 }],
  ];
  it('runs the method the settings name with their weights', () => {
    expect(fuse(lists, { method: 'rrf', weights: [1, 1] })).toEqual(reciprocalRankFusion(lists, 60, [1, 1]));
    expect(fuse(lists, { method: 'rrf', weights: [0.5, 1], k: 10 })).toEqual(reciprocalRankFusion(lists, 10, [0.5, 1]));
    expect(fuse(lists, { method: 'score', weights: [0.5, 1] })).toEqual(scoreFusion(lists, [0.5, 1]));
  });
  it('refuses negative or missing weights', () => {
    expect(() => fuse(lists, { method: 'rrf', weights: [-1, 1] })).toThrow(/weights must be non-negative/);
    expect(() => fuse(lists, { method: 'score', weights: [Number.NaN, 1] })).toThrow(/weights/);
  });
});

describe('analyseQuery', () => {
  it('turns doc types, dates and file names into filters and keeps the rest as text', () => {
    const a = analyseQuery('How many fuel filters are in the spreadsheet for March 2024?');
    expect(a.filters).toEqual({ formats: ['xlsx', 'csv'], years: [2024] });
    expect(a.dates).toEqual(['March 2024']);
    expect(a.text).toBe('How many fuel filters are for March 2024?');
    const b = analyseQuery('What does "travel policy" say in handbook.pdf about Anna Berg?');
    expect(b.filters.titles).toEqual(['travel policy', 'handbook.pdf']);
    expect(b.names).toEqual(['Anna Berg']);
    expect(analyseQuery('decisions from 2023-05-14 in the pdf').filters).toEqual({ formats: ['pdf'], years: [2023] });
  });

  it('leaves a plain question alone', () => {
    expect(analyseQuery('who leads the crane project')).toEqual({ text: 'who leads the crane project', filters: {}, names: [], dates: [] });
  });

  it('finds the years a text mentions', () => {
    expect(yearsIn('Budget 2021 and 2024, code 3012, year 1899')).toEqual([2021, 2024]);
  });
});

describe('detectFormat', () => {
  const pdf = new TextEncoder().encode('%PDF-1.7 ...');
  const zip = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 1]);
  it('reads the content first, then the declared type or extension', () => {
    expect(detectFormat('application/octet-stream', 'x.bin', pdf)).toEqual({ ok: true, format: 'pdf' });
    expect(detectFormat('', 'report.docx', zip)).toEqual({ ok: true, format: 'docx' });
    expect(detectFormat('text/markdown', 'a', new TextEncoder().encode('# a'))).toEqual({ ok: true, format: 'markdown' });
  });
  it('refuses what it cannot read, saying why', () => {
    expect(detectFormat('application/pdf', 'a.pdf', zip)).toEqual({ ok: false, reason: 'declared a PDF but the content does not start with %PDF-' });
    expect(detectFormat('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'a.xlsx', pdf.subarray(1))).toMatchObject({ ok: false });
    expect(detectFormat('application/json', 'a.json', new TextEncoder().encode('{}'))).toEqual({
      ok: false,
      reason: 'unsupported file type application/json (.json): supported are pdf, docx, xlsx, csv, markdown, text, html',
    });
    expect(detectFormat('text/plain', 'a.txt', Uint8Array.from([65, 0, 66]))).toEqual({ ok: false, reason: 'declared text/plain but the content is binary' });
  });
});

describe('extractiveDescription', () => {
  it('picks two or three covering sentences in document order', () => {
    const text = 'The crane fleet at Rotterdam has six cranes. Crane maintenance happens every ninety days at Rotterdam. The canteen serves soup. Crane operators at Rotterdam need a licence. Weather was fine.';
    const d = extractiveDescription(text);
    expect(d).toContain('Crane maintenance happens every ninety days at Rotterdam.');
    expect(d).not.toContain('Weather was fine');
    expect(d.split('. ').length).toBeLessThanOrEqual(3);
  });
});
