// bench/connectors (a): what connector-runtime's execution path costs per call
// on top of a raw HTTP request.
//
//   RAW        undici `request` + `body.json()` of the same URL
//   EXECUTE    `executeEndpoint(def, 'search_contributions', …)` from the built
//              domain (parameter coercion, request building, status mapping,
//              size-capped body read, response mapping) with undici `request`
//              as ctx.http
//   GUARDED    EXECUTE + breaker.admit → limiter.acquire → … → breaker.record,
//              the shared Postgres-backed limiter and breaker in the loop at
//              their default settings (RATE_LIMIT_LEASE_MS 100,
//              BREAKER_SYNC_MS 1000) with a generous limit (1,000,000/s)
//   STRICT     GUARDED with leases off (RATE_LIMIT_LEASE_MS 0): one shared
//              statement per call — what a tight limit (e.g. 10/s) costs
//
// Each side makes CALLS sequential calls per round against the fixture
// server (a child process on 127.0.0.1); sides are interleaved round by round,
// order rotated, on this noisy shared machine. Per-call time = round time /
// CALLS; medians over rounds. Target: GUARDED ≤ RAW + 15 %.
//
//   node bench/connectors/a-overhead.bench.mjs [rounds=10] [calls=1000]
//
// Needs PostgreSQL on 127.0.0.1:5432 (TEST_DATABASE_URL) and a built
// services/connector-runtime (dist). Writes bench/results/connectors-a.json.
import { loadavg } from 'node:os';
import { TEST_DATABASE_URL } from '@af/testing';
import { machineFacts, printTable, progress, fmt } from '../orchestrator/lib/report.mjs';
import {
  CircuitBreaker,
  CircuitBreakerStore,
  RateLimiter,
  counting,
  distBuiltAt,
  domain,
  limitsDatabase,
  median,
  startUpstream,
  stats,
  tokenBucket,
  undici,
  writeResult,
} from './lib/common.mjs';

const ROUNDS = Number(process.argv[2] ?? 10);
const CALLS = Number(process.argv[3] ?? 1000);
const TARGET_OVERHEAD = 0.15;
const LIMITS = { second: 1_000_000 };
const MICRO_CALLS = 100_000;

const machine = await machineFacts(TEST_DATABASE_URL);
progress(`${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')}`);
const upstream = await startUpstream();
const limitsDb = await limitsDatabase();
const { request } = undici;

