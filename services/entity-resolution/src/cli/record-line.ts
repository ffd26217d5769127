/**
 * One input line of `er resolve`: `{record_id, source, entity_type: PERSON|ORG,
 * name, aliases?, external_ids?: {ein?, fec_id?, cik?}, city?, state?,
 * employer?, title?, context?: string[]}`. A bad line is reported with its number and reason.
 */
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
});

export type LineResult = { ok: true; record: ErRecord } | { ok: false; line: number; reason: string };

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
