/**
 * `af er resolve` as a process (dist/main.js, after `pnpm build`): the
 * entity-resolution service's pipeline on a JSONL file, a progress bar on
 * stderr, bad lines reported by number and skipped.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { progressBar } from '../../src/commands/er-resolve.js';

const af = join(__dirname, '..', '..', 'dist', 'main.js');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'af-er-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync(process.execPath, [af, 'er', 'resolve', ...args], { encoding: 'utf8' });

it('clusters records with the service pipeline, skips bad lines by number, exits 1', () => {
  const lines = [
    {
      record_id: 'a',
      entity_type: 'ORG',
      name: 'Riverside Health Alliance Inc',
      external_ids: { ein: '04-3568784' },
      state: 'CA',
    },
    {
      record_id: 'b',
      entity_type: 'ORG',
      name: 'RIVERSIDE HEALTH ALLIANCE, INCORPORATED',
      external_ids: { ein: '043568784' },
    },
    '{"record_id": "x", ',
    { record_id: 'c', entity_type: 'PERSON', name: 'Maria Lopez', state: 'TX' },
    { record_id: 'd', entity_type: 'SHIP', name: 'Nautilus' },
    { record_id: 'e', entity_type: 'ORG', name: 'Acme', external_ids: { ein: '12' } },
    { record_id: 'a', entity_type: 'PERSON', name: 'Ann Lee' },
  ].map((l) => (typeof l === 'string' ? l : JSON.stringify(l)));
  writeFileSync(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
  const r = run('--in', join(dir, 'in.jsonl'), '--out', join(dir, 'out.jsonl'));
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('line 3: not JSON (skipped)');
  expect(r.stderr).toContain('line 5: entity_type: entity_type must be PERSON or ORG (skipped)');
  expect(r.stderr).toMatch(/line 6: .*ein.*nine digits.*\(skipped\)/);
  expect(r.stderr).toContain('line 7: record_id "a" appeared on an earlier line (skipped)');
  expect(r.stderr).toContain('100% 3/3');
  expect(r.stderr).toContain('3 records → 2 clusters');
  const out = readFileSync(join(dir, 'out.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
  expect(out).toEqual([
    { record_id: 'a', cluster_id: 'a', decided: 'auto' },
    { record_id: 'b', cluster_id: 'a', decided: 'auto' },
    { record_id: 'c', cluster_id: 'c', decided: 'auto' },
  ]);
});

it('names a missing input file and a missing option', () => {
  const missing = run('--in', join(dir, 'nope.jsonl'), '--out', join(dir, 'x.jsonl'));
  expect(missing.status).toBe(1);
  expect(missing.stderr).toContain('nope.jsonl: no such file');
  const usage = run('--in', join(dir, 'nope.jsonl'));
  expect(usage.status).not.toBe(0);
  expect(usage.stderr).toContain("required option '--out <file>' not specified");
});

it('draws a progress bar', () => {
  expect(progressBar(0, 10, 10)).toBe('[----------] 0% 0/10');
  expect(progressBar(5, 10, 10)).toBe('[#####-----] 50% 5/10');
  expect(progressBar(0, 0, 4)).toBe('[####] 100% 0/0');
});

it('takes the thresholds as flags and refuses a bad one by name before reading the input', () => {
  const lines = [
    { record_id: 'd', entity_type: 'PERSON', name: 'Okafor, Chidi', state: 'TX' },
    // About 0.82 against d: in the default review band (0.4 to 0.9).
    {
      record_id: 'e',
      entity_type: 'PERSON',
      name: 'Chidi Okafor',
      employer: 'Austin Rail Fund',
      city: 'Austin',
    },
  ];
  writeFileSync(join(dir, 'band.jsonl'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  const decided = (...flags: string[]) => {
    const r = run('--in', join(dir, 'band.jsonl'), '--out', join(dir, 'band.out'), ...flags);
    expect(r.status).toBe(0);
    return readFileSync(join(dir, 'band.out'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { decided: string; cluster_id: string })
      .map((l) => `${l.cluster_id}:${l.decided}`);
  };
  expect(decided()).toEqual(['d:auto', 'e:review']);
  expect(decided('--auto-threshold', '0.8')).toEqual(['d:auto', 'd:auto']);
  expect(decided('--review-threshold', '0.85')).toEqual(['d:auto', 'e:auto']);
  // Refused before the input is read: a missing file is not what the caller hears about.
  for (const [flag, value, message] of [
    ['--auto-threshold', '0.65', '--auto-threshold 0.65: must be at least 0.7'],
    ['--review-threshold', 'high', '--review-threshold high: must be a probability between 0 and 1'],
  ] as const) {
    const bad = run('--in', join(dir, 'missing.jsonl'), '--out', join(dir, 'x.jsonl'), flag, value);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain(message);
    expect(bad.stderr).not.toContain('no such file');
  }
});
