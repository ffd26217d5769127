/**
 * `pnpm start` (scripts/start.mjs) as a newcomer meets it, with a data
 * directory and ports of its own (AF_DATA_DIR, HTTP_PORT, AF_GRPC_BASE_PORT,
 * AF_METRICS_BASE_PORT), against the test PostgreSQL and the in-process bus:
 * the ready line lists every port; a second start on the same data directory,
 * or on a port already taken, says so in one line and exits 1; a DATABASE_URL
 * that does not work is named with what to do, also in one line, exit 1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, REPO_ROOT, TEST_NATS_URL, type TestDatabase } from '@af/testing';
import { followTryIt } from './try-it.js';

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const dirs: string[] = [];
const children: ChildProcess[] = [];
let db: TestDatabase;

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'af-start-'));
  dirs.push(dir);
  return dir;
}

/** `node scripts/start.mjs` with this environment (no NATS_URL: the in-process bus). */
function start(env: Record<string, string>): Started {
  const { NATS_URL: _nats, DATABASE_URL: _db, HTTP_PORT: _http, ...inherited } = process.env;
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts', 'start.mjs')], {
    cwd: REPO_ROOT,
    env: { ...inherited, AF_SKIP_BUILD: '1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Runs a start that is expected to give up; resolves with its exit code and output. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const s = start(env);
  const code = await s.exited;
  return { code, out: s.output() };
}

function waitForLine(s: Started, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const line = s.output().split('\n').find((l) => pattern.test(l));
      if (line) {
        s.child.stdout!.off('data', check);
        resolve(line);
      }
    };
    s.child.stdout!.on('data', check);
    void s.exited.then((code) => reject(new Error(`start.mjs exited (${code}) before ${pattern}:\n${s.output()}`)));
    check();
  });
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first of `n` consecutive free ports. */
async function freeRun(n: number): Promise<number> {
  for (;;) {
    const first = await freePort();
    if (first + n > 65535) continue;
    let ok = true;
    for (let p = first + 1; p < first + n && ok; p++) ok = await canListen(p);
    if (ok) return first;
  }
}

/** Free ports for every listener of a start (none of the defaults, which a real `pnpm start` may hold). */
async function freePorts(): Promise<Record<string, string>> {
  return {
    HTTP_PORT: String(await freePort()),
    AF_GRPC_BASE_PORT: String(await freeRun(7)),
    AF_METRICS_BASE_PORT: String(await freeRun(7)),
    AF_DEMO_API_PORT: String(await freePort()),
  };
}

/** One line, prefixed like every line of start.mjs, and no stack trace. */
function expectOneLine(out: string): string {
  const lines = out.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^\[agent-factory\] /);
  expect(out).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await db?.drop();
});

