// Shared reporting for the orchestrator benchmarks: statistics, machine
// facts, a plain-text table and the bench/results/orchestrator-<part>.json file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const here = dirname(fileURLToPath(import.meta.url));
export const RESULTS_DIR = join(here, '..', '..', 'results');

/** Nearest-rank percentile of a sample (p in 0..100). */
export function percentile(xs, p) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

export const median = (xs) => percentile(xs, 50);

/** Summary of a sample, rounded for the JSON file. */
export function summary(xs, digits = 3) {
  const r = (v) => Number(v.toFixed(digits));
  return { median: r(median(xs)), p99: r(percentile(xs, 99)), min: r(Math.min(...xs)), max: r(Math.max(...xs)), n: xs.length };
}

/** CPU, cores, memory, Node and PostgreSQL versions and settings that change commit cost. */
export async function machineFacts(databaseUrl) {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query(
      `SELECT version() AS version, current_setting('synchronous_commit') AS synchronous_commit,
              current_setting('fsync') AS fsync, current_setting('wal_sync_method') AS wal_sync_method,
              current_setting('shared_buffers') AS shared_buffers`,
    );
    return {
      date: new Date().toISOString(),
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
      loadAverageAtStart: loadavg().map((x) => Number(x.toFixed(2))),
      node: process.version,
      postgres: rows[0].version.split(' on ')[0],
      postgresSettings: {
        synchronous_commit: rows[0].synchronous_commit,
        fsync: rows[0].fsync,
        wal_sync_method: rows[0].wal_sync_method,
        shared_buffers: rows[0].shared_buffers,
      },
    };
  } finally {
    await c.end();
  }
}

/** Print rows of [label, ...cells] as an aligned table. */
export function printTable(header, rows) {
  const all = [header, ...rows].map((r) => r.map((c) => String(c)));
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(all[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of all.slice(1)) console.log(line(r));
}

export const fmt = (v, digits = 3) => (Number.isFinite(v) ? v.toFixed(digits) : String(v));

/** Write bench/results/orchestrator-<part>.json and say where. */
export function writeResult(part, result) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `orchestrator-${part}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.log(`\nwrote ${file}`);
}

/** Log a progress line to stderr (keeps stdout for the results). */
export const progress = (msg) => process.stderr.write(`[${new Date().toISOString().slice(11, 23)}] ${msg}\n`);
