/**
 * `af er fit` as a process (dist/main.js, after `pnpm build`): a model file
 * fitted to labelled records, then `af er resolve --model` scoring with it;
 * bad lines reported by number, bad model files named with their field.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const af = join(__dirname, '..', '..', 'dist', 'main.js');
const erDomain = join(__dirname, '..', '..', '..', '..', 'services', 'entity-resolution', 'dist', 'domain', 'index.js');
let dir: string;
let records: string;
const af_ = (...args: string[]) => spawnSync(process.execPath, [af, 'er', ...args], { encoding: 'utf8' });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'af-er-fit-'));
  records = join(dir, 'labelled.jsonl');
  // Labelled records of the service's own generator (its dist is ESM: written by a child process).
  const script = `
    const { generateRecords } = await import(${JSON.stringify(erDomain)});
    const lines = [];
    for (const r of generateRecords({ records: 3000, seed: 5, corruption: 'medium' }))
      lines.push(JSON.stringify({ record_id: r.recordId, entity_type: r.entityType, name: r.name, entity_id: r.entityId,
        ...(r.state ? { state: r.state } : {}), ...(r.city ? { city: r.city } : {}), ...(r.employer ? { employer: r.employer } : {}) }));
    process.stdout.write(lines.join('\\n') + '\\n');`;
  const gen = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (gen.status !== 0) throw new Error(gen.stderr);
  writeFileSync(records, gen.stdout);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('fits a model to labelled records (a bad line is reported and skipped), which af er resolve --model then scores with', () => {
  const withBad = join(dir, 'with-bad.jsonl');
  writeFileSync(withBad, `${readFileSync(records, 'utf8')}{"record_id":"z","entity_type":"PERSON","name":"Ann","entity_id":[]}\n`);
  const model = join(dir, 'model.json');
  const fit = af_('fit', '--in', withBad, '--out', model);
  expect(fit.stderr).toContain('line 3001: entity_id: ');
  expect(fit.stderr).toMatch(/model written to .*model\.json: tables PERSON em, ORG em; calibration PERSON labels, ORG labels; 3000 records \(3000 labelled\), 1 bad line\(s\) skipped/);
  expect(fit.status).toBe(1);
  const file = JSON.parse(readFileSync(model, 'utf8'));
  expect(file).toMatchObject({ format: 'af-er-model', version: 1, fit: { records: { PERSON: expect.any(Number), ORG: expect.any(Number) } } });

  const out = join(dir, 'clusters.jsonl');
  const resolved = af_('resolve', '--in', records, '--out', out, '--model', model);
  expect(resolved.stderr).toMatch(/3000 records → \d+ clusters/);
  expect(resolved.status).toBe(0);
  const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { record_id: string; cluster_id: string });
  expect(lines).toHaveLength(3000);
  // The records resolve into fewer clusters than records (their duplicates merged).
  expect(new Set(lines.map((l) => l.cluster_id)).size).toBeLessThan(2_900);
}, 120_000);

it('names a missing model file, and a bad one with its field; nothing is resolved', () => {
  const out = join(dir, 'never.jsonl');
  const missing = af_('resolve', '--in', records, '--out', out, '--model', join(dir, 'none.json'));
  expect(missing.status).toBe(1);
  expect(missing.stderr).toContain('none.json: no such file');
  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ format: 'af-er-model', version: 1, fit: {}, model: { minTfU: 0.5 } }));
  const refused = af_('resolve', '--in', records, '--out', out, '--model', bad);
  expect(refused.status).toBe(1);
  expect(refused.stderr).toContain(`--model ${bad}: model.PERSON: `);
  expect(() => readFileSync(out)).toThrow();
});

it('refuses to fit on a file without a good record', () => {
  const empty = join(dir, 'empty.jsonl');
  writeFileSync(empty, '{"record_id": 1}\n');
  const r = af_('fit', '--in', empty, '--out', join(dir, 'm.json'));
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain('line 1: ');
  expect(r.stderr).toContain('no good record to fit on');
});
