/**
 * One input line of `er resolve` and `er fit`: `{record_id, source,
 * entity_type: PERSON|ORG, name, aliases?, external_ids?: {ein?, fec_id?,
 * cik?}, city?, state?, employer?, title?, context?: string[], entity_id?}`
 * (`entity_id`: the true entity, a label `er fit` learns from and
 * `er resolve` ignores). A bad line is reported with its number and reason.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { canonicalIds } from '../domain/external-ids.js';
import type { ErRecord } from '../domain/record.js';

const lineSchema = z.strictObject({
  record_id: z.union([z.string().min(1).max(200), z.number()]).transform(String),
  source: z.string().max(200).optional(),
  entity_type: z.enum(['PERSON', 'ORG'], { message: 'entity_type must be PERSON or ORG' }),
  name: z.string().trim().min(1).max(500),
  aliases: z.array(z.string().max(500)).max(100).optional(),
  external_ids: z.record(z.string(), z.string()).optional(),
  city: z.string().max(200).optional(),
  state: z.string().max(100).optional(),
  employer: z.string().max(500).optional(),
  title: z.string().max(200).optional(),
  context: z.array(z.string().min(1).max(500)).max(200).optional(),
  entity_id: z.union([z.string().min(1).max(200), z.number()]).transform(String).optional(),
});

export type LineResult = { ok: true; record: ErRecord; label?: string } | { ok: false; line: number; reason: string };

export function parseLine(text: string, line: number): LineResult | undefined {
  if (!text.trim()) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, line, reason: 'not JSON' };
  }
  const parsed = lineSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, line, reason: `${issue.path.join('.') || '(line)'}: ${issue.message}` };
  }
  const v = parsed.data;
  const { ids, problems } = canonicalIds(v.external_ids);
  if (problems.length > 0)
    return { ok: false, line, reason: `external_ids.${problems[0]!.kind}: ${problems[0]!.reason}` };
  return {
    ok: true,
    ...(v.entity_id !== undefined ? { label: v.entity_id } : {}),
    record: {
      recordId: v.record_id,
      entityType: v.entity_type,
      name: v.name,
      externalIds: ids,
      ...(v.source ? { source: v.source } : {}),
      ...(v.aliases ? { aliases: v.aliases } : {}),
      ...(v.city ? { city: v.city } : {}),
      ...(v.state ? { state: v.state } : {}),
      ...(v.employer ? { employer: v.employer } : {}),
      ...(v.title ? { title: v.title } : {}),
      ...(v.context ? { context: v.context } : {}),
    },
  };
}

/**
 * Every good line of the JSONL file at `path`, in order, with the labels of
 * those carrying `entity_id`. Bad lines, and a record_id seen on an earlier
 * line, are passed to `onBadLine` with their number and skipped.
 */
export async function readRecordLines(
  path: string,
  onBadLine?: (line: number, reason: string) => void,
): Promise<{ records: ErRecord[]; labels: Map<string, string>; badLines: number }> {
  const input = createReadStream(path);
  await new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', reject);
  });
  const lines = createInterface({ input, crlfDelay: Infinity });
  const records: ErRecord[] = [];
  const labels = new Map<string, string>();
  const seen = new Set<string>();
  let n = 0;
  let bad = 0;
  for await (const text of lines) {
    n++;
    const parsed = parseLine(text, n);
    if (!parsed) continue;
    if (!parsed.ok) {
      bad++;
      onBadLine?.(parsed.line, parsed.reason);
      continue;
    }
    if (seen.has(parsed.record.recordId)) {
      bad++;
      onBadLine?.(n, `record_id ${JSON.stringify(parsed.record.recordId)} appeared on an earlier line`);
      continue;
    }
    seen.add(parsed.record.recordId);
    records.push(parsed.record);
    if (parsed.label !== undefined) labels.set(parsed.record.recordId, parsed.label);
  }
  return { records, labels, badLines: bad };
}
