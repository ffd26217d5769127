// bench/entity-resolution/diagnose.mjs: what the resolver gets wrong, with examples.
//
//   node bench/entity-resolution/diagnose.mjs [records=100000] [corruption=medium] [seed=7] [examples=15]
//
// Resolves the seeded generator's records like resolve.bench.mjs and sorts
// every wrong step into a bucket:
//   false merge     auto_merge into a cluster whose best candidate is another entity
//   blocking miss   an earlier record of the same entity exists but shares no searched block
//   ranking miss    it shares a searched block but was ranked outside the bounded candidate list
//   size miss       it shares only blocks too big to search
//   scoring miss    it was a candidate but scored below the review threshold
//   review          sent to review (true / false)
// and prints, per bucket, counts by entity type and match level pattern plus
// a few examples (raw names, ids, states, levels and weights). "With a namesake key": people whose
// (first, last, state) key, normalised, is held by records of more than one true entity.
// Needs `pnpm --filter @af/entity-resolution build`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { namesakeKey, namesakeOwners } from './namesakes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const domain = await import(join(here, '../../services/entity-resolution/dist/domain/index.js'));
const { generateRecords, normaliseRecord, Resolver, blockKeys, comparePair, clusterQuality } = domain;

const n = Number(process.argv[2] ?? 100000);
const corruption = process.argv[3] ?? 'medium';
const seed = Number(process.argv[4] ?? 7);
const show = Number(process.argv[5] ?? 15);
// DIAG_PATTERN=all counts patterns over every feature, not only the names and ids.
const allFeatures = process.env.DIAG_PATTERN === 'all';

const raw = [...generateRecords({ records: n, seed, corruption })];
const rawById = new Map(raw.map((r) => [r.recordId, r]));
const entity = (id) => rawById.get(id).entityId;
const records = raw.map((r) => normaliseRecord(r).record);
const keyOwner = namesakeOwners(records.map((r) => [r, entity(r.recordId)]));
const namesake = (r) => keyOwner.get(namesakeKey(r)) === null;
const resolver = new Resolver();
resolver.primeFrequencies(records);
const seenByEntity = new Map();
const earlierPos = new Map();
let pos = 0;
let reviews = 0;
const reviewLinks = [];
const buckets = new Map();
const put = (name, item) => {
  const b = buckets.get(name) ?? { count: 0, byType: {}, byPattern: new Map(), examples: [] };
  b.count++;
  b.byType[item.type] = (b.byType[item.type] ?? 0) + 1;
  if (item.namesake) b.namesakes = (b.namesakes ?? 0) + 1;
  if (item.pattern) b.byPattern.set(item.pattern, (b.byPattern.get(item.pattern) ?? 0) + 1);
  if (b.examples.length < show && Math.random() < 0.2) b.examples.push(item);
  buckets.set(name, b);
};
const brief = (r) => {
  const x = rawById.get(r.recordId);
  return `${x.name} [${x.entityId}] ids=${JSON.stringify(x.externalIds ?? {})} ${x.city ?? '-'}/${x.state ?? '-'}${x.employer ? ` emp=${x.employer}` : ''}`;
};
const fmt = (cmp) =>
  cmp
    ? Object.entries(cmp.levels)
        .map(([k, v]) => `${k}=${v}(${cmp.weights[k].toFixed(1)})`)
        .join(' ')
    : '';
const pattern = (cmp) =>
  cmp
    ? Object.entries(cmp.levels)
        .filter(([k]) => allFeatures || /name|id_/.test(k))
        .map(([k, v]) => `${k}=${v}`)
        .join(' ')
    : 'none';

