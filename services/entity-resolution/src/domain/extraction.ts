/**
 * Rule-based entity extraction from records. With connector hints
 * (`entity_extraction: [{field, entity_type, relationship_type}]`) the named
 * fields are read; without, fields are classified by name (`*_name`,
 * `employer`, `committee`, `organization`, ...) and string values by their
 * shape (a legal form means ORG). Free text (`text` / `content` / string
 * records) yields capitalised name phrases.
 */
import { LEGAL_FORMS } from './lexicon.js';
import { fold } from './text.js';

export interface ExtractionHint {
  field: string;
  entity_type: string;
  relationship_type?: string;
}

export interface ExtractedEntity {
  name: string;
  type: string;
  source_field: string;
  source_record_index: number;
  confidence: number;
  relationship_type?: string;
}

const ORG_FIELD =
  /(org|organi[sz]ation|company|employer|committee|corp|foundation|nonprofit|agency|recipient_org|filer|issuer)/i;
const PERSON_FIELD =
  /(person|officer|donor|contributor|candidate|director|trustee|author|owner|full_name|first_last|contact)/i;
const TEXT_FIELD = /^(text|content|body|description|summary|snippet)$/i;
const LEGAL_WORDS = new Set(LEGAL_FORMS.flatMap(([form]) => form.split(' ')).filter((w) => w.length > 1));

/** ORG when the name ends in a legal form or org word, else PERSON. */
export function guessType(name: string): 'PERSON' | 'ORG' {
  const words = fold(name).split(' ');
  const last = words[words.length - 1] ?? '';
  if (
    LEGAL_WORDS.has(last) ||
    /(association|institute|committee|university|council|society|alliance|partners|group|holdings|bank|church|party)$/.test(
      last,
    )
  )
    return 'ORG';
  return 'PERSON';
}

/** Capitalised multi-word phrases of free text, each typed by `guessType`. */
export function namesInText(text: string): string[] {
  const out = new Set<string>();
  const re = /\b([A-Z][a-zA-Z'’.-]+(?:\s+(?:of|for|and|&|the)?\s*[A-Z][a-zA-Z'’.-]+)+)/g;
  for (const m of text.matchAll(re)) {
    const phrase = (m[1] ?? '').replace(/\s+/g, ' ').replace(/[.,]$/, '').trim();
    if (phrase.split(' ').length >= 2 && phrase.split(' ').length <= 8) out.add(phrase);
  }
  return [...out];
}

export function extractEntities(
  data: readonly unknown[],
  opts: {
    hints?: readonly ExtractionHint[];
    entityTypes?: readonly string[];
    relationshipType?: string;
    /** false: leave free text (string records, text fields, `auto` hints) out — a model reads it (freeTexts). */
    freeText?: boolean;
  } = {},
): ExtractedEntity[] {
  const freeText = opts.freeText ?? true;
  const wanted =
    opts.entityTypes && opts.entityTypes.length > 0 && !opts.entityTypes.includes('auto')
      ? new Set(opts.entityTypes)
      : undefined;
  const out: ExtractedEntity[] = [];
  const push = (e: ExtractedEntity) => {
    if (!e.name.trim() || (wanted && !wanted.has(e.type))) return;
    out.push({
      ...e,
      ...(opts.relationshipType && !e.relationship_type ? { relationship_type: opts.relationshipType } : {}),
    });
  };
  data.forEach((record, index) => {
    if (typeof record === 'string') {
      if (!freeText) return;
      for (const name of namesInText(record))
        push({ name, type: guessType(name), source_field: '', source_record_index: index, confidence: 0.6 });
      return;
    }
    if (record === null || typeof record !== 'object') return;
    const rec = record as Record<string, unknown>;
    if (opts.hints && opts.hints.length > 0) {
      for (const h of opts.hints) {
        if (h.entity_type === 'auto') {
          const text = valueAt(rec, h.field);
          if (freeText && typeof text === 'string')
            for (const name of namesInText(text))
              push({
                name,
                type: guessType(name),
                source_field: h.field,
                source_record_index: index,
                confidence: 0.6,
              });
          continue;
        }
        const v = valueAt(rec, h.field);
        for (const name of Array.isArray(v) ? v : [v]) {
          if (typeof name === 'string' && name.trim())
            push({
              name: name.trim(),
              type: h.entity_type,
              source_field: h.field,
              source_record_index: index,
              confidence: 0.95,
              ...(h.relationship_type ? { relationship_type: h.relationship_type } : {}),
            });
        }
      }
      return;
    }
    for (const [field, v] of Object.entries(rec)) {
      if (typeof v !== 'string' || !v.trim()) continue;
      if (TEXT_FIELD.test(field)) {
        if (!freeText) continue;
        for (const name of namesInText(v))
          push({
            name,
            type: guessType(name),
            source_field: field,
            source_record_index: index,
            confidence: 0.6,
          });
      } else if (ORG_FIELD.test(field))
        push({
          name: v.trim(),
          type: 'ORG',
          source_field: field,
          source_record_index: index,
          confidence: 0.85,
        });
      else if (PERSON_FIELD.test(field) || /(^|_)name$/i.test(field))
        push({
          name: v.trim(),
          type: guessType(v),
          source_field: field,
          source_record_index: index,
          confidence: 0.8,
        });
    }
  });
  return out;
}

/** The free texts of `data` that a model may read: string records, text fields (or, with hints, `auto` fields). */
export function freeTexts(
  data: readonly unknown[],
  hints: readonly ExtractionHint[] = [],
): Array<{ index: number; field: string; text: string }> {
  const out: Array<{ index: number; field: string; text: string }> = [];
  data.forEach((record, index) => {
    if (typeof record === 'string') {
      if (record.trim()) out.push({ index, field: '', text: record });
      return;
    }
    if (record === null || typeof record !== 'object') return;
    const rec = record as Record<string, unknown>;
    const fields =
      hints.length > 0
        ? hints.filter((h) => h.entity_type === 'auto').map((h) => h.field)
        : Object.keys(rec).filter((f) => TEXT_FIELD.test(f));
    for (const field of fields) {
      const v = valueAt(rec, field);
      if (typeof v === 'string' && v.trim()) out.push({ index, field, text: v });
    }
  });
  return out;
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
