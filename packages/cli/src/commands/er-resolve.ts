/**
 * `af er resolve --in records.jsonl --out clusters.jsonl`: bulk entity
 * resolution with the entity-resolution service's own pipeline (the same
 * code, imported from the service package). A progress bar on stderr, bad
 * lines reported as `line N: reason (skipped)`; exit 0 when every line was
 * good, 1 when some were skipped.
 */
import type { CliIo } from '../io.js';
import { CliError } from '../io.js';
import { repoOnly } from './repo-only.js';

/** `[#####-----] 50% 500/1000` for a stderr progress line. */
export function progressBar(done: number, total: number, width = 30): string {
  const share = total === 0 ? 1 : Math.min(1, done / total);
  const full = Math.round(share * width);
  return `[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${Math.floor(share * 100)}% ${done}/${total}`;
}

export async function erResolve(
  opts: { in: string; out: string },
  io: CliIo,
  /** Writes without a newline (the progress bar redraws itself); defaults to stderr. */
  redraw: (text: string) => void = (t) => void process.stderr.write(t),
): Promise<number> {
  const { resolveFile } = await repoOnly(() => import('@af/entity-resolution/batch'), '@af/entity-resolution');
  let summary;
  try {
    summary = await resolveFile({
      inPath: opts.in,
      outPath: opts.out,
      onBadLine: (line, reason) => io.err(`line ${line}: ${reason} (skipped)`),
      onProgress: (done, total) => redraw(`\r${progressBar(done, total)}`),
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') throw new CliError(`--in ${opts.in}: no such file`);
    if (e.code === 'EISDIR') throw new CliError(`--in ${opts.in}: is a directory`);
    throw err;
  }
  redraw('\n');
  io.err(
    `${summary.records} records → ${summary.clusters} clusters (${summary.review} sent to review), ${summary.badLines} bad line(s) skipped, ${summary.seconds.toFixed(1)} s`,
  );
  return summary.badLines > 0 ? 1 : 0;
}
