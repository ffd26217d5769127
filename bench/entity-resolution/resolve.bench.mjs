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
//   namesake keys  of the distinct (first, last, state) keys of the PERSON records, normalised as the
//                resolver normalises them, the share held by more than one true entity: how often
//                the data itself has two people a name and a state cannot tell apart (it grows
//                with the size, so the same resolver scores lower on larger inputs)
//   peak RSS     of the process (maxRSS) after the size
// Baseline: records grouped by type + first three letters of the canonical
// name; a record joins the first of the last 50 records of its block with Jaro–Winkler ≥ 0.92.
// Resolution runs as the CLI runs it: the PERSON and the ORG records each on their own worker thread
// (ParallelResolver; ER_THREADS=1 for one thread). Sizes below the streamed ones also resolve once on
// one thread first and report that reference, the ratio and whether both gave the same clusters
// (ER_BENCH_SINGLE=0 leaves it out).
// ER_BENCH_REVIEW_SWEEP=0.5,0.3,0.1 resolves with the lowest of those review thresholds and reports,
// per threshold, the review queue and recall with review it would give (`review_sweep`): a record
// under review is a new entity until someone decides, so the clusters do not depend on the review
// threshold and one run gives every row exactly. The main figures stay those of the default (0.4).
// Needs `pnpm --filter @af/entity-resolution build`. Writes bench/results/entity-resolution.json.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namesakeOwners } from './namesakes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const domain = await import(join(here, '../../services/entity-resolution/dist/domain/index.js'));
const { generateRecords, normaliseRecord, ParallelResolver, resolveThreads, clusterQuality, blockKeys, jaroWinkler, DEFAULT_BLOCKING, DEFAULT_THRESHOLDS } = domain;
const THREADS = resolveThreads();
const SINGLE_REFERENCE = process.env.ER_BENCH_SINGLE !== '0' && THREADS > 1;

const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number);
const corruption = process.argv[3] ?? 'medium';
const seed = Number(process.argv[4] ?? 7);
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const round = (x, d = 4) => Math.round(x * 10 ** d) / 10 ** d;
// Share of distinct PERSON (first, last, state) keys held by records of more than one true entity.
function namesakeKeys(raw) {
  const rows = [];
  for (const r of raw) if (r.entityType === 'PERSON') rows.push([normaliseRecord(r).record, r.entityId]);
  const owner = namesakeOwners(rows);
  let shared = 0;
  for (const v of owner.values()) if (v === null) shared++;
  return owner.size ? round(shared / owner.size) : 0;
}
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

// Sizes from this many records on are streamed: the generator (deterministic per seed) runs twice, once
// to count name frequencies and once to resolve, so only the resolver's own compact state is held.
// The naive baseline and pair completeness (which hold every record's keys) run at the smaller sizes only.
const STREAM_FROM = Number(process.env.ER_STREAM_FROM ?? 500_000);
const REVIEW_AT = DEFAULT_THRESHOLDS.review;
const SWEEP = (process.env.ER_BENCH_REVIEW_SWEEP ?? '')
  .split(',')
  .filter(Boolean)
  .map((x) => {
    const t = Number(x);
    if (!(t > 0 && t < DEFAULT_THRESHOLDS.auto)) throw new Error(`ER_BENCH_REVIEW_SWEEP: ${x} is not a review threshold in (0, ${DEFAULT_THRESHOLDS.auto})`);
    return t;
  });
const RESOLVER = SWEEP.length ? { resolver: { thresholds: { ...DEFAULT_THRESHOLDS, review: Math.min(REVIEW_AT, ...SWEEP) } } } : {};

