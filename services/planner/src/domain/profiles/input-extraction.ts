/**
 * Filling a playbook's `inputs` from the message (`extract_from: query`)
 * without a model, by fixed patterns — never a guess:
 *
 * - `date`: the first ISO date (2024-03-05), `March 5, 2024` / `Mar 5 2024`,
 *   or `5 March 2024`, as `YYYY-MM-DD`.
 * - `number`: the first number (`1,250.5` → 1250.5).
 * - `entity_name` / `string`: the first quoted name ("…", '…', “…”), else the
 *   first run of capitalised words (`the Omidyar Foundation`, `Koch Network`);
 *   `of`, `for`, `the`, `&` may join capitalised words (`and` separates names). The first word
 *   of a sentence counts only when the word after it is capitalised too and
 *   it is not a command or question word (`Investigate`, `Who`, …).
 * - `list`: every quoted name, else every capitalised run.
 *
 * Several inputs of one kind take the found values in order. A value given
 * explicitly wins; then the extracted one; then the input's `default`. An
 * input with `enum` takes only an allowed value. A required input still
 * missing becomes a `clarify` request naming it.
 */

export type InputType = 'string' | 'number' | 'date' | 'entity_name' | 'list';

export interface PlaybookInput {
  name: string;
  type: InputType;
  description?: string;
  required: boolean;
  default?: unknown;
  extractFrom?: 'query';
  enum?: readonly unknown[];
}

export interface ExtractedValue {
  name: string;
  value: unknown;
  source: 'provided' | 'query' | 'default';
  /** Which pattern found it (query values), or `model` when the chat model read it from the message. */
  rule?: 'iso_date' | 'month_day_year' | 'day_month_year' | 'number' | 'quoted' | 'capitalised' | 'model';
}

export interface ClarifyRequest {
  type: 'clarify';
  message: string;
  questions: Array<{ input: string; type: InputType; question: string }>;
}

