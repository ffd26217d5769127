/** The `af` command wiring (commander) with the commands behind it. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFixtureServer } from '@af/testing';
import { loadHttp } from './http.js';
import { createCli } from './program.js';
import { readCliVersion } from './version.js';

const fixtures = join(__dirname, '../test/fixtures');

function cli() {
  const out: string[] = [];
  const err: string[] = [];
  const { run } = createCli({
    io: { out: (s) => void out.push(s), err: (s) => void err.push(s) },
    stop: new AbortController().signal,
    http: loadHttp,
    version: readCliVersion(__dirname),
  });
  return { run, out, err };
}

const packageVersion = (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;

describe('af', () => {
  it('--version and -V print the version of its package.json and exit 0', async () => {
    expect(packageVersion).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ['--version', '-V']) {
      const c = cli();
      expect(await c.run([flag])).toBe(0);
      expect(c.out).toEqual([packageVersion]);
      expect(c.err).toEqual([]);
    }
  });

  it('with no command prints the usage and exits 1', async () => {
    const c = cli();
    expect(await c.run([])).toBe(1);
    expect(c.out).toEqual([]);
    const text = c.err.join('\n');
    expect(text).toMatch(/^Usage: af \[options\] \[command\]/);
    expect(text).toMatch(/connector[\s\S]*plugin/);
  });

  it('with an unknown command or option names it, prints the usage and exits 1', async () => {
    const c = cli();
    expect(await c.run(['bogus'])).toBe(1);
    expect(c.err[0]).toBe("error: unknown command 'bogus'");
    expect(c.err.slice(1).join('\n')).toMatch(/^Usage: af \[options\] \[command\][\s\S]*connector[\s\S]*plugin/);
    const opt = cli();
    expect(await opt.run(['--versoin'])).toBe(1);
    expect(opt.err[0]).toMatch(/unknown option '--versoin'/);
    expect(opt.out).toEqual([]);
  });

  it('reads its version only from the @af/cli package.json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'af-version-'));
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'something-else', version: '9.9.9' }));
    expect(() => readCliVersion(join(dir, 'dist'))).toThrow(/not the @af\/cli package\.json/);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@af/cli' }));
    expect(() => readCliVersion(join(dir, 'dist'))).toThrow(/no version/);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@af/cli', version: '1.2.3' }));
    expect(readCliVersion(join(dir, 'dist'))).toBe('1.2.3');
  });

  it('lists its commands', async () => {
    const c = cli();
    expect(await c.run(['--help'])).toBe(0);
    expect(c.out.join('\n')).toMatch(/connector[\s\S]*plugin/);
    const sub = cli();
    expect(await sub.run(['connector', '--help'])).toBe(0);
    expect(sub.out.join('\n')).toMatch(/validate[\s\S]*test/);
  });

  it('validate: exit 0 for a good file, 1 with positioned errors for a bad one', async () => {
    const good = cli();
    expect(await good.run(['connector', 'validate', join(fixtures, 'filings.connector.yaml')])).toBe(0);
    const bad = cli();
    expect(await bad.run(['connector', 'validate', join(fixtures, 'broken.connector.yaml')])).toBe(1);
    expect(bad.err[0]).toMatch(/broken\.connector\.yaml:1:5: id: must be kebab-case/);
    const missing = cli();
    expect(await missing.run(['connector', 'validate', join(fixtures, 'nope.yaml')])).toBe(1);
    expect(missing.err).toEqual([expect.stringMatching(/^af: cannot read .*nope\.yaml: ENOENT$/)]);
  });

  it('test: repeatable --param/--credential reach the endpoint', async () => {
    const api = await startFixtureServer();
    try {
      api.route('GET', '/v1/filings', { json: { data: { items: [{ org: { name: 'A' } }] } } });
      const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const file = join(mkdtempSync(join(tmpdir(), 'af-prog-')), 'c.yaml');
      writeFileSync(
        file,
        readFileSync(join(fixtures, 'filings.connector.yaml'), 'utf8').replace('http://127.0.0.1:1', api.url),
      );
      const c = cli();
      expect(
        await c.run([
          'connector',
          'test',
          file,
          'search',
          '-p',
          'q=a',
          '--param',
          'year=2020',
          '-c',
          'api_key=k',
          '--json',
        ]),
      ).toBe(0);
      expect(api.requestsTo('GET', '/v1/filings')[0]!.query).toEqual({ q: 'a', year: '2020', api_key: 'k' });
      const failing = cli();
      expect(await failing.run(['connector', 'test', file, 'search', '-p', 'q'])).toBe(1);
      expect(failing.err).toEqual(['af: --param #1 must be name=value']);
    } finally {
      await api.close();
    }
  });

  it('usage errors exit non-zero with commander’s message', async () => {
    const c = cli();
    expect(await c.run(['connector', 'validate'])).toBe(1);
    expect(c.err.join('\n')).toContain("missing required argument 'file'");
    const port = cli();
    expect(await port.run(['plugin', 'dev', 'x.js', '--port', '70000'])).toBe(1);
    expect(port.err.join('\n')).toContain('--port must be a whole number from 0 to 65535');
    const unknown = cli();
    expect(await unknown.run(['deploy'])).toBe(1);
  });

  it('plugin dev: a module without a plugin, or one that does not load, is refused', async () => {
    const none = cli();
    expect(await none.run(['plugin', 'dev', join(fixtures, 'missing-module.mjs')])).toBe(1);
    expect(none.err[0]).toMatch(/^af: cannot load .*missing-module\.mjs/);
  });
});