// The review queue at threshold `at` (items of at least that probability), and the clusters a correct
// reviewer leaves: every true item merges the record's cluster into its candidate's. `isTrue(v)`:
// whether the item's record and candidate record are one entity; `entity`: numeric label per input position.
function reviewAt(res, entity, isTrue, at) {
  const n = res.roots.length;
  const up = new Int32Array(n).map((_, k) => k);
  const find = (x) => { while (up[x] !== x) { up[x] = up[up[x]]; x = up[x]; } return x; };
  let items = 0; let trueItems = 0; let open = 0;
  for (const v of res.reviews) {
    if (v.probability < at) continue;
    items++;
    if (v.open) open++;
    if (!isTrue(v)) continue;
    trueItems++;
    up[find(res.roots[v.position])] = find(res.roots[v.candidatePosition]);
  }
  const merged = new Int32Array(n);
  for (let k = 0; k < n; k++) merged[k] = find(res.roots[k]);
  const q = numericQuality(merged, entity);
  return {
    review: { share: round(items / n), items, match_rate: round(items ? trueItems / items : 0), open_share: round(open / n), open_items: open },
    with_review: { recall: round(q.recall), f1: round(q.f1), bcubed_f1: round(q.bcubedF1) },
  };
}
const sweepRows = (res, entity, isTrue) => (SWEEP.length ? SWEEP.map((at) => ({ review_threshold: at, ...reviewAt(res, entity, isTrue, at) })) : undefined);

async function streamed(n) {
  const tStart = process.hrtime.bigint();
  const labels = new Int32Array(n);
  let t0 = process.hrtime.bigint();
  let i = 0;
  // Record numbers are given at creation and records come out shuffled: label by record number.
  for (const r of generateRecords({ records: n, seed, corruption })) {
    labels[Number(r.recordId.slice(1)) - 1] = Number(r.entityId.slice(1));
    i++;
  }
  const genMs = ms(t0);
  const windows = [];
  let lastWall = 0;
  let lastCpu = (({ user, system }) => user + system)(process.cpuUsage());
  let nextWindow = 100000;
  t0 = process.hrtime.bigint();
  // Input positions only (no record id per record kept beside the threads' state).
  const resolver = new ParallelResolver({
    ...RESOLVER,
    keepRecordIds: false,
    onProgress: (done) => {
      if (done < nextWindow) return;
      nextWindow += 100000;
      // Per 100k window: wall and process CPU seconds, all threads (CPU time is what the machine's load does not inflate).
      const cpu = process.cpuUsage();
      const w = { records: done, wall_s: round((ms(t0) - lastWall) / 1000, 1), cpu_s: round((cpu.user + cpu.system - lastCpu) / 1e6, 1), rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20), load: loadavg().map((l) => round(l, 2)) };
      windows.push(w);
      lastWall = ms(t0);
      lastCpu = cpu.user + cpu.system;
      console.error(`${done} records, ${Math.round(ms(t0) / 1000)} s (last 100k: ${w.wall_s} s wall, ${w.cpu_s} s cpu), rss ${w.rss_mb} MB, load ${w.load.join(' ')}`);
    },
  });
  // Term frequencies over the whole input first (the generator is deterministic per seed), then resolution.
  for (const raw of generateRecords({ records: n, seed, corruption })) {
    resolver.prime(raw);
    if (resolver.busy) await resolver.ready();
  }
  const primeWallMs = ms(t0);
  // Record number → input position, for the review links (no string map over a million records).
  const posOfNo = new Int32Array(n);
  t0 = process.hrtime.bigint();
  lastWall = 0;
  lastCpu = (({ user, system }) => user + system)(process.cpuUsage());
  i = 0;
  for (const raw of generateRecords({ records: n, seed, corruption })) {
    resolver.add(raw);
    posOfNo[Number(raw.recordId.slice(1)) - 1] = i++;
    if (resolver.busy) await resolver.ready();
  }
  const res = await resolver.finish();
  const resolveWallMs = ms(t0);
  return { res, labels, posOfNo, genMs, primeWallMs, resolveWallMs, totalMs: ms(tStart), windows };
}

// One resolution of the records (raw), as the CLI resolves them, with the wall time.
async function resolveAll(raw, threads) {
  const t0 = process.hrtime.bigint();
  const res = await new ParallelResolver({ ...RESOLVER, threads }).resolveAll(raw);
  return { res, ms: ms(t0) };
}

const partitionRows = (res) =>
  res.partitions.map((p) => ({ type: p.type, records: p.records, normalise_s: round(p.normaliseSeconds + p.primeSeconds, 2), resolve_s: round(p.resolveSeconds, 2) }));
