// bench/entity-resolution/fit-model.mjs: fit the default scoring model by EM
// (no labels read) on generator records of a seed the bench does not use,
// and write it to services/entity-resolution/src/domain/model.default.ts.
//
//   node bench/entity-resolution/fit-model.mjs [records=60000] [seed=1]
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const { generateRecords, normaliseRecord, fitModel } = await import(
  join(here, '../../services/entity-resolution/dist/domain/index.js')
);
const n = Number(process.argv[2] ?? 60000);
const seed = Number(process.argv[3] ?? 1);
const records = [...generateRecords({ records: n, seed, corruption: 'medium' })].map(
  (r) => normaliseRecord(r).record,
);
const { model, report } = fitModel(records);
console.error(JSON.stringify(report));
const round = (x) => Number(x.toPrecision(4));
const table = (t) =>
  Object.fromEntries(
    Object.entries(t).map(([f, ls]) => [
      f,
      Object.fromEntries(Object.entries(ls).map(([l, v]) => [l, round(v)])),
    ]),
  );
const typeModel = (tm) => ({
  priorLog2Odds: round(tm.priorLog2Odds),
  population: tm.population,
  duplicates: round(tm.duplicates),
  m: table(tm.m),
  u: table(tm.u),
});
const body = { PERSON: typeModel(model.PERSON), ORG: typeModel(model.ORG), minTfU: model.minTfU };
writeFileSync(
  join(here, '../../services/entity-resolution/src/domain/model.default.ts'),
  `/**
 * The default scoring model: m / u per level and the prior, fitted by EM
 * without labels (\`fitModel\`) on ${n} generated records at medium corruption,
 * seed ${seed} (the bench uses other seeds). Regenerate with
 * \`node bench/entity-resolution/fit-model.mjs ${n} ${seed}\` after a build.
 * Fit: ${report.map((r) => `${r.entityType} ${r.blockedPairs} blocked pairs, lambda ${r.lambda.toFixed(4)}, ${r.iterations} iterations`).join('; ')}.
 */
import type { ScoringModel } from './scoring.js';

export const DEFAULT_FITTED_MODEL: ScoringModel = ${JSON.stringify(body, null, 2)};
`,
);
