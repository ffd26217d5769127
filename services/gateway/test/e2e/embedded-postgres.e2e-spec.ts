/**
 * The embedded PostgreSQL of `pnpm start` (scripts/embedded-pg.mjs, forked the
 * way scripts/start.mjs forks it, with a data directory and port of its own):
 * a random password kept 0600 in the data directory and required on every
 * connection (TCP and the unix socket), the socket in a private directory
 * rather than /tmp, and a start after a failed first start (database never
 * created, initdb cut off, a cluster from before the random password) that
 * comes up.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, REPO_ROOT } from '@af/testing';

/** The part of `pg` used here (the gateway has no @types/pg; it is loaded by name). */
interface ClientConfig {
  connectionString?: string;
  host?: string;
  port?: number;
  user?: string;
  password?: string;
  database?: string;
}
interface PgClient {
  connect(): Promise<void>;
  query(sql: string, values: unknown[]): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
  on(event: 'error', listener: () => void): void;
}
let pg: { Client: new (config: ClientConfig) => PgClient };

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

let dataDir: string;
let port: number;
let current: Started | undefined;
const outputs: string[] = [];

async function start(): Promise<Started> {
  const child = fork(join(REPO_ROOT, 'scripts', 'embedded-pg.mjs'), [dataDir, String(port), REPO_ROOT], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const answer = await new Promise<{ ready: boolean; url?: string; error?: string }>((resolve) => {
    child.once('message', (m) => resolve(m as { ready: boolean; url?: string; error?: string }));
    child.once('exit', (code) => resolve({ ready: false, error: `exited with ${code}: ${out}` }));
  });
  if (!answer.ready) throw new Error(`embedded PostgreSQL did not start: ${answer.error}`);
  current = { child, url: answer.url!, output: () => out };
  return current;
}

async function stop(): Promise<void> {
  const s = current;
  current = undefined;
  if (!s || s.child.exitCode !== null) return;
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.send('stop');
  await exited;
  outputs.push(s.output());
}

async function query<T>(config: ClientConfig, sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client(config);
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    // A refused SCRAM exchange leaves the socket open, and a backend waiting for the rest of
    // the exchange holds up DROP DATABASE until authentication_timeout: close it.
    await client.end().catch(() => undefined);
    throw err;
  }
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

async function refusal(config: ClientConfig): Promise<Error & { code?: string }> {
  try {
    await query(config, 'SELECT 1');
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('expected the connection to be refused');
}

const passwordOf = (url: string) => new URL(url).password;

beforeAll(async () => {
  const name = 'pg';
  const loaded = (await import(name)) as { default?: typeof pg } & typeof pg;
  pg = loaded.default ?? loaded;
  dataDir = mkdtempSync(join(tmpdir(), 'af-embedded-'));
  port = await freePort();
});

afterAll(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded PostgreSQL', () => {
  it('creates a cluster with a random password, kept 0600 in the data directory and never printed', async () => {
    const { url } = await start();
    const password = passwordOf(url);
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    const file = join(dataDir, 'pg-password');
    expect(readFileSync(file, 'utf8').trim()).toBe(password);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(new URL(url).pathname).toBe('/agentfactory');
    expect(await query<{ db: string }>({ connectionString: url }, 'SELECT current_database() AS db')).toEqual([{ db: 'agentfactory' }]);
    expect(current!.output()).not.toContain(password);
  }, 120_000);

  it('refuses connections without the password, over TCP and over the unix socket', async () => {
    const noPassword = await refusal({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    expect(noPassword.message).toMatch(/password/i);
    const wrong = await refusal({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' });
    expect(wrong.code).toBe('28P01');
    const socketDir = join(dataDir, 'run');
    const overSocket = await refusal({ host: socketDir, port, user: 'postgres', database: 'postgres' });
    expect(overSocket.message).toMatch(/password/i);
  });

  it('puts its socket in a private directory in the data directory, not in /tmp', async () => {
    const [row] = await query<{ unix_socket_directories: string }>({ connectionString: current!.url }, 'SHOW unix_socket_directories');
    expect(row!.unix_socket_directories).toBe(join(dataDir, 'run'));
    expect(existsSync(join(dataDir, 'run', `.s.PGSQL.${port}`))).toBe(true);
    expect(existsSync(`/tmp/.s.PGSQL.${port}`)).toBe(false);
    expect(statSync(join(dataDir, 'run')).mode & 0o777).toBe(0o700);
  });

  it('creates the database on the next start when a first start failed before creating it', async () => {
    const { url } = current!;
    const admin = new URL(url);
    admin.pathname = '/postgres';
    await query({ connectionString: admin.toString() }, 'DROP DATABASE agentfactory');
    await stop();
    const again = await start();
    expect(again.url).toBe(url);
    expect(await query<{ db: string }>({ connectionString: again.url }, 'SELECT current_database() AS db')).toEqual([{ db: 'agentfactory' }]);
  }, 60_000);

  it('gives a cluster from before random passwords (password "postgres", no password file) a random one', async () => {
    const admin = new URL(current!.url);
    admin.pathname = '/postgres';
    await query({ connectionString: admin.toString() }, "ALTER ROLE postgres PASSWORD 'postgres'");
    await stop();
    rmSync(join(dataDir, 'pg-password'));
    const { url } = await start();
    const password = passwordOf(url);
    expect(readFileSync(join(dataDir, 'pg-password'), 'utf8').trim()).toBe(password);
    expect((await refusal({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres' })).code).toBe('28P01');
    expect(await query<{ ok: number }>({ connectionString: url }, 'SELECT 1 AS ok')).toEqual([{ ok: 1 }]);
  }, 60_000);

  it('starts afresh after an initialisation that was cut off, keeping the password', async () => {
    const password = passwordOf(current!.url);
    await stop();
    // What a cut-off initdb leaves: a cluster directory without PG_VERSION, and a half-made pg.init.
    rmSync(join(dataDir, 'pg'), { recursive: true, force: true });
    mkdirSync(join(dataDir, 'pg', 'base'), { recursive: true });
    mkdirSync(join(dataDir, 'pg.init'), { recursive: true });
    writeFileSync(join(dataDir, 'pg.init', 'postgresql.conf'), '# half written');
    const { url } = await start();
    expect(passwordOf(url)).toBe(password);
    expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'pg.init'))).toBe(false);
    expect(await query<{ db: string }>({ connectionString: url }, 'SELECT current_database() AS db')).toEqual([{ db: 'agentfactory' }]);
    await stop();
    for (const out of outputs) expect(out).not.toContain(password);
  }, 120_000);
});
