/**
 * `er resolve` as a process (dist/cli/main.js): clusters out, bad lines
 * reported with their number and skipped, exit 1 when any were.
 * Needs `pnpm --filter @af/entity-resolution build`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const main = join(__dirname, '..', '..', 'dist', 'cli', 'main.js');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'er-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('resolves a file, reports bad lines by number and exits 1', () => {
  const lines = [
    {
      record_id: 'a',
      source: 'irs990',
      entity_type: 'ORG',
      name: 'Riverside Health Alliance Inc',
      external_ids: { ein: '04-3568784' },
      state: 'CA',
    },
    {
      record_id: 'b',
      source: 'fec',
      entity_type: 'ORG',
      name: 'RIVERSIDE HEALTH ALLIANCE, INCORPORATED',
      external_ids: { ein: '043568784' },
    },
    'not json',
    { record_id: 'c', source: 'fec', entity_type: 'PERSON', name: 'Maria Lopez', state: 'TX' },
    { record_id: 'd', entity_type: 'SHIP', name: 'Nautilus' },
  ].map((l) => (typeof l === 'string' ? l : JSON.stringify(l)));
  writeFileSync(join(dir, 'in.jsonl'), `${lines.join('\n')}\n`);
  const run = spawnSync(
    process.execPath,
    [main, 'resolve', '--in', join(dir, 'in.jsonl'), '--out', join(dir, 'out.jsonl')],
    { encoding: 'utf8' },
  );
  expect(run.status).toBe(1);
  expect(run.stderr).toContain('line 3: not JSON (skipped)');
  expect(run.stderr).toContain('line 5: entity_type: entity_type must be PERSON or ORG (skipped)');
  const out = readFileSync(join(dir, 'out.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(out).toEqual([
    { record_id: 'a', cluster_id: 'a', decided: 'auto' },
    { record_id: 'b', cluster_id: 'a', decided: 'auto' },
    { record_id: 'c', cluster_id: 'c', decided: 'auto' },
  ]);
});

it('marks "review" only the records still in question: a later bridge answers the others', () => {
  const person = (record_id: string, r: Record<string, string>) =>
    JSON.stringify({ record_id, entity_type: 'PERSON', ...r });
  writeFileSync(
    join(dir, 'bridge.jsonl'),
    [
      person('a', { name: 'Okonkwo, Ezekiel Q.', state: 'CA' }),
      // Queued against a, then bridged to it by c.
      person('b', { name: 'Ezekiel Okonkwo', employer: 'Fresno Water Trust', city: 'Fresno' }),
      person('c', { name: 'Ezekiel Q. Okonkwo', state: 'CA', employer: 'Fresno Water Trust', city: 'Fresno' }),
      person('d', { name: 'Okafor, Chidi', state: 'TX' }),
      // Queued against d, still in question.
      person('e', { name: 'Chidi Okafor', employer: 'Austin Rail Fund', city: 'Austin' }),
    ].join('\n') + '\n',
  );
  execFileSync(process.execPath, [main, 'resolve', '--in', join(dir, 'bridge.jsonl'), '--out', join(dir, 'bridge.out')]);
  const out = readFileSync(join(dir, 'bridge.out'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { record_id: string; cluster_id: string; decided: string });
  const root = out[0]!.cluster_id;
  expect(out.map((l) => [l.record_id, l.cluster_id === root, l.decided])).toEqual([
    ['a', true, 'auto'],
    ['b', true, 'auto'],
    ['c', true, 'auto'],
    ['d', false, 'auto'],
    ['e', false, 'review'],
  ]);
});

it('exits 0 on a clean file and 2 on a usage error', () => {
  writeFileSync(
    join(dir, 'ok.jsonl'),
    `${JSON.stringify({ record_id: 1, entity_type: 'PERSON', name: 'Ann Lee' })}\n`,
  );
  execFileSync(process.execPath, [
    main,
    'resolve',
    '--in',
    join(dir, 'ok.jsonl'),
    '--out',
    join(dir, 'ok.out'),
  ]);
  expect(readFileSync(join(dir, 'ok.out'), 'utf8')).toBe(
    '{"record_id":"1","cluster_id":"1","decided":"auto"}\n',
  );
  const bad = spawnSync(process.execPath, [main, 'resolve', '--in', join(dir, 'ok.jsonl')], {
    encoding: 'utf8',
  });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toContain('--out is required');
});

it('takes the auto-merge and review thresholds as flags, refusing bad ones by name', () => {
  const lines = [
    { record_id: 'd', entity_type: 'PERSON', name: 'Okafor, Chidi', state: 'TX' },
    // About 0.82 against d: in the default review band (0.4 to 0.9).
    { record_id: 'e', entity_type: 'PERSON', name: 'Chidi Okafor', employer: 'Austin Rail Fund', city: 'Austin' },
  ];
  writeFileSync(join(dir, 'band.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const resolve = (...flags: string[]) =>
    spawnSync(
      process.execPath,
      [main, 'resolve', '--in', join(dir, 'band.jsonl'), '--out', join(dir, 'band.out'), ...flags],
      { encoding: 'utf8' },
    );
  const decided = () =>
    readFileSync(join(dir, 'band.out'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { record_id: string; cluster_id: string; decided: string })
      .map((l) => [l.record_id, l.cluster_id, l.decided]);
  expect(resolve().status).toBe(0);
  expect(decided()).toEqual([
    ['d', 'd', 'auto'],
    ['e', 'e', 'review'],
  ]);
  expect(resolve('--auto-threshold', '0.8').status).toBe(0);
  expect(decided()).toEqual([
    ['d', 'd', 'auto'],
    ['e', 'd', 'auto'],
  ]);
  expect(resolve('--review-threshold', '0.85').status).toBe(0);
  expect(decided()).toEqual([
    ['d', 'd', 'auto'],
    ['e', 'e', 'auto'],
  ]);
  for (const [flags, message] of [
    [['--review-threshold', '2'], '--review-threshold 2: must be a probability between 0 and 1'],
    [['--auto-threshold', '0.5'], '--auto-threshold 0.5: must be at least 0.7'],
    [['--review-threshold', '0.95'], '--review-threshold 0.95: must not exceed the auto threshold 0.9'],
    [['--auto-threshold'], '--auto-threshold needs a value'],
  ] as const) {
    const bad = resolve(...flags);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(message);
  }
});
