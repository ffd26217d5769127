/**
 * A one-pass check of a raw JSON request body, before anything parses or
 * walks it: NUL characters (`\u0000`, which PostgreSQL text and jsonb refuse,
 * so they used to surface as 500s) in any string or key, and nesting deeper
 * than a limit (2,000 levels used to overflow recursive code further in).
 *
 * It never recurses: containers are tracked on an explicit stack, so a body
 * nested 100,000 deep costs one linear scan. Syntax is not checked here
 * (JSON.parse does that next); the scan only has to be right for valid JSON
 * and must not throw or loop on anything else.
 */

/** Default deepest nesting of objects/arrays accepted in a request body. */
export const DEFAULT_JSON_MAX_DEPTH = 64;

/** What is wrong with a body: the field (JSON path) and why. */
export interface JsonGuardProblem {
  field: string;
  reason: string;
  code: 'nul_character' | 'too_deep';
}

interface Frame {
  array: boolean;
  /** Array: index of the current element. Object: the current key. */
  index: number;
  key: string | undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const IDENT = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const MAX_PATH = 200;

/** `inputs.rows[3]["a b"]` from the stack (clipped for messages). */
function pathOf(stack: readonly Frame[], extraKey?: string): string {
  let out = '';
  const add = (key: string) => {
    const k = key.length > 64 ? `${key.slice(0, 64)}…` : key;
    out += IDENT.test(k) ? (out ? `.${k}` : k) : `[${JSON.stringify(k)}]`;
  };
  for (const f of stack) {
    if (out.length > MAX_PATH) return `${out.slice(0, MAX_PATH)}…`;
    if (f.array) out += `[${f.index}]`;
    else if (f.key !== undefined) add(f.key);
  }
  if (extraKey !== undefined) add(extraKey);
  return out.length > MAX_PATH ? `${out.slice(0, MAX_PATH)}…` : out || '(body)';
}

/** True when `\u0000` starts at `at` (just after a backslash). */
function isNulEscape(buf: Uint8Array, at: number): boolean {
  // u 0 0 0 0
  return buf[at] === 0x75 && buf[at + 1] === 0x30 && buf[at + 2] === 0x30 && buf[at + 3] === 0x30 && buf[at + 4] === 0x30;
}

function decodeKey(buf: Uint8Array, start: number, end: number, escaped: boolean): string {
  const raw = Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8');
  if (!escaped) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/** The first problem of a raw JSON body, or undefined when it has none. */
export function checkJsonBody(buf: Uint8Array, maxDepth = DEFAULT_JSON_MAX_DEPTH): JsonGuardProblem | undefined {
  const stack: Frame[] = [];
  let expectKey = false;
  const n = buf.length;
  for (let i = 0; i < n; i++) {
    const c = buf[i]!;
    if (c === QUOTE) {
      const start = i + 1;
      let j = start;
      let escaped = false;
      let nul = false;
      while (j < n && buf[j] !== QUOTE) {
        if (buf[j] === BACKSLASH) {
          escaped = true;
          if (isNulEscape(buf, j + 1)) nul = true;
          j += 2;
        } else {
          if (buf[j] === 0) nul = true;
          j++;
        }
      }
      const top = stack[stack.length - 1];
      if (top && !top.array && expectKey) {
        const key = decodeKey(buf, start, Math.min(j, n), escaped);
        if (nul) return { field: pathOf(stack, key.replace(/\0/g, '\\u0000')), reason: 'the key contains a NUL character (\\u0000)', code: 'nul_character' };
        top.key = key;
        expectKey = false;
      } else if (nul) {
        return { field: pathOf(stack), reason: 'contains a NUL character (\\u0000)', code: 'nul_character' };
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      // { or [
      if (stack.length >= maxDepth) {
        return { field: pathOf(stack), reason: `nests deeper than ${maxDepth} levels of objects and arrays`, code: 'too_deep' };
      }
      stack.push({ array: c === 0x5b, index: 0, key: undefined });
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      // ,
      const top = stack[stack.length - 1];
      if (top?.array) top.index++;
      else if (top) expectKey = true;
    } else if (c === 0) {
      return { field: pathOf(stack), reason: 'contains a NUL character', code: 'nul_character' };
    }
  }
  return undefined;
}

/** A NUL in a URL path or query (decoded or `%00`): the query parameter's name, or `(path)`. */
export function checkUrl(url: string): JsonGuardProblem | undefined {
  if (!/%00|\0/i.test(url)) return undefined;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  if (/%00|\0/i.test(path)) return { field: '(path)', reason: 'contains a NUL character (%00)', code: 'nul_character' };
  for (const part of url.slice(q + 1).split('&')) {
    if (!/%00|\0/i.test(part)) continue;
    const name = part.split('=')[0] ?? '';
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      // keep the raw name
    }
    return { field: decoded && !/\0/.test(decoded) ? decoded.slice(0, 100) : '(query)', reason: 'contains a NUL character (%00)', code: 'nul_character' };
  }
  return { field: '(query)', reason: 'contains a NUL character (%00)', code: 'nul_character' };
}