try {
  const parsed = domain.parseConnectorDefinition({
    id: 'fec-bench',
    name: 'FEC (bench)',
    type: 'rest_api',
    version: '1.0',
    connection: { base_url: `${upstream.url}/v1`, auth: { type: 'none' }, rate_limit: { requests_per_second: LIMITS.second } },
    endpoints: {
      search_contributions: {
        method: 'GET',
        path: '/schedules/schedule_a/',
        parameters: [
          { name: 'contributor_name', type: 'string' },
          { name: 'per_page', type: 'integer', default: 20 },
          { name: 'last_index', type: 'string' },
        ],
        pagination: { next_cursor_path: 'pagination.last_indexes.last_index', cursor_param: 'last_index' },
        response_mapping: {
          results_path: 'results',
          fields: { donor_name: 'contributor_name', amount: 'contribution_receipt_amount', date: 'contribution_receipt_date', recipient: 'committee.name' },
        },
      },
    },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  const def = parsed.definition;
  const limitsFromDef = tokenBucket.connectorRateLimits(def.connection);
  const inputs = { contributor_name: 'SMITH' };
  const rawUrl = `${upstream.url}/v1/schedules/schedule_a/?contributor_name=SMITH&per_page=20`;
  const ctx = { http: request };
  const key = 'connector:bench:fec-bench';

  const ds = await limitsDb.open(4);
  const lim = counting(ds);
  const brk = counting(ds);
  const limiter = new RateLimiter(lim.wrapped, { leaseMs: 100 });
  const breaker = new CircuitBreaker(new CircuitBreakerStore(brk.wrapped), { failureThreshold: 5, recoveryMs: 60_000, syncMs: 1000 });
  const strict = counting(ds);
  const strictLimiter = new RateLimiter(strict.wrapped, { leaseMs: 0 });
  const strictBreaker = new CircuitBreaker(new CircuitBreakerStore(ds), { failureThreshold: 5, recoveryMs: 60_000, syncMs: 1000 });

  async function guarded(b, l) {
    const ticket = await b.admit(key, { label: 'fec-bench', trialTimeoutMs: 60_000 });
    try {
      await l.acquire(key, limitsFromDef, { maxWaitMs: 1000, label: 'fec-bench' });
      const result = await domain.executeEndpoint(def, 'search_contributions', inputs, {}, ctx);
      await b.record(ticket);
      return result;
    } catch (err) {
      await b.record(ticket, err);
      throw err;
    }
  }

  const sides = {
    raw: async () => {
      const res = await request(rawUrl);
      const body = await res.body.json();
      if (res.statusCode !== 200 || body.results.length !== 20) throw new Error('raw: unexpected answer');
    },
    execute: async () => {
      const r = await domain.executeEndpoint(def, 'search_contributions', inputs, {}, ctx);
      if (r.count !== 20) throw new Error('execute: unexpected result');
    },
    guarded: async () => {
      const r = await guarded(breaker, limiter);
      if (r.count !== 20) throw new Error('guarded: unexpected result');
    },
    strict: async () => {
      const r = await guarded(strictBreaker, strictLimiter);
      if (r.count !== 20) throw new Error('strict: unexpected result');
    },
  };
  const perCall = Object.fromEntries(Object.keys(sides).map((s) => [s, []]));
  const latencies = Object.fromEntries(Object.keys(sides).map((s) => [s, []]));

  progress('warm-up (one round of each side, not recorded)');
  for (const fn of Object.values(sides)) for (let i = 0; i < CALLS; i++) await fn();
  lim.counter.statements = brk.counter.statements = brk.counter.transactions = strict.counter.statements = 0;

  const order = Object.keys(sides);
  for (let round = 0; round < ROUNDS; round++) {
    const rotated = order.map((_, i) => order[(i + round) % order.length]);
    progress(`round ${round + 1}/${ROUNDS}: ${rotated.join(', ')}`);
    for (const side of rotated) {
      const fn = sides[side];
      const t0 = performance.now();
      for (let i = 0; i < CALLS; i++) {
        const c0 = performance.now();
        await fn();
        latencies[side].push(performance.now() - c0);
      }
      perCall[side].push((performance.now() - t0) / CALLS);
    }
  }

  // The guards alone, no HTTP: what admit + acquire + record cost per call at the default settings.
  const microKey = 'connector:bench:micro';
  const t0 = performance.now();
  for (let i = 0; i < MICRO_CALLS; i++) {
    const ticket = await breaker.admit(microKey, { label: 'micro', trialTimeoutMs: 60_000 });
    await limiter.acquire(microKey, LIMITS, { maxWaitMs: 1000 });
    await breaker.record(ticket);
  }
  const guardsOnlyUs = ((performance.now() - t0) / MICRO_CALLS) * 1000;

  const m = Object.fromEntries(Object.entries(perCall).map(([k, v]) => [k, median(v)]));
  const overhead = (x) => x / m.raw - 1;
  const met = overhead(m.guarded) <= TARGET_OVERHEAD;
  const callsMeasured = ROUNDS * CALLS;

  console.log(`\nbench/connectors (a): per-call cost over raw undici, ${CALLS} sequential calls × ${ROUNDS} rounds`);
  console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.postgres}, load at start ${machine.loadAverageAtStart.join(' ')}\n`);
  printTable(
    ['side', 'ms per call (median of rounds)', 'p99 single call', 'over raw'],
    [
      ['RAW undici request + body.json()', fmt(m.raw, 4), fmt(stats(latencies.raw).p99, 3), '—'],
      ['EXECUTE executeEndpoint', fmt(m.execute, 4), fmt(stats(latencies.execute).p99, 3), `${fmt(overhead(m.execute) * 100, 1)} %`],
      ['GUARDED + breaker + limiter (defaults)', fmt(m.guarded, 4), fmt(stats(latencies.guarded).p99, 3), `${fmt(overhead(m.guarded) * 100, 1)} %`],
      ['STRICT  + breaker + limiter (no lease)', fmt(m.strict, 4), fmt(stats(latencies.strict).p99, 3), `${fmt(overhead(m.strict) * 100, 1)} %`],
    ],
  );
  console.log(`
Shared statements over the ${callsMeasured} measured calls per side: GUARDED limiter ${lim.counter.statements}, breaker ${brk.counter.statements}
(${brk.counter.transactions} transactions); STRICT limiter ${strict.counter.statements}.
Guards alone (admit + acquire + record, no HTTP, defaults): ${fmt(guardsOnlyUs, 2)} µs per call over ${MICRO_CALLS} calls.
Target GUARDED ≤ RAW + ${TARGET_OVERHEAD * 100} %: ${met ? 'MET' : 'NOT MET'} (${fmt(overhead(m.guarded) * 100, 1)} %).`);

  writeResult('a', {
    benchmark: 'connectors-a-overhead',
    machine: { ...machine, loadAverageAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
    build: { connectorRuntimeDistBuiltAt: distBuiltAt() },
    setup: {
      rounds: ROUNDS,
      callsPerRoundPerSide: CALLS,
      upstream: '@af/testing fixture server in a child process on 127.0.0.1; GET /v1/schedules/schedule_a/ answers 20 FEC-like rows (~4 KB JSON)',
      raw: 'undici request(url) + body.json(), connector-runtime install of undici',
      execute: 'executeEndpoint(def, "search_contributions", { contributor_name }, {}, { http: undici.request }) from services/connector-runtime/dist/domain',
      guarded: `breaker.admit → limiter.acquire(${JSON.stringify(LIMITS)}, maxWaitMs 1000) → executeEndpoint → breaker.record; RateLimiter leaseMs 100, CircuitBreaker syncMs 1000 (defaults), fresh database on the local PostgreSQL`,
      strict: 'as guarded, RateLimiter leaseMs 0 (one statement per call)',
      order: 'sides interleaved per round, rotated',
    },
    results: {
      msPerCall: Object.fromEntries(Object.entries(perCall).map(([k, v]) => [k, stats(v)])),
      singleCallMs: Object.fromEntries(Object.entries(latencies).map(([k, v]) => [k, stats(v, 3)])),
      overheadOverRaw: Object.fromEntries(['execute', 'guarded', 'strict'].map((k) => [k, Number(overhead(m[k]).toFixed(4))])),
      sharedStatements: {
        callsPerSide: callsMeasured,
        guardedLimiter: lim.counter.statements,
        guardedBreaker: brk.counter.statements,
        guardedBreakerTransactions: brk.counter.transactions,
        strictLimiter: strict.counter.statements,
      },
      guardsOnlyMicrosecondsPerCall: Number(guardsOnlyUs.toFixed(2)),
    },
    target: { guardedOverheadAtMost: TARGET_OVERHEAD, met },
  });
} finally {
  await limitsDb.close();
  await upstream.stop();
}
process.exit(0);
