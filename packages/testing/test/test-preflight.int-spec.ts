/**
 * scripts/test-preflight.mjs against the real PostgreSQL and NATS the
 * integration tests use (TEST_DATABASE_URL / TEST_NATS_URL or their
 * defaults): it passes silently, so `pnpm test` goes on to the tests.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/service-process.js';

function runPreflight(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts', 'test-preflight.mjs')], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (output += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('test preflight with the real services', () => {
  it('exits 0 and prints nothing when PostgreSQL and NATS (JetStream) are up', async () => {
    const r = await runPreflight();
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });
});