// Share of the summed resolve time spent by the slowest partition (0.5: perfectly balanced on two threads).
const balance = (res) => {
  const t = res.partitions.map((p) => p.resolveSeconds);
  const sum = t.reduce((a, b) => a + b, 0);
  return sum ? round(Math.max(...t) / sum, 3) : null;
};

// Pairwise and B-cubed quality from typed arrays: cluster[i] and entity[i] per record (numbers).
function numericQuality(cluster, entity) {
  const n = cluster.length;
  const count = (xs) => { const m = new Map(); for (let i = 0; i < n; i++) m.set(xs[i], (m.get(xs[i]) ?? 0) + 1); return m; };
  const byCluster = count(cluster);
  const byEntity = count(entity);
  const cell = new Map();
  for (let i = 0; i < n; i++) { const k = cluster[i] * 4194304 + entity[i]; cell.set(k, (cell.get(k) ?? 0) + 1); }
  const pairs = (x) => (x * (x - 1)) / 2;
  let tp = 0; for (const c of cell.values()) tp += pairs(c);
  let pred = 0; for (const c of byCluster.values()) pred += pairs(c);
  let truth = 0; for (const c of byEntity.values()) truth += pairs(c);
  let bp = 0; let br = 0;
  for (let i = 0; i < n; i++) { const c = cell.get(cluster[i] * 4194304 + entity[i]); bp += c / byCluster.get(cluster[i]); br += c / byEntity.get(entity[i]); }
  const f1 = (p, r) => (p + r === 0 ? 0 : (2 * p * r) / (p + r));
  const precision = pred ? tp / pred : 1; const recall = truth ? tp / truth : 1;
  return { precision, recall, f1: f1(precision, recall), bcubedPrecision: bp / n, bcubedRecall: br / n, bcubedF1: f1(bp / n, br / n) };
}

