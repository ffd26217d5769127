import { ajvViolations, compileSchema, createAjv, pointerToPath } from './json-schema.js';

describe('json-schema helpers', () => {
  it('turns JSON pointers into field paths', () => {
    expect(pointerToPath('inputs', '')).toBe('inputs');
    expect(pointerToPath('inputs', '/items/0/name')).toBe('inputs.items[0].name');
    expect(pointerToPath('output', '/a~1b/c~0d')).toBe('output.a/b.c~d');
  });

  it('checks the common formats without extra packages', () => {
    const check = compileSchema(createAjv({ useDefaults: false }), {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri' },
        at: { type: 'string', format: 'date-time' },
        day: { type: 'string', format: 'date' },
        mail: { type: 'string', format: 'email' },
        id: { type: 'string', format: 'uuid' },
      },
    });
    expect(
      check({
        url: 'https://x.test/a',
        at: '2024-01-01T10:00:00Z',
        day: '2024-02-29',
        mail: 'a@b.co',
        id: '123e4567-e89b-12d3-a456-426614174000',
      }),
    ).toBe(true);
    expect(check({ url: 'not a url', at: '2024-01-01', day: '2024-13-45', mail: 'nope', id: 'x' })).toBe(
      false,
    );
    expect(ajvViolations('inputs', check.errors).map((v) => v.field)).toEqual([
      'inputs.url',
      'inputs.at',
      'inputs.day',
      'inputs.mail',
      'inputs.id',
    ]);
  });

  it('refuses unknown keywords and formats (strict), so typos surface when the plugin is defined', () => {
    const ajv = createAjv({ useDefaults: false });
    expect(() =>
      compileSchema(ajv, { type: 'object', properties: { a: { type: 'string', minlength: 1 } } }),
    ).toThrow(/unknown keyword/);
    expect(() =>
      compileSchema(ajv, { type: 'object', properties: { a: { type: 'string', format: 'hostname-ish' } } }),
    ).toThrow(/unknown format/);
  });
});
