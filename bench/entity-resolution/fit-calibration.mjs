// bench/entity-resolution/fit-calibration.mjs: fit the default calibration
// (a logistic regression over the comparison levels, see calibration.ts) with
// the labels of generator records of a seed the bench does not use, and write
// it to services/entity-resolution/src/domain/calibration.default.ts.
//
//   node bench/entity-resolution/fit-calibration.mjs [runs=20000:1,60000:2,120000:3] [knee]
//
// With a knee (records), the population term may bend beyond it: a run larger
// than the knee fits the bend while the smaller runs fix the slope below it.
// Each run (records:seed[:share], seeds the bench does not use; share: the
// fraction of its pairs kept, drawn at random, default all) is resolved with the EM model alone (UNCALIBRATED_MODEL); every
// comparison of a record with a candidate cluster is one sample, labelled by
// whether the cluster's best-matching record is of the same true entity.
// Pairs sharing or conflicting on an id are left out (deterministic rules
// decide them). Needs `pnpm --filter @af/entity-resolution build`.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { generateRecords, normaliseRecord, UNCALIBRATED_MODEL, fitCalibration, calibrationSamples, rng } = await import(
  join(here, '../../services/entity-resolution/dist/domain/index.js')
);
// Runs of several sizes, so the fit sees how the odds move with the population.
const spec = process.argv[2] ?? '20000:1,60000:2,120000:3';
const runs = spec.split(',').map((s) => s.split(':').map(Number));
for (const [i, [n, seed, share = 1]] of runs.entries())
  if (!(Number.isInteger(n) && n > 0 && Number.isInteger(seed) && share > 0 && share <= 1)) {
    console.error(`runs: "${spec.split(',')[i]}" is not records:seed[:share] (whole records and seed, a share in (0, 1])`);
    process.exit(2);
  }
const knee = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
if (knee !== undefined && !(knee > 0)) {
  console.error(`knee: "${process.argv[3]}" is not a positive number of records`);
  process.exit(2);
}
const samples = { PERSON: [], ORG: [] };
for (const [n, seed, keep = 1] of runs) {
  const raw = [...generateRecords({ records: n, seed, corruption: 'medium' })];
  const entityOf = new Map(raw.map((r) => [r.recordId, r.entityId]));
  // The same sample collection as `er fit` (fit-deployment.ts).
  const run = calibrationSamples(
    raw.map((r) => normaliseRecord(r).record),
    (id) => entityOf.get(id),
    UNCALIBRATED_MODEL,
  );
  // A share of a large run's pairs, drawn at random, so it does not outweigh the smaller runs.
  const draw = rng(seed);
  for (const type of ['PERSON', 'ORG']) for (const s of run[type]) if (keep >= 1 || draw() < keep) samples[type].push(s);
  console.error(`run ${n}:${seed} resolved, ${samples.PERSON.length + samples.ORG.length} pairs so far`);
}
console.error(`fitting${knee === undefined ? '' : ` with a knee at ${knee} records`}`);
const out = {};
const report = [];
for (const type of ['PERSON', 'ORG']) {
  const fit = fitCalibration(type, samples[type], knee === undefined ? {} : { knee });
  out[type] = fit.calibration;
  report.push(
    `${type} ${fit.samples} pairs (${fit.matches} matches), ${fit.iterations} iterations, log loss ${fit.logLoss.toFixed(4)} bits`,
  );
}
console.error(report.join('\n'));
writeFileSync(
  join(here, '../../services/entity-resolution/src/domain/calibration.default.ts'),
  `/**
 * The default calibration (\`calibration.ts\`): a logistic regression over the
 * comparison levels, fitted with the labels of generated records at medium
 * corruption (records:seed ${spec}${knee === undefined ? '' : `, knee ${knee}`}; the bench uses other seeds), resolved
 * with the EM model alone. Regenerate with
 * \`node bench/entity-resolution/fit-calibration.mjs ${spec}${knee === undefined ? '' : ` ${knee}`}\` after a build
 * (and after \`fit-model.mjs\`, whose term-frequency weights it reads).
 * Fit: ${report.join('; ')}.
 */
import type { Calibration } from './calibration.js';

export const DEFAULT_CALIBRATION: Calibration | undefined = ${JSON.stringify(out, null, 2)};
`,
);
