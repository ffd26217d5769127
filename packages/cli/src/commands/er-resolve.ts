/**
 * `af er resolve --in records.jsonl --out clusters.jsonl [--model model.json]
 *   [--auto-threshold 0.9] [--review-threshold 0.4]`:
 * bulk entity resolution with the entity-resolution service's own pipeline
 * (the same code, imported from the service package). A progress bar on
 * stderr, bad lines reported as `line N: reason (skipped)`; exit 0 when every
 * line was good, 1 when some were skipped.
 * `af er fit --in records.jsonl --out model.json`: the scoring model fitted to
 * the records (their `entity_id` labels, when present, fit the calibration),
 * for the service's ER_MODEL_FILE and `--model`.
 */
import { readFile } from 'node:fs/promises';
import type { CliIo } from '../io.js';
import { CliError } from '../io.js';
import { repoOnly } from './repo-only.js';

/** `[#####-----] 50% 500/1000` for a stderr progress line. */
export function progressBar(done: number, total: number, width = 30): string {
  const share = total === 0 ? 1 : Math.min(1, done / total);
  const full = Math.round(share * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${Math.floor(share * 100)}% ${done}/${total}`;
}

/** ENOENT / EISDIR of `flag`'s file as a CliError naming it; other errors as they are. */
function fileError(flag: string, path: string, err: unknown): unknown {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return new CliError(`${flag} ${path}: no such file`);
  if (e.code === 'EISDIR') return new CliError(`${flag} ${path}: is a directory`);
  return err;
}

export async function erResolve(
  opts: { in: string; out: string; model?: string; autoThreshold?: string; reviewThreshold?: string },
  io: CliIo,
  /** Writes without a newline (the progress bar redraws itself); defaults to stderr. */
  redraw: (text: string) => void = (t) => void process.stderr.write(t),
): Promise<number> {
  const { resolveFile, readModelFile, parseThresholdFlags } = await repoOnly(
    () => import('@af/entity-resolution/batch'),
    '@af/entity-resolution',
  );
  let thresholds;
  try {
    thresholds = parseThresholdFlags({ auto: opts.autoThreshold, review: opts.reviewThreshold });
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  let model;
  if (opts.model) {
    let text: string;
    try {
      text = await readFile(opts.model, 'utf8');
    } catch (err) {
      throw fileError('--model', opts.model, err);
    }
    try {
      model = readModelFile(text, `--model ${opts.model}`).model;
    } catch (err) {
      throw new CliError((err as Error).message);
    }
  }
  let summary;
  try {
    summary = await resolveFile({
      inPath: opts.in,
      outPath: opts.out,
      thresholds,
      ...(model ? { model } : {}),
      onBadLine: (line, reason) => io.err(`line ${line}: ${reason} (skipped)`),
      onProgress: (done, total) => redraw(`\r${progressBar(done, total)}`),
    });
  } catch (err) {
    throw fileError('--in', opts.in, err);
  }
  redraw('\n');
  io.err(
    `${summary.records} records → ${summary.clusters} clusters (${summary.review} sent to review), ${summary.badLines} bad line(s) skipped, ${summary.seconds.toFixed(1)} s`,
  );
  return summary.badLines > 0 ? 1 : 0;
}

export async function erFit(opts: { in: string; out: string }, io: CliIo): Promise<number> {
  const { fitFile } = await repoOnly(() => import('@af/entity-resolution/batch'), '@af/entity-resolution');
  let summary;
  try {
    summary = await fitFile({
      inPath: opts.in,
      outPath: opts.out,
      onBadLine: (line, reason) => io.err(`line ${line}: ${reason} (skipped)`),
      onStage: (stage) => io.err(`${stage}…`),
    });
  } catch (err) {
    throw fileError('--in', opts.in, err);
  }
  const per = (o: Record<string, string>) => Object.entries(o).map(([t, v]) => `${t} ${v}`).join(', ');
  io.err(
    `model written to ${opts.out}: tables ${per(summary.fit.tables)}; calibration ${per(summary.fit.calibration)}; ${summary.records} records (${summary.labelled} labelled), ${summary.badLines} bad line(s) skipped, ${summary.seconds.toFixed(1)} s`,
  );
  return summary.badLines > 0 ? 1 : 0;
}
