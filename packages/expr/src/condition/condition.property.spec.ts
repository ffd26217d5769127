import fc from 'fast-check';
import { ExprError } from '../expr-error.js';
import { extractReferences } from '../reference.js';
import { interpolate } from '../interpolate.js';
import type { Scope } from '../scope.js';
import { compileCondition, evaluateJsonLogic } from './compile-condition.js';
import { jsonLogicToDsl, parseDsl } from './dsl.js';
import { LOGIC_OPERATORS, type JsonLogic } from './json-logic.types.js';

/** Run `fn`; anything thrown must be an ExprError. Returns the result or undefined. */
function onlyExprError<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch (e) {
    if (!(e instanceof ExprError)) throw e;
    return undefined;
  }
}

const TOKENS = [
  '{',
  '}',
  '{{',
  '}}',
  'a',
  'b.c',
  'x[0]',
  'y[*].z',
  '[',
  ']',
  '(',
  ')',
  '&&',
  '||',
  '!',
  '==',
  '!=',
  '===',
  '<',
  '<=',
  '>',
  '>=',
  '=',
  '&',
  '|',
  'AND',
  'or',
  'NOT',
  'is',
  'not',
  'defined',
  'in',
  'true',
  'null',
  '"s"',
  "'t'",
  '"',
  "'",
  '\\',
  '1',
  '-',
  '2.5e3',
  '.5',
  ',',
  'some',
  'all',
  'none',
  'as',
  'exists',
  'between',
  'contains',
  'is_empty',
  'item',
  ' ',
  '\n',
  '@',
  '__proto__',
  'constructor',
  '30_days_ago',
  'facets.k.v',
];
const tokenSoup = fc.array(fc.constantFrom(...TOKENS), { maxLength: 40 }).map((t) => t.join(''));
const anyText = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.string({ unit: 'binary', maxLength: 120 }),
  tokenSoup,
);

const scopeArb: fc.Arbitrary<Scope> = fc
  .record(
    {
      a: fc.jsonValue({ maxDepth: 2 }),
      b: fc.jsonValue({ maxDepth: 2 }),
      x: fc.jsonValue({ maxDepth: 2 }),
      items: fc.array(fc.record({ score: fc.double({ noNaN: true }), x: fc.integer() }), { maxLength: 4 }),
      score: fc.double(),
    },
    { requiredKeys: [] },
  )
  .map((vars) => ({ vars: vars as Record<string, unknown>, now: new Date(0), index: 1, current: { x: 1 } }));

