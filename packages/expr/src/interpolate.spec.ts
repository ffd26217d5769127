import { ExprError } from './expr-error.js';
import { compileTemplate, interpolate, stringifyValue } from './interpolate.js';
import { resolvePath } from './path.js';
import { isBuiltin, isRunVariable, type Scope } from './scope.js';

const now = new Date('2024-03-15T10:00:00Z');
const scope: Scope = {
  now,
  executionId: 'exec-42',
  lastExecutionDate: '2024-03-01',
  vars: {
    entity_name: 'Acme Corp',
    pull_990_data: {
      count: 2,
      results: [{ ein: '12-3', donor_name: 'Ann' }, { ein: '45-6', donor_name: 'Bob' }, { ein: '7' }],
    },
    extract_officers: {
      entities: [
        { name: 'X', tags: ['a', 'b'] },
        { name: 'Y', tags: ['c'] },
      ],
    },
    step1: { data: { email: 'a@b.c', from: 'vip@x.y' } },
    empty: null,
    flag: false,
    zero: 0,
  },
};

describe('interpolate', () => {
  it.each([
    ['{entity_name}', 'Acme Corp'],
    ['{pull_990_data.count}', 2],
    ['{pull_990_data.results[0].ein}', '12-3'],
    ['{pull_990_data.results[-1].ein}', '7'],
    ['{pull_990_data.results[*].donor_name}', ['Ann', 'Bob']],
    ['{extract_officers.entities[*].name}', ['X', 'Y']],
    ['{extract_officers.entities[*].tags[*]}', ['a', 'b', 'c']],
    ['{pull_990_data.results.length}', 3],
    ['{{step1.data.email}}', 'a@b.c'],
    ['{{ step1.data }}', { email: 'a@b.c', from: 'vip@x.y' }],
    ['{empty}', null],
    ['{flag}', false],
    ['{zero}', 0],
    ['{today}', '2024-03-15'],
    ['{30_days_ago}', '2024-02-14'],
    ['{1_days_ago}', '2024-03-14'],
    ['{execution_id}', 'exec-42'],
    ['{last_execution_date}', '2024-03-01'],
  ])('whole-value %s keeps its type', (template, expected) => {
    expect(interpolate(template, scope)).toEqual(expected);
  });

  it.each([
    ['Hello {entity_name}!', 'Hello Acme Corp!'],
    ['n={pull_990_data.count}', 'n=2'],
    ['names: {pull_990_data.results[*].donor_name}', 'names: ["Ann","Bob"]'],
    ['obj: {{step1.data}}', 'obj: {"email":"a@b.c","from":"vip@x.y"}'],
    ['Urgent email from {{step1.data.from}}', 'Urgent email from vip@x.y'],
    ['{empty}/{flag}/{zero}', '/false/0'],
    ['{"q": "{entity_name}"}', '{"q": "Acme Corp"}'],
    [' {entity_name}', ' Acme Corp'],
    ['since {today} (run {execution_id})', 'since 2024-03-15 (run exec-42)'],
    ['no refs {0} { x }', 'no refs {0} { x }'],
  ])('embedded %s stringifies', (template, expected) => {
    expect(interpolate(template, scope)).toBe(expected);
  });

  it('walks objects and arrays, leaving keys and non-strings alone', () => {
    const date = new Date(0);
    expect(
      interpolate({ query: '{entity_name}', list: ['{zero}', 5, true, null], '{k}': 'x', when: date }, scope),
    ).toEqual({ query: 'Acme Corp', list: [0, 5, true, null], '{k}': 'x', when: date });
  });

  it('keeps a "__proto__" key as an own key and does not touch prototypes', () => {
    const input = JSON.parse('{"__proto__": "{entity_name}"}') as unknown;
    const out = interpolate(input, scope) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(out, '__proto__')).toBe(true);
    expect(out['__proto__']).toBe('Acme Corp');
  });

  it.each([
    ['{missing}', "'missing' is not defined"],
    ['{pull_990_data.total}', "'pull_990_data' has no 'total'"],
    ['{pull_990_data.results[9].ein}', "'pull_990_data.results' has no '[9]'"],
    ['a {step1.data.nope} b', "'step1.data' has no 'nope'"],
    ['{entity_name.__proto__}', "'entity_name' has no '__proto__'"],
    ['{step1.constructor}', "'step1' has no 'constructor'"],
    ['{step1.data.constructor.prototype}', "'step1.data' has no 'constructor'"],
    ['{toString}', "'toString' is not defined"],
    ['{__proto__}', "'__proto__' is not defined"],
    ['{constructor.prototype}', "'constructor' is not defined"],
  ])('strict: %s is unresolved', (template, detail) => {
    let err: unknown;
    try {
      interpolate(template, scope);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExprError);
    expect((err as ExprError).code).toBe('unresolved_reference');
    expect((err as ExprError).message).toContain(detail);
    expect((err as ExprError).reference).toBe(template.replace(/^.*?\{+/, '').replace(/\}+.*$/, ''));
  });

  it('names the location of an unresolved reference inside a structure', () => {
    expect(() => interpolate({ params: { to: ['{nope}'] } }, scope)).toThrow(
      expect.objectContaining({ code: 'unresolved_reference', path: 'params.to[0]', reference: 'nope' }),
    );
  });

  it('lenient: unresolved whole values become undefined and embedded ones empty', () => {
    expect(interpolate('{missing}', scope, { lenient: true })).toBeUndefined();
    expect(interpolate('a{missing}b', scope, { lenient: true })).toBe('ab');
    expect(interpolate({ x: '{missing.deep}' }, scope, { lenient: true })).toEqual({ x: undefined });
  });

  it('still rejects malformed references in lenient mode', () => {
    expect(() => interpolate('{a..b}', scope, { lenient: true })).toThrow(ExprError);
  });

  it('resolves loop variables and falls back to vars', () => {
    const loop: Scope = { vars: { index: 'var-index' }, current: { from: 'x@y' }, index: 3 };
    expect(interpolate('{{current.from}} #{{index}}', loop)).toBe('x@y #3');
    expect(interpolate('{{index}}', { vars: { index: 'var-index' } })).toBe('var-index');
    expect(() => interpolate('{{current}}', { vars: {} })).toThrow(ExprError);
  });

  it('treats a missing last_execution_date as null (first run)', () => {
    expect(interpolate('{last_execution_date}', { vars: {} })).toBeNull();
    expect(interpolate('since={last_execution_date}', { vars: {} })).toBe('since=');
    expect(interpolate('{last_execution_date}', { vars: {}, lastExecutionDate: null })).toBeNull();
  });

  it('rejects execution_id when the scope has none', () => {
    expect(() => interpolate('{execution_id}', { vars: {} })).toThrow(
      expect.objectContaining({ code: 'unresolved_reference' }),
    );
  });

  it('treats absurd N_days_ago as unresolved instead of crashing', () => {
    expect(() => interpolate('{99999999999999999999_days_ago}', scope)).toThrow(
      expect.objectContaining({ code: 'unresolved_reference' }),
    );
  });

  it('fills the run variables (date, datetime, time, run_id, node_id) unless an input or step has the name', () => {
    const s: Scope = { vars: {}, now: new Date('2024-03-15T10:20:30Z'), executionId: 'run-1', nodeId: 'save' };
    expect(interpolate('r_{date}_{datetime}_{time}_{run_id}_{node_id}', s)).toBe('r_2024-03-15_2024-03-15T10-20-30_10-20-30_run-1_save');
    expect(interpolate('{date}', { ...s, vars: { date: 'mine' } })).toBe('mine');
    expect(() => interpolate('{node_id}', { vars: {} })).toThrow(expect.objectContaining({ code: 'unresolved_reference' }));
    expect(isRunVariable('date')).toBe(true);
    expect(isBuiltin('date')).toBe(false);
  });

  it('uses the real clock when scope.now is absent', () => {
    expect(interpolate('{today}', { vars: {} })).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('compileTemplate', () => {
  it('exposes its references and renders many times', () => {
    const t = compileTemplate('{a} and {{b.c}}');
    expect(t.references.map((r) => r.raw)).toEqual(['a', 'b.c']);
    expect(t({ vars: { a: 1, b: { c: [1] } } })).toBe('1 and [1]');
    expect(t({ vars: { a: 'x', b: { c: 'y' } } })).toBe('x and y');
  });
});

describe('resolvePath', () => {
  it.each([
    [{ a: 1 }, [{ kind: 'prop', name: 'a' }], { found: true, value: 1 }],
    [{ a: undefined }, [{ kind: 'prop', name: 'a' }], { found: true, value: undefined }],
    [{}, [{ kind: 'prop', name: 'a' }], { found: false, value: undefined }],
    [{}, [{ kind: 'prop', name: '__proto__' }], { found: false, value: undefined }],
    [{}, [{ kind: 'prop', name: 'constructor' }], { found: false, value: undefined }],
    [[1, 2], [{ kind: 'index', index: 1 }], { found: true, value: 2 }],
    [[1, 2], [{ kind: 'index', index: -3 }], { found: false, value: undefined }],
    [{ '0': 'z' }, [{ kind: 'index', index: 0 }], { found: true, value: 'z' }],
    ['abc', [{ kind: 'index', index: 1 }], { found: true, value: 'b' }],
    [5, [{ kind: 'prop', name: 'toFixed' }], { found: false, value: undefined }],
    [{ a: 1, b: 2 }, [{ kind: 'wildcard' }], { found: true, value: [1, 2] }],
    [[], [{ kind: 'wildcard' }], { found: true, value: [] }],
    ['str', [{ kind: 'wildcard' }], { found: false, value: undefined }],
  ] as const)('resolvePath(%j, %j)', (root, path, expected) => {
    expect(resolvePath(root, [...path])).toEqual(expected);
  });
});

describe('isBuiltin / stringifyValue', () => {
  it.each([
    ['today', true],
    ['30_days_ago', true],
    ['0_days_ago', true],
    ['execution_id', true],
    ['last_execution_date', true],
    ['current', true],
    ['index', true],
    ['days_ago', false],
    ['x_days_ago', false],
    ['entity_name', false],
  ])('isBuiltin(%s) = %s', (name, expected) => {
    expect(isBuiltin(name)).toBe(expected);
  });

  it.each([
    ['s', 's'],
    [1.5, '1.5'],
    [null, ''],
    [undefined, ''],
    [new Date('2024-01-02T03:04:05Z'), '2024-01-02T03:04:05.000Z'],
    [new Date(NaN), ''],
    [[1, 'a'], '[1,"a"]'],
    [10n, '10'],
  ])('stringifyValue(%p)', (v, expected) => {
    expect(stringifyValue(v)).toBe(expected);
  });
});