describe('pnpm start', () => {
  it('lists every port when ready; a second start on the same data directory or port says so in one line and exits 1', async () => {
    const dir = dataDir();
    const http = await freePort();
    const grpc = await freeRun(7);
    const metrics = await freeRun(7);
    const first = start({
      AF_DATA_DIR: dir,
      DATABASE_URL: db.url,
      HTTP_PORT: String(http),
      AF_GRPC_BASE_PORT: String(grpc),
      AF_METRICS_BASE_PORT: String(metrics),
      AF_DEMO_API_PORT: String(await freePort()),
    });
    const ready = await waitForLine(first, /ready in /);
    expect(ready).toContain(`gateway http://127.0.0.1:${http}`);
    const grpcPart = /gRPC: ([^;]+);/.exec(ready)?.[1];
    const metricsPart = /metrics: ([^;.]+)/.exec(ready)?.[1];
    expect(grpcPart?.split(', ')).toEqual([`gateway ${grpc}`, `planner ${grpc + 1}`, `orchestrator ${grpc + 2}`, `connector-runtime ${grpc + 3}`, `approval ${grpc + 4}`, `output-router ${grpc + 5}`, `entity-resolution ${grpc + 6}`]);
    expect(metricsPart?.split(', ')).toEqual([
      `gateway ${metrics}`,
      `planner ${metrics + 1}`,
      `orchestrator ${metrics + 2}`,
      `connector-runtime ${metrics + 3}`,
      `approval ${metrics + 4}`,
      `output-router ${metrics + 5}`,
      `entity-resolution ${metrics + 6}`,
    ]);
    const lock = JSON.parse(readFileSync(join(dir, 'start.pid'), 'utf8')) as { pid: number; httpUrl: string };
    expect(lock).toMatchObject({ pid: first.child.pid, httpUrl: `http://127.0.0.1:${http}` });

    // Same data directory, other ports: refused by the lock, naming the running one and how to stop it.
    const again = await failedStart({ AF_DATA_DIR: dir, DATABASE_URL: db.url, ...(await freePorts()) });
    expect(again.code).toBe(1);
    expect(expectOneLine(again.out)).toBe(
      `[agent-factory] already running (pid ${first.child.pid}, gateway http://127.0.0.1:${http}, data in ${dir}): ` +
        `stop it with Ctrl-C in its terminal or \`kill ${first.child.pid}\`, then start again`,
    );

    // Another data directory on the same ports: refused, naming the port and how to pick another.
    const clash = await failedStart({ AF_DATA_DIR: dataDir(), DATABASE_URL: db.url, ...(await freePorts()), HTTP_PORT: String(http) });
    expect(clash.code).toBe(1);
    expect(expectOneLine(clash.out)).toBe(
      `[agent-factory] port ${http} on 127.0.0.1 (gateway HTTP) is already in use by another process: stop that process or set HTTP_PORT`,
    );
    const grpcClash = await failedStart({ AF_DATA_DIR: dataDir(), DATABASE_URL: db.url, ...(await freePorts()), AF_GRPC_BASE_PORT: String(grpc) });
    expect(grpcClash.code).toBe(1);
    expect(expectOneLine(grpcClash.out)).toMatch(new RegExp(`port ${grpc} on 127\\.0\\.0\\.1 \\(gateway gRPC\\) is already in use .*AF_GRPC_BASE_PORT`));

    // The first one still runs, and stops cleanly, removing its lock.
    expect(first.child.exitCode).toBeNull();
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(existsSync(join(dir, 'start.pid'))).toBe(false);
  }, 240_000);

  it("serves the demo data API in dev mode, and the README's \"Try it\" ends with a complete run with outputs", async () => {
    const ports = await freePorts();
    const s = start({ AF_DATA_DIR: dataDir(), DATABASE_URL: db.url, ...ports });
    await waitForLine(s, /ready in /);
    expect(s.output()).toContain(`demo data API on http://127.0.0.1:${ports.AF_DEMO_API_PORT}`);
    await followTryIt({ gatewayUrl: `http://127.0.0.1:${ports.HTTP_PORT}`, demoPort: Number(ports.AF_DEMO_API_PORT), scratch: dataDir() });
    s.child.kill('SIGINT');
    expect(await s.exited).toBe(0);
  }, 240_000);

  it('names the demo data API when its port is taken, and serves none with AF_DEMO_API=off or outside dev mode (NATS_URL set)', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => holder.once('listening', resolve));
    const taken = (holder.address() as { port: number }).port;
    try {
      const clash = await failedStart({ AF_DATA_DIR: dataDir(), DATABASE_URL: db.url, ...(await freePorts()), AF_DEMO_API_PORT: String(taken) });
      expect(clash.code).toBe(1);
      expect(expectOneLine(clash.out)).toBe(
        `[agent-factory] port ${taken} on 127.0.0.1 (demo data API) is already in use by another process: stop that process, set AF_DEMO_API_PORT, or AF_DEMO_API=off`,
      );
      // AF_DEMO_API=off: the taken port does not matter, and no demo API is announced.
      const off = start({ AF_DATA_DIR: dataDir(), DATABASE_URL: db.url, ...(await freePorts()), AF_DEMO_API_PORT: String(taken), AF_DEMO_API: 'off' });
      await waitForLine(off, /ready in /);
      expect(off.output()).not.toContain('demo data API');
      off.child.kill('SIGINT');
      expect(await off.exited).toBe(0);
      // With NATS_URL (not dev mode): none either.
      const nats = start({ AF_DATA_DIR: dataDir(), DATABASE_URL: db.url, ...(await freePorts()), AF_DEMO_API_PORT: String(taken), NATS_URL: TEST_NATS_URL, NATS_PREFIX: `tstart${process.pid}` });
      await waitForLine(nats, /ready in /);
      expect(nats.output()).not.toContain('demo data API');
      nats.child.kill('SIGINT');
      expect(await nats.exited).toBe(0);
    } finally {
      holder.close();
    }
  }, 240_000);

  it('takes over a lock left by a process that is gone, an unreadable one, or one naming a process that is not a start', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    const gonePid = gone.pid!;
    await new Promise((resolve) => gone.once('exit', resolve));
    const closed = await freePort();
    for (const content of [JSON.stringify({ pid: gonePid, httpUrl: 'http://127.0.0.1:8080' }), 'not json', JSON.stringify({ pid: process.pid })]) {
      const dir = dataDir();
      writeFileSync(join(dir, 'start.pid'), content);
      // It gets past the lock to the database check (a closed port here), which it reports instead.
      const { code, out } = await failedStart({ AF_DATA_DIR: dir, DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/x`, ...(await freePorts()) });
      expect(code).toBe(1);
      expect(expectOneLine(out)).toContain(`cannot connect to PostgreSQL at 127.0.0.1:${closed}`);
      // Its own lock is released on the way out.
      expect(existsSync(join(dir, 'start.pid'))).toBe(false);
    }
  }, 60_000);

  it('names DATABASE_URL and what to do when the database does not exist or nothing listens there', async () => {
    const missing = new URL(db.url);
    missing.pathname = `/af_missing_${process.pid}`;
    const noDb = await failedStart({ AF_DATA_DIR: dataDir(), DATABASE_URL: missing.toString(), ...(await freePorts()) });
    expect(noDb.code).toBe(1);
    const host = `${missing.hostname}:${missing.port || 5432}`;
    expect(expectOneLine(noDb.out)).toBe(
      `[agent-factory] DATABASE_URL names database "af_missing_${process.pid}", which does not exist on ${host}: ` +
        `create it (createdb -h ${missing.hostname} -p ${missing.port || 5432} af_missing_${process.pid}) or omit DATABASE_URL to use the embedded database`,
    );

    const closed = await freePort();
    const refused = await failedStart({ AF_DATA_DIR: dataDir(), DATABASE_URL: `postgres://postgres:hunter2-secret@127.0.0.1:${closed}/agentfactory`, ...(await freePorts()) });
    expect(refused.code).toBe(1);
    expect(expectOneLine(refused.out)).toBe(
      `[agent-factory] cannot connect to PostgreSQL at 127.0.0.1:${closed} (connection refused): is it running there? Check DATABASE_URL, or omit it to use the embedded database`,
    );

    const wrongScheme = await failedStart({ AF_DATA_DIR: dataDir(), DATABASE_URL: 'mysql://root:hunter2-secret@db/x', ...(await freePorts()) });
    expect(wrongScheme.code).toBe(1);
    expect(expectOneLine(wrongScheme.out)).toMatch(/DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//);
    for (const out of [refused.out, wrongScheme.out]) expect(out).not.toContain('hunter2-secret');
  }, 60_000);

  it('refuses a port that is not a number, naming the variable', async () => {
    const { code, out } = await failedStart({ AF_DATA_DIR: dataDir(), DATABASE_URL: db.url, ...(await freePorts()), HTTP_PORT: '80a' });
    expect(code).toBe(1);
    expect(expectOneLine(out)).toBe('[agent-factory] HTTP_PORT must be a port number (0–65535), not "80a"');
  });
});
