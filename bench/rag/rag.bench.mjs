// bench/rag: retrieval quality and speed of the document index on the
// labelled corpus made by make-corpus.mjs (PDF, DOCX, XLSX, Markdown; one
// question per fact, labelled with the sentence or table row answering it).
//
//   node bench/rag/rag.bench.mjs [sizes=10000,100000] [queries=200]
//
// Real parts: the entity-resolution document code (parsers, chunking, the
// offline embedders, the embedded vector store, BM25 in PostgreSQL) against a fresh PostgreSQL database (TEST_DATABASE_URL,
// default 127.0.0.1:5432). Reports
//   quality    recall@8 and MRR (of the first relevant chunk within 8) for
//              dense-only, BM25-only and hybrid, same query analysis, by
//              question kind, for offline-wordvec-v1 and offline-hashed-ngram-v1;
//              fusions (RRF and score fusion, dense weights 0.25-2) chosen on
//              half A of the questions (even document numbers), reported on
//              half B and on all
//   embedding  load time and memory of the embedder, texts/s of both offline ones
//   ingestion  pages/s (PDF pages, sheets, 1 per DOCX/Markdown file) of
//              parse + chunk + embed + write, whole corpus
//   latency    p50/p95 of hybrid, dense-only and BM25-only searches with the
//              corpus plus synthetic chunks up to each size (one owner), beside
//              a fixed single-threaded reference task timed in the same minutes
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
const { createEmbedder, OfflineWordVectorEmbedder } = await imp('documents/infra/embedders.js');
const { IngestDocument } = await imp('documents/app/ingest-document.js');
const { SearchDocuments } = await imp('documents/app/search-documents.js');
const { BruteForceIndex } = await imp('documents/domain/vector-index.js');
const { VectorScanPool } = await imp('documents/infra/vector-scan-pool.js');
const { fuse } = await imp('documents/domain/fusion.js');

const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number).filter((n) => n > 0); // 0: quality only
const latencyQueries = Number(process.argv[3] ?? 200);
const corpus = JSON.parse(readFileSync(join(here, 'questions.json'), 'utf8'));

const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]; };
const r3 = (x) => Math.round(x * 1000) / 1000;

const db = await createTestDatabase('af_bench_rag');
const kit = await ServiceKit.start({
  name: 'entity-resolution',
  envSchema: entityResolutionEnvSchema,
  env: { SERVICE_AUTH_SECRET: 'bench-service-auth-secret-0123456789ab', DATABASE_URL: db.url, NATS_URL: 'memory://benchrag', METRICS_PORT: '0', LOG_LEVEL: 'silent' },
  migrations: ENTITY_RESOLUTION_MIGRATIONS,
});
const log = { info() {}, warn() {}, error() {}, debug() {} };
const index = new DocumentIndexRepository(kit.db);
// As the service does by default (DOCS_SEARCH_THREADS=2): large owners' vectors scanned by worker threads, a slice each.
const searchThreads = Number(process.env.BENCH_SEARCH_THREADS ?? 2);
const pool = searchThreads > 0 ? new VectorScanPool({ threads: searchThreads }) : undefined;
const vectors = new EmbeddedVectorStore(kit.db, 64, pool);
// BENCH_EMBEDDER: offline (default, offline-wordvec-v1) or offline-hashed (offline-hashed-ngram-v1).
const tEmb = performance.now();
const rssBefore = process.memoryUsage().rss;
// BENCH_WORDVEC_SHARE / BENCH_WORDVEC_SIF_A: offline-wordvec-v1 with other settings (to compare them on half A).
const embedder = process.env.BENCH_WORDVEC_SHARE || process.env.BENCH_WORDVEC_SIF_A
  ? new OfflineWordVectorEmbedder(512, undefined, { semanticShare: Number(process.env.BENCH_WORDVEC_SHARE ?? 0.6), sifA: Number(process.env.BENCH_WORDVEC_SIF_A ?? 3e-4) })
  : await createEmbedder({ provider: process.env.BENCH_EMBEDDER ?? 'offline', dimensions: 512 });
