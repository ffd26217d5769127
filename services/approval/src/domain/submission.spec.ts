import { AppError } from '@af/service-kit';
import { parseAnswer, parseDecline, parseInstructions, parseSubmission, pointerToField } from './submission.js';

const schema = {
  type: 'object',
  required: ['headline', 'variants'],
  additionalProperties: false,
  properties: { headline: { type: 'string', minLength: 3 }, variants: { type: 'array', items: { type: 'object', required: ['body'], properties: { body: { type: 'string' } } } } },
};

const fails = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected an error');
};

describe('parseSubmission', () => {
  it('returns the output when it satisfies the schema', () => {
    expect(parseSubmission('{"headline":"Big news","variants":[{"body":"x"}]}', schema)).toEqual({ headline: 'Big news', variants: [{ body: 'x' }] });
  });

  it('names every failing field', () => {
    const err = fails(() => parseSubmission('{"headline":"no","variants":[{}],"extra":1}', schema));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => [v.field, v.code])).toEqual(
      expect.arrayContaining([
        ['output.headline', 'minLength'],
        ['output.variants[0].body', 'required'],
        ['output.extra', 'additionalProperties'],
      ]),
    );
  });

  it.each([
    ['', 'is required'],
    ['   ', 'is required'],
    ['{nope', 'is not valid JSON'],
  ])('refuses %p', (text, reason) => {
    const err = fails(() => parseSubmission(text, schema));
    expect(err.violations[0]).toMatchObject({ field: 'output' });
    expect(err.violations[0]!.reason).toContain(reason);
  });

  it('refuses outputs over 1 MiB', () => {
    expect(fails(() => parseSubmission(JSON.stringify({ headline: 'x'.repeat(1024 * 1024) }), schema)).violations[0]!.reason).toContain('larger than');
  });
});

describe('pointerToField', () => {
  it.each([
    ['', 'output'],
    ['/a', 'output.a'],
    ['/a/0/b', 'output.a[0].b'],
    ['/x~1y/~0z', 'output.x/y.~z'],
  ])('%p → %p', (p, f) => expect(pointerToField(p)).toBe(f));
});

describe('answers, declines and instructions', () => {
  it('trims an answer and refuses an empty or huge one', () => {
    expect(parseAnswer('  2024  ')).toBe('2024');
    expect(fails(() => parseAnswer(' ')).violations[0]!.field).toBe('answer');
    expect(fails(() => parseAnswer('x'.repeat(10_001))).violations[0]!.reason).toContain('longer than');
  });

  it('accepts only the structured reason codes', () => {
    expect(parseDecline('not_qualified', ' not my area ')).toEqual({ reasonCode: 'not_qualified', reason: 'not my area' });
    const err = fails(() => parseDecline('bored', ''));
    expect(err.violations[0]).toMatchObject({ field: 'reason_code' });
    expect(err.violations[0]!.reason).toContain('insufficient_information');
    expect(fails(() => parseDecline('other', 'x'.repeat(10_001))).violations[0]!.field).toBe('reason');
  });

  it('limits instructions', () => {
    expect(parseInstructions(' only john@ ')).toBe('only john@');
    expect(fails(() => parseInstructions('x'.repeat(10_001))).violations[0]!.field).toBe('instructions');
  });
});
