import { ExprError } from './expr-error.js';
import { collectReferences, extractReferences } from './reference.js';

const simplify = (t: string) =>
  extractReferences(t).map((r) => [r.raw, r.root, r.path, r.start, r.end, r.form]);

describe('extractReferences', () => {
  it.each([
    ['{entity_name}', [['entity_name', 'entity_name', [], 0, 13, 'single']]],
    ['{step.field}', [['step.field', 'step', [{ kind: 'prop', name: 'field' }], 0, 12, 'single']]],
    [
      'x {step.results[0].name} y',
      [
        [
          'step.results[0].name',
          'step',
          [
            { kind: 'prop', name: 'results' },
            { kind: 'index', index: 0 },
            { kind: 'prop', name: 'name' },
          ],
          2,
          24,
          'single',
        ],
      ],
    ],
    [
      '{step.results[*].donor_name}',
      [
        [
          'step.results[*].donor_name',
          'step',
          [{ kind: 'prop', name: 'results' }, { kind: 'wildcard' }, { kind: 'prop', name: 'donor_name' }],
          0,
          28,
          'single',
        ],
      ],
    ],
    ['{30_days_ago}', [['30_days_ago', '30_days_ago', [], 0, 13, 'single']]],
    [
      '{{step1.data.email}}',
      [
        [
          'step1.data.email',
          'step1',
          [
            { kind: 'prop', name: 'data' },
            { kind: 'prop', name: 'email' },
          ],
          0,
          20,
          'double',
        ],
      ],
    ],
    ['{{ current }}', [['current', 'current', [], 0, 13, 'double']]],
    ['{a[-1]}', [['a[-1]', 'a', [{ kind: 'index', index: -1 }], 0, 7, 'single']]],
    ['{{a["b c"]}}', [['a["b c"]', 'a', [{ kind: 'prop', name: 'b c' }], 0, 12, 'double']]],
    ['{a.*}', [['a.*', 'a', [{ kind: 'wildcard' }], 0, 5, 'single']]],
    ['{step-1.out}', [['step-1.out', 'step-1', [{ kind: 'prop', name: 'out' }], 0, 12, 'single']]],
  ])('finds references in %j', (template, expected) => {
    expect(simplify(template)).toEqual(expected);
  });

  it.each([
    ['{"a": 1}'],
    ['{ spaced }'],
    ['{0} and {1}'],
    ['Return JSON like {name: string}'],
    ['function f() { return 1; }'],
    ['}{'],
    ['plain text'],
    ['{'],
    ['a { b'],
    ['{a b}'],
  ])('treats %j as literal text', (template) => {
    expect(extractReferences(template)).toEqual([]);
  });

  it('finds references inside JSON-looking text', () => {
    expect(simplify('{"q": "{entity_name}"}')).toEqual([['entity_name', 'entity_name', [], 7, 20, 'single']]);
  });

  it.each([
    ['{{a.b', 'unbalanced_braces', 0, "'}}'"],
    ['x {{a', 'unbalanced_braces', 2, "'}}'"],
    ['text {abc', 'unbalanced_braces', 5, "'}'"],
    ['{a..b}', 'invalid_reference', 3, 'a name'],
    ['{a[x]}', 'invalid_reference', 3, "an index, '*' or a quoted key"],
    ['{a[0}', 'invalid_reference', 4, "']'"],
    ['{{}}', 'invalid_reference', 2, 'a path'],
    ['{{a b}}', 'invalid_reference', 3, "'.', '[' or end of path"],
    ['{{a["b}}', 'invalid_reference', 4, 'a closing "'],
    ['{a]}', 'invalid_reference', 2, "'.', '[' or end of path"],
  ])('rejects %j with %s at %i', (template, code, position, expected) => {
    let err: unknown;
    try {
      extractReferences(template);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExprError);
    expect(err).toMatchObject({ code, position, expected });
  });
});

describe('collectReferences', () => {
  it('walks objects and arrays and names the location', () => {
    const refs = collectReferences({
      query: '{entity_name}',
      filters: [{ v: 'from {{step1.data.from}} on {today}' }],
      'odd key': '{x}',
      n: 3,
      nested: { deep: ['{a}'] },
    });
    expect(refs.map((r) => [r.location, r.raw])).toEqual([
      ['query', 'entity_name'],
      ['filters[0].v', 'step1.data.from'],
      ['filters[0].v', 'today'],
      ['["odd key"]', 'x'],
      ['nested.deep[0]', 'a'],
    ]);
  });

  it('returns the location of a top-level string as empty', () => {
    expect(collectReferences('{a}')[0]?.location).toBe('');
  });

  it('reports the location of a malformed reference', () => {
    expect(() => collectReferences({ params: { q: '{a..b}' } })).toThrow(
      expect.objectContaining({ code: 'invalid_reference', path: 'params.q' }),
    );
  });
});
