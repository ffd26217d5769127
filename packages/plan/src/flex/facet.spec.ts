import { FacetCatalog, FacetCatalogError, facetAllows, facetToDefinition, parseFacet } from './facet.js';
import { facetDefinitions, testCatalog } from './test-catalog.fixture.js';

describe('parseFacet', () => {
  it('reads the seed example, accepting `directionality` and joining semantics bullets', () => {
    const tone = parseFacet(facetDefinitions[0]);
    expect(tone).toMatchObject({ ok: true, facet: { name: 'toneOfVoice', direction: 'input', version: 'v1', requiredByDefault: true, catalogTags: [] } });
    const brief = parseFacet(facetDefinitions[1]);
    expect(brief.ok && brief.facet.semantics).toBe('Apply the angle.\nCover every key point.');
  });

  it('round-trips through its definition form', () => {
    const p = parseFacet(facetDefinitions[3]);
    if (!p.ok) throw new Error('fixture');
    expect(parseFacet(facetToDefinition(p.facet))).toEqual(p);
  });

  it.each([
    [{ ...facetDefinitions[0], name: 'tone of voice' }, 'f.name'],
    [{ ...facetDefinitions[0], metadata: { version: 'v1' } }, 'f.metadata.direction'],
    [{ ...facetDefinitions[0], metadata: { version: 'v1', direction: 'input', directionality: 'output' } }, 'f.metadata.directionality'],
    [{ ...facetDefinitions[0], metadata: { version: 'v1', direction: 'sideways' } }, 'f.metadata.direction'],
    [{ ...facetDefinitions[0], title: '' }, 'f.title'],
    [{ ...facetDefinitions[0], schema: { type: 'strng' } }, 'f.schema'],
  ])('names the bad field %#', (raw, field) => {
    const p = parseFacet(raw, 'f');
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.issues.map((i) => i.field)).toContain(field);
  });

  it('suggests the nearest key for a misspelt field', () => {
    const p = parseFacet({ ...facetDefinitions[0], semantic: 'x' }, 'f');
    expect(p).toMatchObject({ ok: false, issues: [{ code: 'unknown_field', field: 'f.semantic', suggestedFix: 'semantics' }] });
  });
});

describe('FacetCatalog', () => {
  it('lists in catalog order, filters by tag and resolves names', () => {
    const c = testCatalog();
    expect(c.names()).toEqual(['toneOfVoice', 'writerBrief', 'audienceProfile', 'copyVariants', 'rationaleSummary']);
    expect(c.list('sandbox').map((f) => f.name)).toEqual(['copyVariants']);
    expect(c.resolveMany(['writerBrief', 'toneOfVoice']).map((f) => f.name)).toEqual(['writerBrief', 'toneOfVoice']);
    expect(facetAllows(c.get('toneOfVoice')!, 'output')).toBe(false);
    expect(facetAllows(c.get('writerBrief')!, 'output')).toBe(true);
  });

  it('rejects unknown names with a did-you-mean, and duplicate definitions', () => {
    const c = testCatalog();
    expect(() => c.resolveMany(['toneOfVoise'], 'inputContract')).toThrow(FacetCatalogError);
    try {
      c.resolveMany(['writerBrief', 'toneOfVoise'], 'inputContract');
    } catch (e) {
      expect((e as FacetCatalogError).issues).toEqual([
        { code: 'unknown_facet', field: 'inputContract[1]', message: "inputContract[1]: unknown facet 'toneOfVoise' (did you mean 'toneOfVoice'?)", suggestedFix: 'toneOfVoice' },
      ]);
    }
    expect(() => FacetCatalog.fromDefinitions([facetDefinitions[0], facetDefinitions[0]])).toThrow(/defined twice/);
    expect(() => FacetCatalog.fromDefinitions([{ name: 'x' }])).toThrow(FacetCatalogError);
  });

  it('changes its revision when a facet changes', () => {
    const a = testCatalog();
    const changed = FacetCatalog.fromDefinitions(facetDefinitions.map((f) => (f.name === 'rationaleSummary' ? { ...f, schema: { type: 'string', maxLength: 10 } } : f)));
    expect(testCatalog().revision).toBe(a.revision);
    expect(changed.revision).not.toBe(a.revision);
  });
});
