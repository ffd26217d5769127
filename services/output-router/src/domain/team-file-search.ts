/**
 * Ranking documents of a team's shared folders for `search_team_files`: each
 * query term found in the title counts 3, each occurrence in the text 1
 * (capped per term, so one long document does not drown the rest); the
 * snippet is the text around the first match. Pure.
 */

export interface SearchableFile {
  title: string;
  /** The document's text; undefined for binary documents (their title only is searched). */
  text?: string;
}

export interface FileHit {
  score: number;
  snippet: string;
}

const MAX_COUNT_PER_TERM = 20;
const SNIPPET_CHARS = 200;

/** Lower-case terms of a query (words of letters and digits). */
export function queryTerms(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])];
}

/** The file's score and snippet for `terms`, or undefined when no term matches. */
export function scoreFile(file: SearchableFile, terms: readonly string[]): FileHit | undefined {
  if (!terms.length) return undefined;
  const title = file.title.toLowerCase();
  const text = file.text?.toLowerCase() ?? '';
  let score = 0;
  let first = -1;
  for (const term of terms) {
    if (title.includes(term)) score += 3;
    let at = text.indexOf(term);
    if (at >= 0 && (first < 0 || at < first)) first = at;
    for (let n = 0; at >= 0 && n < MAX_COUNT_PER_TERM; n++) {
      score += 1;
      at = text.indexOf(term, at + term.length);
    }
  }
  if (score === 0) return undefined;
  return { score, snippet: snippetAt(file.text ?? '', first) };
}

function snippetAt(text: string, at: number): string {
  if (!text) return '';
  const start = at < 0 ? 0 : Math.max(0, at - SNIPPET_CHARS / 4);
  const piece = text.slice(start, start + SNIPPET_CHARS).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${piece}${start + SNIPPET_CHARS < text.length ? '…' : ''}`;
}