const results = [];
for (const n of sizes) {
  if (n >= STREAM_FROM) {
    const { res, labels, posOfNo, genMs, primeWallMs, resolveWallMs, totalMs, windows } = await streamed(n);
    const lat = res.latencyMs;
    // Entity of each record in input order (labels are by record number).
    const entity = new Int32Array(n);
    for (let no = 0; no < n; no++) entity[posOfNo[no]] = labels[no];
    const auto = numericQuality(res.roots, entity);
    const entityOf = (recordId) => labels[Number(recordId.slice(1)) - 1];
    const isTrue = (v) => entityOf(v.candidateId) === entityOf(v.recordId);
    const atDefault = reviewAt(res, entity, isTrue, REVIEW_AT);
    const sorted = Array.from(lat).sort((a, b) => a - b);
    const last = Array.from(lat.subarray(Math.floor(n * 0.9))).sort((a, b) => a - b);
    const row = {
      records: n,
      corruption,
      seed,
      streamed: true,
      threads: res.threads,
      phases_records_per_s: { generate: Math.round(n / (genMs / 1000)), prime: Math.round(n / (primeWallMs / 1000)), resolve: Math.round(n / (resolveWallMs / 1000)) },
      // Wall seconds of the resolve pass (generation, normalisation and resolution of every type, overlapped).
      resolve_seconds: round(resolveWallMs / 1000, 2),
      total_seconds: round(totalMs / 1000, 2),
      // Seconds each type's thread spent normalising (both passes) and resolving; balance: the slowest's share.
      partitions: partitionRows(res),
      balance: balance(res),
      add_latency_ms: { p50: round(pct(sorted, 0.5), 3), p95: round(pct(sorted, 0.95), 3), max: round(sorted[n - 1], 2) },
      add_latency_last_10pct_ms: { against_records: Math.floor(n * 0.9), p50: round(pct(last, 0.5), 3), p95: round(pct(last, 0.95), 3), p99: round(pct(last, 0.99), 3) },
      auto: { precision: round(auto.precision), recall: round(auto.recall), f1: round(auto.f1), bcubed_precision: round(auto.bcubedPrecision), bcubed_recall: round(auto.bcubedRecall), bcubed_f1: round(auto.bcubedF1) },
      ...atDefault,
      review_sweep: sweepRows(res, entity, isTrue),
      pair_completeness: null,
      namesake_keys: namesakeKeys(generateRecords({ records: n, seed, corruption })),
      baseline_jaro_winkler: null,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      load_during: loadavg().map((l) => round(l, 2)),
      // Generate + normalise + resolve per 100,000 records, wall and CPU, with the load average at the end of each.
      per_100k: windows,
    };
    results.push(row);
    console.log(JSON.stringify(row));
    continue;
  }
  let t0 = process.hrtime.bigint();
  const raw = [...generateRecords({ records: n, seed, corruption })];
  const genMs = ms(t0);
  const labels = new Map(raw.map((r) => [r.recordId, r.entityId]));
  t0 = process.hrtime.bigint();
  const records = raw.map((r) => normaliseRecord(r).record);
  const normMs = ms(t0);

  // The one-thread reference first, in the same run (the machine is shared, so only the ratio compares).
  const single = SINGLE_REFERENCE ? await resolveAll(raw, 1) : undefined;
  const { res, ms: resolveMs } = await resolveAll(raw, THREADS);
  const lat = res.latencyMs;
  const clusters = res.clusters();
  const auto = clusterQuality(clusters.map((c) => ({ ...c, entityId: labels.get(c.recordId) })));
  const entity = Int32Array.from(raw, (r) => Number(r.entityId.slice(1)));
  const isTrue = (v) => labels.get(v.candidateId) === labels.get(v.recordId);
  const atDefault = reviewAt(res, entity, isTrue, REVIEW_AT);
  const sorted = Array.from(lat).sort((a, b) => a - b);

  t0 = process.hrtime.bigint();
  const base = clusterQuality(baseline(records).map((c) => ({ ...c, entityId: labels.get(c.recordId) })));
  const baseMs = ms(t0);
  const pc = pairCompleteness(records, labels);
  const row = {
    records: n,
    corruption,
    seed,
    threads: res.threads,
    phases_records_per_s: { generate: Math.round(n / (genMs / 1000)), normalise: Math.round(n / (normMs / 1000)), resolve: Math.round(n / (resolveMs / 1000)) },
    // Wall seconds of resolution (normalisation in the threads included: counting pass, then resolving pass).
    resolve_seconds: round(resolveMs / 1000, 2),
    partitions: partitionRows(res),
    balance: balance(res),
    single_thread: single
      ? {
          resolve_seconds: round(single.ms / 1000, 2),
          parallel_over_single: round(resolveMs / single.ms, 3),
          same_clusters_and_decisions: single.res.roots.every((r, i) => r === res.roots[i] && single.res.decision(i) === res.decision(i)),
        }
      : null,
    add_latency_ms: { p50: round(pct(sorted, 0.5), 3), p95: round(pct(sorted, 0.95), 3), max: round(sorted[n - 1], 2) },
    auto: { precision: round(auto.precision), recall: round(auto.recall), f1: round(auto.f1), bcubed_precision: round(auto.bcubedPrecision), bcubed_recall: round(auto.bcubedRecall), bcubed_f1: round(auto.bcubedF1) },
    ...atDefault,
    review_sweep: sweepRows(res, entity, isTrue),
    pair_completeness: round(pc),
    namesake_keys: namesakeKeys(raw),
    baseline_jaro_winkler: { precision: round(base.precision), recall: round(base.recall), f1: round(base.f1), bcubed_f1: round(base.bcubedF1), seconds: round(baseMs / 1000, 2) },
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    load_during: loadavg().map((l) => round(l, 2)),
  };
  results.push(row);
  console.log(JSON.stringify(row));
}

const out = {
  bench: 'entity-resolution',
  when: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30), load: loadavg().map((l) => round(l, 2)), node: process.version },
  note: 'In-memory resolver (the same resolveOne the service runs against PostgreSQL), each entity type on its own thread. Targets at medium corruption: auto precision >= 0.995, recall with review >= 0.98, B-cubed F1 >= 0.95, review <= 3 %.',
  results,
};
const outFile = process.env.ER_BENCH_OUT ?? join(here, '../results/entity-resolution.json');
writeFileSync(outFile, `${JSON.stringify(out, null, 2)}\n`);