describe('property: parsers only ever throw ExprError and terminate', () => {
  it('condition text (playbook dialect)', () => {
    fc.assert(
      fc.property(anyText, scopeArb, (text, scope) => {
        const c = onlyExprError(() => compileCondition(text));
        if (c) {
          onlyExprError(() => c(scope));
          onlyExprError(() => jsonLogicToDsl(c.ast));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('condition text (dsl dialect)', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        onlyExprError(() => parseDsl(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('templates', () => {
    fc.assert(
      fc.property(anyText, scopeArb, fc.boolean(), (text, scope, lenient) => {
        onlyExprError(() => extractReferences(text));
        onlyExprError(() => interpolate({ t: text, l: [text] }, scope, { lenient }));
      }),
      { numRuns: 3000 },
    );
  });

  const ruleArb: fc.Arbitrary<unknown> = fc.letrec<{ rule: unknown }>((tie) => ({
    rule: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.jsonValue({ maxDepth: 1 }),
      fc.record({
        var: fc.oneof(fc.constantFrom('a', 'b.0', 'items', 'x', '', 'item.score', 'score'), fc.string()),
      }),
      fc
        .tuple(
          fc.constantFrom(...LOGIC_OPERATORS, 'not', 'field', 'frob', '__proto__'),
          fc.oneof(tie('rule'), fc.array(tie('rule'), { maxLength: 4 })),
        )
        .map(([op, args]) => ({ [op]: args })),
      fc.record({
        field: fc.oneof(fc.constantFrom('a', 'b.c', '{{x}}'), fc.string()),
        operator: fc.oneof(fc.constantFrom('==', 'in', 'exists', 'is_empty', 'contains', 'gt'), fc.string()),
        value: fc.jsonValue({ maxDepth: 1 }),
      }),
    ),
  })).rule;

  it('condition objects and JSON-Logic', () => {
    fc.assert(
      fc.property(
        ruleArb,
        scopeArb,
        fc.constantFrom('object', 'jsonlogic') as fc.Arbitrary<'object' | 'jsonlogic'>,
        (rule, scope, dialect) => {
          const c = onlyExprError(() => compileCondition(rule, { dialect }));
          if (c) onlyExprError(() => c(scope));
          onlyExprError(() => evaluateJsonLogic(rule, scope.vars));
          const dsl = onlyExprError(() => jsonLogicToDsl(rule as JsonLogic));
          if (dsl !== undefined) {
            // Whatever the renderer emits must parse, and re-render identically.
            const again = parseDsl(dsl);
            expect(jsonLogicToDsl(again.jsonLogic)).toBe(again.canonicalDsl);
            expect(parseDsl(again.canonicalDsl).canonicalDsl).toBe(again.canonicalDsl);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe('property: DSL → JSON-Logic → DSL is stable', () => {
  const quote = (s: string, q: '"' | "'") =>
    q === '"' ? JSON.stringify(s) : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const path = fc.constantFrom(
    'a',
    'b',
    'score',
    'status',
    'a.b',
    'a.b[0]',
    'a[*].b',
    'a.0.c',
    'facets.planKnobs.hookIntensity',
    'facets.planKnobs.value.hookIntensity',
    'metadata.runContextSnapshot.facets.x.value.y',
    '{30_days_ago}',
    '{{step-1.out}}',
    '{a["k y"]}',
    '{and}',
    'NOTx',
    'isDefined',
  );
  const literal = fc.oneof(
    fc.integer().map(String),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? '0' : String(n))),
    fc
      .tuple(fc.string({ maxLength: 12 }), fc.constantFrom('"', "'") as fc.Arbitrary<'"' | "'">)
      .map(([s, q]) => quote(s, q)),
    fc.constantFrom('true', 'false', 'null', 'TRUE', 'Null'),
  );
  const cmp = fc.constantFrom('==', '!=', '===', '!==', '<', '<=', '>', '>=');
  const ws = fc.constantFrom('', ' ', '  ', '\n');

  const exprArb = fc.letrec<{ expr: string; operand: string }>((tie) => ({
    operand: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      path,
      literal,
      tie('expr').map((e) => `(${e})`),
      fc.array(fc.oneof(literal, path), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
      path.map((p) => `exists(${p})`),
      fc.tuple(path, literal, literal).map(([p, lo, hi]) => `between(${p}, ${lo}, ${hi})`),
      fc.tuple(path, tie('expr')).map(([p, e]) => `contains(${p}, ${e})`),
      fc
        .tuple(fc.constantFrom('some', 'all', 'none'), path, fc.constantFrom('', ' as el'), cmp, literal)
        .map(([q, p, as, op, lit]) => `${q}(${p}${as}, ${as ? 'el' : 'item'}.score ${op} ${lit})`),
    ),
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('operand'),
      fc.tuple(tie('operand'), ws, cmp, ws, tie('operand')).map((p) => p.join('')),
      fc
        .tuple(tie('expr'), fc.constantFrom(' && ', ' AND ', '&&', ' and '), tie('expr'))
        .map((p) => p.join('')),
      fc.tuple(tie('expr'), fc.constantFrom(' || ', ' OR ', '||'), tie('expr')).map((p) => p.join('')),
      fc.tuple(fc.constantFrom('!', 'NOT ', '! '), tie('operand')).map((p) => p.join('')),
      fc.tuple(tie('operand'), fc.constantFrom(' is defined', ' IS NOT DEFINED')).map((p) => p.join('')),
      fc.tuple(tie('operand'), fc.constantFrom(' in ', ' not in '), tie('operand')).map((p) => p.join('')),
    ),
  })).expr;

  it('canonicalDsl re-parses to the same JSON-Logic and the same text', () => {
    fc.assert(
      fc.property(exprArb, (dsl) => {
        const first = parseDsl(dsl);
        const second = parseDsl(first.canonicalDsl);
        expect(second.jsonLogic).toEqual(first.jsonLogic);
        expect(second.canonicalDsl).toBe(first.canonicalDsl);
        expect(jsonLogicToDsl(first.jsonLogic)).toBe(first.canonicalDsl);
        expect(second.variables).toEqual(first.variables);
      }),
      { numRuns: 2000 },
    );
  });

  it('the canonical text means the same thing as the original', () => {
    fc.assert(
      fc.property(exprArb, scopeArb, (dsl, scope) => {
        const original = compileCondition(dsl, { dialect: 'dsl' });
        const canonical = compileCondition(parseDsl(dsl).canonicalDsl, { dialect: 'dsl' });
        const a = onlyExprError(() => original(scope));
        const b = onlyExprError(() => canonical(scope));
        expect(b).toBe(a);
      }),
      { numRuns: 1000 },
    );
  });
});