const embedderLoad = { ms: r3(performance.now() - tEmb), rss_added_mib: r3((process.memoryUsage().rss - rssBefore) / 2 ** 20) };
console.log(`embedder ${embedder.name} ready in ${embedderLoad.ms} ms (+${embedderLoad.rss_added_mib} MiB RSS)`);
const search = new SearchDocuments(index, embedder, vectors);
const owner = 'bench-user';

// ---- ingestion ----
// Document ids per owner (chunk ids are global): the main owner's start 8000, the baseline's 9000.
const idsFor = (block) => new Map(corpus.documents.map((d, i) => [`00000000-0000-4000-${block}-${String(i).padStart(12, '0')}`, d]));
const files = idsFor('8000');
const baselineFiles = idsFor('9000');
const source = { content: async (_o, id) => readFileSync(join(here, 'corpus', (files.get(id) ?? baselineFiles.get(id)).file)) };
async function ingestAll(who, emb, files) {
  const ingest = new IngestDocument(index, source, emb, vectors, { maxBytes: 50 << 20, chunkTokens: 1024, embedBatch: 64 }, log);
  const t0 = performance.now();
  for (const [id, d] of files) {
    const outcome = await ingest.execute({ type: 'created', documentId: id, ownerUserId: who, version: 1, title: d.file, contentType: d.content_type, sizeBytes: 0, folderPath: '' });
    if (outcome !== 'indexed') throw new Error(`${d.file}: ${outcome} ${JSON.stringify(await index.get(who, id))}`);
  }
  return (performance.now() - t0) / 1000;
}
const ingestSeconds = await ingestAll(owner, embedder, files);
const docs = await index.list(owner, 1000);
const pages = docs.reduce((a, d) => a + d.pageCount, 0);
const chunks = docs.reduce((a, d) => a + d.chunksTotal, 0);
console.log(`ingested ${docs.length} documents, ${pages} pages, ${chunks} chunks in ${ingestSeconds.toFixed(2)} s (${(pages / ingestSeconds).toFixed(1)} pages/s)`);

