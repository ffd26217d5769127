/**
 * YAML text → plain value, with a document that gives every issue a line and
 * column. The fast path parses with js-yaml (≈10× faster on large playbooks)
 * and builds the position-tracking `yaml` document only when something asks
 * for a position or a scalar's source text. Documents with anchors/aliases
 * and any js-yaml error take the `yaml` path, whose alias cap stops a
 * "billion laughs" document and whose messages carry line and column.
 */
import jsYaml from 'js-yaml';
import { isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { PlanIssue } from '../issues/plan-issue.js';

export interface YamlSource {
  value: unknown;
  /** Fills `line`/`column` of issues whose `field` points into the document. */
  locate(issue: PlanIssue): PlanIssue;
  /** The text of a scalar as written (`1.0` stays `1.0`), when the value at `path` is a scalar. */
  sourceText(path: ReadonlyArray<string | number>): string | undefined;
}

export type YamlParseResult = { ok: true; source: YamlSource } | { ok: false; issues: PlanIssue[] };

/** `steps[1].inputs["a b"].x` → `['steps', 1, 'inputs', 'a b', 'x']`. */
export function parseFieldPath(field: string): Array<string | number> {
  const out: Array<string | number> = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(field)) !== null) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(JSON.parse(m[3]!) as string);
  }
  return out;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}

/** Anchors (`&a`) or aliases (`*a`) outside quoted text: take the capped path. */
const MAYBE_ALIAS = /(^|[\s[{,:-])[&*][^\s,\]}]/;

/** Parses `text`; syntax errors become `invalid_yaml` issues with line and column. */
export function parseYamlSource(text: string): YamlParseResult {
  if (!MAYBE_ALIAS.test(text)) {
    try {
      const value = jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA, json: false });
      let lazy: YamlSource | undefined;
      const full = (): YamlSource => {
        if (lazy) return lazy;
        const parsed = parseWithPositions(text);
        // js-yaml accepted it, so the `yaml` parser does too (same core schema).
        lazy = parsed.ok ? parsed.source : { value, locate: (i) => i, sourceText: () => undefined };
        return lazy;
      };
      return {
        ok: true,
        source: { value, locate: (issue) => (issue.line !== undefined || issue.field === '' ? issue : full().locate(issue)), sourceText: (path) => full().sourceText(path) },
      };
    } catch {
      // fall through: the `yaml` parser reports the error with its position
    }
  }
  return parseWithPositions(text);
}

function parseWithPositions(text: string): YamlParseResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return { ok: false, issues: doc.errors.map((e) => syntaxIssue(text, firstLine(e.message).replace(/ at line \d+, column \d+:?$/, ''), e.linePos?.[0])) };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { ok: false, issues: [{ code: 'invalid_yaml', field: '', message: `invalid YAML: ${(e as Error).message}` }] };
  }
  return { ok: true, source: yamlSource(doc, lineCounter, value) };
}

/** Longest line quoted in a syntax error; longer lines are cut around the column. */
const QUOTE_MAX = 120;

/**
 * An `invalid_yaml` issue that quotes the offending line with a caret under
 * the column. A position past the last line (an unclosed bracket found at the
 * end) moves to the end of the last non-blank line, where the fix goes.
 */
export function syntaxIssue(text: string, reason: string, pos: { line: number; col: number } | undefined): PlanIssue {
  if (!pos) return { code: 'invalid_yaml', field: '', message: `invalid YAML: ${reason}` };
  const lines = text.split(/\r?\n/);
  let line = Math.min(pos.line, lines.length);
  let col = pos.col;
  if (!lines[line - 1]?.trim()) {
    let k = line - 1;
    while (k > 0 && !lines[k - 1]!.trim()) k--;
    if (k > 0) {
      line = k;
      col = lines[k - 1]!.length + 1;
    }
  }
  const raw = lines[line - 1] ?? '';
  const from = raw.length > QUOTE_MAX ? Math.max(0, Math.min(col - 1 - QUOTE_MAX / 2, raw.length - QUOTE_MAX)) : 0;
  const shown = raw.slice(from, from + QUOTE_MAX);
  const gutter = `${line} | `;
  const caret = `${' '.repeat(gutter.length - 2)}| ${' '.repeat(Math.max(0, col - 1 - from))}^`;
  return {
    code: 'invalid_yaml',
    field: '',
    message: `invalid YAML at line ${line}, column ${col}: ${reason}\n${gutter}${shown}\n${caret}`,
    line,
    column: col,
  };
}

function yamlSource(doc: Document, lineCounter: LineCounter, value: unknown): YamlSource {
  const nodeAt = (path: ReadonlyArray<string | number>): unknown => {
    // Walk back to the deepest path that exists (a missing field points at its parent).
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n), true);
      if (node && typeof node === 'object' && 'range' in node) return node;
    }
    return undefined;
  };
  return {
    value,
    locate(issue) {
      if (issue.line !== undefined || issue.field === '') return issue;
      const node = nodeAt(parseFieldPath(issue.field)) as { range?: [number, number, number] } | undefined;
      if (!node?.range) return issue;
      const pos = lineCounter.linePos(node.range[0]);
      return { ...issue, line: pos.line, column: pos.col };
    },
    sourceText(path) {
      const node = doc.getIn(path, true);
      return isScalar(node) && typeof node.source === 'string' ? node.source : undefined;
    },
  };
}

/** Positions for issues found outside the compiler (the planner's deployment checks): `field` paths into `text`. */
export function locateInYaml(text: string, issues: readonly PlanIssue[]): PlanIssue[] {
  if (issues.length === 0) return [];
  const parsed = parseYamlSource(text);
  return parsed.ok ? issues.map((i) => parsed.source.locate(i)) : [...issues];
}
