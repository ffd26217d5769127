import { checkJsonBody, checkUrl, DEFAULT_JSON_MAX_DEPTH } from './json-guard.js';

const body = (v: unknown) => Buffer.from(JSON.stringify(v));
const nested = (depth: number) => Buffer.from('['.repeat(depth) + ']'.repeat(depth));

describe('checkJsonBody: NUL characters', () => {
  it('accepts ordinary bodies, escapes included', () => {
    expect(checkJsonBody(body({ name: 'a "quoted" \\ name', inputs: { rows: [{ a: 1 }, 'x\u0001y', null] } }))).toBeUndefined();
    expect(checkJsonBody(Buffer.from('"\\\\u0000"'))).toBeUndefined(); // an escaped backslash, then text "u0000"
  });

  it.each([
    [{ name: 'a\u0000b' }, 'name'],
    [{ inputs: { org: 'x\u0000' } }, 'inputs.org'],
    [{ inputs: { rows: [{ a: 1 }, { b: ['ok', 'bad\u0000'] }] } }, 'inputs.rows[1].b[1]'],
    [{ inputs: { 'odd key': '\u0000' } }, 'inputs["odd key"]'],
    ['\u0000', '(body)'],
  ])('names the JSON path of the offending string (%j → %s)', (value, field) => {
    expect(checkJsonBody(body(value))).toEqual({ field, reason: 'contains a NUL character (\\u0000)', code: 'nul_character' });
  });

  it('names a key that contains a NUL', () => {
    expect(checkJsonBody(body({ inputs: { 'a\u0000b': 1 } }))).toEqual({ field: 'inputs["a\\\\u0000b"]', reason: 'the key contains a NUL character (\\u0000)', code: 'nul_character' });
  });

  it('finds a raw NUL byte', () => {
    expect(checkJsonBody(Buffer.from('{"a":1}\u0000'))?.code).toBe('nul_character');
  });

  it('tracks the path after nested values and commas', () => {
    expect(checkJsonBody(body({ a: [[1, 2], { x: 'y' }], b: { c: [true, 'z\u0000'] } }))?.field).toBe('b.c[1]');
  });
});

describe('checkJsonBody: depth', () => {
  it('accepts nesting up to the limit and refuses one more, with the limit in the reason', () => {
    expect(DEFAULT_JSON_MAX_DEPTH).toBe(64);
    expect(checkJsonBody(nested(64))).toBeUndefined();
    expect(checkJsonBody(nested(65))).toEqual({ field: expect.stringMatching(/^\[0\]/), reason: 'nests deeper than 64 levels of objects and arrays', code: 'too_deep' });
  });

  it('scans 100,000 levels without recursion, quickly', () => {
    const started = Date.now();
    const problem = checkJsonBody(nested(100_000));
    expect(problem?.code).toBe('too_deep');
    expect(problem!.field.length).toBeLessThanOrEqual(201);
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('takes the limit as an argument and counts objects too', () => {
    expect(checkJsonBody(body({ a: { b: { c: 1 } } }), 2)).toEqual({ field: 'a.b', reason: 'nests deeper than 2 levels of objects and arrays', code: 'too_deep' });
  });

  it('ignores brackets inside strings and does not throw on malformed input', () => {
    expect(checkJsonBody(body({ a: '[[[[[[[[[[{{{{{{{' }), 2)).toBeUndefined();
    for (const bad of ['{"a', '}}}]]]', '"\\', '{"a":[1,', '']) expect(() => checkJsonBody(Buffer.from(bad))).not.toThrow();
  });
});

describe('checkUrl', () => {
  it('accepts URLs without NUL', () => {
    expect(checkUrl('/api/v1/runs?status=failed')).toBeUndefined();
  });

  it('names the query parameter or the path', () => {
    expect(checkUrl('/api/v1/runs?status=fa%00iled')).toEqual({ field: 'status', reason: 'contains a NUL character (%00)', code: 'nul_character' });
    expect(checkUrl('/api/v1/runs/ab%00cd')).toEqual({ field: '(path)', reason: 'contains a NUL character (%00)', code: 'nul_character' });
  });
});
