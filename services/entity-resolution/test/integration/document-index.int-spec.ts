/**
 * The document index repository on real PostgreSQL: BM25 scored in memory
 * over the stored lexemes ranks exactly as the same formula in SQL, stays
 * current through its own writes (commit, re-index, remove), and a second
 * repository (another replica) sees the first one's writes through the
 * owner's generation. Owners never see each other's chunks.
 */
import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import type { Chunk } from '../../src/documents/domain/chunking.js';
import { DocumentIndexRepository } from '../../src/documents/infra/document-index.repository.js';
import { ScriptedChatModel } from '@af/llm';
import { LlmReranker } from '../../src/documents/app/llm-rerank.js';
import { SearchDocuments } from '../../src/documents/app/search-documents.js';
import { EmbeddedVectorStore } from '../../src/documents/infra/embedded-vector-store.js';
import { OfflineEmbedder, OfflineWordVectorEmbedder } from '../../src/documents/infra/embedders.js';
import { ReembedDocuments } from '../../src/documents/app/reembed-documents.js';
import { ENTITY_RESOLUTION_MIGRATIONS } from '../../src/infra/migrations/index.js';
import { ServiceKit } from '@af/service-kit';
import { entityResolutionEnvSchema } from '../../src/config.js';

let db: TestDatabase;
let kit: ServiceKit<any>;
let a: DocumentIndexRepository;
let b: DocumentIndexRepository;

