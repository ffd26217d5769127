/**
 * Recursive-descent parser for condition text, producing JSON-Logic.
 *
 *   expr     := and ( ('||' | OR) and )*
 *   and      := unary ( ('&&' | AND) unary )*
 *   unary    := ('!' | NOT) unary | compare
 *   compare  := operand [ cmp operand | IS [NOT] DEFINED | [NOT] IN operand ]
 *   cmp      := '==' | '!=' | '===' | '!==' | '<' | '<=' | '>' | '>='
 *   operand  := number | '-' number | string | TRUE | FALSE | NULL | path | '{' path '}' | '{{' path '}}'
 *             | '(' expr ')' | '[' [expr (',' expr)*] ']' | call
 *   call     := (some | all | none) '(' expr [AS name] ',' expr ')'
 *             | exists '(' expr ')' | is_empty '(' expr ')' | contains '(' expr ',' expr ')'
 *             | between '(' expr ',' expr ',' expr ')'
 *
 * Keywords are case-insensitive; comparisons do not chain (`a < b < c` is an
 * error). Nesting deeper than {@link MAX_DEPTH} is rejected so hostile input
 * cannot exhaust the stack.
 */
import { ExprError } from '../expr-error.js';
import { formatPath, type ParsedPath } from '../path.js';
import { conditionLimits } from './budget.js';
import { DEFAULT_ALIAS, type JsonLogic } from './json-logic.types.js';
import { tokenize, type Token } from './lexer.js';

/** Non-fatal findings of a parse. */
export interface ConditionWarning {
  code: 'noop_true' | 'noop_false' | 'legacy_path' | 'unused_alias';
  message: string;
  position?: number;
}

/** Rewrites a variable path (e.g. a DSL alias to its canonical JSON-Logic path). */
export type PathMapper = (path: string, ref: ParsedPath) => { path: string; warning?: string } | undefined;

export interface ParseTextOptions {
  mapPath?: PathMapper;
  /** `some`/`all`/`none` allowed inside one another's predicate (default: the configured limit). */
  maxQuantifierDepth?: number;
}

export interface ParsedConditionText {
  logic: JsonLogic;
  /** Root-scope variable paths (after mapping), first appearance order, no duplicates. */
  variables: string[];
  warnings: ConditionWarning[];
}

export const MAX_DEPTH = 200;
const CMP = new Set(['==', '!=', '===', '!==', '<', '<=', '>', '>=']);
const QUANTIFIERS = new Set(['some', 'all', 'none']);
const FUNCTIONS = 'some, all, none, exists, is_empty, contains or between';

interface AliasFrame {
  name: string;
  used: boolean;
}

