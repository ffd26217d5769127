/**
 * Tokeniser for condition text (playbook conditions, `executeIf` strings and
 * the Condition DSL share one grammar). Every failure is an
 * `ExprError('syntax_error')` with the offset and what was expected.
 */
import { ExprError } from '../expr-error.js';
import { clip, parsePath, type ParsedPath } from '../path.js';

export type TokenKind = 'num' | 'str' | 'path' | 'kw' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** Operator text, lower-cased keyword, string contents, number text or path text. */
  text: string;
  start: number;
  end: number;
  /** Parsed path for `path` tokens. */
  ref?: ParsedPath;
  /** Number value for `num` tokens. */
  num?: number;
  /** True when a `path` token was written without braces (it may then be a keyword or function name). */
  bare?: boolean;
}

/** Words that are keywords when written bare (case-insensitive). */
export const KEYWORDS = new Set(['and', 'or', 'not', 'is', 'defined', 'true', 'false', 'null', 'in']);

// Longest first so '===' wins over '=='.
const OPERATORS = [
  '===',
  '!==',
  '==',
  '!=',
  '<=',
  '>=',
  '&&',
  '||',
  '<',
  '>',
  '!',
  '(',
  ')',
  '[',
  ']',
  ',',
  '-',
];

function isIdentStart(c: string | undefined): boolean {
  return c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_' || c === '$');
}

function isIdentPart(c: string | undefined): boolean {
  return isIdentStart(c) || (c !== undefined && c >= '0' && c <= '9');
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

function syntax(message: string, position: number, expected: string): ExprError {
  return new ExprError('syntax_error', `${message} at ${position}: expected ${expected}`, {
    position,
    expected,
  });
}

/** Read a quoted string starting at `i` (the quote); returns the value and the end offset. */
function readString(src: string, i: number): { value: string; end: number } {
  const quote = src[i]!;
  let out = '';
  let k = i + 1;
  while (k < src.length) {
    const c = src[k]!;
    if (c === quote) return { value: out, end: k + 1 };
    if (c === '\\') {
      const e = src[k + 1];
      if (e === undefined) break;
      if (e === 'u') {
        const hex = src.slice(k + 2, k + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw syntax('Bad \\u escape', k, 'four hex digits');
        out += String.fromCharCode(parseInt(hex, 16));
        k += 6;
        continue;
      }
      out += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e === 'b' ? '\b' : e === 'f' ? '\f' : e;
      k += 2;
      continue;
    }
    out += c;
    k++;
  }
  throw syntax('Unterminated string', i, `a closing ${quote}`);
}

/** Skip a bracket segment `[...]` of a bare path, honouring quotes; returns the offset after `]`. */
function skipBracket(src: string, i: number): number {
  let k = i + 1;
  if (src[k] === '"' || src[k] === "'") k = readString(src, k).end;
  else while (k < src.length && src[k] !== ']') k++;
  if (src[k] !== ']') throw syntax('Unclosed [', i, "']'");
  return k + 1;
}

/** Split `src` into tokens; the last token is always `eof`. */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  const n = src.length;
  let i = 0;
  while (i < n) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (c === '{') {
      const double = src[i + 1] === '{';
      const close = double ? '}}' : '}';
      let k = i + (double ? 2 : 1);
      // Scan to the closing brace, skipping quoted keys that may contain braces.
      while (k < n && !src.startsWith(close, k)) {
        if (src[k] === '"' || src[k] === "'") k = readString(src, k).end;
        else k++;
      }
      if (k >= n) throw syntax(`Unclosed '${double ? '{{' : '{'}'`, i, `'${close}'`);
      let a = i + (double ? 2 : 1);
      let b = k;
      while (a < b && /\s/.test(src[a]!)) a++;
      while (b > a && /\s/.test(src[b - 1]!)) b--;
      const raw = src.slice(a, b);
      if (raw === '') throw syntax('Empty reference', a, 'a path');
      let ref: ParsedPath;
      try {
        ref = parsePath(raw, a);
      } catch (e) {
        const err = e as ExprError;
        if (err.code === 'reference_too_long') throw err;
        throw syntax(`Invalid reference '${clip(raw)}'`, err.position ?? a, err.expected ?? 'a path');
      }
      i = k + close.length;
      tokens.push({ kind: 'path', text: raw, start, end: i, ref });
      continue;
    }
    if (c === '"' || c === "'") {
      const { value, end } = readString(src, i);
      tokens.push({ kind: 'str', text: value, start, end });
      i = end;
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(src[i + 1]))) {
      while (isDigit(src[i])) i++;
      if (src[i] === '.' && isDigit(src[i + 1])) {
        i++;
        while (isDigit(src[i])) i++;
      }
      if (
        (src[i] === 'e' || src[i] === 'E') &&
        (isDigit(src[i + 1]) || ((src[i + 1] === '+' || src[i + 1] === '-') && isDigit(src[i + 2])))
      ) {
        i += 2;
        while (isDigit(src[i])) i++;
      }
      const text = src.slice(start, i);
      if (isIdentPart(src[i]))
        throw syntax(`Invalid number '${text}${src[i]}'`, i, 'an operator after a number');
      tokens.push({ kind: 'num', text, start, end: i, num: Number(text) });
      continue;
    }
    if (isIdentStart(c)) {
      while (isIdentPart(src[i])) i++;
      let segments = false;
      for (;;) {
        if (src[i] === '.' && (isIdentPart(src[i + 1]) || src[i + 1] === '*')) {
          i += 2;
          while (isIdentPart(src[i])) i++;
          segments = true;
        } else if (src[i] === '[' && /[-0-9*"']/.test(src[i + 1] ?? '')) {
          i = skipBracket(src, i);
          segments = true;
        } else break;
      }
      const text = src.slice(start, i);
      if (!segments && KEYWORDS.has(text.toLowerCase())) {
        tokens.push({ kind: 'kw', text: text.toLowerCase(), start, end: i });
        continue;
      }
      let ref: ParsedPath;
      try {
        ref = parsePath(text, start);
      } catch (e) {
        const err = e as ExprError;
        if (err.code === 'reference_too_long') throw err;
        throw syntax(`Invalid path '${clip(text)}'`, err.position ?? start, err.expected ?? 'a path');
      }
      tokens.push({ kind: 'path', text, start, end: i, ref, bare: !segments });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, i));
    if (op) {
      i += op.length;
      tokens.push({ kind: 'op', text: op, start, end: i });
      continue;
    }
    if (c === '=') throw syntax("Unexpected '='", i, "'==' (comparison)");
    if (c === '&' || c === '|') throw syntax(`Unexpected '${c}'`, i, `'${c}${c}'`);
    throw syntax(`Unexpected character '${c}'`, i, 'an operand or operator');
  }
  tokens.push({ kind: 'eof', text: '', start: n, end: n });
  return tokens;
}
