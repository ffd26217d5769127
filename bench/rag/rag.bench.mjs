// bench/rag: retrieval quality and speed of the document index on the
// labelled corpus made by make-corpus.mjs (PDF, DOCX, XLSX, Markdown; one
// question per fact, labelled with the sentence or table row answering it).
//
//   node bench/rag/rag.bench.mjs [sizes=10000,100000] [queries=200]
//
// Real parts: the entity-resolution document code (parsers, chunking, the
// offline hashed n-gram embedder, the embedded vector store, BM25 in
// PostgreSQL) against a fresh PostgreSQL database (TEST_DATABASE_URL,
// default 127.0.0.1:5432). Reports
//   quality    recall@8 and MRR (of the first relevant chunk within 8) for
//              dense-only, BM25-only and hybrid (RRF), same query analysis
//   ingestion  pages/s (PDF pages, sheets, 1 per DOCX/Markdown file) of
//              parse + chunk + embed + write, whole corpus
//   latency    p50/p95 of hybrid, dense-only and BM25-only searches with the
//              corpus plus synthetic chunks up to each size (one owner)
//   vectors    the brute-force typed-array index against hnswlib-node (HNSW)
//              at each size: query p50/p95, build time, recall@8 vs exact
// Needs `pnpm --filter @af/entity-resolution build`. Writes bench/results/rag.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ServiceKit } from '@af/service-kit';
import { createTestDatabase } from '@af/testing';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '../../services/entity-resolution/dist');
const imp = (p) => import(join(dist, p));
const { entityResolutionEnvSchema } = await imp('config.js');
const { ENTITY_RESOLUTION_MIGRATIONS } = await imp('infra/migrations/index.js');
const { DocumentIndexRepository } = await imp('documents/infra/document-index.repository.js');
const { EmbeddedVectorStore } = await imp('documents/infra/embedded-vector-store.js');
const { OfflineEmbedder } = await imp('documents/infra/embedders.js');
const { IngestDocument } = await imp('documents/app/ingest-document.js');
const { SearchDocuments } = await imp('documents/app/search-documents.js');
const { BruteForceIndex } = await imp('documents/domain/vector-index.js');
const { HashedEmbedder } = await imp('documents/domain/hashed-embedder.js');

const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number).filter((n) => n > 0); // 0: quality only
const latencyQueries = Number(process.argv[3] ?? 200);
const corpus = JSON.parse(readFileSync(join(here, 'questions.json'), 'utf8'));

