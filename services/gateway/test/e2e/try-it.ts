/**
 * The README's "Try it", followed as written: its `sh` block runs in bash
 * against a running `pnpm start` (only its first line, `GW=…`, is pointed at
 * this start's gateway), in a scratch directory holding the example files it
 * reads, with the demo API's port of this start. It must end with the run
 * `completed` and real outputs. Then: connectors reach the demo API's port
 * and no other loopback address.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { freePort, http, REPO_ROOT } from '@af/testing';

/** The `sh` block of the README's "Try it" section. */
export function tryItBlock(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.split('\n## Try it\n')[1]?.split('\n## ')[0] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no ```sh block under "## Try it"');
  return block;
}

function bash(script: string, cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

export async function followTryIt(opts: { gatewayUrl: string; demoPort: number; scratch: string }): Promise<void> {
  const block = tryItBlock();
  expect(block.split('\n')[0]).toBe('GW=http://127.0.0.1:8080');
  const script = block.replace(/^GW=.*\n/, `GW=${opts.gatewayUrl}\n`);
  const files = block.match(/examples\/[\w./-]+\.(?:yaml|json)/g) ?? [];
  expect(files).toEqual(expect.arrayContaining(['examples/connectors/demo-api.connector.yaml']));
  for (const rel of new Set(files)) {
    mkdirSync(dirname(join(opts.scratch, rel)), { recursive: true });
    writeFileSync(join(opts.scratch, rel), readFileSync(join(REPO_ROOT, rel), 'utf8').replace('http://127.0.0.1:8090', `http://127.0.0.1:${opts.demoPort}`));
  }

  const { code, out } = await bash(script, opts.scratch);
  if (code !== 0) throw new Error(`the README's "Try it" failed (exit ${code}):\n${out}`);
  expect(out).toContain('event: complete');
  const last = JSON.parse(out.trim().split('\n').at(-1)!);
  expect(last.run).toMatchObject({ status: 'completed', task_status: 'complete', steps_completed: 3, error: null });
  expect(last.run.outputs.find_org.results[0]).toMatchObject({ id: 'org-1', name: 'Acme Community Trust' });
  expect(last.run.outputs.big_years).toEqual({ count: 2, data: [expect.objectContaining({ year: 2023 }), expect.objectContaining({ year: 2022 })] });

  // Egress is opened to the demo API only: another loopback port stays refused, before any request.
  const email = /"email":"([^"]+)"/.exec(block)?.[1];
  const password = /"password":"([^"]+)"/.exec(block)?.[1];
  const login = await http('POST', `${opts.gatewayUrl}/api/auth/login`, { body: { email, password } });
  expect(login.status).toBe(200);
  const other = await freePort();
  const yaml = readFileSync(join(REPO_ROOT, 'examples', 'connectors', 'demo-api.connector.yaml'), 'utf8').replace('http://127.0.0.1:8090', `http://127.0.0.1:${other}`);
  const refused = await http('POST', `${opts.gatewayUrl}/api/agent-factory/connectors/test`, { token: login.body.access_token, body: { yaml, endpoint: 'search_orgs', inputs: { q: 'acme' } } });
  expect(refused.status).toBe(409);
  expect(refused.body.error.message).toContain(`egress to 127.0.0.1:${other} refused`);
}
