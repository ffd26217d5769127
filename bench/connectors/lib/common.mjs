// Shared parts of the connector benchmarks: the built connector-runtime
// (dist — build it first), undici from the same install, a fresh database
// with the limits migration, the upstream child process, and the result file.
import { spawn } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '@af/service-kit';
import { createTestDatabase } from '@af/testing';

const here = dirname(fileURLToPath(import.meta.url));
const runtimeRoot = join(here, '..', '..', '..', 'services', 'connector-runtime');
export const RESULTS_DIR = join(here, '..', '..', 'results');

/** undici as connector-runtime has it installed (one copy for both sides). */
export const undici = createRequire(join(runtimeRoot, 'package.json'))('undici');
/** That install's version (the global dispatcher may be Node's bundled undici instead). */
export const undiciVersion = createRequire(join(runtimeRoot, 'package.json'))('undici/package.json').version;

const dist = (p) => import(join(runtimeRoot, 'dist', p));
export const domain = await dist('domain/index.js');
export const tokenBucket = await dist('domain/token-bucket.js');
export const { RateLimiter } = await dist('infra/rate-limiter.js');
export const { CircuitBreaker, CircuitBreakerStore } = await dist('infra/circuit-breaker.store.js');
export const { CallPipeline } = await dist('app/call-pipeline.js');
export const { createEgressGuard } = await dist('infra/guarded-http.js');
export const { ResponseCache } = await dist('infra/response-cache.js');
const { Limits1764100000002 } = await dist('infra/migrations/1764100000002-limits.js');

/** When the dist used was built (another build may land while a bench runs). */
export function distBuiltAt() {
  return statSync(join(runtimeRoot, 'dist', 'infra', 'rate-limiter.js')).mtime.toISOString();
}

/** A fresh database with connector-runtime's limits tables; `open()` gives one more pool (one replica). */
export async function limitsDatabase() {
  const db = await createTestDatabase('af_bench');
  const pools = [];
  const open = async (poolSize = 4) => {
    const ds = await openDatabase({ url: db.url, schema: 'connector_runtime', migrations: [Limits1764100000002], poolSize });
    pools.push(ds);
    return ds;
  };
  return {
    db,
    open,
    async close() {
      for (const p of pools) await p.destroy();
      await db.drop();
    },
  };
}

/** A Queryable / DataSource wrapper that counts statements and transactions. */
export function counting(ds) {
  const counter = { statements: 0, transactions: 0 };
  const wrapped = {
    query: (sql, params) => {
      counter.statements++;
      return ds.query(sql, params);
    },
    transaction: (fn) => {
      counter.transactions++;
      return ds.transaction((m) =>
        fn({
          query: (sql, params) => {
            counter.statements++;
            return m.query(sql, params);
          },
        }),
      );
    },
  };
  return { wrapped, counter };
}

/** Start the upstream fixture server in a child process; resolves to { url, pid, stop() }. */
export function startUpstream() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(here, 'upstream.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`upstream exited early (${code})`)));
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        const { url } = JSON.parse(line);
        child.removeAllListeners('exit');
        resolve({ url, pid: child.pid, stop: () => new Promise((r) => (child.once('exit', r), child.stdin.end())) });
      }
    });
  });
}

/** Write bench/results/connectors-<part>.json and say where. */
export function writeResult(part, result) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `connectors-${part}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log(`\nwrote ${file}`);
}

/** Stats without spreading large arrays into Math.min/max. */
export function stats(xs, digits = 4) {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  const r = (v) => Number(v.toFixed(digits));
  return { median: r(at(50)), p99: r(at(99)), min: r(s[0]), max: r(s[s.length - 1]), n: s.length };
}

export const median = (xs) => stats(xs, 6).median;
