/**
 * Connector records → records to resolve, for `enrich_knowledge` (a
 * playbook's `output.auto_enrich_graph`). Each record is read through the
 * endpoint's `entity_extraction` hints: the first hinted PERSON or ORG value
 * without a `relationship_type` is the record's subject; every hinted value
 * with one is related to the subject by it (`contributor_employer` ORG
 * WORKS_FOR → subject WORKS_FOR employer). The subject also takes the
 * record's `city`, `state`, `employer`, `title` and external ids (`ein`,
 * `fec_id`, `cik`) when it has such fields. Without hints, fields are
 * classified by name (extraction.ts), as seed §10 falls back to basic
 * extraction. What cannot be resolved (another entity type, a malformed id,
 * a record that is not an object) is reported, never dropped silently.
 */
import { extractEntities, guessType, namesInText, type ExtractionHint } from './extraction.js';
import { canonicalId } from './external-ids.js';
import { ENTITY_TYPES, ID_KINDS, type ErRecord, type ExternalIds, type ResolvableType } from './record.js';

export interface EnrichRecord extends ErRecord {
  recordIndex: number;
  confidence: number;
  relationships?: Array<{ type: string; target: EnrichRecord; properties: Record<string, unknown> }>;
}

export interface Skipped {
  record_index: number;
  field: string;
  value: string;
  reason: string;
}

const ATTRIBUTES = ['city', 'state', 'employer', 'title'] as const;
const resolvable = (t: string): t is ResolvableType => (ENTITY_TYPES as readonly string[]).includes(t);

interface Found {
  name: string;
  type: string;
  field: string;
  relationshipType?: string;
  confidence: number;
}

/** The records to resolve from `data`, and what was left out with the reason. */
export function enrichmentRecords(
  data: readonly unknown[],
  hints: readonly ExtractionHint[],
  source: string,
): { records: EnrichRecord[]; skipped: Skipped[] } {
  const records: EnrichRecord[] = [];
  const skipped: Skipped[] = [];
  data.forEach((raw, index) => {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      skipped.push({ record_index: index, field: '', value: '', reason: 'the record is not an object' });
      return;
    }
    const rec = raw as Record<string, unknown>;
    const found = hints.length > 0 ? hinted(rec, hints) : unhinted(rec);
    const make = (f: Found): EnrichRecord | undefined => {
      if (!resolvable(f.type)) {
        skipped.push({
          record_index: index,
          field: f.field,
          value: f.name,
          reason: `${f.type} entities are not resolved (only PERSON and ORG are)`,
        });
        return undefined;
      }
      return {
        recordId: `${index}:${f.field}`,
        recordIndex: index,
        entityType: f.type,
        name: f.name,
        confidence: f.confidence,
        ...(source ? { source } : {}),
      };
    };
    let subject: EnrichRecord | undefined;
    const loose: EnrichRecord[] = [];
    for (const f of found.filter((x) => !x.relationshipType)) {
      const r = make(f);
      if (!r) continue;
      if (subject) loose.push(r);
      else subject = withAttributes(r, rec, index, skipped);
    }
    for (const f of found.filter((x) => x.relationshipType)) {
      const r = make(f);
      if (!r) continue;
      if (!subject) {
        loose.push(r);
        continue;
      }
      (subject.relationships ??= []).push({
        type: f.relationshipType!,
        target: r,
        properties: { source_field: f.field, source_record_index: index },
      });
    }
    if (subject) records.push(subject);
    records.push(...loose);
  });
  return { records, skipped };
}

function hinted(rec: Record<string, unknown>, hints: readonly ExtractionHint[]): Found[] {
  const out: Found[] = [];
  for (const h of hints) {
    const v = valueAt(rec, h.field);
    for (const value of Array.isArray(v) ? v : [v]) {
      if (typeof value !== 'string' || !value.trim()) continue;
      const names =
        h.entity_type === 'auto'
          ? namesInText(value).map((name) => ({ name, type: guessType(name), confidence: 0.6 }))
          : [{ name: value.trim(), type: h.entity_type, confidence: 0.95 }];
      for (const n of names)
        out.push({
          ...n,
          field: h.field,
          ...(h.relationship_type ? { relationshipType: h.relationship_type } : {}),
        });
    }
  }
  return out;
}

function unhinted(rec: Record<string, unknown>): Found[] {
  return extractEntities([rec]).map((e) => ({
    name: e.name,
    type: e.type,
    field: e.source_field,
    confidence: e.confidence,
  }));
}

/** The record's own attributes and ids describe its subject; a malformed id is reported and left out. */
function withAttributes(
  r: EnrichRecord,
  rec: Record<string, unknown>,
  index: number,
  skipped: Skipped[],
): EnrichRecord {
  for (const a of ATTRIBUTES) {
    const v = rec[a];
    if (typeof v === 'string' && v.trim()) r[a] = v.trim();
  }
  const ids: ExternalIds = {};
  for (const kind of ID_KINDS) {
    const v = rec[kind];
    if ((typeof v !== 'string' && typeof v !== 'number') || String(v).trim() === '') continue;
    const parsed = canonicalId(kind, String(v));
    if (parsed.ok) ids[kind] = parsed.value;
    else skipped.push({ record_index: index, field: kind, value: String(v), reason: parsed.reason });
  }
  if (Object.keys(ids).length > 0) r.externalIds = ids;
  return r;
}

/** `a.b.c` on plain objects. */
function valueAt(rec: Record<string, unknown>, path: string): unknown {
  let at: unknown = rec;
  for (const part of path.split('.')) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}
