/**
 * Query analysis: what a question says about where to look, turned into
 * filters, and the text left to search. Dates (a year, "March 2024",
 * "2024-03-05", "Q2 2023") filter documents by the years they mention; doc
 * types ("in the spreadsheet", "pdf") filter by format; quoted phrases and
 * file names ("budget.xlsx") filter by title. Capitalised names are reported
 * (they weigh in the lexical search as they are) but filter nothing, since a
 * person named in a question need not be in a title.
 */
import type { DocumentFormat } from './parsed.js';

export interface QueryFilters {
  /** Years the document must mention (any of them). */
  years?: number[];
  formats?: DocumentFormat[];
  /** Phrases the document's title must contain (any of them, case-insensitive). */
  titles?: string[];
}

export interface QueryAnalysis {
  /** The text to search, with filter-only words removed. */
  text: string;
  filters: QueryFilters;
  /** Capitalised names the question mentions. */
  names: string[];
  /** Dates as written. */
  dates: string[];
}

const TYPE_WORDS: Array<[RegExp, DocumentFormat[]]> = [
  [/\b(?:in|from|within)\s+(?:the|a|my|our)?\s*(?:spreadsheets?|excel|xlsx|workbooks?|sheets?)\b/gi, ['xlsx', 'csv']],
  [/\b(?:in|from|within)\s+(?:the|a|my|our)?\s*csv(?:\s+files?)?\b/gi, ['csv']],
  [/\b(?:in|from|within)\s+(?:the|a|my|our)?\s*pdfs?(?:\s+files?)?\b/gi, ['pdf']],
  [/\b(?:in|from|within)\s+(?:the|a|my|our)?\s*(?:word\s+(?:documents?|files?)|docx(?:\s+files?)?)\b/gi, ['docx']],
  [/\b(?:in|from|within)\s+(?:the|a|my|our)?\s*(?:markdown|md)(?:\s+(?:notes?|files?))?\b/gi, ['markdown']],
  [/\b(?:in|from|within)\s+(?:the|a|my|our)?\s*(?:web\s*pages?|html(?:\s+files?)?)\b/gi, ['html']],
];

const MONTHS = 'january|february|march|april|may|june|july|august|september|october|november|december';
const DATE_RE = new RegExp(
  `\\b(?:(\\d{4})-(\\d{2})(?:-(\\d{2}))?|(?:${MONTHS})\\s+(\\d{4})|q[1-4]\\s+(\\d{4})|(?:in|from|during|of|since|for)\\s+((?:19|20)\\d{2}))\\b`,
  'gi',
);
const FILE_RE = /\b[\w-]+\.(?:pdf|docx|xlsx|csv|md|txt|html?)\b/gi;
const QUOTED_RE = /"([^"]{2,80})"|“([^”]{2,80})”/g;
const NAME_RE = /(?<![.!?]\s|^)\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b/g;

export function analyseQuery(query: string): QueryAnalysis {
  let text = query;
  const filters: QueryFilters = {};
  const formats = new Set<DocumentFormat>();
  for (const [re, fmts] of TYPE_WORDS) {
    if (re.test(text)) {
      fmts.forEach((f) => formats.add(f));
      text = text.replace(re, ' ');
    }
    re.lastIndex = 0;
  }
  if (formats.size) filters.formats = [...formats];

  const years = new Set<number>();
  const dates: string[] = [];
  for (const m of query.matchAll(DATE_RE)) {
    const y = Number(m[1] ?? m[4] ?? m[5] ?? m[6]);
    if (y >= 1900 && y <= 2100) {
      years.add(y);
      dates.push(m[0].replace(/^(?:in|from|during|of|since|for)\s+/i, ''));
    }
  }
  if (years.size) filters.years = [...years].sort();

  const titles = new Set<string>();
  for (const m of query.matchAll(QUOTED_RE)) titles.add((m[1] ?? m[2])!.trim());
  for (const m of query.matchAll(FILE_RE)) titles.add(m[0]);
  if (titles.size) filters.titles = [...titles];
  // A file name is a filter, not words to find inside the file.
  text = text.replace(FILE_RE, ' ');

  const names = [...new Set([...query.matchAll(NAME_RE)].map((m) => m[1]!))];
  return { text: text.replace(/\s+/g, ' ').trim() || query.trim(), filters, names, dates };
}

/** Years a text mentions (for the document-level year filter). */
export function yearsIn(text: string): number[] {
  const ys = new Set<number>();
  for (const m of text.matchAll(/\b(19[5-9]\d|20\d{2})\b/g)) ys.add(Number(m[1]));
  return [...ys].sort();
}
