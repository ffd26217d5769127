/**
 * JSON-Logic → canonical Condition DSL text. The output always parses back
 * (parser.ts) to JSON-Logic that renders to the same text, so DSL →
 * JSON-Logic → DSL is stable. Canonical form: `&&`, `||`, `!`, double-quoted
 * strings, single spaces around binary operators, parentheses only where
 * precedence needs them, nested `and`/`or` flattened, and functions for what
 * has no infix form (`exists(x)`, `some(xs, item.ok)`, `between(x, 1, 2)`).
 */
import { ExprError } from '../expr-error.js';
import { formatPath, parsePath, type PathSegment } from '../path.js';
import { DEFAULT_ALIAS, type JsonLogic } from './json-logic.types.js';
import { KEYWORDS } from './lexer.js';

/** Rewrites a canonical variable path to its DSL spelling (e.g. a facet alias). */
export type DslPathRenderer = (path: string) => string | undefined;

const enum Prec {
  Or = 1,
  And = 2,
  Not = 3,
  Cmp = 4,
  Primary = 5,
}

interface Rendered {
  text: string;
  prec: Prec;
}

const COMPARISONS = new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=']);
const BARE_PATH = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z0-9_$]+|\.\*|\[-?\d+\]|\[\*\])*$/;
const MAX_DEPTH = 512;

function notRepresentable(what: string, loc: string): ExprError {
  return new ExprError(
    'invalid_condition',
    `${what} cannot be written in the Condition DSL${loc ? ` at ${loc}` : ''}`,
    {
      path: loc,
    },
  );
}

