import { ExprError } from '../expr-error.js';
import { extractReferences } from '../reference.js';
import { conditionLimits, configureConditionLimits, DEFAULT_CONDITION_LIMITS } from './budget.js';
import { compileCondition, evaluateJsonLogic } from './compile-condition.js';
import { parseDsl } from './dsl.js';
import type { JsonLogic } from './json-logic.types.js';
import { looseEquals, isIn } from './values.js';

function thrown(fn: () => unknown): ExprError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ExprError) return e;
    throw e;
  }
  throw new Error('expected an ExprError');
}

/** `some(rows as r0, some(rows as r1, … r{n-1}.v == -1))`: never true, so every element is visited. */
function nestedText(n: number): string {
  let inner = `r${n - 1}.v == -1`;
  for (let k = n - 1; k >= 0; k--) inner = `some(rows as r${k}, ${inner})`;
  return inner;
}

function nestedLogic(n: number): JsonLogic {
  let inner: JsonLogic = { '==': [{ var: `r${n - 1}.v` }, -1] };
  for (let k = n - 1; k >= 0; k--) inner = { some: [{ var: 'rows' }, inner, `r${k}`] };
  return inner;
}

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ v: i }));

afterEach(() => configureConditionLimits(DEFAULT_CONDITION_LIMITS));

describe('quantifier nesting cap (compile time)', () => {
  it('defaults to 3 levels and 100,000 steps', () => {
    expect(conditionLimits()).toEqual({ maxQuantifierDepth: 3, maxSteps: 100_000 });
  });

  it('accepts 3 nested quantifiers in every dialect', () => {
    expect(() => compileCondition(nestedText(3))).not.toThrow();
    expect(() => compileCondition(nestedLogic(3), { dialect: 'jsonlogic' })).not.toThrow();
    expect(() => parseDsl(nestedText(3), { aliases: [] })).not.toThrow();
  });

  it('refuses 5 nested some() in playbook text with the position of the offending call', () => {
    const e = thrown(() => compileCondition(nestedText(5)));
    expect(e.code).toBe('quantifier_depth_exceeded');
    expect(e.message).toMatch(/some\(\) at \d+ nests quantifiers \(some\/all\/none\) 4 deep; at most 3 may nest/);
    expect(e.position).toBe(nestedText(5).indexOf('some(rows as r3'));
  });

  it('refuses deep nesting in the DSL before anything evaluates it', () => {
    const e = thrown(() => parseDsl(nestedText(4), { aliases: [] }));
    expect(e.code).toBe('quantifier_depth_exceeded');
  });

  it('refuses deep nesting in JSON-Logic and names the path of the offending quantifier', () => {
    const e = thrown(() => compileCondition(nestedLogic(5), { dialect: 'jsonlogic' }));
    expect(e.code).toBe('quantifier_depth_exceeded');
    expect(e.path).toBe('some[1].some[1].some[1].some');
    expect(e.message).toContain('some() at some[1].some[1].some[1].some nests quantifiers');
  });

  it('refuses deep nesting in condition objects (JSON-Logic inside and/or)', () => {
    const e = thrown(() => compileCondition({ and: [{ field: 'x', operator: 'exists' }, nestedLogic(4)] }, { dialect: 'object' }));
    expect(e.code).toBe('quantifier_depth_exceeded');
  });

  it('counts all/none like some, and not quantifiers side by side', () => {
    expect(thrown(() => compileCondition('all(a, none(b, some(c, all(d, x == 1))))')).code).toBe('quantifier_depth_exceeded');
    expect(() => compileCondition('some(a, x == 1) && some(b, y == 1) && some(c, z == 1) && some(d, w == 1)')).not.toThrow();
  });

  it('follows the configured limit and a per-call option', () => {
    configureConditionLimits({ maxQuantifierDepth: 1 });
    expect(thrown(() => compileCondition(nestedText(2))).code).toBe('quantifier_depth_exceeded');
    expect(() => compileCondition(nestedText(2), { maxQuantifierDepth: 2 })).not.toThrow();
    configureConditionLimits({ maxQuantifierDepth: 6 });
    expect(() => compileCondition(nestedText(5))).not.toThrow();
  });

  it('rejects nonsensical limits', () => {
    expect(() => configureConditionLimits({ maxQuantifierDepth: -1 })).toThrow(RangeError);
    expect(() => configureConditionLimits({ maxSteps: 0 })).toThrow(RangeError);
    expect(() => configureConditionLimits({ maxSteps: 1.5 })).toThrow(RangeError);
    expect(conditionLimits()).toEqual(DEFAULT_CONDITION_LIMITS);
  });
});

