#!/usr/bin/env node
/**
 * er resolve --in records.jsonl --out clusters.jsonl [--model model.json]
 *            [--auto-threshold 0.9] [--review-threshold 0.4]
 * er fit --in records.jsonl --out model.json
 *
 * Bulk resolution with the service's own pipeline (the in-memory Resolver
 * around the same resolveOne): one output line per good input line,
 * `{record_id, cluster_id, decided: "auto" | "review"}` ("review" when the
 * record's best match is in the review band and no later record bridged it
 * into that cluster; its cluster is then its own).
 * `er fit` fits the scoring model to the records (EM; the calibration too
 * when lines carry `entity_id` labels) and writes a model file for
 * ER_MODEL_FILE and `--model`.
 * Bad lines are reported on stderr with their number and skipped; progress
 * goes to stderr. Exit 0 when every line was good, 1 when some were skipped,
 * 2 on a usage error or a bad model file.
 */
import { readFile } from 'node:fs/promises';
import type { Thresholds } from '../domain/decision.js';
import { readModelFile } from '../domain/model-file.js';
import { fitFile } from './fit-file.js';
import { resolveFile } from './resolve-file.js';
import { parseThresholdFlags } from './thresholds.js';

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: er resolve --in <records.jsonl> --out <clusters.jsonl> [--model <model.json>] [--auto-threshold <p>] [--review-threshold <p>]\n       er fit --in <records.jsonl> --out <model.json>\n`);
  process.exit(2);
}

async function resolve(
  inPath: string,
  outPath: string,
  modelPath: string | undefined,
  thresholds: Thresholds,
): Promise<number> {
  const model = modelPath ? readModelFile(await readFile(modelPath, 'utf8'), modelPath).model : undefined;
  const summary = await resolveFile({
    inPath,
    outPath,
    thresholds,
    ...(model ? { model } : {}),
    onBadLine: (line, reason) => process.stderr.write(`line ${line}: ${reason} (skipped)\n`),
    onProgress: (done, total) => process.stderr.write(`\r${done}/${total} records resolved…`),
  });
  process.stderr.write(`\r${summary.records} records resolved, ${summary.badLines} bad line(s) skipped\n`);
  return summary.badLines > 0 ? 1 : 0;
}

async function fitCommand(inPath: string, outPath: string): Promise<number> {
  const summary = await fitFile({
    inPath,
    outPath,
    onBadLine: (line, reason) => process.stderr.write(`line ${line}: ${reason} (skipped)\n`),
    onStage: (stage) => process.stderr.write(`${stage}…\n`),
  });
  const per = (o: Record<string, string>) => Object.entries(o).map(([t, v]) => `${t} ${v}`).join(', ');
  process.stderr.write(
    `model written to ${outPath}: tables ${per(summary.fit.tables)}; calibration ${per(summary.fit.calibration)}; ${summary.records} records (${summary.labelled} labelled), ${summary.badLines} bad line(s) skipped, ${summary.seconds.toFixed(1)} s\n`,
  );
  return summary.badLines > 0 ? 1 : 0;
}

const [command, ...rest] = process.argv.slice(2);
if (command !== 'resolve' && command !== 'fit') usage(command ? `unknown command: ${command}` : 'no command');
const arg = (name: string): string | undefined => {
  const i = rest.indexOf(name);
  if (i < 0) return undefined;
  const value = rest[i + 1];
  return value === undefined || value.startsWith('--') ? usage(`${name} needs a value`) : value;
};
const inPath = arg('--in') ?? usage('--in is required');
const outPath = arg('--out') ?? usage('--out is required');
function thresholdsOf(): Thresholds {
  try {
    return parseThresholdFlags({ auto: arg('--auto-threshold'), review: arg('--review-threshold') });
  } catch (err) {
    return usage((err as Error).message);
  }
}
(command === 'fit' ? fitCommand(inPath, outPath) : resolve(inPath, outPath, arg('--model'), thresholdsOf())).then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`er ${command}: ${err.message}\n`);
    process.exit(2);
  },
);