// ---- quality ----
// Every question is retrieved once per embedder (both candidate lists, 50 each, after query analysis);
// the methods and fusions are ranked from those lists with the service's own fusion functions.
// The questions are split by document: half A (even document numbers) chooses the fusion, half B
// (odd) is where it is reported without having been tuned on, beside all questions.
const squash = (s) => s.replace(/\s+/g, '').toLowerCase();
const docNoOf = new Map(corpus.documents.map((d, i) => [d.file, i]));
const byFileOf = (fs) => new Map([...fs].map(([id, d]) => [d.file, id]));
const byFile = byFileOf(files);
const half = (q) => (docNoOf.get(q.document) % 2 === 0 ? 'A' : 'B');
const variantOf = (q) => q.variant ?? 'as-worded';
async function retrieveAll(who, searcher, byFile) {
  const out = [];
  const lat = [];
  for (const q of corpus.questions) {
    const t = performance.now();
    const c = await searcher.retrieve({ owner: who, query: q.question, maxResults: 8 });
    lat.push(performance.now() - t);
    out.push(c);
  }
  const ids = [...new Set(out.flatMap((c) => [...c.dense, ...c.lexical].map((x) => x.id)))];
  const rows = new Map((await index.chunks(who, ids)).map((c) => [c.id, c]));
  const relevant = (q, id) => { const c = rows.get(id); return !!c && c.documentId === byFile.get(q.document) && squash(c.text).includes(squash(q.answer)); };
  return { lists: out, relevant, retrieve_p50_ms: r3(pct(lat, 50)), retrieve_p95_ms: r3(pct(lat, 95)) };
}
/** recall@8 and MRR of `rank(listsOfQuestion) → ids` over the questions `pick` selects, overall and by variant. */
function score(run, rank, pick = () => true) {
  const agg = {};
  const add = (key, rr) => { const a = (agg[key] ??= { questions: 0, hit: 0, rr: 0 }); a.questions++; if (rr > 0) { a.hit++; a.rr += rr; } };
  corpus.questions.forEach((q, i) => {
    if (!pick(q)) return;
    const ids = rank(run.lists[i]).slice(0, 8);
    const at = ids.findIndex((id) => run.relevant(q, id));
    const rr = at >= 0 ? 1 / (at + 1) : 0;
    add('all', rr);
    add(variantOf(q), rr);
  });
  const fmt = (a) => ({ questions: a.questions, recall_at_8: r3(a.hit / a.questions), mrr: r3(a.rr / a.questions) });
  const { all, ...variants } = agg;
  return { ...fmt(all), by_variant: Object.fromEntries(Object.entries(variants).sort().map(([k, v]) => [k, fmt(v)])) };
}
const denseRank = (c) => c.dense.map((x) => x.id);
const bm25Rank = (c) => c.lexical.map((x) => x.id);
const fusedRank = (settings) => (c) => fuse([c.dense, c.lexical], settings).map((x) => x.id);
const GRID = [];
for (const method of ['rrf', 'score']) for (const w of [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2]) GRID.push({ method, weights: [w, 1] });
const label = (s) => `${s.method} dense ${s.weights[0]}`;
/** How a fusion does on half A against the better single method there: variants not below it, then macro recall, then MRR. */
function objective(h, d, b) {
  const vs = Object.keys(h.by_variant);
  const notBelow = vs.filter((v) => h.by_variant[v].recall_at_8 >= Math.max(d.by_variant[v].recall_at_8, b.by_variant[v].recall_at_8)).length;
  const macro = vs.reduce((a, v) => a + h.by_variant[v].recall_at_8, 0) / vs.length;
  return [notBelow, macro, h.mrr];
}
const better = (x, y) => { for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] > y[i]; return false; };
async function qualityFor(who, emb, searcher, byFile) {
  const run = await retrieveAll(who, searcher, byFile);
  const halves = { A: (q) => half(q) === 'A', B: (q) => half(q) === 'B' };
  const res = { embedder: emb.name, retrieve_p50_ms: run.retrieve_p50_ms, retrieve_p95_ms: run.retrieve_p95_ms };
  const single = {};
  for (const [name, rank] of [['dense', denseRank], ['bm25', bm25Rank]])
    single[name] = { all: score(run, rank), A: score(run, rank, halves.A), B: score(run, rank, halves.B) };
  let best;
  const grid = {};
  for (const g of GRID) {
    const a = score(run, fusedRank(g), halves.A);
    const o = objective(a, single.dense.A, single.bm25.A);
    grid[label(g)] = { half_A_recall_at_8: a.recall_at_8, half_A_mrr: a.mrr, half_A_variants_not_below_best_single: o[0], half_A_macro_recall: r3(o[1]) };
    if (!best || better(o, best.o)) best = { g, o };
  }
  const configured = searcher.fusion;
  res.dense = single.dense;
  res.bm25 = single.bm25;
  res.hybrid_chosen_on_half_A = { fusion: label(best.g), all: score(run, fusedRank(best.g)), A: score(run, fusedRank(best.g), halves.A), B: score(run, fusedRank(best.g), halves.B) };
  res.hybrid_configured_default = { fusion: label(configured), all: score(run, fusedRank(configured)), A: score(run, fusedRank(configured), halves.A), B: score(run, fusedRank(configured), halves.B) };
  res.hybrid_plain_rrf = { all: score(run, fusedRank({ method: 'rrf', weights: [1, 1] })) };
  res.fusion_grid_on_half_A = grid;
  const line = (n, x) => `${n.padEnd(28)} all ${x.all.recall_at_8}/${x.all.mrr}  B ${x.B?.recall_at_8 ?? '-'}/${x.B?.mrr ?? '-'}  ${Object.entries(x.all.by_variant).map(([k, v]) => `${k} ${v.recall_at_8}`).join('  ')}`;
  console.log(`-- ${emb.name} (recall@8/MRR)`);
  for (const n of ['dense', 'bm25', 'hybrid_chosen_on_half_A', 'hybrid_configured_default', 'hybrid_plain_rrf']) console.log(line(n === 'hybrid_chosen_on_half_A' ? `hybrid (${res[n].fusion})` : n === 'hybrid_configured_default' ? `default (${res[n].fusion})` : n, res[n]));
  return res;
}
const qualityResults = { split: 'by document: half A (even document numbers) chooses the fusion, half B (odd) reports it', questions_by_half: { A: corpus.questions.filter((q) => half(q) === 'A').length, B: corpus.questions.filter((q) => half(q) === 'B').length } };
qualityResults[embedder.name] = await qualityFor(owner, embedder, search, byFile);
// The same check through SearchDocuments.execute (fusion, chunk reads), which must agree with the offline ranking.
{
  let hit = 0;
  for (const q of corpus.questions) {
    const r = await search.execute({ owner, query: q.question, maxResults: 8 });
    if (r.hits.some((h) => h.documentId === byFile.get(q.document) && squash(h.text).includes(squash(q.answer)))) hit++;
  }
  qualityResults[embedder.name].hybrid_configured_default.through_execute_recall_at_8 = r3(hit / corpus.questions.length);
  console.log(`execute() hybrid recall@8 ${r3(hit / corpus.questions.length)}`);
}
// Baseline: the lexical offline embedder on the same corpus (its own owner), quality only.
let baselineIngest;
if (process.env.BENCH_BASELINE !== '0') {
  const other = await createEmbedder({ provider: embedder.name === 'offline-wordvec-v1' ? 'offline-hashed' : 'offline', dimensions: 512 });
  const who = 'bench-user-baseline';
  const secs = await ingestAll(who, other, baselineFiles);
  baselineIngest = { embedder: other.name, seconds: r3(secs), pages_per_second: r3(pages / secs), chunks_per_second: r3(chunks / secs) };
  qualityResults[other.name] = await qualityFor(who, other, new SearchDocuments(index, other, vectors), byFileOf(baselineFiles));
}
// Embedding speed alone: both offline embedders over the same 2,000 chunk-sized texts, interleaved.
const embedSpeed = {};
{
  const texts = Array.from({ length: 2000 }, (_, i) => corpus.questions[i % corpus.questions.length].answer.repeat(3));
  const hashed = await createEmbedder({ provider: 'offline-hashed', dimensions: 512 });
  const wordvec = await createEmbedder({ provider: 'offline', dimensions: 512 });
  const t = { [hashed.name]: [], [wordvec.name]: [] };
  for (let round = 0; round < 3; round++)
    for (const e of [hashed, wordvec]) { const t0 = performance.now(); await e.embed(texts); t[e.name].push(performance.now() - t0); }
  for (const [k, v] of Object.entries(t)) embedSpeed[k] = { texts: texts.length, best_ms: r3(Math.min(...v)), texts_per_second: Math.round(texts.length / (Math.min(...v) / 1000)) };
  embedSpeed.loadavg_at_measure = loadavg().map(r3);
  console.log(`embedding speed ${JSON.stringify(embedSpeed)}`);
}
const variantCounts = corpus.questions.reduce((a, q) => ((a[variantOf(q)] = (a[variantOf(q)] ?? 0) + 1), a), {});

