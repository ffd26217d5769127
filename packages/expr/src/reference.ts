/**
 * Finding references in templates and in JSON-like values.
 *
 * Rule for what counts as a reference (everything else is literal text):
 *   - `{{ path }}` (double form): `{{` always opens a reference; it must be
 *     closed by `}}` and the trimmed content must be a valid path, otherwise
 *     `ExprError` (`unbalanced_braces` / `invalid_reference`).
 *   - `{path}` (single form): `{` immediately followed by a run of path
 *     characters (`A-Z a-z 0-9 _ $ - . [ ] *`) that ends at `}`, whose root
 *     contains a letter, `_` or `$`. Such a run must parse as a path
 *     (`{a..b}` is an error). A run that reaches the end of the template is
 *     `unbalanced_braces`. Anything else — `{"a": 1}`, `{ spaced }`, `{0}`,
 *     `{name: string}` — is literal text.
 */
import { ExprError } from './expr-error.js';
import { isNameChar, parsePath, type PathSegment } from './path.js';

/** One reference found in a template. */
export interface Reference {
  /** Text inside the braces (trimmed), e.g. `step.results[0].name`. */
  raw: string;
  root: string;
  path: PathSegment[];
  /** Offset of the opening brace in the template. */
  start: number;
  /** Offset just past the closing brace(s). */
  end: number;
  /** `{x}` or `{{x}}`. */
  form: 'single' | 'double';
}

/** A reference plus where it sits inside a structured value. */
export type LocatedReference = Reference & { location: string };

function isRunChar(c: string | undefined): boolean {
  return isNameChar(c) || c === '.' || c === '[' || c === ']' || c === '*';
}

/** A root like `0` or `12` is a positional placeholder, not a name. */
function rootHasNameChar(run: string): boolean {
  for (let k = 0; k < run.length; k++) {
    const c = run[k]!;
    if (c === '.' || c === '[') return false;
    if ((c < '0' || c > '9') && c !== '-') return true;
  }
  return false;
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/**
 * All references in `template`, in order. Throws `ExprError` on a malformed
 * reference (see the module comment for the exact rule).
 */
export function extractReferences(template: string): Reference[] {
  const refs: Reference[] = [];
  const n = template.length;
  let i = 0;
  while (i < n) {
    const j = template.indexOf('{', i);
    if (j < 0) break;
    if (template[j + 1] === '{') {
      const close = template.indexOf('}}', j + 2);
      if (close < 0) {
        throw new ExprError('unbalanced_braces', `Unclosed '{{' at ${j}: expected '}}'`, {
          position: j,
          expected: "'}}'",
        });
      }
      let a = j + 2;
      let b = close;
      while (a < b && isSpace(template[a])) a++;
      while (b > a && isSpace(template[b - 1])) b--;
      const raw = template.slice(a, b);
      if (raw.length === 0) {
        throw new ExprError('invalid_reference', `Empty reference '{{}}' at ${j}: expected a path`, {
          position: a,
          expected: 'a path',
          reference: raw,
        });
      }
      const { root, path } = parsePath(raw, a);
      refs.push({ raw, root, path, start: j, end: close + 2, form: 'double' });
      i = close + 2;
      continue;
    }
    let k = j + 1;
    while (k < n && isRunChar(template[k])) k++;
    const run = template.slice(j + 1, k);
    const nameLike = isNameChar(template[j + 1]) && rootHasNameChar(run);
    if (nameLike && k >= n) {
      throw new ExprError('unbalanced_braces', `Unclosed '{' at ${j}: expected '}'`, {
        position: j,
        expected: "'}'",
      });
    }
    if (nameLike && template[k] === '}') {
      const { root, path } = parsePath(run, j + 1);
      refs.push({ raw: run, root, path, start: j, end: k + 1, form: 'single' });
      i = k + 1;
    } else {
      i = j + 1;
    }
  }
  return refs;
}

const IDENT_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childLocation(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (IDENT_KEY.test(key)) return parent ? `${parent}.${key}` : key;
  return `${parent}[${JSON.stringify(key)}]`;
}

/** True for `{}`-style objects (not Dates, Maps, class instances). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * References in every string of a JSON-like value (objects and arrays are
 * walked; keys are not templates). `location` names where the string sits,
 * e.g. `query` or `filters[0].v`; a top-level string has location `''`.
 * Errors carry that location in `ExprError.path`.
 */
export function collectReferences(value: unknown): LocatedReference[] {
  const out: LocatedReference[] = [];
  const visit = (v: unknown, location: string): void => {
    if (typeof v === 'string') {
      let refs: Reference[];
      try {
        refs = extractReferences(v);
      } catch (e) {
        if (e instanceof ExprError && location) {
          throw new ExprError(e.code, `${location}: ${e.message}`, {
            position: e.position,
            expected: e.expected,
            reference: e.reference,
            path: location,
          });
        }
        throw e;
      }
      for (const r of refs) out.push({ ...r, location });
    } else if (Array.isArray(v)) {
      v.forEach((item, idx) => visit(item, childLocation(location, idx)));
    } else if (isPlainObject(v)) {
      for (const key of Object.keys(v)) visit(v[key], childLocation(location, key));
    }
  };
  visit(value, '');
  return out;
}
