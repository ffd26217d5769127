// bench/connectors (a): what connector-runtime's execution path costs per call
// on top of a raw HTTP request.
//
//   RAW        undici `request(url)` + `body.json()` of the same URL, on the
//              npm undici connector-runtime ships (its default `Agent`, set
//              as the global dispatcher here: see "Which undici" below)
//   RAW_OPTS   the same, with the options every connector request carries
//              (method, an accept header, an abort signal): a reference for
//              what undici itself charges for them
//   RAW_NODE   RAW through Node's bundled undici (the dispatcher Node's own
//              `fetch` installed as the global one before this script set
//              it) — a reference only, for the version difference
//   EXECUTE    `executeEndpoint(def, 'search_contributions', …)` from the built
//              domain (parameter coercion, request building, status mapping,
//              size-capped body read, response mapping) with undici `request`
//              as ctx.http
//   GUARDED    EXECUTE + breaker.admit → limiter.acquire → … → breaker.record,
//              the shared Postgres-backed limiter and breaker in the loop at
//              their default settings (RATE_LIMIT_LEASE_MS 100,
//              BREAKER_SYNC_MS 1000) with a generous limit (1,000,000/s)
//   PIPELINE   the service's whole call path, `CallPipeline.call(…)` as
//              bootstrap.ts wires it: retries, breaker, limiter (defaults as
//              GUARDED), rate-limit header observation and the SSRF-guarded
//              HTTP client (CONNECTOR_EGRESS_ALLOW=127.0.0.1; its own undici
//              Agent); the endpoint has no cache_ttl_seconds, so the response
//              cache is not consulted. One definition object for every call,
//              as the service has it: its repository hands back the same
//              object while the stored definition is unchanged
//   STRICT     GUARDED with leases off (RATE_LIMIT_LEASE_MS 0): one shared
//              statement per call — what a tight limit (e.g. 10/s) costs
//
// Each side makes CALLS sequential calls per round against the fixture
// server (a child process on 127.0.0.1); sides are interleaved round by round,
// order rotated, on this noisy shared machine. Per-call time = round time /
// CALLS; medians over rounds; the client's CPU time per call beside it (less
// disturbed by other work on the machine than wall time). Target: EXECUTE,
// GUARDED and PIPELINE ≤ RAW + 15 %, judged per round against that round's
// RAW (the median of those ratios), which cancels load that drifts between
// rounds.
//
// Which undici. "Raw undici" is the undici package the service uses: npm
// undici (connector-runtime's dependency), the same version on both sides.
// Until 2026-11-22 RAW ran on whatever had installed itself as the global
// dispatcher first, which in this script is Node's bundled undici (6.x in
// Node 20) — another release of the library, without the idle-socket check
// npm undici 7.30.2 makes before it reuses a keep-alive connection (one
// event-loop turn, GHSA-35p6-xmwp-9g52). That put a version difference of
// about 6 points into every figure of the pipeline, whose SSRF guard must use
// an npm-undici Agent. RAW_NODE keeps that comparison on record.
//
//   node bench/connectors/a-overhead.bench.mjs [rounds=10] [calls=1000]
//
// Needs PostgreSQL on 127.0.0.1:5432 (TEST_DATABASE_URL) and a built
// services/connector-runtime (dist). Writes bench/results/connectors-a.json.
import { loadavg } from 'node:os';
import { TEST_DATABASE_URL } from '@af/testing';
import { machineFacts, printTable, progress, fmt } from '../orchestrator/lib/report.mjs';
import {
  CallPipeline,
  CircuitBreaker,
  CircuitBreakerStore,
  createEgressGuard,
  RateLimiter,
  ResponseCache,
  counting,
  distBuiltAt,
  domain,
  limitsDatabase,
  median,
  startUpstream,
  stats,
  tokenBucket,
  undici,
  undiciVersion,
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
let egressClose;
let agentClose;

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

  // The service's call path, wired as bootstrap.ts wires it (its own limiter and breaker state).
  const egress = createEgressGuard({ allow: '127.0.0.1' });
  egressClose = () => egress.close();
  const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
  const pipe = counting(ds);
  const pipeline = new CallPipeline({
    egress,
    limiter: new RateLimiter(pipe.wrapped, { leaseMs: 100 }),
    breaker: new CircuitBreaker(new CircuitBreakerStore(pipe.wrapped), { failureThreshold: 5, recoveryMs: 60_000, syncMs: 1000 }),
    cache: new ResponseCache(ds),
    log: quiet,
    maxWaitMs: 1000,
    context: {},
  });
  const pipelineCall = { ownerUserId: 'bench-user', def, endpoint: 'search_contributions', inputs, credentials: {} };
  const rawSignal = new AbortController().signal;
  // Node's bundled undici, if its fetch installed the global dispatcher first (kept as RAW_NODE) …
  const previousGlobal = undici.getGlobalDispatcher();
  const nodeDispatcher = previousGlobal instanceof undici.Dispatcher ? null : previousGlobal;
  // … and raw undici = the npm undici the service ships, for RAW, RAW_OPTS, EXECUTE and GUARDED.
  const npmAgent = new undici.Agent();
  undici.setGlobalDispatcher(npmAgent);
  agentClose = () => npmAgent.close();

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
    raw_opts: async () => {
      const res = await request(rawUrl, { method: 'GET', headers: { accept: 'application/json' }, signal: rawSignal });
      const body = await res.body.json();
      if (res.statusCode !== 200 || body.results.length !== 20) throw new Error('raw_opts: unexpected answer');
    },
    ...(nodeDispatcher && {
      raw_node: async () => {
        const res = await request(rawUrl, { dispatcher: nodeDispatcher });
        const body = await res.body.json();
        if (res.statusCode !== 200 || body.results.length !== 20) throw new Error('raw_node: unexpected answer');
      },
    }),
    execute: async () => {
      const r = await domain.executeEndpoint(def, 'search_contributions', inputs, {}, ctx);
      if (r.count !== 20) throw new Error('execute: unexpected result');
    },
    guarded: async () => {
      const r = await guarded(breaker, limiter);
      if (r.count !== 20) throw new Error('guarded: unexpected result');
    },
    pipeline: async () => {
      const r = await pipeline.call(pipelineCall);
      if (r.count !== 20) throw new Error('pipeline: unexpected result');
    },
    strict: async () => {
      const r = await guarded(strictBreaker, strictLimiter);
      if (r.count !== 20) throw new Error('strict: unexpected result');
    },
  };
  const perCall = Object.fromEntries(Object.keys(sides).map((s) => [s, []]));
  const cpuPerCall = Object.fromEntries(Object.keys(sides).map((s) => [s, []]));
  const latencies = Object.fromEntries(Object.keys(sides).map((s) => [s, []]));

  progress('warm-up (one round of each side, not recorded)');
  for (const fn of Object.values(sides)) for (let i = 0; i < CALLS; i++) await fn();
  lim.counter.statements = brk.counter.statements = brk.counter.transactions = strict.counter.statements = 0;
  pipe.counter.statements = pipe.counter.transactions = 0;

  const order = Object.keys(sides);
  for (let round = 0; round < ROUNDS; round++) {
    const rotated = order.map((_, i) => order[(i + round) % order.length]);
    progress(`round ${round + 1}/${ROUNDS}: ${rotated.join(', ')}`);
    for (const side of rotated) {
      const fn = sides[side];
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < CALLS; i++) {
        const c0 = performance.now();
        await fn();
        latencies[side].push(performance.now() - c0);
      }
      perCall[side].push((performance.now() - t0) / CALLS);
      const cpu = process.cpuUsage(cpu0);
      cpuPerCall[side].push((cpu.user + cpu.system) / 1000 / CALLS);
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
  const mc = Object.fromEntries(Object.entries(cpuPerCall).map(([k, v]) => [k, median(v)]));
  const overhead = (x) => x / m.raw - 1;
  // Per round, each side against the same round's RAW, then the median: steadier on a busy machine.
  const pairedTo = (k, ref) => median(perCall[k].map((v, i) => v / perCall[ref][i] - 1));
  const paired = (k) => pairedTo(k, 'raw');
  const others = Object.keys(sides).filter((k) => k !== 'raw');
  const cpuOverhead = (x) => x / mc.raw - 1;
  const metBy = Object.fromEntries(['execute', 'guarded', 'pipeline'].map((k) => [k, paired(k) <= TARGET_OVERHEAD]));
  const metByMedians = Object.fromEntries(['execute', 'guarded', 'pipeline'].map((k) => [k, overhead(m[k]) <= TARGET_OVERHEAD]));
  const met = metBy.execute && metBy.guarded && metBy.pipeline;
  const callsMeasured = ROUNDS * CALLS;

  console.log(`\nbench/connectors (a): per-call cost over raw undici, ${CALLS} sequential calls × ${ROUNDS} rounds`);
  console.log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}, ${machine.postgres}, load at start ${machine.loadAverageAtStart.join(' ')}\n`);
  const row = (label, k) => [
    label,
    fmt(m[k], 4),
    fmt(stats(latencies[k]).p99, 3),
    k === 'raw' ? '—' : `${fmt(overhead(m[k]) * 100, 1)} %`,
    k === 'raw' ? '—' : `${fmt(paired(k) * 100, 1)} %`,
    fmt(mc[k], 4),
    k === 'raw' ? '—' : `${fmt(cpuOverhead(mc[k]) * 100, 1)} %`,
  ];
  printTable(
    ['side', 'ms per call (median of rounds)', 'p99 single call', 'over raw', 'over raw (paired by round)', 'client CPU ms per call', 'CPU over raw'],
    [
      row('RAW undici request + body.json()', 'raw'),
      row('RAW_OPTS + method, accept, signal', 'raw_opts'),
      ...(nodeDispatcher ? [row(`RAW_NODE RAW on Node's bundled undici ${process.versions.undici}`, 'raw_node')] : []),
      row('EXECUTE executeEndpoint', 'execute'),
      row('GUARDED + breaker + limiter (defaults)', 'guarded'),
      row('PIPELINE CallPipeline (SSRF guard, no cache)', 'pipeline'),
      row('STRICT  + breaker + limiter (no lease)', 'strict'),
    ],
  );
  console.log(`
Shared statements over the ${callsMeasured} measured calls per side: GUARDED limiter ${lim.counter.statements}, breaker ${brk.counter.statements}
(${brk.counter.transactions} transactions); PIPELINE ${pipe.counter.statements} (${pipe.counter.transactions} transactions); STRICT limiter ${strict.counter.statements}.
Guards alone (admit + acquire + record, no HTTP, defaults): ${fmt(guardsOnlyUs, 2)} µs per call over ${MICRO_CALLS} calls.
${nodeDispatcher ? `Against RAW_NODE (Node's bundled undici, paired by round): PIPELINE ${fmt(pairedTo('pipeline', 'raw_node') * 100, 1)} %, RAW ${fmt(pairedTo('raw', 'raw_node') * 100, 1)} %.\n` : ''}Target ≤ RAW + ${TARGET_OVERHEAD * 100} % (paired by round): EXECUTE ${metBy.execute ? 'MET' : 'NOT MET'} (${fmt(paired('execute') * 100, 1)} %), GUARDED ${metBy.guarded ? 'MET' : 'NOT MET'} (${fmt(paired('guarded') * 100, 1)} %), PIPELINE ${metBy.pipeline ? 'MET' : 'NOT MET'} (${fmt(paired('pipeline') * 100, 1)} %).`);

  writeResult('a', {
    benchmark: 'connectors-a-overhead',
    machine: { ...machine, loadAverageAtEnd: loadavg().map((x) => Number(x.toFixed(2))) },
    build: { connectorRuntimeDistBuiltAt: distBuiltAt() },
    setup: {
      rounds: ROUNDS,
      callsPerRoundPerSide: CALLS,
      upstream: '@af/testing fixture server in a child process on 127.0.0.1; GET /v1/schedules/schedule_a/ answers 20 FEC-like rows (~4 KB JSON)',
      raw: `undici request(url) + body.json() on npm undici ${undiciVersion} (connector-runtime's install; a default Agent set as the global dispatcher)`,
      raw_opts: 'undici request(url, { method: GET, headers: { accept }, signal }) + body.json(): the options every connector request carries',
      raw_node: nodeDispatcher
        ? `as raw, through Node's bundled undici ${process.versions.undici} (the global dispatcher Node's fetch had installed): a reference for the version difference, not the target's baseline`
        : 'not run: no dispatcher of Node\'s bundled undici was installed',
      undici: `RAW, RAW_OPTS, EXECUTE, GUARDED and PIPELINE all use npm undici ${undiciVersion}`,
      pipeline: 'CallPipeline.call({ ownerUserId, def, endpoint, inputs, credentials: {} }) from services/connector-runtime/dist/app: callWithRetries → breaker → limiter (leaseMs 100, syncMs 1000) → executeEndpoint with limiter.observe(createEgressGuard({ allow: "127.0.0.1" })); no cache_ttl_seconds, so no cache lookup',
      execute: 'executeEndpoint(def, "search_contributions", { contributor_name }, {}, { http: undici.request }) from services/connector-runtime/dist/domain',
      guarded: `breaker.admit → limiter.acquire(${JSON.stringify(LIMITS)}, maxWaitMs 1000) → executeEndpoint → breaker.record; RateLimiter leaseMs 100, CircuitBreaker syncMs 1000 (defaults), fresh database on the local PostgreSQL`,
      strict: 'as guarded, RateLimiter leaseMs 0 (one statement per call)',
      order: 'sides interleaved per round, rotated',
    },
    results: {
      msPerCall: Object.fromEntries(Object.entries(perCall).map(([k, v]) => [k, stats(v)])),
      clientCpuMsPerCall: Object.fromEntries(Object.entries(cpuPerCall).map(([k, v]) => [k, stats(v)])),
      cpuOverheadOverRaw: Object.fromEntries(others.map((k) => [k, Number(cpuOverhead(mc[k]).toFixed(4))])),
      singleCallMs: Object.fromEntries(Object.entries(latencies).map(([k, v]) => [k, stats(v, 3)])),
      overheadOverRaw: Object.fromEntries(others.map((k) => [k, Number(overhead(m[k]).toFixed(4))])),
      pairedOverheadOverRaw: Object.fromEntries(others.map((k) => [k, Number(paired(k).toFixed(4))])),
      ...(nodeDispatcher && {
        pairedOverheadOverRawNode: Object.fromEntries(Object.keys(sides).filter((k) => k !== 'raw_node').map((k) => [k, Number(pairedTo(k, 'raw_node').toFixed(4))])),
      }),
      sharedStatements: {
        callsPerSide: callsMeasured,
        guardedLimiter: lim.counter.statements,
        guardedBreaker: brk.counter.statements,
        guardedBreakerTransactions: brk.counter.transactions,
        strictLimiter: strict.counter.statements,
        pipeline: pipe.counter.statements,
        pipelineTransactions: pipe.counter.transactions,
      },
      guardsOnlyMicrosecondsPerCall: Number(guardsOnlyUs.toFixed(2)),
    },
    target: {
      overheadAtMost: TARGET_OVERHEAD,
      sides: 'execute, guarded and pipeline',
      measure: 'median over rounds of (side / RAW of the same round - 1)',
      met,
      metBy,
      metByRatioOfMedians: metByMedians,
    },
  });
} finally {
  await egressClose?.();
  await agentClose?.();
  await limitsDb.close();
  await upstream.stop();
}
process.exit(0);
