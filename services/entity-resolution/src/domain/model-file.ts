/**
 * A deployment's own scoring model as a JSON file (`er fit` writes it; the
 * service reads it from ER_MODEL_FILE, `er resolve --model` from the flag):
 * the m / u tables and prior fitted by EM on the deployment's records, and the
 * calibration fitted with its labels (or the default calibration when the
 * records carried none). Read back it is checked field by field, so a
 * hand-edited or truncated file fails naming the field and the reason instead
 * of scoring with NaN.
 */
import { z } from 'zod';
import { FEATURE_LEVELS } from './levels.js';
import type { ScoringModel } from './scoring.js';
import type { ResolvableType } from './record.js';

export const MODEL_FILE_FORMAT = 'af-er-model';
export const MODEL_FILE_VERSION = 1;

/** What a model file says of its fit (for people reading it; not used to score). */
export interface ModelFileFit {
  fitted_at: string;
  /** Records of each type the EM fit read. */
  records: Partial<Record<ResolvableType, number>>;
  /** Per type: `labels` (the calibration was fitted with the input's entity_id labels) or `default` (the shipped calibration). */
  calibration: Partial<Record<ResolvableType, 'labels' | 'default'>>;
  /** Per type: `em` (fitted on the input) or `default` (too few records of the type: the shipped tables). */
  tables: Partial<Record<ResolvableType, 'em' | 'default'>>;
}

export interface ModelFile {
  format: typeof MODEL_FILE_FORMAT;
  version: typeof MODEL_FILE_VERSION;
  fit: ModelFileFit;
  model: ScoringModel;
}

const finite = z.number().refine(Number.isFinite, 'must be a finite number');
const probability = z.number().gt(0, 'must be a probability above 0').lte(1, 'must be a probability of at most 1');

/** Feature → level → value, with the features and levels of `type` only (a typo would silently score 0). */
function levelTable(type: ResolvableType, value: z.ZodType<number>, extraLevels: readonly string[] = []) {
  const features = FEATURE_LEVELS[type];
  return z.record(z.string(), z.record(z.string(), value)).superRefine((table, ctx) => {
    for (const [feature, levels] of Object.entries(table)) {
      const known = features[feature];
      if (!known) {
        ctx.addIssue({ code: 'custom', path: [feature], message: `is not a feature of ${type} records (one of ${Object.keys(features).join(', ')})` });
        continue;
      }
      for (const level of Object.keys(levels))
        if (!known.includes(level) && !extraLevels.includes(level))
          ctx.addIssue({ code: 'custom', path: [feature, level], message: `is not a level of ${feature} (one of ${[...known, ...extraLevels].join(', ')})` });
    }
  });
}

const typeModel = (type: ResolvableType) =>
  z.strictObject({
    priorLog2Odds: finite,
    population: z.number().int().positive(),
    duplicates: z.number().nonnegative().optional(),
    m: levelTable(type, probability),
    u: levelTable(type, probability),
    uClose: levelTable(type, probability).optional(),
  });

const typeCalibration = (type: ResolvableType) =>
  z.strictObject({
    bias: finite,
    tf: finite,
    tfFuzzy: finite.optional(),
    population: finite,
    populationKnee: z.strictObject({ records: z.number().positive(), coefficient: finite }).optional(),
    levels: levelTable(type, finite, ['missing']),
    cross: z.record(z.string(), z.record(z.string(), finite)),
    tfDifferentState: finite,
  });

const scoringModel = z.strictObject({
  PERSON: typeModel('PERSON'),
  ORG: typeModel('ORG'),
  minTfU: probability,
  calibration: z.strictObject({ PERSON: typeCalibration('PERSON').optional(), ORG: typeCalibration('ORG').optional() }).optional(),
});

const modelFile = z.strictObject({
  format: z.literal(MODEL_FILE_FORMAT, { error: `must be "${MODEL_FILE_FORMAT}" (a file written by er fit)` }),
  version: z.literal(MODEL_FILE_VERSION, { error: `must be ${MODEL_FILE_VERSION} (this version reads model files of version ${MODEL_FILE_VERSION})` }),
  fit: z.object({}).passthrough(),
  model: scoringModel,
});

/** The model of a parsed model file, or the first problem as `{ field, reason }` (field as a dotted path). */
export function parseModelFile(json: unknown): { ok: true; file: ModelFile } | { ok: false; field: string; reason: string } {
  const r = modelFile.safeParse(json);
  if (r.success) return { ok: true, file: r.data as unknown as ModelFile };
  const issue = r.error.issues[0]!;
  return { ok: false, field: issue.path.map(String).join('.') || '(file)', reason: issue.message };
}

/** Reads a model file's text: the model, or throws an Error naming `source`, the field and the reason. */
export function readModelFile(text: string, source: string): ModelFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON (${(err as Error).message})`);
  }
  const parsed = parseModelFile(json);
  if (!parsed.ok) throw new Error(`${source}: ${parsed.field}: ${parsed.reason}`);
  return parsed.file;
}
