/**
 * The built `af` binary as a process. Real: the CLI (`packages/cli/dist/main.js`),
 * connector-runtime as the plugin registry (`services/connector-runtime/dist`),
 * PostgreSQL, NATS, and the example plugin module
 * (`plugins/slack-webhook/dist/index.js`) served by `af plugin dev`.
 *
 * Needs the CLI, plugin-sdk, the slack-webhook plugin and connector-runtime built.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, REPO_ROOT } from '@af/testing';
import { startRegistry, type Registry } from './registry.js';

const CLI = join(REPO_ROOT, 'packages', 'cli', 'dist', 'main.js');
const PLUGIN_MODULE = join(REPO_ROOT, 'plugins', 'slack-webhook', 'dist', 'index.js');
const FIXTURES = join(REPO_ROOT, 'packages', 'cli', 'test', 'fixtures');

function af(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

/** A long-running `af plugin dev`, with its stderr (the progress lines) collected. */
function afDev(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [CLI, 'plugin', 'dev', ...args], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const session = {
    stderr: '',
    child,
    exit: new Promise<number | null>((r) => child.once('exit', (code) => r(code))),
  };
  child.stderr!.on('data', (b: Buffer) => (session.stderr += b.toString()));
  child.stdout!.on('data', (b: Buffer) => (session.stderr += b.toString()));
  return session;
}

async function waitFor(session: { stderr: string }, text: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!session.stderr.includes(text)) {
    if (Date.now() > end) throw new Error(`"${text}" not printed; got:\n${session.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let reg: Registry;
let registry: string;
let TOKEN: string;

beforeAll(async () => {
  for (const f of [CLI, PLUGIN_MODULE])
    if (!existsSync(f)) throw new Error(`${f} is missing: build it first`);
  reg = await startRegistry();
  registry = reg.address;
  TOKEN = reg.token;
}, 90_000);

afterAll(async () => {
  await reg?.stop();
});

describe('af (process)', () => {
  const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'packages', 'cli', 'package.json'), 'utf8')) as { version: string }).version;

  it('--version prints the package.json version and exits 0, also as `pnpm af` at the root', () => {
    const direct = af(['--version']);
    expect(direct).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const viaPnpm = spawnSync('pnpm', ['--silent', 'af', '--version'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
    expect(viaPnpm.status).toBe(0);
    expect(viaPnpm.stdout).toBe(`${version}\n`);
  });

  it('with no command or an unknown one prints the usage to stderr and exits 1', () => {
    const none = af([]);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^Usage: af \[options\] \[command\]/);
    const unknown = af(['conector', 'validate']);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^error: unknown command 'conector'\n[\s\S]*Usage: af \[options\] \[command\][\s\S]*connector/);
  });
});

describe('af connector validate (process)', () => {
  it('exits 0 for a valid file and 1 with file:line:column errors for a broken one', () => {
    const ok = af(['connector', 'validate', join(FIXTURES, 'filings.connector.yaml')]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('valid rest_api connector "filings-api"');
    const bad = af(['connector', 'validate', join(FIXTURES, 'broken.connector.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/broken\.connector\.yaml:5:13: connection\.base_url: must use http or https/);
    expect(bad.stdout).toBe('');
  });
});

describe('af plugin dev (process)', () => {
  it('serves the plugin module, registers with a progress line, and stops on Ctrl-C', async () => {
    const dev = afDev([PLUGIN_MODULE, '--registry', registry, '--token', TOKEN]);
    await waitFor(dev, 'registered: instance ');
    expect(dev.stderr).toMatch(/serving slack-webhook 0\.1\.0 on 127\.0\.0\.1:\d+ \(tools: post_message\)/);
    expect(dev.stderr).toContain(`registering with ${registry} …`);
    expect(dev.stderr).toContain('heartbeat every 1 s');
    dev.child.kill('SIGINT');
    expect(await dev.exit).toBe(0);
    expect(dev.stderr).toContain('stopped slack-webhook');
    expect(dev.stderr).not.toContain(TOKEN);
  });

  it('reads the registry and token from PLUGIN_REGISTRY_URL / PLUGIN_REGISTRATION_TOKEN', async () => {
    const child = spawn(process.execPath, [CLI, 'plugin', 'dev', PLUGIN_MODULE], {
      env: { PATH: process.env.PATH ?? '', PLUGIN_REGISTRY_URL: registry, PLUGIN_REGISTRATION_TOKEN: TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const session = { stderr: '' };
    child.stderr!.on('data', (b: Buffer) => (session.stderr += b.toString()));
    await waitFor(session, 'registered: instance ');
    const exit = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
  });

  it("honours the plugin's own settings (PLUGIN_HOST, PLUGIN_PORT), and finds pnpm start's token in .af-data", async () => {
    const port = await freePort();
    // A plugin folder inside a checkout whose `pnpm start` keeps its token in .af-data/.
    const root = mkdtempSync(join(tmpdir(), 'af-checkout-'));
    mkdirSync(join(root, '.af-data'));
    writeFileSync(join(root, '.af-data', 'plugin-registration-token'), `${TOKEN}\n`, { mode: 0o600 });
    mkdirSync(join(root, 'plugins', 'mine'), { recursive: true });
    const child = spawn(process.execPath, [CLI, 'plugin', 'dev', PLUGIN_MODULE, '--registry', registry], {
      cwd: join(root, 'plugins', 'mine'),
      env: { PATH: process.env.PATH ?? '', PLUGIN_HOST: '127.0.0.1', PLUGIN_PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const session = { stderr: '' };
    child.stderr!.on('data', (b: Buffer) => (session.stderr += b.toString()));
    await waitFor(session, 'registered: instance ');
    expect(session.stderr).toContain(`serving slack-webhook 0.1.0 on 127.0.0.1:${port} `);
    const exit = new Promise((r) => child.once('exit', r));
    child.kill('SIGINT');
    expect(await exit).toBe(0);
    expect(session.stderr).not.toContain(TOKEN);
  });

  it('refuses a bad PLUGIN_PORT naming the option', () => {
    const bad = af(['plugin', 'dev', PLUGIN_MODULE], { PLUGIN_PORT: '70000' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--port must be a whole number from 0 to 65535');
  });

  it('exits 1 naming the reason when the registry refuses the token', async () => {
    const dev = afDev([PLUGIN_MODULE, '--registry', registry, '--token', 'wrong-token']);
    expect(await dev.exit).toBe(1);
    expect(dev.stderr).toContain('af: the registry refused slack-webhook: registration_token is wrong');
  });

  it('keeps waiting while the registry is down, saying so', async () => {
    const down = `127.0.0.1:${await freePort()}`;
    const dev = afDev([PLUGIN_MODULE, '--registry', down]);
    await waitFor(dev, `waiting for the registry at ${down} (attempt 1: UNAVAILABLE`);
    dev.child.kill('SIGINT');
    expect(await dev.exit).toBe(0);
  });

  it('exits 1 for a module without a plugin, or one that does not exist', () => {
    const none = af(['plugin', 'dev', join(FIXTURES, 'not-a-plugin.mjs')]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      'exports no plugin: export the result of definePlugin(...) as `plugin` or as the default export',
    );
    const missing = af(['plugin', 'dev', join(FIXTURES, 'nope.mjs')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^af: cannot load .*nope\.mjs/);
  });

  it('exits 1 for bad options', () => {
    const bad = af(['plugin', 'dev', PLUGIN_MODULE, '--registry', 'no-port']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('registryUrl: must be host:port');
  });
});
