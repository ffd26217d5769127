// bench/connectors (b): rate-limiter accuracy — configured rate vs the
// grants per second two replicas achieve together.
//
// Two RateLimiter instances, each on its own pg pool (two replicas), share one
// bucket; CALLERS concurrent callers per instance acquire in a loop (always
// more demand than the limit) for SECONDS. Defaults as in production
// (RATE_LIMIT_LEASE_MS 100: a 10/s limit never leases, 200/s leases 20
// tokens per statement). Grants are stamped when acquire returns (what the
// upstream would see) and with their database-clock grant time.
//
//   node bench/connectors/b-limiter-accuracy.bench.mjs [seconds=60] [rates=10,200] [callers=8]
//
// Needs PostgreSQL on 127.0.0.1:5432 (TEST_DATABASE_URL) and a built
// services/connector-runtime (dist). Writes bench/results/connectors-b.json.
import { loadavg } from 'node:os';
import { TEST_DATABASE_URL } from '@af/testing';
import { machineFacts, printTable, progress, fmt } from '../orchestrator/lib/report.mjs';
import { RateLimiter, counting, distBuiltAt, limitsDatabase, stats, tokenBucket, writeResult } from './lib/common.mjs';

const SECONDS = Number(process.argv[2] ?? 60);
const RATES = String(process.argv[3] ?? '10,200').split(',').map(Number);
const CALLERS = Number(process.argv[4] ?? 8);
const LEASE_MS = 100;
const WARM_UP_S = 1; // the initial burst (a full bucket) is spent in the first instants

const machine = await machineFacts(TEST_DATABASE_URL);
progress(`${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')}`);
const limitsDb = await limitsDatabase();
const runs = [];

/** Most grants in any window of `ms` (sorted times). */
function maxInWindow(times, ms) {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= ms) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

/** Grants beyond capacity + rate × span over the worst span (≤ 0: never exceeded). */
function worstExcess(times, capacity, perMs, slackMs = 0) {
  let worst = -Infinity;
  let best = Infinity;
  times.forEach((t, j) => {
    best = Math.min(best, j - perMs * t);
    worst = Math.max(worst, j - perMs * t - best + 1 - capacity - perMs * slackMs);
  });
  return worst;
}

