// Where the machine's CPU went during a measurement, from /proc (Linux):
// our service processes, the PostgreSQL backends serving the stack's
// database, other PostgreSQL processes (WAL writer, other databases),
// nats-server, this benchmark process, and everything else on the machine
// (other users' work: this is a shared 2-core machine).
import { readdirSync, readFileSync } from 'node:fs';

function readProc(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const name = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // utime + stime in clock ticks (10 ms); starttime identifies the process across a pid's reuse
    // (kernel workers rename themselves, so the name cannot).
    return { name, cpuMs: (Number(f[11]) + Number(f[12])) * 10, start: f[19] };
  } catch {
    return undefined;
  }
}

function machineTotals() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busyMs: (total - f[3] - f[4]) * 10, totalMs: total * 10 };
}

/**
 * Snapshot CPU per process. `stack` gives the service pids; the PostgreSQL
 * backends of the stack's database are looked up in pg_stat_activity.
 */
export async function cpuSnapshot(stack) {
  const backends = new Set(
    (await stack.db.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).map((r) => String(r.pid)),
  );
  const services = new Map(Object.entries(stack.services).map(([name, s]) => [String(s.pid), name]));
  const procs = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const p = readProc(pid);
    if (p) procs.set(pid, p);
  }
  return { procs, backends, services, totals: machineTotals() };
}

/** CPU ms per category between two snapshots (a process that started in between counts from zero). */
export function cpuDiff(before, after) {
  const out = { orchestrator: 0, otherServices: 0, postgresStackDb: 0, postgresOther: 0, nats: 0, benchProcess: 0, elsewhere: 0 };
  const backends = new Set([...before.backends, ...after.backends]);
  for (const [pid, p] of after.procs) {
    const prior = before.procs.get(pid);
    const d = p.cpuMs - (prior?.start === p.start ? prior.cpuMs : 0);
    if (d <= 0) continue;
    const service = after.services.get(pid);
    if (service === 'orchestrator') out.orchestrator += d;
    else if (service) out.otherServices += d;
    else if (pid === String(process.pid)) out.benchProcess += d;
    else if (backends.has(pid)) out.postgresStackDb += d;
    else if (p.name === 'postgres' || p.name.startsWith('postgres')) out.postgresOther += d;
    else if (p.name === 'nats-server') out.nats += d;
    else out.elsewhere += d;
  }
  return {
    ...out,
    machineBusyMs: after.totals.busyMs - before.totals.busyMs,
    machineTotalMs: after.totals.totalMs - before.totals.totalMs,
  };
}

/** Divide every field of a cpuDiff by `n` (e.g. per node), rounded. */
export function perUnit(diff, n) {
  return Object.fromEntries(Object.entries(diff).map(([k, v]) => [k, Number((v / n).toFixed(3))]));
}