for (const rec of records) {
  const e = entity(rec.recordId);
  const earlier = seenByEntity.get(e) ?? [];
  // The candidate list the resolver is about to score (its index is plain JS underneath).
  const candPos = new Set(resolver.index.candidates(blockKeys(rec)));
  // Every record sharing a searched block, unbounded (a ranking miss is among them, a size miss is not).
  const searched = new Set(resolver.index.candidates(blockKeys(rec), Infinity));
  const freq = (t, v) => resolver.frequency(t, v);
  const res = resolver.add(rec);
  const out = res.outcome;
  if (res.decision === 'flag_review') {
    reviews++;
    if (entity(out.candidate.recordId) === e) reviewLinks.push([res.recordId, res.reviewClusterId]);
  }
  const type = rec.entityType;
  const ns = namesake(rec);
  if (res.decision === 'auto_merge' && entity(out.candidate.recordId) !== e) {
    const truePeer = earlier[0];
    put('false merge', {
      type,
      namesake: ns,
      pattern: pattern(out.comparison),
      text: `${brief(rec)}\n      -> ${brief(out.candidate)} p=${out.probability.toFixed(4)}\n      ${fmt(out.comparison)}${truePeer ? `\n      true peer: ${brief(truePeer)}` : ''}`,
    });
  } else if (res.decision === 'flag_review') {
    put(entity(out.candidate.recordId) === e ? 'review true' : 'review false', {
      type,
      namesake: ns,
      pattern: pattern(out.comparison),
      text: `${brief(rec)}\n      ?? ${brief(out.candidate)} p=${out.probability.toFixed(4)}\n      ${fmt(out.comparison)}`,
    });
  } else if (res.decision === 'create_new' && earlier.length > 0) {
    // Why was no earlier record of the entity chosen?
    const peer = earlier[earlier.length - 1];
    const cmp = comparePair(rec, peer, freq, undefined, resolver.population(rec.entityType));
    const keys = new Set(blockKeys(rec));
    const shared = blockKeys(peer).filter((k) => keys.has(k));
    const wasCandidate = earlierPos.get(e).some((p) => candPos.has(p));
    const cands = out.candidate
      ? `best other p=${out.probability.toFixed(3)} ${brief(out.candidate)}`
      : 'no candidates';
    const bucket = wasCandidate
      ? cmp.probability < 0.5
        ? 'scoring miss'
        : 'lost to another candidate'
      : shared.length === 0
        ? 'blocking miss'
        : earlierPos.get(e).some((p) => searched.has(p))
          ? 'ranking miss'
          : 'size miss';
    put(bucket, {
      type,
      namesake: ns,
      pattern: pattern(cmp),
      text: `${brief(rec)}\n      peer ${brief(peer)} p=${cmp.probability.toFixed(4)} shared=[${shared.join(', ')}] ${cands}\n      ${fmt(cmp)}${cmp.conflict ? ` CONFLICT ${cmp.conflict}` : ''}`,
    });
  }
  earlier.push(rec);
  (earlierPos.get(e) ?? earlierPos.set(e, []).get(e)).push(pos++);
  seenByEntity.set(e, earlier);
}

for (const [name, b] of [...buckets.entries()].sort((a, b) => b[1].count - a[1].count)) {
  console.log(`\n== ${name}: ${b.count} ${JSON.stringify(b.byType)}, ${b.namesakes ?? 0} with a namesake key`);
  for (const [p, c] of [...b.byPattern.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8))
    console.log(`   ${c}\t${p}`);
  for (const ex of b.examples) console.log(`  - ${ex.text}`);
}

// Headline figures, as the bench computes them.
const clusters = resolver.clusters();
const auto = clusterQuality(clusters.map((c) => ({ ...c, entityId: entity(c.recordId) })));
const cid = new Map(clusters.map((c) => [c.recordId, c.clusterId]));
const up = new Map();
const find = (x) => (up.has(x) && up.get(x) !== x ? find(up.get(x)) : x);
for (const [rec, cand] of reviewLinks) up.set(find(cid.get(rec)), find(cand));
const withReview = clusterQuality(clusters.map((c) => ({ recordId: c.recordId, clusterId: find(c.clusterId), entityId: entity(c.recordId) })));
console.log(`\nauto precision ${auto.precision.toFixed(4)} recall ${auto.recall.toFixed(4)} b3 f1 ${auto.bcubedF1.toFixed(4)} | with review recall ${withReview.recall.toFixed(4)} | review share ${(reviews / n).toFixed(4)}`);
