/**
 * `er fit --in records.jsonl --out model.json`: fits the scoring model to a
 * deployment's own records (fit-deployment.ts) and writes it as a model file
 * (model-file.ts) for ER_MODEL_FILE and `er resolve --model`. Lines are the
 * input lines of `er resolve`; those carrying `entity_id` (which records are
 * one entity) are the labels the calibration is fitted with. Bad lines are
 * reported with their number and skipped.
 */
import { writeFile } from 'node:fs/promises';
import { fitDeploymentModel, MIN_EM_RECORDS, MIN_CALIBRATION_PAIRS, type DeploymentFit } from '../domain/fit-deployment.js';
import { MODEL_FILE_FORMAT, MODEL_FILE_VERSION, type ModelFile } from '../domain/model-file.js';
import { normaliseRecord } from '../domain/normalise.js';
import { readRecordLines } from './record-line.js';

export interface FitFileOptions {
  inPath: string;
  outPath: string;
  onBadLine?: (line: number, reason: string) => void;
  /** Called as the fit moves on (reading, EM, calibration), for a progress line. */
  onStage?: (stage: string) => void;
}

export interface FitFileSummary {
  records: number;
  labelled: number;
  badLines: number;
  fit: DeploymentFit['fit'];
  em: DeploymentFit['em'];
  calibration: DeploymentFit['calibration'];
  seconds: number;
}

export async function fitFile(opts: FitFileOptions): Promise<FitFileSummary> {
  const t0 = Date.now();
  opts.onStage?.('reading');
  const { records, labels, badLines } = await readRecordLines(opts.inPath, opts.onBadLine);
  if (records.length === 0) throw new Error(`${opts.inPath}: no good record to fit on`);
  opts.onStage?.(`fitting m / u by EM on ${records.length} records (types with fewer than ${MIN_EM_RECORDS} keep the default tables)`);
  const normalised = records.map((r) => normaliseRecord(r).record);
  const fitted = fitDeploymentModel(normalised, labels.size > 0 ? (id) => labels.get(id) : undefined);
  if (labels.size > 0) {
    const per = Object.entries(fitted.fit.calibration).map(([type, how]) => `${type} ${how === 'labels' ? 'fitted' : 'shipped'}`).join(', ');
    opts.onStage?.(`calibration from ${labels.size} labelled records: ${per} (a type with fewer than ${MIN_CALIBRATION_PAIRS} matching or non-matching labelled pairs keeps the shipped one)`);
  }
  const file: ModelFile = { format: MODEL_FILE_FORMAT, version: MODEL_FILE_VERSION, fit: fitted.fit, model: fitted.model };
  await writeFile(opts.outPath, `${JSON.stringify(file, null, 2)}\n`);
  return { records: records.length, labelled: labels.size, badLines, fit: fitted.fit, em: fitted.em, calibration: fitted.calibration, seconds: (Date.now() - t0) / 1000 };
}
