// bench/entity-resolution: quality and speed of the resolver on the seeded
// labelled generator (PERSON / ORG records shaped like IRS 990, FEC,
// OpenCorporates and SEC data; medium corruption), beside a naive
// Jaro–Winkler baseline in the same process.
//
//   node bench/entity-resolution/resolve.bench.mjs [sizes=10000,100000] [corruption=medium] [seed=7]
//
// Per size:
//   phases       generate, normalise, resolve (records/s each)
//   latency      p50 / p95 / max of one add() (a record against everything before it)
//   pairwise     precision / recall / F1 of the auto-merged clusters
//   with review  recall and B-cubed F1 when each review item is decided correctly
//                (a perfect reviewer merges the true ones)
//   b-cubed      precision / recall / F1 of the auto-merged clusters
//   review       share of records sent to review, and the share of those that are true matches
//   pair completeness  share of true pairs sharing a searchable block key
//   peak RSS     of the process (maxRSS) after the size
// Baseline: records grouped by type + first three letters of the canonical
// name; a record joins the first of the last 50 records of its block with Jaro–Winkler ≥ 0.92.
// Needs `pnpm --filter @af/entity-resolution build`. Writes bench/results/entity-resolution.json.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const domain = await import(join(here, '../../services/entity-resolution/dist/domain/index.js'));
const { generateRecords, normaliseRecord, Resolver, clusterQuality, blockKeys, jaroWinkler, DEFAULT_BLOCKING } = domain;

const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number);
const corruption = process.argv[3] ?? 'medium';
const seed = Number(process.argv[4] ?? 7);
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const round = (x, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];

function baseline(records) {
  const parent = records.map((_, i) => i);
  const find = (i) => (parent[i] === i ? i : (parent[i] = find(parent[i])));
  const blocks = new Map();
  records.forEach((r, i) => {
    const key = `${r.entityType}|${r.canonical.slice(0, 3)}`;
    const block = blocks.get(key) ?? [];
    for (const j of block.slice(-50)) {
      if (jaroWinkler(r.canonical, records[j].canonical) >= 0.92) {
        parent[i] = find(j);
        break;
      }
    }
    block.push(i);
    blocks.set(key, block);
  });
  return records.map((r, i) => ({ recordId: r.recordId, clusterId: records[find(i)].recordId }));
}

function pairCompleteness(records, labels) {
  const byEntity = new Map();
  const keys = records.map((r) => new Set(blockKeys(r)));
  const size = new Map();
  for (const k of keys) for (const key of k) size.set(key, (size.get(key) ?? 0) + 1);
  records.forEach((r, i) => {
    const e = labels.get(r.recordId);
    (byEntity.get(e) ?? byEntity.set(e, []).get(e)).push(i);
  });
  let pairs = 0;
  let found = 0;
  for (const members of byEntity.values()) {
    for (let a = 0; a < members.length; a++)
      for (let b = a + 1; b < members.length; b++) {
        pairs++;
        const ka = keys[members[a]];
        for (const key of keys[members[b]]) {
          if (ka.has(key) && (key.startsWith('id:') || size.get(key) <= DEFAULT_BLOCKING.maxBlockSize)) {
            found++;
            break;
          }
        }
      }
  }
  return pairs === 0 ? 1 : found / pairs;
}

const results = [];
for (const n of sizes) {
  let t0 = process.hrtime.bigint();
  const raw = [...generateRecords({ records: n, seed, corruption })];
  const genMs = ms(t0);
  const labels = new Map(raw.map((r) => [r.recordId, r.entityId]));
  t0 = process.hrtime.bigint();
  const records = raw.map((r) => normaliseRecord(r).record);
  const normMs = ms(t0);

  const resolver = new Resolver();
  const lat = new Float64Array(n);
  let review = 0;
  let reviewTrue = 0;
  const reviewLinks = [];
  t0 = process.hrtime.bigint();
  // Batch mode: term frequencies over the whole input first, as Splink does.
  resolver.primeFrequencies(records);
  for (let i = 0; i < n; i++) {
    const s = process.hrtime.bigint();
    const res = resolver.add(records[i]);
    lat[i] = Number(process.hrtime.bigint() - s) / 1e6;
    if (res.decision === 'flag_review') {
      review++;
      const truth = labels.get(res.outcome.candidate.recordId) === labels.get(res.recordId);
      if (truth) {
        reviewTrue++;
        reviewLinks.push([res.recordId, res.reviewClusterId]);
      }
    }
  }
  const resolveMs = ms(t0);
  const clusters = resolver.clusters();
  const auto = clusterQuality(clusters.map((c) => ({ ...c, entityId: labels.get(c.recordId) })));
  // A correct reviewer: every true review item merges the record's cluster into the candidate's.
  const cid = new Map(clusters.map((c) => [c.recordId, c.clusterId]));
  const up = new Map();
  const find = (x) => (up.has(x) && up.get(x) !== x ? find(up.get(x)) : x);
  for (const [rec, cand] of reviewLinks) up.set(find(cid.get(rec)), find(cand));
  const withReview = clusterQuality(clusters.map((c) => ({ recordId: c.recordId, clusterId: find(c.clusterId), entityId: labels.get(c.recordId) })));
  const sorted = Array.from(lat).sort((a, b) => a - b);

  t0 = process.hrtime.bigint();
  const base = clusterQuality(baseline(records).map((c) => ({ ...c, entityId: labels.get(c.recordId) })));
  const baseMs = ms(t0);
  const pc = pairCompleteness(records, labels);
  const row = {
    records: n,
    corruption,
    seed,
    phases_records_per_s: { generate: Math.round(n / (genMs / 1000)), normalise: Math.round(n / (normMs / 1000)), resolve: Math.round(n / (resolveMs / 1000)) },
    resolve_seconds: round(resolveMs / 1000, 2),
    add_latency_ms: { p50: round(pct(sorted, 0.5), 3), p95: round(pct(sorted, 0.95), 3), max: round(sorted[n - 1], 2) },
    auto: { precision: round(auto.precision), recall: round(auto.recall), f1: round(auto.f1), bcubed_precision: round(auto.bcubedPrecision), bcubed_recall: round(auto.bcubedRecall), bcubed_f1: round(auto.bcubedF1) },
    with_review: { recall: round(withReview.recall), f1: round(withReview.f1), bcubed_f1: round(withReview.bcubedF1) },
    review: { share: round(review / n), items: review, match_rate: round(review ? reviewTrue / review : 0) },
    pair_completeness: round(pc),
    baseline_jaro_winkler: { precision: round(base.precision), recall: round(base.recall), f1: round(base.f1), bcubed_f1: round(base.bcubedF1), seconds: round(baseMs / 1000, 2) },
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  results.push(row);
  console.log(JSON.stringify(row));
}

const out = {
  bench: 'entity-resolution',
  when: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30), load: loadavg().map((l) => round(l, 2)), node: process.version },
  note: 'In-memory resolver (the same resolveOne the service runs against PostgreSQL). Targets at medium corruption: auto precision >= 0.995, recall with review >= 0.98, B-cubed F1 >= 0.95, review <= 3 %.',
  results,
};
writeFileSync(join(here, '../results/entity-resolution.json'), `${JSON.stringify(out, null, 2)}\n`);