try {
  const [poolA, poolB] = [await limitsDb.open(4), await limitsDb.open(4)];
  for (const rate of RATES) {
    const limits = { second: rate };
    const key = `connector:bench:accuracy-${rate}`;
    const qa = counting(poolA);
    const qb = counting(poolB);
    const replicas = [new RateLimiter(qa.wrapped, { leaseMs: LEASE_MS }), new RateLimiter(qb.wrapped, { leaseMs: LEASE_MS })];
    const grants = []; // [localMs, dbMs, replica]
    progress(`${rate}/s: ${SECONDS} s, ${CALLERS} callers on each of 2 replicas (lease ${tokenBucket.leaseSize(limits, LEASE_MS)} tokens)`);
    const t0 = performance.now();
    const endAt = t0 + SECONDS * 1000;
    const caller = async (replica, index) => {
      while (performance.now() < endAt) {
        const { grantedAtMs } = await replica.acquire(key, limits, { maxWaitMs: 10_000, label: 'bench' });
        grants.push([performance.now() - t0, grantedAtMs, index]);
      }
    };
    await Promise.all(replicas.flatMap((r, i) => Array.from({ length: CALLERS }, () => caller(r, i))));

    const inRun = grants.filter(([t]) => t <= SECONDS * 1000);
    const local = inRun.map(([t]) => t).sort((a, b) => a - b);
    const dbFirst = grants.reduce((m, [, d]) => Math.min(m, d), Infinity);
    const db = grants.map(([, d]) => d - dbFirst).sort((a, b) => a - b);
    const perSecond = [];
    for (let s = WARM_UP_S; s < SECONDS; s++) perSecond.push(local.filter((t) => t >= s * 1000 && t < (s + 1) * 1000).length);
    const steady = local.filter((t) => t >= WARM_UP_S * 1000).length / (SECONDS - WARM_UP_S);
    const capacity = tokenBucket.capacity(rate);
    const mean = perSecond.reduce((a, b) => a + b, 0) / perSecond.length;
    const sd = Math.sqrt(perSecond.reduce((a, b) => a + (b - mean) ** 2, 0) / perSecond.length);
    runs.push({
      configuredPerSecond: rate,
      bucketCapacity: capacity,
      leaseTokens: tokenBucket.leaseSize(limits, LEASE_MS),
      seconds: SECONDS,
      callersPerReplica: CALLERS,
      grantsInRun: local.length,
      expectedAtMost: Math.floor(capacity + rate * SECONDS),
      achievedPerSecondAfterWarmUp: Number(steady.toFixed(3)),
      achievedOverConfigured: Number((steady / rate).toFixed(4)),
      perSecondCounts: { ...stats(perSecond, 2), mean: Number(mean.toFixed(3)), stdev: Number(sd.toFixed(3)) },
      maxInAnyOneSecond: { asCallersSawIt: maxInWindow(local, 1000), onDatabaseClock: maxInWindow(db, 1000), bucketAllows: capacity + rate },
      worstExcessOverBucket: {
        onDatabaseClock: Number(worstExcess(db, capacity, rate / 1000, 0.002).toFixed(4)),
        asCallersSawIt: Number(worstExcess(local, capacity, rate / 1000, tokenBucket.leaseSize(limits, LEASE_MS) > 1 ? LEASE_MS : 0).toFixed(4)),
      },
      shareByReplica: [0, 1].map((i) => Number((inRun.filter((g) => g[2] === i).length / inRun.length).toFixed(3))),
      sharedStatements: qa.counter.statements + qb.counter.statements,
      statementsPerGrant: Number(((qa.counter.statements + qb.counter.statements) / grants.length).toFixed(4)),
    });
  }
} finally {
  await limitsDb.close();
}

console.log(`\nbench/connectors (b): rate-limiter accuracy, 2 replicas × ${CALLERS} callers, ${SECONDS} s per rate`);
console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.postgres}, load at start ${machine.loadAverageAtStart.join(' ')}\n`);
printTable(
  ['configured /s', 'achieved /s (after 1 s)', 'ratio', 'per-second min / median / max', 'max in any 1 s (bucket allows)', 'worst excess (db clock)', 'share A / B', 'statements per grant'],
  runs.map((r) => [
    r.configuredPerSecond,
    fmt(r.achievedPerSecondAfterWarmUp, 2),
    fmt(r.achievedOverConfigured, 4),
    `${r.perSecondCounts.min} / ${r.perSecondCounts.median} / ${r.perSecondCounts.max}`,
    `${r.maxInAnyOneSecond.asCallersSawIt} (${r.maxInAnyOneSecond.bucketAllows})`,
    fmt(r.worstExcessOverBucket.onDatabaseClock, 3),
    r.shareByReplica.join(' / '),
    fmt(r.statementsPerGrant, 3),
  ]),
);
console.log(`
"worst excess" = most grants in any span beyond capacity + rate × span (≤ 0: the bucket was never exceeded).`);

writeResult('b', {
  benchmark: 'connectors-b-limiter-accuracy',
  machine: { ...machine, loadAverageAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
  build: { connectorRuntimeDistBuiltAt: distBuiltAt() },
  setup: {
    replicas: 'two RateLimiter instances, each on its own pg pool (4 connections), one shared bucket row in a fresh database on the local PostgreSQL',
    demand: `${CALLERS} concurrent callers per replica acquiring in a loop (maxWaitMs 10000)`,
    leaseMs: LEASE_MS,
    achieved: `grants stamped when acquire returned, seconds ${WARM_UP_S}..${SECONDS} (the first second holds the initial full bucket)`,
  },
  results: runs,
});
process.exit(0);
