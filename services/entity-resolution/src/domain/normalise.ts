/**
 * Name normalisation: a raw PERSON or ORG name becomes a canonical string
 * plus the parts the scorer compares (first / middle / last for people,
 * core tokens and legal-form class for organisations).
 */
import { canonicalIds, type IdProblem } from './external-ids.js';
import { LEGAL_FORMS, NICKNAMES, ORG_ABBREVIATIONS, PERSON_SUFFIXES, PERSON_TITLES } from './lexicon.js';
import type { ErRecord, ExternalIds, ResolvableType } from './record.js';
import { fold, tokens } from './text.js';

export interface PersonName {
  first: string;
  middle: string;
  last: string;
  canonical: string;
}

export interface OrgName {
  core: string;
  legalForm: string;
  canonical: string;
}

/** `Last, First M.`, titles and suffixes, nicknames → formal first name. */
export function normalisePerson(raw: string): PersonName {
  // "Smith, John" means last-name first; the comma is lost by folding, so look first.
  const comma = raw.indexOf(',');
  let parts: string[];
  if (comma > 0) {
    const last = tokens(fold(raw.slice(0, comma))).filter((t) => !PERSON_SUFFIXES.has(t));
    const rest = tokens(fold(raw.slice(comma + 1)));
    parts = [...rest, ...last];
  } else {
    parts = tokens(fold(raw));
  }
  parts = parts.filter((t) => !PERSON_TITLES.has(t) && !PERSON_SUFFIXES.has(t));
  if (parts.length === 0) return { first: '', middle: '', last: '', canonical: '' };
  const rawFirst = parts[0]!;
  if (parts.length === 1) return { first: '', middle: '', last: rawFirst, canonical: rawFirst };
  const first = NICKNAMES[rawFirst] ?? rawFirst;
  const last = parts[parts.length - 1]!;
  const middle = parts
    .slice(1, -1)
    .map((m) => m.charAt(0))
    .join('');
  return { first, middle, last, canonical: `${first} ${last}` };
}

/** Abbreviations expanded, a leading "the" dropped, trailing legal forms split off into a class. */
export function normaliseOrg(raw: string): OrgName {
  let words = tokens(fold(raw)).flatMap((t) => (ORG_ABBREVIATIONS[t] ?? t).split(' '));
  if (words[0] === 'the' && words.length > 1) words = words.slice(1);
  let legalForm = '';
  // Peel legal forms off the end ("Acme Holdings Co Inc" → core "acme holdings", class corporation).
  for (let changed = true; changed && words.length > 1;) {
    changed = false;
    const tail = words.join(' ');
    for (const [form, cls] of LEGAL_FORMS) {
      if ((tail === form || tail.endsWith(` ${form}`)) && words.length > form.split(' ').length) {
        words = words.slice(0, words.length - form.split(' ').length);
        legalForm ||= cls;
        changed = true;
        break;
      }
    }
  }
  const core = words.join(' ');
  return { core, legalForm, canonical: legalForm ? `${core} ${legalForm}` : core };
}

/** What the blocker and scorer read: everything folded once. */
export interface NormalisedRecord {
  recordId: string;
  entityType: ResolvableType;
  name: string;
  canonical: string;
  /** Tokens of the name without legal form (ORG) or first + last (PERSON). */
  tokens: string[];
  person?: PersonName;
  org?: OrgName;
  ids: ExternalIds;
  city: string;
  state: string;
  employer: string;
  title: string;
  source: string;
  /** Folded, de-duplicated context items (absent when the record has none). */
  context?: string[];
}

export function normaliseRecord(rec: ErRecord): { record: NormalisedRecord; problems: IdProblem[] } {
  const { ids, problems } = canonicalIds(rec.externalIds as Record<string, unknown> | undefined);
  const base = {
    recordId: rec.recordId,
    entityType: rec.entityType,
    name: rec.name,
    ids,
    city: fold(rec.city ?? ''),
    state: fold(rec.state ?? ''),
    employer: rec.employer ? normaliseOrg(rec.employer).core : '',
    title: fold(rec.title ?? ''),
    source: rec.source ?? '',
    ...(rec.context && rec.context.length > 0 ? { context: normaliseContext(rec.context) } : {}),
  };
  if (rec.entityType === 'PERSON') {
    const person = normalisePerson(rec.name);
    return {
      record: { ...base, canonical: person.canonical, tokens: tokens(person.canonical), person },
      problems,
    };
  }
  const org = normaliseOrg(rec.name);
  return { record: { ...base, canonical: org.canonical, tokens: tokens(org.core), org }, problems };
}

/** Context items folded (case, accents, punctuation) and de-duplicated, at most 200 kept. */
export function normaliseContext(items: readonly string[]): string[] {
  const out = new Set<string>();
  for (const item of items) {
    const f = fold(item);
    if (f) out.add(f);
    if (out.size >= 200) break;
  }
  return [...out].sort();
}