export interface Extraction {
  values: Record<string, unknown>;
  extracted: ExtractedValue[];
  /** Present when a required input is missing: ask, do not run. */
  clarify?: ClarifyRequest;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|jun(?:e)?|jul(?:y)?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const ISO = /\b(\d{4})-(\d{2})-(\d{2})\b/g;
const MDY = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'gi');
const DMY = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+${MONTH},?\\s+(\\d{4})\\b`, 'gi');
const NUMBER = /(?<![\w.-])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w-])|(?<![\w.-])-?\d+(?:\.\d+)?(?![\w-])/g;
const QUOTED = /"([^"\n]{1,200})"|“([^”\n]{1,200})”|(?<![A-Za-z])'([^'\n]{1,200})'(?![A-Za-z])/g;
// `and` separates names (`Acme Corp and Beta Labs`); `&` joins them (`Bill & Melinda Gates Foundation`).
const JOINERS = new Set(['of', 'for', 'the', '&', 'de', 'la']);
/** Sentence-initial words that are never part of a name. */
const LEADING = new Set(['investigate', 'research', 'find', 'show', 'check', 'look', 'tell', 'list', 'get', 'compare', 'track', 'trace', 'map', 'analyze', 'analyse', 'search', 'who', 'what', 'when', 'where', 'which', 'why', 'how', 'is', 'are', 'does', 'do', 'did', 'can', 'please', 'give', 'pull', 'run', 'summarize', 'summarise', 'the', 'a', 'an', 'i', 'then', 'and', 'also', 'now', 'so', 'but', 'or', 'if', 'for', 'in', 'on', 'at', 'from', 'to', 'with', 'about', 'since', 'after', 'before']);

interface Found {
  value: unknown;
  rule: NonNullable<ExtractedValue['rule']>;
  at: number;
}

/**
 * Fills the inputs: given values win, then the message (`extract_from:
 * query`), then defaults; a required input still missing is a clarify
 * request. From the message: with `modelValues` (what the chat model read,
 * by input name) only those values are taken, each checked by
 * acceptModelValue — a value the model did not give or that fails the check
 * is missing, never made up; without, the fixed patterns.
 */
export function extractInputs(query: string, inputs: readonly PlaybookInput[], provided: Record<string, unknown> = {}, modelValues?: Record<string, unknown>): Extraction {
  const values: Record<string, unknown> = {};
  const extracted: ExtractedValue[] = [];
  const pools = new Map<string, Found[]>();
  const pool = (kind: 'date' | 'number' | 'name'): Found[] => {
    if (!pools.has(kind)) pools.set(kind, kind === 'date' ? findDates(query) : kind === 'number' ? findNumbers(query) : findNames(query));
    return pools.get(kind)!;
  };
  const missing: PlaybookInput[] = [];
  for (const input of inputs) {
    if (provided[input.name] !== undefined && provided[input.name] !== null && provided[input.name] !== '') {
      values[input.name] = provided[input.name];
      extracted.push({ name: input.name, value: provided[input.name], source: 'provided' });
      continue;
    }
    if (input.extractFrom === 'query' && modelValues) {
      const value = acceptModelValue(input, modelValues[input.name], query);
      if (value !== undefined) {
        values[input.name] = value;
        extracted.push({ name: input.name, value, source: 'query', rule: 'model' });
        continue;
      }
    } else if (input.extractFrom === 'query') {
      const hit = take(input, pool);
      if (hit) {
        values[input.name] = hit.value;
        extracted.push({ name: input.name, value: hit.value, source: 'query', rule: hit.rule });
        continue;
      }
    }
    if (input.default !== undefined) {
      values[input.name] = input.default;
      extracted.push({ name: input.name, value: input.default, source: 'default' });
      continue;
    }
    if (input.required) missing.push(input);
  }
  if (missing.length === 0) return { values, extracted };
  const questions = missing.map((i) => ({ input: i.name, type: i.type, question: questionFor(i) }));
  return { values, extracted, clarify: { type: 'clarify', message: questions.map((q) => q.question).join(' '), questions } };
}

/**
 * A value the model read from the message, checked against the input: a
 * date is a real date (as YYYY-MM-DD), a number a finite number, a name or
 * string one that occurs in the message (any case; so the model cannot
 * invent one), a list such names; an enum input only an allowed value, in
 * the enum's spelling. Anything else: undefined (missing).
 */
export function acceptModelValue(input: PlaybookInput, value: unknown, query: string): unknown {
  if (value === undefined || value === null || value === '') return undefined;
  const inQuery = (s: string) => s.trim().length > 0 && s.length <= 200 && query.toLowerCase().includes(s.trim().toLowerCase());
  const allowed = (v: unknown) => {
    if (!input.enum) return v;
    return input.enum.find((e) => e === v || (typeof e === 'string' && typeof v === 'string' && e.toLowerCase() === v.toLowerCase()));
  };
  switch (input.type) {
    case 'date': {
      if (typeof value !== 'string') return undefined;
      const [d] = findDates(value);
      return d ? allowed(d.value) : undefined;
    }
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' ? findNumbers(value)[0]?.value : undefined;
      return typeof n === 'number' && Number.isFinite(n) ? allowed(n) : undefined;
    }
    case 'list': {
      if (!Array.isArray(value)) return undefined;
      const items = value.filter((v): v is string => typeof v === 'string' && inQuery(v)).map((v) => allowed(v.trim())).filter((v) => v !== undefined);
      return items.length ? items : undefined;
    }
    default:
      return typeof value === 'string' && (input.enum || inQuery(value)) ? allowed(value.trim()) : undefined;
  }
}

function take(input: PlaybookInput, pool: (kind: 'date' | 'number' | 'name') => Found[]): Found | undefined {
  const allowed = (v: unknown) => !input.enum || input.enum.some((e) => e === v || (typeof e === 'string' && typeof v === 'string' && e.toLowerCase() === v.toLowerCase()));
  if (input.type === 'list') {
    const names = pool('name');
    const quoted = names.filter((f) => f.rule === 'quoted');
    const chosen = (quoted.length ? quoted : names).filter((f) => allowed(f.value));
    if (chosen.length === 0) return undefined;
    names.splice(0, names.length, ...names.filter((f) => !chosen.includes(f)));
    return { value: chosen.map((f) => f.value), rule: chosen[0]!.rule, at: chosen[0]!.at };
  }
  const found = pool(input.type === 'date' ? 'date' : input.type === 'number' ? 'number' : 'name');
  const index = found.findIndex((f) => allowed(f.value));
  if (index < 0) return undefined;
  const [hit] = found.splice(index, 1);
  if (input.type === 'entity_name' || input.type === 'string') {
    const enumValue = input.enum?.find((e) => typeof e === 'string' && e.toLowerCase() === String(hit!.value).toLowerCase());
    if (enumValue !== undefined) return { ...hit!, value: enumValue };
  }
  return hit;
}

function questionFor(i: PlaybookInput): string {
  const what = i.description?.trim() || i.name.replace(/_/g, ' ');
  const hint = i.type === 'date' ? ' (a date, e.g. 2024-03-05)' : i.type === 'number' ? ' (a number)' : i.type === 'list' ? ' (one or more, comma separated)' : '';
  const allowed = i.enum ? ` One of: ${i.enum.map(String).join(', ')}.` : '';
  return `Which ${what} should I use for '${i.name}'${hint}?${allowed}`;
}

export function findDates(text: string): Found[] {
  const out: Found[] = [];
  for (const m of text.matchAll(ISO)) {
    const d = isoDate(Number(m[1]), Number(m[2]), Number(m[3]));
    if (d) out.push({ value: d, rule: 'iso_date', at: m.index });
  }
  for (const m of text.matchAll(MDY)) {
    const d = isoDate(Number(m[3]), monthOf(m[1]!), Number(m[2]));
    if (d) out.push({ value: d, rule: 'month_day_year', at: m.index });
  }
  for (const m of text.matchAll(DMY)) {
    const d = isoDate(Number(m[3]), monthOf(m[2]!), Number(m[1]));
    if (d) out.push({ value: d, rule: 'day_month_year', at: m.index });
  }
  return out.sort((a, b) => a.at - b.at);
}

export function findNumbers(text: string): Found[] {
  // Digits inside a date are the date's, not numbers.
  const dateSpans = findDateSpans(text);
  const out: Found[] = [];
  for (const m of text.matchAll(NUMBER)) {
    if (dateSpans.some(([s, e]) => m.index >= s && m.index < e)) continue;
    out.push({ value: Number(m[0].replace(/,/g, '')), rule: 'number', at: m.index });
  }
  return out;
}

function findDateSpans(text: string): Array<[number, number]> {
  return [ISO, MDY, DMY].flatMap((re) => [...text.matchAll(re)].map((m): [number, number] => [m.index, m.index + m[0].length]));
}

export function findNames(text: string): Found[] {
  const quoted: Found[] = [];
  for (const m of text.matchAll(QUOTED)) {
    const v = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (v) quoted.push({ value: v, rule: 'quoted', at: m.index });
  }
  // Capitalised runs outside quotes and dates (a quoted name is not found twice; `March` of a date is no name).
  let masked = text.replace(QUOTED, (s) => ' '.repeat(s.length));
  for (const [s, e] of findDateSpans(masked)) masked = masked.slice(0, s) + ' '.repeat(e - s) + masked.slice(e);
  return [...quoted, ...capitalisedRuns(masked)].sort((a, b) => a.at - b.at);
}

function capitalisedRuns(text: string): Found[] {
  const tokens = [...text.matchAll(/[A-Za-z][A-Za-z0-9'’-]*(?:\.[A-Za-z][A-Za-z0-9'’-]*)*|&|[.!?;:,()"]/g)].map((m) => ({ word: m[0], at: m.index }));
  const out: Found[] = [];
  let run: typeof tokens = [];
  let sentenceStart = true;
  const flush = () => {
    while (run.length && JOINERS.has(run[run.length - 1]!.word.toLowerCase())) run.pop();
    if (run.length) out.push({ value: run.map((t) => t.word).join(' ').replace(/[.]$/, ''), rule: 'capitalised', at: run[0]!.at });
    run = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (/^[.!?;:,()"]$/.test(t.word)) {
      flush();
      if (/^[.!?]$/.test(t.word)) sentenceStart = true;
      continue;
    }
    const capital = /^[A-Z]/.test(t.word);
    if (capital) {
      const first = sentenceStart;
      sentenceStart = false;
      if (first && run.length === 0) {
        const next = tokens[i + 1];
        const nextCapital = next !== undefined && /^[A-Z]/.test(next.word);
        if (LEADING.has(t.word.toLowerCase()) || !nextCapital) continue;
      }
      run.push(t);
    } else if (run.length && JOINERS.has(t.word.toLowerCase()) && /^[A-Z&]/.test(tokens[i + 1]?.word ?? '')) {
      run.push(t);
    } else {
      sentenceStart = false;
      flush();
    }
  }
  flush();
  return out;
}

function monthOf(name: string): number {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return MONTHS.findIndex((m) => m.startsWith(lower.slice(0, 3))) + 1;
}

function isoDate(y: number, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1000 || y > 9999) return undefined;
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return undefined;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}
