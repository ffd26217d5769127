import { FacetCatalogError } from './facet.js';
import { FacetContractCompiler, validateFacetInputs, validateFacetOutputs } from './facet-contract-compiler.js';
import { testCatalog } from './test-catalog.fixture.js';

const compiler = new FacetContractCompiler(testCatalog());

describe('FacetContractCompiler.compileContracts', () => {
  it('merges facets into one object schema with provenance per property', () => {
    const c = compiler.compileContracts(['toneOfVoice', 'writerBrief', 'audienceProfile'], { direction: 'input' });
    expect(c.schema).toEqual({
      type: 'object',
      properties: {
        toneOfVoice: { type: 'string', enum: ['friendly', 'professional', 'inspiring'] },
        writerBrief: expect.objectContaining({ required: ['angle'] }),
        audienceProfile: { type: 'object', properties: { persona: { type: 'string' } } },
      },
      required: ['toneOfVoice', 'writerBrief'],
      additionalProperties: false,
    });
    expect(c.provenance).toEqual([
      { facet: 'toneOfVoice', title: 'Tone of Voice', version: 'v1', direction: 'input', pointer: '/properties/toneOfVoice', required: true },
      { facet: 'writerBrief', title: 'Writer Brief', version: '1.0.0', direction: 'bidirectional', pointer: '/properties/writerBrief', required: true },
      { facet: 'audienceProfile', title: 'Audience Profile', version: '1.0.0', direction: 'input', pointer: '/properties/audienceProfile', required: false },
    ]);
  });

  it('makes facets optional on request', () => {
    const c = compiler.compileContracts(['writerBrief', 'toneOfVoice'], { direction: 'input', optional: ['toneOfVoice'] });
    expect(c.schema.required).toEqual(['writerBrief']);
    expect(c.key).not.toBe(compiler.compileContracts(['writerBrief', 'toneOfVoice'], { direction: 'input' }).key);
  });

  it('refuses direction mismatches, unknown and repeated facets, naming each position', () => {
    const attempt = (names: string[], direction: 'input' | 'output') => {
      try {
        compiler.compileContracts(names, { direction, field: 'outputFacets' });
        return [];
      } catch (e) {
        return (e as FacetCatalogError).issues.map((i) => [i.code, i.field]);
      }
    };
    expect(attempt(['copyVariants', 'toneOfVoice'], 'output')).toEqual([['direction_mismatch', 'outputFacets[1]']]);
    expect(attempt(['rationaleSummary'], 'input')).toEqual([['direction_mismatch', 'outputFacets[0]']]);
    expect(attempt(['copyVariant', 'copyVariants', 'copyVariants'], 'output')).toEqual([
      ['unknown_facet', 'outputFacets[0]'],
      ['duplicate_facet', 'outputFacets[2]'],
    ]);
    expect(() => compiler.compileContracts(['toneOfVoice', 'rationaleSummary'], { direction: 'any' })).not.toThrow();
  });
});

describe('validateFacetInputs / validateFacetOutputs', () => {
  const inputs = compiler.compileContracts(['toneOfVoice', 'writerBrief'], { direction: 'input' });
  const outputs = compiler.compileContracts(['copyVariants', 'rationaleSummary'], { direction: 'output' });

  it('passes conforming payloads', () => {
    expect(validateFacetInputs(compiler, inputs, { toneOfVoice: 'friendly', writerBrief: { angle: 'growth' } })).toEqual({ ok: true });
    expect(validateFacetOutputs(compiler, outputs, { copyVariants: [{ headline: 'h', body: 'b', url: 'https://x.io/a' }], rationaleSummary: 'why' })).toEqual({ ok: true });
  });

  it('names the facet, JSON pointer and Ajv keyword of each violation', () => {
    const r = validateFacetInputs(compiler, inputs, { toneOfVoice: 'grumpy', writerBrief: { keyPoints: [3] }, extra: 1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map(({ facet, pointer, keyword }) => ({ facet, pointer, keyword }))).toEqual(
      expect.arrayContaining([
        { facet: 'extra', pointer: '/extra', keyword: 'additionalProperties' },
        { facet: 'toneOfVoice', pointer: '/toneOfVoice', keyword: 'enum' },
        { facet: 'writerBrief', pointer: '/writerBrief/angle', keyword: 'required' },
        { facet: 'writerBrief', pointer: '/writerBrief/keyPoints/0', keyword: 'type' },
      ]),
    );
    expect(r.errors.find((e) => e.facet === 'extra')!.message).toBe("/extra: 'extra' is not a facet of this contract");
  });

  it('reports a missing required facet and bad formats', () => {
    const r = validateFacetOutputs(compiler, outputs, { copyVariants: [{ headline: 'h', body: 'b', url: 'not a uri' }] });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => [e.facet, e.pointer, e.keyword])).toEqual(
      expect.arrayContaining([
        ['rationaleSummary', '/rationaleSummary', 'required'],
        ['copyVariants', '/copyVariants/0/url', 'format'],
      ]),
    );
  });

  it('reports a payload that is not an object without a facet', () => {
    const r = validateFacetInputs(compiler, inputs, 'text');
    expect(r).toEqual({ ok: false, errors: [{ pointer: '', keyword: 'type', message: '(payload): must be object' }] });
  });

  it('compiles each contract once', () => {
    const again = compiler.compileContracts(['toneOfVoice', 'writerBrief'], { direction: 'input' });
    expect(compiler.validator(again)).toBe(compiler.validator(inputs));
  });
});
