/**
 * Finds the placeholders in SQL text and rewrites `:name` placeholders to the
 * `$n` form Postgres binds. Values are never put into the text: every
 * placeholder becomes a bound parameter.
 *
 * The scanner knows enough SQL lexing to leave alone what only looks like a
 * placeholder: string literals ('…', E'…' with backslash escapes), quoted
 * identifiers ("…"), dollar-quoted bodies ($tag$…$tag$), line and (nested)
 * block comments, `::` casts and `$` inside identifiers (`a$1`). A `:name`
 * must follow the colon directly, so array slices written `arr[1:2]` or
 * `arr[lo : hi]` are not placeholders (`arr[lo:hi]` would be: add spaces).
 */

export interface NamedPlaceholder {
  name: string;
  /** Offset of the `:`. */
  start: number;
  /** Offset just after the name. */
  end: number;
}

export interface SqlPlaceholders {
  named: NamedPlaceholder[];
  /** Distinct `$n` numbers, ascending. */
  positional: number[];
}

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;

/** Placeholders in `sql`, or why the text cannot be scanned (an unterminated literal or comment). */
export function scanSqlPlaceholders(sql: string): SqlPlaceholders | { problem: string } {
  const named: NamedPlaceholder[] = [];
  const positional = new Set<number>();
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i] as string;
    const next = sql[i + 1];
    if (c === "'") {
      const escapes = (sql[i - 1] === 'E' || sql[i - 1] === 'e') && !IDENT_PART.test(sql[i - 2] ?? ' ');
      const end = skipQuoted(sql, i, "'", escapes);
      if (end < 0) return { problem: 'has an unterminated string literal' };
      i = end;
    } else if (c === '"') {
      const end = skipQuoted(sql, i, '"', false);
      if (end < 0) return { problem: 'has an unterminated quoted identifier' };
      i = end;
    } else if (c === '-' && next === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === '/' && next === '*') {
      const end = skipBlockComment(sql, i);
      if (end < 0) return { problem: 'has an unterminated /* comment' };
      i = end;
    } else if (c === '$') {
      if (i > 0 && IDENT_PART.test(sql[i - 1] as string)) {
        i++; // part of an identifier such as a$b
      } else if (next !== undefined && /[0-9]/.test(next)) {
        let j = i + 1;
        while (j < n && /[0-9]/.test(sql[j] as string)) j++;
        positional.add(Number(sql.slice(i + 1, j)));
        i = j;
      } else {
        const tag = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/.exec(sql.slice(i, i + 64));
        if (!tag) {
          i++;
          continue;
        }
        const close = sql.indexOf(tag[0], i + tag[0].length);
        if (close < 0) return { problem: `has an unterminated dollar-quoted string ${tag[0]}` };
        i = close + tag[0].length;
      }
    } else if (c === ':') {
      if (next === ':') {
        i += 2; // cast
      } else if (next !== undefined && /[A-Za-z_]/.test(next) && sql[i - 1] !== ':') {
        let j = i + 1;
        while (j < n && /[A-Za-z0-9_]/.test(sql[j] as string)) j++;
        named.push({ name: sql.slice(i + 1, j), start: i, end: j });
        i = j;
      } else {
        i++;
      }
    } else if (IDENT_START.test(c)) {
      // Skip whole identifiers so a `$` or `'` inside one is not misread.
      let j = i + 1;
      while (j < n && IDENT_PART.test(sql[j] as string) && sql[j] !== '$') j++;
      i = j;
    } else {
      i++;
    }
  }
  return { named, positional: [...positional].sort((a, b) => a - b) };
}

/** `sql` with each `:name` replaced by `$k` (k by first appearance) and the names in `$` order. */
export function toPositionalSql(
  sql: string,
  named: readonly NamedPlaceholder[],
): { text: string; names: string[] } {
  const names: string[] = [];
  let text = '';
  let last = 0;
  for (const p of named) {
    let index = names.indexOf(p.name);
    if (index < 0) index = names.push(p.name) - 1;
    text += `${sql.slice(last, p.start)}$${index + 1}`;
    last = p.end;
  }
  return { text: text + sql.slice(last), names };
}

/** Index just past the closing quote; a doubled quote is an escaped one. -1 when unterminated. */
function skipQuoted(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (backslashEscapes && c === '\\') {
      i += 2;
    } else if (c === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i++;
    }
  }
  return -1;
}

/** Index just past the comment's end; Postgres block comments nest. -1 when unterminated. */
function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return -1;
}