function literal(v: unknown, loc: string): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw notRepresentable(`The number ${v}`, loc);
    return JSON.stringify(v);
  }
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x, k) => literal(x, `${loc}[${k}]`)).join(', ')}]`;
  throw notRepresentable('An object literal', loc);
}

function canonicalVarPath(text: string): string {
  try {
    const { root, path } = parsePath(text);
    return formatPath(root, path);
  } catch {
    const [root = '', ...rest] = text.split('.');
    return formatPath(
      root,
      rest.map((name) => ({ kind: 'prop', name }) as PathSegment),
    );
  }
}

function varText(path: string): string {
  const root = /^[A-Za-z0-9_$-]*/.exec(path)![0];
  const bare = BARE_PATH.test(path) && !KEYWORDS.has(root.toLowerCase()) && root !== 'as';
  return bare ? path : `{${path}}`;
}

/** Render JSON-Logic as canonical DSL. Throws `ExprError` for rules the DSL cannot express. */
export function renderDsl(logic: JsonLogic, renderPath?: DslPathRenderer): string {
  let depth = 0;
  const aliases: string[] = [];

  const operand = (node: JsonLogic, loc: string): string => {
    const r = render(node, loc);
    return r.prec === Prec.Primary ? r.text : `(${r.text})`;
  };
  const arg = (node: JsonLogic, loc: string): string => render(node, loc).text;

  const joined = (op: 'and' | 'or', items: JsonLogic[], loc: string): Rendered => {
    if (items.length === 0) return { text: op === 'and' ? 'true' : 'false', prec: Prec.Primary };
    if (items.length === 1) return render(items[0]!, `${loc}[0]`);
    const own = op === 'and' ? Prec.And : Prec.Or;
    const parts: string[] = [];
    const add = (node: JsonLogic, l: string): void => {
      if (isOp(node, op)) {
        const inner = (node as Record<string, JsonLogic>)[op];
        (Array.isArray(inner) ? inner : [inner!]).forEach((n, k) => add(n, `${l}.${op}[${k}]`));
        return;
      }
      const r = render(node, l);
      // and/or are associative, so a child of the same precedence needs no parentheses.
      parts.push(r.prec >= own ? r.text : `(${r.text})`);
    };
    items.forEach((n, k) => add(n, `${loc}[${k}]`));
    return { text: parts.join(op === 'and' ? ' && ' : ' || '), prec: own };
  };

  const render = (node: JsonLogic, loc: string): Rendered => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) {
      if (Array.isArray(node)) {
        return { text: `[${node.map((n, k) => arg(n, `${loc}[${k}]`)).join(', ')}]`, prec: Prec.Primary };
      }
      return { text: literal(node, loc), prec: Prec.Primary };
    }
    if (++depth > MAX_DEPTH)
      throw notRepresentable(`A condition nested deeper than ${MAX_DEPTH} levels`, loc);
    try {
      const keys = Object.keys(node);
      if (keys.length !== 1) {
        throw new ExprError(
          'invalid_condition',
          `A JSON-Logic rule must have exactly one operator${loc ? ` at ${loc}` : ''}`,
          {
            path: loc,
          },
        );
      }
      const op = keys[0]!;
      const raw = node[op]!;
      const args = Array.isArray(raw) ? raw : [raw];
      const at = (k: number): string => `${loc ? `${loc}.` : ''}${op}[${k}]`;
      const need = (min: number, max = min): void => {
        if (args.length < min || args.length > max) {
          throw new ExprError(
            'invalid_condition',
            `'${op}' takes ${min === max ? min : `${min} to ${max}`} argument(s)`,
            {
              path: loc,
            },
          );
        }
      };
      switch (op) {
        case 'var': {
          if (Array.isArray(raw) && raw.length > 1) throw notRepresentable('A var with a default', loc);
          const p = args[0] ?? '';
          if (typeof p !== 'string' && typeof p !== 'number' && p !== null)
            throw notRepresentable('A computed var path', loc);
          const text = p === null ? '' : String(p);
          if (text === '') {
            if (aliases.length === 0) throw notRepresentable('The whole-data var ""', loc);
            return { text: aliases[aliases.length - 1]!, prec: Prec.Primary };
          }
          const canonical = canonicalVarPath(text);
          const root = /^[A-Za-z0-9_$-]*/.exec(canonical)![0];
          const shown = aliases.includes(root) ? canonical : (renderPath?.(canonical) ?? canonical);
          return { text: varText(shown), prec: Prec.Primary };
        }
        case 'literal':
          return { text: literal(raw, loc), prec: Prec.Primary };
        case 'and':
        case 'or':
          return joined(op, args, loc ? `${loc}.${op}` : op);
        case '!':
        case '!!': {
          need(1);
          const inner = render(args[0]!, at(0));
          const body = inner.prec >= Prec.Not ? inner.text : `(${inner.text})`;
          return { text: `${op}${inner.prec === Prec.Cmp ? `(${inner.text})` : body}`, prec: Prec.Not };
        }
        case 'exists':
        case 'is_empty':
          need(1);
          return { text: `${op}(${arg(args[0]!, at(0))})`, prec: Prec.Primary };
        case 'contains':
          need(2);
          return { text: `contains(${arg(args[0]!, at(0))}, ${arg(args[1]!, at(1))})`, prec: Prec.Primary };
        case 'between':
          need(3);
          return {
            text: `between(${arg(args[0]!, at(0))}, ${arg(args[1]!, at(1))}, ${arg(args[2]!, at(2))})`,
            prec: Prec.Primary,
          };
        case 'in':
          need(2);
          return { text: `${operand(args[0]!, at(0))} in ${operand(args[1]!, at(1))}`, prec: Prec.Cmp };
        case 'some':
        case 'all':
        case 'none': {
          need(2, 3);
          const alias = args[2] ?? DEFAULT_ALIAS;
          if (
            typeof alias !== 'string' ||
            !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(alias) ||
            KEYWORDS.has(alias.toLowerCase())
          ) {
            throw notRepresentable(`The alias ${JSON.stringify(alias)}`, at(2));
          }
          const coll = arg(args[0]!, at(0));
          aliases.push(alias);
          try {
            const pred = arg(args[1]!, at(1));
            const head = alias === DEFAULT_ALIAS ? coll : `${coll} as ${alias}`;
            return { text: `${op}(${head}, ${pred})`, prec: Prec.Primary };
          } finally {
            aliases.pop();
          }
        }
        default:
          if (COMPARISONS.has(op)) {
            if (args.length === 3 && (op === '<' || op === '<=')) {
              // JSON-Logic's "between" form a < x < b has no infix DSL spelling.
              const mid = operand(args[1]!, at(1));
              return {
                text: `${operand(args[0]!, at(0))} ${op} ${mid} && ${mid} ${op} ${operand(args[2]!, at(2))}`,
                prec: Prec.And,
              };
            }
            need(2);
            return { text: `${operand(args[0]!, at(0))} ${op} ${operand(args[1]!, at(1))}`, prec: Prec.Cmp };
          }
          throw new ExprError('unknown_operator', `Unknown operator '${op}'${loc ? ` at ${loc}` : ''}`, {
            path: loc,
          });
      }
    } finally {
      depth--;
    }
  };

  return render(logic, '').text;
}

function isOp(node: JsonLogic, op: string): boolean {
  return (
    node !== null &&
    typeof node === 'object' &&
    !Array.isArray(node) &&
    Object.keys(node).length === 1 &&
    op in node
  );
}
