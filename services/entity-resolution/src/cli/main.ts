#!/usr/bin/env node
/**
 * er resolve --in records.jsonl --out clusters.jsonl
 *
 * Bulk resolution with the service's own pipeline (the in-memory Resolver
 * around the same resolveOne): one output line per good input line,
 * `{record_id, cluster_id, decided: "auto" | "review"}` ("review" when the
 * record's best match is in the review band; its cluster is then its own).
 * Bad lines are reported on stderr with their number and skipped; progress
 * goes to stderr. Exit 0 when every line was good, 1 when some were skipped,
 * 2 on a usage error.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { normaliseRecord } from '../domain/normalise.js';
import { Resolver } from '../domain/resolver.js';
import { parseLine } from './record-line.js';

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: er resolve --in <records.jsonl> --out <clusters.jsonl>\n`);
  process.exit(2);
}

async function resolve(inPath: string, outPath: string): Promise<number> {
  const resolver = new Resolver();
  const out = createWriteStream(outPath);
  const lines = createInterface({ input: createReadStream(inPath), crlfDelay: Infinity });
  const decided = new Map<string, 'auto' | 'review'>();
  let n = 0;
  let bad = 0;
  let last = Date.now();
  for await (const text of lines) {
    n++;
    const parsed = parseLine(text, n);
    if (!parsed) continue;
    if (!parsed.ok) {
      bad++;
      process.stderr.write(`line ${parsed.line}: ${parsed.reason} (skipped)\n`);
      continue;
    }
    const res = resolver.add(normaliseRecord(parsed.record).record);
    decided.set(res.recordId, res.decision === 'flag_review' ? 'review' : 'auto');
    if (Date.now() - last > 1000) {
      last = Date.now();
      process.stderr.write(`\r${resolver.size} records resolved…`);
    }
  }
  // Clusters are final only at the end: a later record may join an earlier one's cluster.
  for (const c of resolver.clusters()) {
    out.write(
      `${JSON.stringify({ record_id: c.recordId, cluster_id: c.clusterId, decided: decided.get(c.recordId) ?? 'auto' })}\n`,
    );
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  process.stderr.write(`\r${resolver.size} records resolved, ${bad} bad line(s) skipped\n`);
  return bad > 0 ? 1 : 0;
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