describe('step budget (evaluation time)', () => {
  it('stops 3 nested quantifiers over 60 rows (216,000 steps) promptly', () => {
    const cond = compileCondition(nestedText(3));
    const started = Date.now();
    const e = thrown(() => cond({ vars: { rows: rows(60) } }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(e.code).toBe('condition_budget_exceeded');
    expect(e.message).toContain('budget of 100000 steps');
  });

  it('stops a huge product long before it would finish (200^3 = 8,000,000 elements)', () => {
    const cond = compileCondition(nestedText(3));
    const started = Date.now();
    expect(thrown(() => cond({ vars: { rows: rows(200) } })).code).toBe('condition_budget_exceeded');
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('lets work within the budget through, and every evaluation gets a fresh budget', () => {
    const cond = compileCondition(nestedText(2));
    // 250 × 250 = 62,500 steps each: two of them would exceed a shared 100,000.
    for (let k = 0; k < 5; k++) expect(cond({ vars: { rows: rows(250) } })).toBe(false);
  });

  it('works again after an evaluation ran out', () => {
    const cond = compileCondition(nestedText(3));
    expect(thrown(() => cond({ vars: { rows: rows(60) } })).code).toBe('condition_budget_exceeded');
    expect(cond({ vars: { rows: rows(10) } })).toBe(false);
  });

  it('short-circuits count only what they visit', () => {
    const cond = compileCondition('some(rows, item.v == 0)', { maxSteps: 5 });
    expect(cond({ vars: { rows: rows(1_000_000) } })).toBe(true);
  });

  it('charges array scans of in / contains, deep equality and [*] projections', () => {
    const big = Array.from({ length: 5_000 }, (_, i) => i);
    const inCond = compileCondition('some(xs as x, x in ys)');
    expect(thrown(() => inCond({ vars: { xs: big.map((i) => -i - 1), ys: big } })).code).toBe('condition_budget_exceeded');
    const containsCond = compileCondition('some(xs as x, contains(ys, x))');
    expect(thrown(() => containsCond({ vars: { xs: big.map((i) => -i - 1), ys: big } })).code).toBe('condition_budget_exceeded');
    const eqCond = compileCondition('some(xs as x, ys == zs)');
    expect(thrown(() => eqCond({ vars: { xs: big, ys: [...big, 1], zs: [...big, 2] } })).code).toBe('condition_budget_exceeded');
    const objs = big.map((i) => ({ v: i }));
    const projCond = compileCondition('some(xs as x, contains(objs[*].v, -1))');
    expect(thrown(() => projCond({ vars: { xs: big, objs } })).code).toBe('condition_budget_exceeded');
  });

  it('follows the configured budget and the per-call option; Infinity turns counting off', () => {
    configureConditionLimits({ maxSteps: 100 });
    const small = compileCondition('some(rows, item.v == -1)');
    expect(thrown(() => small({ vars: { rows: rows(101) } })).code).toBe('condition_budget_exceeded');
    expect(small({ vars: { rows: rows(100) } })).toBe(false);
    const off = compileCondition(nestedText(3), { maxSteps: Infinity });
    expect(off({ vars: { rows: rows(60) } })).toBe(false);
    const larger = compileCondition(nestedText(3), { maxSteps: 300_000 });
    expect(larger({ vars: { rows: rows(60) } })).toBe(false);
  });

  it('budgets a condition without quantifiers only when it scans arrays more than 16 times', () => {
    const ys = Array.from({ length: 200_000 }, (_, i) => i);
    // A few scans cost a few passes over the data: linear, left to the data size caps.
    expect(compileCondition('-1 in ys || -2 in ys')({ vars: { ys } })).toBe(false);
    const many = Array.from({ length: 20 }, (_, k) => `${-k - 1} in ys`).join(' || ');
    expect(thrown(() => compileCondition(many)({ vars: { ys: ys.slice(0, 10_000) } })).code).toBe('condition_budget_exceeded');
    const projections = Array.from({ length: 17 }, () => 'contains(objs[*].v, -1)').join(' || ');
    const objs = ys.slice(0, 10_000).map((v) => ({ v }));
    expect(thrown(() => compileCondition(projections)({ vars: { objs } })).code).toBe('condition_budget_exceeded');
  });

  it('bounds evaluateJsonLogic too', () => {
    expect(thrown(() => evaluateJsonLogic(nestedLogic(3), { rows: rows(60) })).code).toBe('condition_budget_exceeded');
  });

  it('leaves value helpers unbounded outside an evaluation', () => {
    const big = Array.from({ length: 200_000 }, (_, i) => i);
    expect(looseEquals(big, [...big])).toBe(true);
    expect(isIn(-1, big)).toBe(false);
  });
});

describe('reference caps', () => {
  const longRef = (segments: number) => `a${'.b'.repeat(segments)}`;

  it('refuses a 25,000-segment reference at once with a short message', () => {
    const started = Date.now();
    const e = thrown(() => extractReferences(`{{${longRef(25_000)}}}`));
    expect(Date.now() - started).toBeLessThan(200);
    expect(e.code).toBe('reference_too_long');
    expect(e.message.length).toBeLessThan(300);
    expect(e.message).toContain('the limit is 1024');
  });

  it('accepts 64 segments and refuses 65', () => {
    expect(extractReferences(`{${longRef(64)}}`)[0]!.path).toHaveLength(64);
    const e = thrown(() => extractReferences(`{${longRef(65)}}`));
    expect(e.code).toBe('reference_too_long');
    expect(e.message).toContain('more than 64 segments');
  });

  it('refuses long references in condition text and JSON-Logic vars', () => {
    expect(thrown(() => compileCondition(`{${longRef(600)}} == 1`)).code).toBe('reference_too_long');
    expect(thrown(() => compileCondition(`${longRef(100)} == 1`)).code).toBe('reference_too_long');
    expect(thrown(() => compileCondition({ var: longRef(600) }, { dialect: 'jsonlogic' })).code).toBe('reference_too_long');
  });

  it('clips the reference in ordinary syntax errors', () => {
    const e = thrown(() => extractReferences(`{{${'a'.repeat(500)}..b}}`));
    expect(e.code).toBe('invalid_reference');
    expect(e.message.length).toBeLessThan(250);
    expect(e.reference!.length).toBeLessThan(120);
  });
});
