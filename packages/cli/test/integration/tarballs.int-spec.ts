/**
 * A connector author outside this repository: `@af/cli`, `@af/plugin-sdk`,
 * `@af/contracts` and what they depend on are packed with `pnpm pack` into
 * tarballs (no `workspace:` references left), installed into a scratch
 * project in the system's temp directory (outside the workspace), and used
 * there: `af --version`, `af connector validate`, and `af plugin dev` serving
 * a plugin written against the installed SDK, registered with a real
 * connector-runtime and called through its ActionService.
 *
 * Needs `pnpm build` first (the tarballs hold `dist/`). Third-party
 * dependencies come from the pnpm store (the npm registry when missing).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { action, connector } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { REPO_ROOT } from '@af/testing';
import { startRegistry, type Registry } from './registry.js';

/** What an outside project installs: the three public packages and the workspace packages they depend on. */
const PACKED = ['cli', 'plugin-sdk', 'contracts', 'connectors', 'egress', 'secret-mask'];
const author = { userId: 'author-1', teamIds: [] };

let tarballs: string;
let project: string;
let reg: Registry;

function run(cmd: string, args: string[], cwd: string, timeoutMs = 120_000) {
  const res = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMs, env: { ...process.env, CI: 'true' } });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${res.status}:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

/** The installed `af` of the scratch project, run with a clean environment. */
function af(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(join(project, 'node_modules', '.bin', 'af'), args, {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

beforeAll(async () => {
  tarballs = mkdtempSync(join(tmpdir(), 'af-tarballs-'));
  for (const name of PACKED) run('pnpm', ['pack', '--pack-destination', tarballs], join(REPO_ROOT, 'packages', name));
  project = mkdtempSync(join(tmpdir(), 'af-plugin-author-'));
  const file = (name: string) => `file:${join(tarballs, `af-${name}-0.1.0.tgz`)}`;
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'my-plugins',
      version: '1.0.0',
      private: true,
      type: 'module',
      dependencies: { '@af/cli': file('cli'), '@af/plugin-sdk': file('plugin-sdk') },
      // The tarballs depend on each other by version; these packages are not on a registry.
      pnpm: { overrides: Object.fromEntries(PACKED.map((n) => [`@af/${n}`, file(n)])) },
    }),
  );
  run('pnpm', ['install', '--prefer-offline', '--config.confirmModulesPurge=false'], project, 300_000);

  reg = await startRegistry();
}, 420_000);

afterAll(async () => {
  await reg?.stop();
  for (const dir of [project, tarballs]) if (dir) rmSync(dir, { recursive: true, force: true });
});

it('packs each package with its dist and README only, and no workspace: references', () => {
  for (const name of PACKED) {
    const tgz = join(tarballs, `af-${name}-0.1.0.tgz`);
    const manifest = JSON.parse(run('tar', ['-xzOf', tgz, 'package/package.json'], tarballs));
    expect(JSON.stringify({ ...manifest.dependencies, ...manifest.peerDependencies })).not.toContain('workspace:');
    const files = run('tar', ['-tzf', tgz], tarballs).trim().split('\n');
    expect(files.filter((f) => !/^package\/(dist\/|proto\/|README\.md$|package\.json$)/.test(f))).toEqual([]);
    expect(files.some((f) => f.startsWith('package/dist/'))).toBe(true);
  }
  expect(readdirSync(join(project, 'node_modules', '@af')).sort()).toEqual(['cli', 'plugin-sdk']);
});

it('runs the installed af: --version and connector validate', () => {
  const version = af(['--version']);
  expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  const yaml = ['id: outside-api', 'name: Outside API', 'type: rest_api', "version: '1.0'", 'connection:', '  base_url: https://api.example.com', '  auth:', '    type: none', 'endpoints:', '  list:', '    path: /things', '    response_mapping:', '      results_path: items'].join('\n');
  writeFileSync(join(project, 'outside.connector.yaml'), yaml);
  const ok = af(['connector', 'validate', 'outside.connector.yaml']);
  expect(ok.code).toBe(0);
  expect(ok.stdout).toContain('valid rest_api connector "outside-api" with 1 endpoint (list)');
  writeFileSync(join(project, 'broken.connector.yaml'), yaml.replace('https://api.example.com', 'ftp://api.example.com'));
  const bad = af(['connector', 'validate', 'broken.connector.yaml']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/broken\.connector\.yaml:\d+:\d+: connection\.base_url: must use http or https/);
  // The entity resolver stays in the repository: the installed CLI says where to run it.
  writeFileSync(join(project, 'records.jsonl'), '{"record_id":"r1","source":"s","entity_type":"PERSON","name":"Ann Lee"}\n');
  const er = af(['er', 'resolve', '--in', 'records.jsonl', '--out', 'clusters.jsonl']);
  expect(er.code).toBe(1);
  expect(er.stderr).toContain('only the Agent Factory repository has: run it there as `pnpm af er');
});

it('serves a plugin written against the installed SDK with af plugin dev; connector-runtime registers it and runs its tool', async () => {
  writeFileSync(
    join(project, 'shout.mjs'),
    [
      "import { definePlugin } from '@af/plugin-sdk';",
      'export const plugin = definePlugin({',
      "  name: 'shout', version: '1.2.3', description: 'Upper-cases text', connectionType: 'none',",
      '  tools: {',
      '    shout: {',
      "      description: 'The text in capitals',",
      "      input: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'] },",
      "      output: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },",
      '      handler: ({ text }) => ({ text: text.toUpperCase() }),',
      '    },',
      '  },',
      '});',
    ].join('\n'),
  );
  const dev: ChildProcess = spawn(join(project, 'node_modules', '.bin', 'af'), ['plugin', 'dev', './shout.mjs', '--registry', reg.address, '--token', reg.token], {
    cwd: project,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  dev.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => dev.once('exit', (code) => r(code)));
  try {
    const deadline = Date.now() + 30_000;
    while (!stderr.includes('registered: instance ')) {
      if (Date.now() > deadline) throw new Error(`af plugin dev did not register:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(stderr).toMatch(/serving shout 1\.2\.3 on 127\.0\.0\.1:\d+ \(tools: shout\)/);

    const auth = new ServiceAuth({ secret: reg.serviceAuthSecret, service: 'tarball-test' });
    const registryClient = createGrpcClient<connector.PluginRegistryServiceClient>('connector', 'PluginRegistryService', reg.address, { auth });
    await call(registryClient.setPluginEnabled({ principal: author, name: 'shout', enabled: true, config: {} }));
    const actions = createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, reg.address, { auth });
    const answer = await call(
      actions.execute({ action: 'plugin:shout.shout', inputs: { text: 'made outside' }, params: { plugin: 'shout' }, idempotencyKey: '', principal: author, timeoutMs: 10_000, runId: 'r', nodeId: 'n', attempt: 1 }),
      15_000,
    );
    expect(answer.outputs).toEqual({ text: 'MADE OUTSIDE' });
  } finally {
    dev.kill('SIGINT');
  }
  expect(await exited).toBe(0);
  expect(stderr).not.toContain(reg.token);
});