// ---- latency at size ----
const REFERENCE_WHAT = 'dot products of one 100-float query with 20,000 rows of 100 floats (row by row, plain JS)';
const refRows = Float32Array.from({ length: 20000 * 100 }, (_, i) => ((i * 2654435761) % 1000) / 1000 - 0.5);
const refQ = Float32Array.from({ length: 100 }, (_, i) => (i % 7) / 7);
let refSink = 0;
function referenceTask() {
  for (let r = 0; r < 20000; r++) { let s = 0; const o = r * 100; for (let j = 0; j < 100; j++) s += refRows[o + j] * refQ[j]; refSink += s; }
}

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
  // The same searches with the vectors scanned on the event loop (DOCS_SEARCH_THREADS=0), in the same minutes.
  if (pool) {
    const onLoop = new SearchDocuments(index, embedder, new EmbeddedVectorStore(kit.db));
    await onLoop.execute({ owner, query: qs[0], maxResults: 8 });
    for (const mode of ['hybrid', 'dense']) {
      const lat = [];
      for (const q of qs) { const t = performance.now(); await onLoop.execute({ owner, query: q, maxResults: 8, mode }); lat.push(performance.now() - t); }
      res[`${mode}_scanned_on_event_loop`] = { p50_ms: r3(pct(lat, 50)), p95_ms: r3(pct(lat, 95)) };
    }
  }
  // A fixed single-threaded reference computed in the same minutes (the machine is shared): the
  // hybrid p95 as a multiple of it compares runs made under different loads.
  const refLat = [];
  for (let i = 0; i < 30; i++) { const t = performance.now(); referenceTask(); refLat.push(performance.now() - t); }
  latency[size] = { chunks: have, search_threads: pool ? pool.size : 0, ...res, reference_task: { what: REFERENCE_WHAT, p50_ms: r3(pct(refLat, 50)), p95_ms: r3(pct(refLat, 95)) }, hybrid_p95_over_reference_p50: r3(res.hybrid ? res.hybrid.p95_ms / pct(refLat, 50) : NaN), loadavg_at_measure: loadavg().map(r3) };
  console.log(`size ${size}: ${JSON.stringify(res)}`);

  // In-memory index alone: brute force vs HNSW on the same vectors.
  const rows = await kit.db.query('SELECT id, vector FROM doc_vectors WHERE owner_user_id = $1', [owner]);
  const dims = rows[0].vector.byteLength / 4;
  const tb = performance.now();
  const bf = new BruteForceIndex(dims, rows.length);
  const vecsAll = rows.map((r) => new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength)));
  rows.forEach((r, i) => bf.upsert(r.id, vecsAll[i]));
  const bfBuild = performance.now() - tb;
  const qv = await embedder.embed(qs);
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
  let threadLat;
  if (pool) {
    const shared = new BruteForceIndex(dims, rows.length, true);
    rows.forEach((r, i) => shared.upsert(r.id, vecsAll[i], r.id.slice(0, 36)));
    threadLat = [];
    var threadSame = 0;
    for (const [qi, v] of qv.entries()) {
      const t = performance.now();
      const got = await pool.search(shared, v, 8);
      threadLat.push(performance.now() - t);
      if (got.map((x) => x.id).join() === exact[qi].join()) threadSame++;
    }
  }
  const vi = {
    ...(threadLat ? { brute_force_threads: { threads: pool.size, p50_ms: r3(pct(threadLat, 50)), p95_ms: r3(pct(threadLat, 95)), queries_with_the_same_top_8_as_one_scan: `${threadSame}/${qv.length}` } } : {}),
    brute_force: { layout: 'by column, the query\'s non-zero columns four per pass', p50_ms: r3(pct(bfLat, 50)), p95_ms: r3(pct(bfLat, 95)), build_ms: Math.round(bfBuild), recall_at_8_vs_exact: 1 },
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
  embedder_load: embedderLoad,
  embedding_speed: embedSpeed,
  vector_store: vectors.kind,
  search_threads: pool ? pool.size : 0,
  lexical: 'bm25 in memory over PostgreSQL english tsvector lexemes (k1 1.2, b 0.75)',
  fusion: `configured default: ${search.fusion.method === 'rrf' ? 'weighted reciprocal rank fusion (k = 60)' : 'min-max normalised score fusion'}, dense weight ${search.denseWeight}, BM25 weight 1, 50 candidates per retriever; grid chosen on half A in quality.<embedder>.fusion_grid_on_half_A`,
  quality: qualityResults,
  ingestion: { embedder: embedder.name, seconds: r3(ingestSeconds), pages_per_second: r3(pages / ingestSeconds), chunks_per_second: r3(chunks / ingestSeconds), ...(baselineIngest ? { baseline: baselineIngest } : {}) },
  latency,
  vector_index: vectorIndexes,
};
writeFileSync(process.env.BENCH_OUT ?? join(here, '../results/rag.json'), `${JSON.stringify(result, null, 2)}\n`);
}
writeResult();
console.log('wrote bench/results/rag.json');
await pool?.close();
await kit.close();
if (process.env.BENCH_KEEP_DB) console.log(`kept database ${db.name}`); else await db.drop();
