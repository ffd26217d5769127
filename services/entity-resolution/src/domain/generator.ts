/**
 * Seeded generator of labelled PERSON / ORG records shaped like IRS 990,
 * FEC, OpenCorporates and SEC data, for tests and the bench. Every record
 * carries the id of the true entity it was drawn from (`entityId`). The
 * corruption is FEBRL-style: one-letter typos, nicknames, initials,
 * "Last, First", titles and suffixes, legal-form and abbreviation variants,
 * id formatting / loss / (rarely) a wrong digit, attribute drift; and hard
 * negatives: namesakes in other places and sibling organisations that share
 * a core name under another legal form and EIN.
 */
import { NICKNAMES_OF } from './lexicon.js';
import {
  CITIES,
  COMMON_SURNAMES,
  FIRST_NAMES,
  ORG_WORDS_A,
  ORG_WORDS_B,
  ORG_WORDS_C,
  SYLLABLES,
  TITLES,
  US_STATES,
} from './names.data.js';
import type { ErRecord, ExternalIds } from './record.js';

export type Corruption = 'low' | 'medium' | 'high';
export interface LabelledRecord extends ErRecord {
  entityId: string;
}
export interface GeneratorOptions {
  records: number;
  seed: number;
  corruption?: Corruption;
  /** Share of organisations among entities (default 0.4). */
  orgShare?: number;
}