beforeAll(async () => {
  db = await createTestDatabase();
  kit = await ServiceKit.start({
    name: 'entity-resolution',
    envSchema: entityResolutionEnvSchema,
    env: { SERVICE_AUTH_SECRET: 'test-service-auth-secret-0123456789abcdef', DATABASE_URL: db.url, NATS_URL: 'memory://docindex', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
    migrations: ENTITY_RESOLUTION_MIGRATIONS,
  });
  a = new DocumentIndexRepository(kit.db as never);
  b = new DocumentIndexRepository(kit.db as never);
});

afterAll(async () => {
  await kit?.close();
  await db?.drop();
});

const meta = { format: 'markdown', pageCount: 1, description: '', descriptionSource: 'extractive', years: [], embedder: 'test' };
const children = (texts: string[]): Chunk[] => texts.map((text, ordinal) => ({ ordinal, kind: 'child', text, section: '', table: false, tokens: 20 }) as Chunk);

async function index(repo: DocumentIndexRepository, owner: string, documentId: string, version: number, texts: string[]) {
  expect(await repo.claim(owner, { documentId, version, title: `${documentId}.md`, contentType: 'text/markdown', folderPath: '' })).toBe(true);
  expect(await repo.commit(owner, documentId, version, meta, children(texts))).toBe(true);
}

const WORDS = 'crane maintenance licence renewal canteen hours invoice supplier audit overtime badge travel expenses safety incident report quarterly budget harbour pilot'.split(' ');

describe('DocumentIndexRepository BM25', () => {
  const alice = `alice-${randomUUID()}`;
  const bob = `bob-${randomUUID()}`;
  const docs = Array.from({ length: 6 }, () => randomUUID());

  beforeAll(async () => {
    let s = 7;
    const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    for (const d of docs) {
      const texts = Array.from({ length: 25 }, () => Array.from({ length: 8 + Math.floor(rnd() * 30) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' '));
      await index(a, alice, d, 1, texts);
    }
    await index(a, bob, randomUUID(), 1, ['crane maintenance for bob only']);
  });

  it('ranks exactly as the SQL formulation, with and without a document filter', async () => {
    for (const q of ['crane maintenance', 'Quarterly budget of the harbour pilots', 'supplier audits and invoices', 'travel expense reports']) {
      for (const scope of [undefined, docs.slice(0, 2)]) {
        const mem = await a.bm25(alice, q, 20, scope);
        const sql = await a.bm25InSql(alice, q, 20, scope);
        expect(mem.length).toBeGreaterThan(0);
        expect(mem.map((h) => h.id)).toEqual(sql.map((h) => h.id));
        mem.forEach((h, i) => expect(h.score).toBeCloseTo(sql[i]!.score, 5));
      }
    }
  });

  it("never answers another owner's chunks, and nothing for stop words only or an empty scope", async () => {
    const hits = await a.bm25(bob, 'crane maintenance', 20);
    expect(hits).toHaveLength(1);
    expect((await a.bm25(alice, 'crane', 200)).every((h) => docs.some((d) => h.id.startsWith(d)))).toBe(true);
    expect(await a.bm25(alice, 'the of and', 10)).toEqual([]);
    expect(await a.bm25(alice, 'crane', 10, [])).toEqual([]);
  });

  it('follows its own re-index and removal, and another replica sees both', async () => {
    await b.bm25(alice, 'crane', 5); // replica b has the owner loaded
    const d = randomUUID();
    await index(a, alice, d, 1, ['zeppelin hangar inspection']);
    expect((await a.bm25(alice, 'zeppelin', 5)).map((h) => h.id)).toEqual([`${d}:1:0`]);
    expect((await b.bm25(alice, 'zeppelin', 5)).map((h) => h.id)).toEqual([`${d}:1:0`]);
    await index(a, alice, d, 2, ['airship hangar inspection']);
    expect(await a.bm25(alice, 'zeppelin', 5)).toEqual([]);
    expect((await b.bm25(alice, 'airship', 5)).map((h) => h.id)).toEqual([`${d}:2:0`]);
    await a.remove(alice, d, 2);
    expect(await a.bm25(alice, 'airship', 5)).toEqual([]);
    expect(await b.bm25(alice, 'airship', 5)).toEqual([]);
    const all = await a.bm25(alice, 'crane maintenance', 50);
    expect(all.map((h) => h.id)).toEqual((await a.bm25InSql(alice, 'crane maintenance', 50)).map((h) => h.id));
  });
});

describe('SearchDocuments with an LLM rerank (scripted model)', () => {
  it("reorders the fused candidates as the model ranks them, trims to max results, and says what it did", async () => {
    const owner = `dave-${randomUUID()}`;
    const d = randomUUID();
    const texts = ['crane maintenance every ninety days', 'crane operator licence rules', 'crane rental prices per day', 'canteen opening hours'];
    await index(a, owner, d, 1, texts);
    const embedder = new OfflineEmbedder(128);
    const vectors = new EmbeddedVectorStore(kit.db as never);
    const vecs = await embedder.embed(texts);
    await vectors.upsert(owner, vecs.map((vector, i) => ({ id: `${d}:1:${i}`, documentId: d, vector, payload: { format: 'markdown', section: '', page: null, years: [] } })));
    const fused = await new SearchDocuments(a, embedder, vectors).execute({ owner, query: 'crane', maxResults: 3 });
    expect(fused.rerank).toBeUndefined();
    const model = new ScriptedChatModel([{ json: { ranking: [3, 1] } }, { error: 'model down' }]);
    const search = new SearchDocuments(a, embedder, vectors, 50, undefined, new LlmReranker(model, 'scripted'));
    const r = await search.execute({ owner, query: 'crane', maxResults: 2 });
    expect(r.rerank).toEqual({ model: 'scripted', status: 'reranked' });
    expect(r.hits.map((h) => h.chunkId)).toEqual([fused.hits[2]!.chunkId, fused.hits[0]!.chunkId]);
    expect(model.prompts[0]).toContain('crane operator licence rules');
    // Only the owner's chunks are shown to the model (alice's crane chunks are not).
    expect(model.prompts[0]!.split('"file"').length).toBe(model.prompts[0]!.split(`${d}.md`).length);
    const down = await search.execute({ owner, query: 'crane', maxResults: 3 });
    expect(down.rerank).toMatchObject({ status: 'kept_fused_order', reason: expect.stringContaining('model down') });
    expect(down.hits.map((h) => h.chunkId)).toEqual(fused.hits.map((h) => h.chunkId));
    const off = await search.execute({ owner, query: 'crane', maxResults: 3, rerank: false });
    expect(off.rerank).toEqual({ model: 'scripted', status: 'not_asked' });
  });
});

describe('ReembedDocuments (the configured embedder changed)', () => {
  it("replaces another embedder's vectors from the stored chunks, names the new embedder, and leaves a document that moved on to a newer version alone", async () => {
    const owner = `erin-${randomUUID()}`;
    const d1 = randomUUID();
    const d2 = randomUUID();
    const texts = ['The automobile fleet is serviced every spring.', 'Canteen opening hours are posted at the entrance.'];
    const old = new OfflineEmbedder(128);
    const vectors = new EmbeddedVectorStore(kit.db as never);
    for (const d of [d1, d2]) {
      expect(await a.claim(owner, { documentId: d, version: 1, title: `${d}.md`, contentType: 'text/markdown', folderPath: '' })).toBe(true);
      expect(await a.commit(owner, d, 1, { ...meta, embedder: old.name }, children(texts))).toBe(true);
      const vecs = await old.embed(texts.map((t) => `${d}.md\n${t}`));
      await vectors.upsert(owner, vecs.map((vector, i) => ({ id: `${d}:1:${i}`, documentId: d, vector, payload: { format: 'markdown', section: '', page: null, years: [] } })));
    }
    const wordvec = new OfflineWordVectorEmbedder(128);
    // Before: a search with the new embedder's vectors (another size) finds nothing dense, and says nothing wrong.
    expect(await vectors.search(owner, (await wordvec.embed(['car']))[0]!, 5)).toEqual([]);
    // d2 moves on to version 2 (being re-ingested): it is not the re-embedder's to touch.
    expect(await a.claim(owner, { documentId: d2, version: 2, title: `${d2}.md`, contentType: 'text/markdown', folderPath: '' })).toBe(true);
    const logs: unknown[] = [];
    const log = { info: (o: unknown) => logs.push(o), warn() {}, error: (o: unknown) => logs.push(o), debug() {} } as never;
    const out = await new ReembedDocuments(a, wordvec, vectors, log).execute();
    expect(out.failed).toBe(0);
    expect((await a.get(owner, d1))!.embedder).toBe('offline-wordvec-v1');
    expect((await a.get(owner, d2))!.embedder).toBe(old.name);
    // After: the new embedder's space, where "car" finds the automobile sentence first.
    const hits = await vectors.search(owner, (await wordvec.embed(['car maintenance']))[0]!, 5);
    expect(hits[0]!.id).toBe(`${d1}:1:0`);
    // Nothing left to do: a second run re-embeds nothing.
    expect(await new ReembedDocuments(a, wordvec, vectors, log).execute()).toEqual({ documents: 0, chunks: 0, failed: 0 });
  });
});

describe('DocumentIndexRepository chunk rows', () => {
  it("answer each chunk with its parent's text (of the same version), none for a chunk without a parent, and nothing of another owner", async () => {
    const owner = `dora-${randomUUID()}`;
    const d = randomUUID();
    const parent = (ordinal: number, text: string) => ({ ordinal, kind: 'parent', text, section: 'S', table: false, tokens: 5 }) as Chunk;
    const child = (ordinal: number, parentOrdinal: number | undefined, text: string) => ({ ordinal, kind: 'child', text, section: 'S', table: false, tokens: 5, ...(parentOrdinal === undefined ? {} : { parentOrdinal }) }) as Chunk;
    for (const version of [1, 2]) {
      expect(await a.claim(owner, { documentId: d, version, title: 'p.md', contentType: 'text/markdown', folderPath: '' })).toBe(true);
      expect(await a.commit(owner, d, version, meta, [parent(0, `opening v${version}`), child(1, 0, `body v${version}`), child(2, undefined, `loose v${version}`)])).toBe(true);
    }
    const rows = await a.chunks(owner, [`${d}:2:1`, `${d}:2:2`, `${d}:1:1`]);
    expect(rows.map((r) => [r.id, r.text, r.parentText]).sort()).toEqual([[`${d}:2:1`, 'body v2', 'opening v2'], [`${d}:2:2`, 'loose v2', null]]);
    expect(await a.chunks(`other-${randomUUID()}`, [`${d}:2:1`])).toEqual([]);
  });
});
