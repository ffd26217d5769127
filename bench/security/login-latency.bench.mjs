// bench/security: latency of an authenticated user's requests while 30 bad
// logins run concurrently, against the same requests with the gateway idle.
// Target: p50 under the flood ≤ 2× idle.
//
//   One user logs in and sends GET /api/v1/runs (auth guard: JWT + account
//   check, then the orchestrator's ListRuns over gRPC) one after the other,
//   REQUESTS times per round. Rounds: idle, flood, idle again (the idle figure
//   is the median over both idle rounds, so drift on a shared machine shows).
//   During the flood round ATTACKERS clients each send wrong-password logins
//   back to back (a new one as soon as the last answered) for ATTACKERS
//   different emails, from the same address (like one attacking host), from
//   a worker thread so their client work does not delay the measured requests.
//
//   Two gateway set-ups, each on a stack of its own:
//     default     — the shipped settings: after 20 failures the address is
//                   locked and the flood is answered with 429s, no hashing.
//     hash-bound  — throttling out of the way (LOGIN_*_FREE_FAILURES huge,
//                   PASSWORD_HASH_PER_ADDRESS 64), so every bad login is a
//                   bcrypt comparison: this measures that hashing no longer
//                   runs on the event loop the user's requests need.
//
// Run by hand after building (`pnpm build`), with PostgreSQL on
// 127.0.0.1:5432 and nats-server -js on 127.0.0.1:4222:
//
//   node bench/security/login-latency.bench.mjs [requests=600] [attackers=30] [setups=default,hash-bound]
//
// Writes bench/results/security-login.json.
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { http, TEST_DATABASE_URL } from '@af/testing';
import { startOurStack } from '../orchestrator/lib/ours.mjs';
import { fmt, machineFacts, median, percentile, printTable, progress, RESULTS_DIR } from '../orchestrator/lib/report.mjs';

const REQUESTS = Number(process.argv[2] ?? 600);
const ATTACKERS = Number(process.argv[3] ?? 30);
const WARMUP = 30;
const TARGET_RATIO = 2;
const PASSWORD = 'a long bench password';

const load = () => loadavg().map((x) => Number(x.toFixed(2)));
const stats = (xs) => {
  const r = (v) => Number(v.toFixed(2));
  return { p50: r(median(xs)), p95: r(percentile(xs, 95)), p99: r(percentile(xs, 99)), max: r(Math.max(...xs)), n: xs.length };
};

const SETUPS = {
  default: {},
  'hash-bound': { LOGIN_ACCOUNT_FREE_FAILURES: '1000', LOGIN_ADDRESS_FREE_FAILURES: '1000000', PASSWORD_HASH_PER_ADDRESS: '64' },
};

async function measureRequests(stack, token, n) {
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const res = await http('GET', `${stack.gatewayUrl}/api/v1/runs?page_size=10`, { token });
    ms.push(performance.now() - t);
    if (res.status !== 200) throw new Error(`GET /api/v1/runs: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return ms;
}

/** ATTACKERS loops of wrong-password logins (in a worker thread) until the returned stop(); stop() tallies them. */
function flood(stack) {
  const worker = new Worker(new URL('./lib/flood.worker.mjs', import.meta.url), { workerData: { gatewayUrl: stack.gatewayUrl, attackers: ATTACKERS } });
  const done = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return async () => {
    worker.postMessage('stop');
    const { seconds, statuses, latency } = await done;
    await worker.terminate();
    const attempts = latency.length;
    return { attackers: ATTACKERS, seconds: Number(seconds.toFixed(1)), attempts, attemptsPerSecond: Number((attempts / seconds).toFixed(1)), statuses, loginLatencyMs: stats(latency) };
  };
}

async function measureSetup(name, env) {
  progress(`${name}: starting the stack`);
  const stack = await startOurStack({ gateway: env });
  try {
    const email = `bench-user-${randomUUID()}@example.com`;
    const reg = await http('POST', `${stack.gatewayUrl}/api/auth/register`, { body: { email, password: PASSWORD } });
    if (reg.status !== 201) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
    const login = await http('POST', `${stack.gatewayUrl}/api/auth/login`, { body: { email, password: PASSWORD } });
    if (login.status !== 200) throw new Error(`login: ${login.status} ${JSON.stringify(login.body)}`);
    const token = login.body.access_token;
    await measureRequests(stack, token, WARMUP);

    progress(`${name}: idle round`);
    const load0 = load();
    const idle1 = await measureRequests(stack, token, REQUESTS);
    progress(`${name}: flood round (${ATTACKERS} concurrent bad logins)`);
    const stop = flood(stack);
    // Let the flood fill the pool (and, by default, trip the throttle) first.
    await new Promise((r) => setTimeout(r, 1000));
    const underFlood = await measureRequests(stack, token, REQUESTS);
    const attack = await stop();
    progress(`${name}: idle round again`);
    const idle2 = await measureRequests(stack, token, REQUESTS);
    const idleP50 = median([median(idle1), median(idle2)]);
    const ratio = median(underFlood) / idleP50;
    return {
      gatewayEnv: env,
      loadAverage: { before: load0, after: load() },
      idleMs: { first: stats(idle1), second: stats(idle2), p50: Number(idleP50.toFixed(2)) },
      underFloodMs: stats(underFlood),
      p50Ratio: Number(ratio.toFixed(2)),
      meetsTarget: ratio <= TARGET_RATIO,
      flood: attack,
    };
  } finally {
    await stack.stop();
  }
}

const machine = await machineFacts(TEST_DATABASE_URL);
progress(`${machine.cpu}, ${machine.cores} cores, load ${machine.loadAverageAtStart.join(' ')}`);
const results = {};
const chosen = (process.argv[4] ?? Object.keys(SETUPS).join(',')).split(',');
for (const name of chosen) {
  if (!SETUPS[name]) throw new Error(`unknown setup ${name} (have ${Object.keys(SETUPS).join(', ')})`);
  // Experiments: BENCH_GATEWAY_ENV='{"PASSWORD_HASH_NICE":"19"}' adds gateway settings to every set-up.
  results[name] = await measureSetup(name, { ...SETUPS[name], ...JSON.parse(process.env.BENCH_GATEWAY_ENV ?? '{}') });
}

printTable(
  ['setup', 'idle p50 ms', 'flood p50 ms', 'ratio', `≤ ${TARGET_RATIO}×`, 'flood p95 ms', 'bad logins/s', 'answers'],
  Object.entries(results).map(([k, r]) => [
    k,
    fmt(r.idleMs.p50, 2),
    fmt(r.underFloodMs.p50, 2),
    fmt(r.p50Ratio, 2),
    String(r.meetsTarget),
    fmt(r.underFloodMs.p95, 2),
    fmt(r.flood.attemptsPerSecond, 1),
    Object.entries(r.flood.statuses).map(([s, c]) => `${s}×${c}`).join(' '),
  ]),
);
mkdirSync(RESULTS_DIR, { recursive: true });
const file = join(RESULTS_DIR, 'security-login.json');
writeFileSync(
  file,
  JSON.stringify(
    {
      measures: `p50 latency of an authenticated user's GET /api/v1/runs (sequential, ${REQUESTS} per round) while ${ATTACKERS} clients send wrong-password logins back to back, against idle rounds before and after`,
      target: { p50RatioAtMost: TARGET_RATIO, concurrentBadLogins: ATTACKERS },
      machine,
      results,
    },
    null,
    2,
  ) + '\n',
);
console.log(`\nwrote ${file}`);