const db = await createTestDatabase('af_bench_rag');
const kit = await ServiceKit.start({
  name: 'entity-resolution',
  envSchema: entityResolutionEnvSchema,
  env: { SERVICE_AUTH_SECRET: 'bench-service-auth-secret-0123456789ab', DATABASE_URL: db.url, NATS_URL: 'memory://benchrag', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
  migrations: ENTITY_RESOLUTION_MIGRATIONS,
});
const log = { info() {}, warn() {}, error() {}, debug() {} };
const index = new DocumentIndexRepository(kit.db);
const vectors = new EmbeddedVectorStore(kit.db);
const embedder = new OfflineEmbedder(512);
const search = new SearchDocuments(index, embedder, vectors);
// The same search with plain (equal-weight) RRF, reported beside the default weighting.
const plainRrf = new SearchDocuments(index, embedder, vectors, 50, 1);
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
const r3 = (x) => Math.round(x * 1000) / 1000;
const owner = 'bench-user';

// ---- ingestion ----
const files = new Map(corpus.documents.map((d, i) => [`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, d]));
const source = { content: async (_o, id) => readFileSync(join(here, 'corpus', files.get(id).file)) };
const ingest = new IngestDocument(index, source, embedder, vectors, { maxBytes: 50 << 20, chunkTokens: 1024, embedBatch: 64 }, log);
const t0 = performance.now();
for (const [id, d] of files) {
  const outcome = await ingest.execute({ type: 'created', documentId: id, ownerUserId: owner, version: 1, title: d.file, contentType: d.content_type, sizeBytes: 0, folderPath: '' });
  if (outcome !== 'indexed') throw new Error(`${d.file}: ${outcome} ${JSON.stringify(await index.get(owner, id))}`);
}
const ingestSeconds = (performance.now() - t0) / 1000;
const docs = await index.list(owner, 1000);
const pages = docs.reduce((a, d) => a + d.pageCount, 0);
const chunks = docs.reduce((a, d) => a + d.chunksTotal, 0);
console.log(`ingested ${docs.length} documents, ${pages} pages, ${chunks} chunks in ${ingestSeconds.toFixed(2)} s (${(pages / ingestSeconds).toFixed(1)} pages/s)`);

// ---- quality ----
const squash = (s) => s.replace(/\s+/g, '').toLowerCase();
const byFile = new Map([...files].map(([id, d]) => [d.file, id]));
async function quality(mode, searcher = search) {
  let hit = 0;
  let rr = 0;
  const lat = [];
  const byVariant = {};
  for (const q of corpus.questions) {
    const t = performance.now();
    const r = await searcher.execute({ owner, query: q.question, maxResults: 8, mode });
    lat.push(performance.now() - t);
    const want = squash(q.answer);
    const rank = r.hits.findIndex((h) => h.documentId === byFile.get(q.document) && squash(h.text).includes(want));
    const v = (byVariant[q.variant ?? 'as-worded'] ??= { questions: 0, hit: 0, rr: 0 });
    v.questions++;
    if (rank >= 0) { hit++; rr += 1 / (rank + 1); v.hit++; v.rr += 1 / (rank + 1); }
  }
  const n = corpus.questions.length;
  const variants = Object.fromEntries(Object.entries(byVariant).map(([k, v]) => [k, { questions: v.questions, recall_at_8: r3(v.hit / v.questions), mrr: r3(v.rr / v.questions) }]));
  return { recall_at_8: r3(hit / n), mrr: r3(rr / n), p50_ms: r3(pct(lat, 50)), p95_ms: r3(pct(lat, 95)), by_variant: variants };
}
const qualityResults = {};
for (const mode of (process.env.BENCH_MODES ?? 'dense,bm25,hybrid,hybrid_plain_rrf').split(',')) {
  qualityResults[mode] = mode === 'hybrid_plain_rrf' ? await quality('hybrid', plainRrf) : await quality(mode);
  console.log(`${mode.padEnd(6)} recall@8 ${qualityResults[mode].recall_at_8}  MRR ${qualityResults[mode].mrr}  ${Object.entries(qualityResults[mode].by_variant).map(([k, v]) => `${k} ${v.recall_at_8}/${v.mrr}`).join('  ')}`);
}
const variantCounts = corpus.questions.reduce((a, q) => ((a[q.variant ?? 'as-worded'] = (a[q.variant ?? 'as-worded'] ?? 0) + 1), a), {});

// ---- latency at size ----
const WORDS = [...new Set(corpus.questions.flatMap((q) => q.answer.toLowerCase().split(/[^a-z]+/)).filter((w) => w.length > 2))];
let seed = 5;
const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const synthText = () => Array.from({ length: 60 + Math.floor(rnd() * 120) }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
const latency = {};
const vectorIndexes = {};
let have = chunks;
let docNo = 0;
const require = createRequire(import.meta.url);
let hnsw;
try { hnsw = require('hnswlib-node'); } catch (err) { hnsw = undefined; console.log(`hnswlib-node not available (${err.message.split('\n')[0]}): HNSW comparison skipped`); }
for (const size of sizes) {
  const tFill = performance.now();
  while (have < size) {
    // Synthetic documents of 500 chunks each, written through the same repository and vector store.
    const id = `10000000-0000-4000-8000-${String(docNo++).padStart(12, '0')}`;
    const n = Math.min(500, size - have);
    await index.claim(owner, { documentId: id, version: 1, title: `synthetic-${docNo}.md`, contentType: 'text/markdown', folderPath: '' });
    const cs = [];
    for (let i = 0; i < n; i++) { const text = synthText(); cs.push({ ordinal: i, kind: 'child', text, section: '', table: false, tokens: 200 }); }
    const vecs = await embedder.embed(cs.map((c) => c.text));
    await vectors.upsert(owner, cs.map((c, i) => ({ id: `${id}:1:${c.ordinal}`, documentId: id, vector: vecs[i], payload: { format: 'markdown', section: '', page: null, years: [] } })));
    await index.commit(owner, id, 1, { format: 'markdown', pageCount: 1, description: '', descriptionSource: 'extractive', years: [], embedder: embedder.name }, cs);
    have += n;
  }
  console.log(`filled to ${have} chunks in ${((performance.now() - tFill) / 1000).toFixed(1)} s`);
  const qs = Array.from({ length: latencyQueries }, (_, i) => corpus.questions[(i * 7) % corpus.questions.length].question);
  await search.execute({ owner, query: qs[0], maxResults: 8 }); // loads the owner's vectors once
  const res = {};
  // BENCH_LATENCY_MODES_<size> (e.g. BENCH_LATENCY_MODES_100000=dense) limits the modes timed at one size.
  for (const mode of (process.env[`BENCH_LATENCY_MODES_${size}`] ?? 'hybrid,dense,bm25').split(',')) {
    const lat = [];
    for (const q of qs) { const t = performance.now(); await search.execute({ owner, query: q, maxResults: 8, mode }); lat.push(performance.now() - t); }
    res[mode] = { p50_ms: r3(pct(lat, 50)), p95_ms: r3(pct(lat, 95)) };
  }
  latency[size] = { chunks: have, ...res, loadavg_at_measure: loadavg().map(r3) };
  console.log(`size ${size}: ${JSON.stringify(res)}`);

  // In-memory index alone: brute force vs HNSW on the same vectors.
  const rows = await kit.db.query('SELECT id, vector FROM doc_vectors WHERE owner_user_id = $1', [owner]);
  const dims = rows[0].vector.byteLength / 4;
  const tb = performance.now();
  const bf = new BruteForceIndex(dims, rows.length);
  const vecsAll = rows.map((r) => new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength)));
  rows.forEach((r, i) => bf.upsert(r.id, vecsAll[i]));
  const bfBuild = performance.now() - tb;
  const h = new HashedEmbedder(dims);
  const qv = qs.map((q) => h.embed(q));
  const bfLat = [];
  const exact = [];
  for (const v of qv) { const t = performance.now(); exact.push(bf.search(v, 8).map((x) => x.id)); bfLat.push(performance.now() - t); }
  // Reference in the same run (same load): the row-by-row exact scan the column layout replaced.
  const flat = new Float32Array(rows.length * dims);
  vecsAll.forEach((v, i) => flat.set(v, i * dims));
  const rowLat = [];
  for (const v of qv.slice(0, 50)) {
    const t = performance.now();
    const sc = new Float32Array(rows.length);
    for (let r = 0; r < rows.length; r++) { let s = 0; const off = r * dims; for (let j = 0; j < dims; j++) s += flat[off + j] * v[j]; sc[r] = s; }
    rowLat.push(performance.now() - t);
  }
  const vi = {
    brute_force: { layout: 'by column, sparse query', p50_ms: r3(pct(bfLat, 50)), p95_ms: r3(pct(bfLat, 95)), build_ms: Math.round(bfBuild), recall_at_8_vs_exact: 1 },
    row_major_reference: { p50_ms: r3(pct(rowLat, 50)), p95_ms: r3(pct(rowLat, 95)), queries: rowLat.length },
    loadavg_at_measure: loadavg().map(r3),
  };
  // HNSW builds take minutes past ~20k points here: BENCH_HNSW_MAX (default 20000) bounds the sizes it is built at.
  if (hnsw && rows.length <= Number(process.env.BENCH_HNSW_MAX ?? 20000)) {
    const th = performance.now();
    const hi = new hnsw.HierarchicalNSW('cosine', dims);
    hi.initIndex(rows.length, 16, 200);
    vecsAll.forEach((v, i) => hi.addPoint(Array.from(v), i));
    hi.setEf(64);
    const hBuild = performance.now() - th;
    const hLat = [];
    let agree = 0;
    qv.forEach((v, qi) => {
      const arr = Array.from(v);
      const t = performance.now();
      const r = hi.searchKnn(arr, 8);
      hLat.push(performance.now() - t);
      const got = new Set(r.neighbors.map((n) => rows[n].id));
      agree += exact[qi].filter((id) => got.has(id)).length / exact[qi].length;
    });
    vi.hnsw = { p50_ms: r3(pct(hLat, 50)), p95_ms: r3(pct(hLat, 95)), build_ms: Math.round(hBuild), recall_at_8_vs_exact: r3(agree / qv.length), params: { M: 16, efConstruction: 200, ef: 64 } };
  }
  vectorIndexes[size] = vi;
  console.log(`vector index at ${size}: ${JSON.stringify(vi)}`);
  writeResult();
}

function writeResult() {
const result = {
  bench: 'rag',
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), loadavg: loadavg().map(r3), node: process.version },
  corpus: { documents: docs.length, by_format: docs.reduce((a, d) => ((a[d.format] = (a[d.format] ?? 0) + 1), a), {}), pages, chunks, questions: corpus.questions.length, questions_by_variant: variantCounts, seed: corpus.seed },
  embedder: embedder.name,
  vector_store: vectors.kind,
  lexical: 'bm25 in memory over PostgreSQL english tsvector lexemes (k1 1.2, b 0.75)',
  fusion: `weighted reciprocal rank fusion, k = 60, dense weight ${search.denseWeight}, BM25 weight 1, 50 candidates per retriever (hybrid_plain_rrf: equal weights)`,
  quality: qualityResults,
  ingestion: { seconds: r3(ingestSeconds), pages_per_second: r3(pages / ingestSeconds), chunks_per_second: r3(chunks / ingestSeconds) },
  latency,
  vector_index: vectorIndexes,
};
writeFileSync(process.env.BENCH_OUT ?? join(here, '../results/rag.json'), `${JSON.stringify(result, null, 2)}\n`);
}
writeResult();
console.log('wrote bench/results/rag.json');
await kit.close();
if (process.env.BENCH_KEEP_DB) console.log(`kept database ${db.name}`); else await db.drop();
