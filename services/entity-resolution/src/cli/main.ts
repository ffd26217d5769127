#!/usr/bin/env node
/**
 * er resolve --in records.jsonl --out clusters.jsonl
 *
 * Bulk resolution with the service's own pipeline (the in-memory Resolver
 * around the same resolveOne): one output line per good input line,
 * `{record_id, cluster_id, decided: "auto" | "review"}` ("review" when the
 * record's best match is in the review band and no later record bridged it
 * into that cluster; its cluster is then its own).
 * Bad lines are reported on stderr with their number and skipped; progress
 * goes to stderr. Exit 0 when every line was good, 1 when some were skipped,
 * 2 on a usage error.
 */
import { resolveFile } from './resolve-file.js';

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: er resolve --in <records.jsonl> --out <clusters.jsonl>\n`);
  process.exit(2);
}

async function resolve(inPath: string, outPath: string): Promise<number> {
  const summary = await resolveFile({
    inPath,
    outPath,
    onBadLine: (line, reason) => process.stderr.write(`line ${line}: ${reason} (skipped)\n`),
    onProgress: (done, total) => process.stderr.write(`\r${done}/${total} records resolved…`),
  });
  process.stderr.write(`\r${summary.records} records resolved, ${summary.badLines} bad line(s) skipped\n`);
  return summary.badLines > 0 ? 1 : 0;
}

const [command, ...rest] = process.argv.slice(2);
if (command !== 'resolve') usage(command ? `unknown command: ${command}` : 'no command');
const arg = (name: string) => {
  const i = rest.indexOf(name);
  return i >= 0 ? rest[i + 1] : undefined;
};
const inPath = arg('--in') ?? usage('--in is required');
const outPath = arg('--out') ?? usage('--out is required');
resolve(inPath, outPath).then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`er resolve: ${err.message}\n`);
    process.exit(2);
  },
);