/** Parse condition text into JSON-Logic. Throws `ExprError` (`empty_expression`, `syntax_error`). */
export function parseConditionText(src: string, opts: ParseTextOptions = {}): ParsedConditionText {
  if (src.trim() === '') {
    throw new ExprError('empty_expression', 'Condition is empty: expected an expression', {
      position: 0,
      expected: 'an expression',
    });
  }
  const tokens = tokenize(src);
  let pos = 0;
  let depth = 0;
  const aliases: AliasFrame[] = [];
  const variables: string[] = [];
  const seen = new Set<string>();
  const warnings: ConditionWarning[] = [];
  const maxQuantifiers = opts.maxQuantifierDepth ?? conditionLimits().maxQuantifierDepth;

  const peek = (): Token => tokens[pos]!;
  const next = (): Token => tokens[pos++]!;
  const fail = (t: Token, expected: string): never => {
    const found = t.kind === 'eof' ? 'end of expression' : `'${src.slice(t.start, t.end)}'`;
    throw new ExprError('syntax_error', `Unexpected ${found} at ${t.start}: expected ${expected}`, {
      position: t.start,
      expected,
    });
  };
  const isOp = (t: Token, text: string): boolean => t.kind === 'op' && t.text === text;
  const isKw = (t: Token, text: string): boolean => t.kind === 'kw' && t.text === text;
  const expectOp = (text: string): Token => {
    const t = peek();
    if (!isOp(t, text)) fail(t, `'${text}'`);
    return next();
  };
  const enter = (t: Token): void => {
    if (++depth > MAX_DEPTH) {
      throw new ExprError('syntax_error', `Expression nests deeper than ${MAX_DEPTH} levels at ${t.start}`, {
        position: t.start,
        expected: 'a shallower expression',
      });
    }
  };

  const parseExpr = (): JsonLogic => {
    enter(peek());
    const parts: JsonLogic[] = [];
    const push = (node: JsonLogic): void => {
      if (isOpNode(node, 'or')) parts.push(...(node as { or: JsonLogic[] }).or);
      else parts.push(node);
    };
    push(parseAnd());
    while (isOp(peek(), '||') || isKw(peek(), 'or')) {
      next();
      push(parseAnd());
    }
    depth--;
    return parts.length === 1 ? parts[0]! : { or: parts };
  };

  const parseAnd = (): JsonLogic => {
    const parts: JsonLogic[] = [];
    const push = (node: JsonLogic): void => {
      if (isOpNode(node, 'and')) parts.push(...(node as { and: JsonLogic[] }).and);
      else parts.push(node);
    };
    push(parseUnary());
    while (isOp(peek(), '&&') || isKw(peek(), 'and')) {
      next();
      push(parseUnary());
    }
    return parts.length === 1 ? parts[0]! : { and: parts };
  };

  const parseUnary = (): JsonLogic => {
    const t = peek();
    if (isOp(t, '!') || isKw(t, 'not')) {
      next();
      enter(t);
      const arg = parseUnary();
      depth--;
      return unary('!', arg);
    }
    return parseCompare();
  };

  const parseCompare = (): JsonLogic => {
    const left = parseOperand();
    const t = peek();
    let node: JsonLogic = left;
    if (t.kind === 'op' && CMP.has(t.text)) {
      next();
      node = { [t.text]: [left, parseOperand()] };
    } else if (isKw(t, 'is')) {
      next();
      const negated = isKw(peek(), 'not');
      if (negated) next();
      if (!isKw(peek(), 'defined')) fail(peek(), negated ? "'defined'" : "'defined' or 'not defined'");
      next();
      node = negated ? { '!': unary('exists', left) } : unary('exists', left);
    } else if (isKw(t, 'in')) {
      next();
      node = { in: [left, parseOperand()] };
    } else if (isKw(t, 'not') && isKw(tokens[pos + 1]!, 'in')) {
      pos += 2;
      node = { '!': { in: [left, parseOperand()] } };
    } else {
      return node;
    }
    const after = peek();
    if ((after.kind === 'op' && CMP.has(after.text)) || isKw(after, 'is') || isKw(after, 'in')) {
      fail(after, "'&&', '||', ')' or end of expression (comparisons do not chain; add parentheses)");
    }
    return node;
  };

  const variable = (t: Token): JsonLogic => {
    const ref = t.ref!;
    let path = formatPath(ref.root, ref.path);
    const frame = [...aliases].reverse().find((a) => a.name === ref.root);
    if (frame) {
      frame.used = true;
      return { var: path };
    }
    const mapped = opts.mapPath?.(path, ref);
    if (mapped) {
      path = mapped.path;
      if (mapped.warning) warnings.push({ code: 'legacy_path', message: mapped.warning, position: t.start });
    }
    if (!seen.has(path)) {
      seen.add(path);
      variables.push(path);
    }
    return { var: path };
  };

  const parseCall = (name: Token): JsonLogic => {
    const fn = name.text;
    expectOp('(');
    enter(name);
    let node: JsonLogic;
    if (QUANTIFIERS.has(fn)) {
      // `aliases` holds one frame per enclosing quantifier predicate.
      if (aliases.length >= maxQuantifiers) {
        throw new ExprError(
          'quantifier_depth_exceeded',
          `${fn}() at ${name.start} nests quantifiers (some/all/none) ${aliases.length + 1} deep; at most ${maxQuantifiers} may nest`,
          { position: name.start, expected: 'fewer nested quantifiers' },
        );
      }
      const collection = parseExpr();
      let alias = DEFAULT_ALIAS;
      const a = peek();
      if (a.kind === 'path' && a.bare && a.text === 'as') {
        next();
        const id = next();
        if (id.kind !== 'path' || !id.bare) fail(id, 'an alias name');
        alias = id.text;
      }
      expectOp(',');
      const frame: AliasFrame = { name: alias, used: false };
      aliases.push(frame);
      const predicate = parseExpr();
      aliases.pop();
      if (!frame.used) {
        warnings.push({
          code: 'unused_alias',
          message: `${fn}() predicate never refers to its element '${alias}'`,
          position: name.start,
        });
      }
      node = { [fn]: alias === DEFAULT_ALIAS ? [collection, predicate] : [collection, predicate, alias] };
    } else if (fn === 'exists' || fn === 'is_empty') {
      node = unary(fn, parseExpr());
    } else if (fn === 'contains') {
      const a = parseExpr();
      expectOp(',');
      node = { contains: [a, parseExpr()] };
    } else {
      const x = parseExpr();
      expectOp(',');
      const lo = parseExpr();
      expectOp(',');
      node = { between: [x, lo, parseExpr()] };
    }
    expectOp(')');
    depth--;
    return node;
  };

  const parseOperand = (): JsonLogic => {
    const t = next();
    switch (t.kind) {
      case 'num':
        return t.num!;
      case 'str':
        return t.text;
      case 'kw':
        if (t.text === 'true') return true;
        if (t.text === 'false') return false;
        if (t.text === 'null') return null;
        return fail(t, 'an operand');
      case 'path':
        if (t.bare && isOp(peek(), '(')) {
          if (QUANTIFIERS.has(t.text) || ['exists', 'is_empty', 'contains', 'between'].includes(t.text)) {
            return parseCall(t);
          }
          return fail(t, `a function name (${FUNCTIONS})`);
        }
        return variable(t);
      case 'op':
        if (t.text === '-') {
          const n = peek();
          if (n.kind !== 'num') fail(n, 'a number after -');
          next();
          return -n.num!;
        }
        if (t.text === '(') {
          const inner = parseExpr();
          expectOp(')');
          return inner;
        }
        if (t.text === '[') {
          enter(t);
          const items: JsonLogic[] = [];
          if (!isOp(peek(), ']')) {
            items.push(parseExpr());
            while (isOp(peek(), ',')) {
              next();
              items.push(parseExpr());
            }
          }
          expectOp(']');
          depth--;
          return items;
        }
        return fail(t, 'an operand');
      default:
        return fail(t, 'an operand');
    }
  };

  const logic = parseExpr();
  if (peek().kind !== 'eof') fail(peek(), "'&&', '||' or end of expression");
  return { logic, variables, warnings };
}

/** A one-argument rule; an array argument is wrapped so it is not read as an argument list. */
function unary(op: string, arg: JsonLogic): JsonLogic {
  return { [op]: Array.isArray(arg) ? [arg] : arg };
}

function isOpNode(node: JsonLogic, op: string): boolean {
  return (
    node !== null &&
    typeof node === 'object' &&
    !Array.isArray(node) &&
    Object.prototype.hasOwnProperty.call(node, op)
  );
}