/** mulberry32: small, fast, good enough for test data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const RATES: Record<Corruption, number> = { low: 0.5, medium: 1, high: 1.8 };
const FORM_SPELLINGS: Record<string, string[]> = {
  corporation: ['Inc', 'Inc.', 'Incorporated', 'Corp', 'Corporation'],
  llc: ['LLC', 'L.L.C.', 'Limited Liability Company'],
  foundation: ['Foundation', 'Fdn'],
  fund: ['Fund'],
  pac: ['PAC', 'Political Action Committee'],
  trust: ['Trust'],
};
const FORMS = Object.keys(FORM_SPELLINGS);
const ABBREV: Record<string, string> = {
  international: 'Intl',
  national: 'Natl',
  association: 'Assn',
  center: 'Ctr',
  institute: 'Inst',
  services: 'Svcs',
};

interface PersonEntity {
  kind: 'PERSON';
  first: string;
  middle: string;
  last: string;
  state: string;
  city: string;
  employer: string;
  title: string;
  ids: ExternalIds;
}
interface OrgEntity {
  kind: 'ORG';
  core: string;
  form: string;
  state: string;
  city: string;
  ids: ExternalIds;
}
type Entity = PersonEntity | OrgEntity;

export function* generateRecords(opts: GeneratorOptions): Generator<LabelledRecord> {
  const r = rng(opts.seed);
  const k = RATES[opts.corruption ?? 'medium'];
  const p = (x: number) => r() < Math.min(0.95, x * k);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 10)).join('');
  const cap = (s: string) => s.replace(/\b[a-z]/g, (c) => c.toUpperCase());
  const surname = () =>
    r() < 0.3
      ? pick(COMMON_SURNAMES)
      : Array.from({ length: 2 + Math.floor(r() * 2) }, () => pick(SYLLABLES)).join('');
  // Common town names plus made-up ones, so a shared city is evidence, as it is in real filings.
  const city = () =>
    r() < 0.3 ? pick(CITIES) : `${pick(SYLLABLES)}${pick(['ville', 'ton', 'burg', 'field', 'port', 'dale'])}`;
  // Distinct organisations need distinct names at 1M records: half the leading words are made-up place names.
  const place = () =>
    r() < 0.5
      ? pick(ORG_WORDS_A)
      : `${pick(SYLLABLES)}${pick(SYLLABLES)}${pick(['wood', 'field', 'brook', 'ridge', 'vale'])}`;
  const orgCore = () =>
    r() < 0.3
      ? `${surname()} family`
      : `${place()} ${pick(ORG_WORDS_B)} ${pick(ORG_WORDS_C)}${r() < 0.3 ? ` ${surname()}` : ''}`;

  const typo = (s: string): string => {
    if (s.length < 4) return s;
    const i = 1 + Math.floor(r() * (s.length - 2));
    const c = String.fromCharCode(97 + Math.floor(r() * 26));
    switch (Math.floor(r() * 4)) {
      case 0:
        return s.slice(0, i) + c + s.slice(i + 1);
      case 1:
        return s.slice(0, i) + c + s.slice(i);
      case 2:
        return s.slice(0, i) + s.slice(i + 1);
      default:
        return s.slice(0, i - 1) + s.charAt(i) + s.charAt(i - 1) + s.slice(i + 1);
    }
  };

  // Distinct entities get distinct names unless they are deliberate namesakes / siblings.
  const usedNames = new Set<string>();
  const unique = (make: () => string): string => {
    let name = make();
    for (let i = 0; i < 20 && usedNames.has(name); i++) name = make();
    usedNames.add(name);
    return name;
  };
  const newPerson = (namesake?: PersonEntity): PersonEntity => {
    const [first, middle, last] = namesake
      ? [namesake.first, namesake.middle, namesake.last]
      : unique(() =>
          [
            pick(FIRST_NAMES),
            r() < 0.6 ? String.fromCharCode(97 + Math.floor(r() * 26)) : '',
            surname(),
          ].join('|'),
        ).split('|');
    return {
      kind: 'PERSON',
      first: first!,
      middle: middle!,
      last: last!,
      // A namesake lives elsewhere: same name, other state.
      state: namesake ? pick(US_STATES.filter((s) => s !== namesake.state)) : pick(US_STATES),
      city: city(),
      employer: cap(orgCore()),
      title: pick(TITLES),
      ids: r() < 0.05 ? { fec_id: `${pick(['H', 'S', 'P'])}${digits(1)}${pick(US_STATES)}${digits(5)}` } : {},
    };
  };
  const newOrg = (sibling?: OrgEntity): OrgEntity => {
    const form = sibling ? pick(FORMS.filter((f) => f !== sibling.form)) : pick(FORMS);
    const ids: ExternalIds = {};
    if (form === 'pac') ids.fec_id = `C${digits(8)}`;
    else ids.ein = `${digits(2)}-${digits(7)}`;
    if (form === 'corporation' && r() < 0.5) ids.cik = digits(7);
    return {
      kind: 'ORG',
      core: sibling?.core ?? unique(orgCore),
      form,
      state: sibling?.state ?? pick(US_STATES),
      city: city(),
      ids,
    };
  };

  const idVariant = (kind: string, v: string): string | undefined => {
    if (!p(0.4)) return undefined;
    // A wrong digit is rare but real (keying errors); everything else is formatting.
    if (r() < 0.01 * k) return v.replace(/\d(?=\d*$)/, (d) => String((Number(d) + 1) % 10));
    if (kind === 'ein' && r() < 0.5) return v.replace('-', '');
    if (kind === 'cik' && r() < 0.5) return v.padStart(10, '0');
    if (kind === 'fec_id' && r() < 0.3) return v.toLowerCase();
    return v;
  };

  const personRecord = (e: PersonEntity): Omit<ErRecord, 'recordId'> => {
    let first = e.first;
    const nicks = NICKNAMES_OF[first];
    if (nicks && p(0.15)) first = pick(nicks);
    let last = e.last;
    if (p(0.15)) last = typo(last);
    if (p(0.08)) first = typo(first);
    const middle = e.middle && !p(0.3) ? `${e.middle.toUpperCase()}.` : '';
    const firstOut = p(0.06) ? `${first.slice(0, 1).toUpperCase()}.` : cap(first);
    let name = p(0.3)
      ? `${cap(last)}, ${firstOut}${middle ? ` ${middle}` : ''}`
      : [firstOut, middle, cap(last)].filter(Boolean).join(' ');
    if (p(0.08)) name = `${pick(['Mr.', 'Dr.', 'Ms.', 'Hon.'])} ${name}`;
    if (p(0.04)) name = `${name} ${pick(['Jr.', 'Sr.', 'III', 'PhD'])}`;
    if (p(0.1)) name = name.toUpperCase();
    const ids: ExternalIds = {};
    for (const [kind, v] of Object.entries(e.ids)) {
      const out = idVariant(kind, v);
      if (out) ids[kind as keyof ExternalIds] = out;
    }
    return {
      source: pick(['fec', 'irs990', 'opencorporates']),
      entityType: 'PERSON',
      name,
      externalIds: ids,
      state: p(0.05) ? pick(US_STATES) : e.state,
      ...(p(0.2) ? {} : { city: p(0.12) ? city() : cap(e.city) }),
      ...(p(0.35) ? {} : { employer: p(0.1) ? cap(orgCore()) : e.employer }),
      ...(p(0.4) ? {} : { title: p(0.3) ? pick(TITLES) : e.title }),
    };
  };

  const orgRecord = (e: OrgEntity): Omit<ErRecord, 'recordId'> => {
    let words = e.core.split(' ').map((w) => (ABBREV[w] && p(0.2) ? ABBREV[w] : cap(w)));
    if (p(0.15)) {
      const i = Math.floor(r() * words.length);
      words[i] = typo(words[i]!);
    }
    if (p(0.08)) words = ['The', ...words];
    const form = p(0.2) ? '' : pick(FORM_SPELLINGS[e.form] ?? ['']);
    let name = [...words, form].filter(Boolean).join(' ');
    if (p(0.15)) name = name.toUpperCase();
    if (p(0.05)) name = name.replace(/ /, ', ');
    const ids: ExternalIds = {};
    for (const [kind, v] of Object.entries(e.ids)) {
      const out = idVariant(kind, v);
      if (out) ids[kind as keyof ExternalIds] = out;
    }
    return {
      source: pick(['irs990', 'fec', 'opencorporates', 'sec']),
      entityType: 'ORG',
      name,
      externalIds: ids,
      ...(p(0.1) ? {} : { state: p(0.04) ? pick(US_STATES) : e.state }),
      ...(p(0.3) ? {} : { city: p(0.1) ? city() : cap(e.city) }),
    };
  };

  // Records are drawn entity by entity and shuffled through a window, so duplicates are not adjacent.
  const window: LabelledRecord[] = [];
  const recent: Entity[] = [];
  const take = (): LabelledRecord => {
    const i = Math.floor(r() * window.length);
    const rec = window[i]!;
    window[i] = window[window.length - 1]!;
    window.pop();
    return rec;
  };
  let produced = 0;
  let entityNo = 0;
  while (produced < opts.records) {
    let entity: Entity;
    const prev = recent.length > 0 ? pick(recent) : undefined;
    // Hard negatives: namesakes of people with common surnames (elsewhere), sibling organisations of any name.
    if (prev && r() < 0.04 && (prev.kind === 'ORG' || COMMON_SURNAMES.includes(prev.last)))
      entity = prev.kind === 'PERSON' ? newPerson(prev) : newOrg(prev);
    else entity = r() < (opts.orgShare ?? 0.4) ? newOrg() : newPerson();
    recent.push(entity);
    if (recent.length > 200) recent.shift();
    const entityId = `e${++entityNo}`;
    const u = r();
    const size = u < 0.5 ? 1 : u < 0.75 ? 2 : u < 0.88 ? 3 : 4 + Math.floor(r() * 3);
    for (let i = 0; i < size && produced < opts.records; i++) {
      const body = entity.kind === 'PERSON' ? personRecord(entity) : orgRecord(entity);
      window.push({ recordId: `r${++produced}`, entityId, ...body });
    }
    while (window.length > 5000) {
      yield take();
    }
  }
  while (window.length > 0) {
    yield take();
  }
}
