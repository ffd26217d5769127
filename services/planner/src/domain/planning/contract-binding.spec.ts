import { bindEnvelopeInputs, bindOutputContract, wordMatch, words } from './contract-binding.js';
import { marketingCatalog } from '../../../test/fixtures/marketing-catalog.js';

const catalog = marketingCatalog();
const all = new Set(catalog.names());

describe('words / wordMatch', () => {
  it('splits identifiers and titles, drops stop words and plural s', () => {
    expect(words('copyVariants')).toEqual(['copy', 'variant']);
    expect(words('tone_of_voice')).toEqual(['tone', 'voice']);
    expect(words('Company Information')).toEqual(['company', 'information']);
    expect(words('process')).toEqual(['process']);
  });

  it('matches on at least half of the words', () => {
    expect(wordMatch('copyVariants', catalog.list())?.name).toBe('post_copy');
    expect(wordMatch('companyProfile', catalog.list())?.name).toBe('company_information');
    expect(wordMatch('contentBrief', catalog.list())?.name).toBe('creative_brief');
    expect(wordMatch('toneOfVoice', catalog.list())).toBeUndefined();
  });
});

describe('bindOutputContract', () => {
  const contract = (schema: Record<string, unknown>, hints?: Record<string, unknown>) => ({ mode: 'json_schema' as const, schema, constraints: [], ...(hints ? { hints } : {}) });

  it('binds by name (direct when the facet schema satisfies the property)', () => {
    const post = catalog.get('post')!.schema;
    const r = bindOutputContract(contract({ type: 'object', required: ['post'], properties: { post } }), catalog, all);
    expect(r).toEqual({ bindings: [{ property: 'post', facet: 'post', required: true, direct: true, match: 'name', schema: post }], unbound: [] });
  });

  it('binds by words when no name matches, and needs normalisation on a shape mismatch', () => {
    const r = bindOutputContract(contract({ type: 'object', properties: { copyVariants: { type: 'array', items: { type: 'object' } } } }), catalog, all);
    expect(r.bindings).toEqual([expect.objectContaining({ property: 'copyVariants', facet: 'post_copy', required: false, direct: false, match: 'words' })]);
  });

  it('prefers an explicit hint or x-facet, and reports what matches nothing', () => {
    const r = bindOutputContract(
      contract({ type: 'object', required: ['summary', 'why'], properties: { summary: { type: 'string' }, why: { type: 'string', 'x-facet': 'strategic_rationale' }, zzz: { type: 'string' } } }, { facets: { summary: 'post_copy' } }),
      catalog,
      all,
    );
    expect(r.bindings.map((b) => [b.property, b.facet, b.match, b.direct])).toEqual([
      ['summary', 'post_copy', 'hint', true],
      ['why', 'strategic_rationale', 'hint', true],
    ]);
    expect(r.unbound).toEqual([{ property: 'zzz', required: false }]);
  });

  it('binds a whole-output facet through hints.facet', () => {
    const r = bindOutputContract(contract({ type: 'string' }, { facet: 'post_copy' }), catalog, all);
    expect(r.bindings).toEqual([expect.objectContaining({ property: '', facet: 'post_copy', direct: true })]);
  });

  it('never binds an input-only facet', () => {
    const r = bindOutputContract(contract({ type: 'object', properties: { post_context: {} } }), catalog, all);
    // post_context is input-only: the nearest producible facet by words is used instead.
    expect(r.bindings.map((b) => [b.facet, b.match])).toEqual([['positioning_context', 'words']]);
  });
});

describe('bindEnvelopeInputs', () => {
  it('is direct for a facet-named valid value, structured for loose or invalid ones, context otherwise', () => {
    const r = bindEnvelopeInputs(
      {
        company_information: { name: 'X', brand_assets: [] },
        post_context: { type: 'new_hire' },
        contentBrief: 'Launch',
        toneOfVoice: ['calm'],
      },
      catalog,
    );
    expect(r).toEqual([
      { key: 'company_information', mode: 'direct', facet: 'company_information', match: 'name' },
      { key: 'post_context', mode: 'structured', facet: 'post_context', match: 'name', reason: expect.stringContaining('must have required property') },
      { key: 'contentBrief', mode: 'structured', facet: 'creative_brief', match: 'words' },
      { key: 'toneOfVoice', mode: 'context' },
    ]);
  });
});
