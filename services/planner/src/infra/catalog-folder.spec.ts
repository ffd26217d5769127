import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CATALOG_DIR } from '../../test/fixtures/marketing-catalog.js';
import { CatalogFolderError, readCatalogFolder } from './catalog-folder.js';

describe('readCatalogFolder', () => {
  it('reads the flex.marketing sample: 15 facets, 7 capabilities tagged with the collection', () => {
    const folder = readCatalogFolder(CATALOG_DIR);
    expect(folder.name).toBe('flex.marketing');
    expect(folder.facetDefinitions).toHaveLength(15);
    expect(folder.registrations.map((r) => r.registration.capabilityId)).toEqual([
      'copywriter.Messaging',
      'copywriter.SocialpostDrafting',
      'designer.VisualDesign',
      'director.PositioningReview',
      'director.SocialPostingReview',
      'strategist.Positioning',
      'strategist.SocialPosting',
    ]);
    expect(folder.registrations.every((r) => r.registration.metadata?.collection === 'flex.marketing' && r.registration.metadata.catalogTags?.includes('sandbox'))).toBe(true);
    expect(folder.registrations.filter((r) => r.registration.agentType === 'human').map((r) => r.registration.capabilityId)).toEqual(['designer.VisualDesign', 'director.PositioningReview', 'director.SocialPostingReview']);
  });

  describe('a broken copy', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'catalog-'));
      cpSync(CATALOG_DIR, dir, { recursive: true });
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const problems = () => {
      try {
        readCatalogFolder(dir);
        return [];
      } catch (e) {
        if (!(e instanceof CatalogFolderError)) throw e;
        return e.problems;
      }
    };

    it('names file and field of every problem', () => {
      writeFileSync(join(dir, 'facets', 'post.json'), '{ not json');
      writeFileSync(join(dir, 'facets', 'extra.json'), JSON.stringify({ name: 'extra', title: 'x', description: 'x', schema: { type: 'nope' }, metadata: { version: '1', direction: 'input' } }));
      writeFileSync(join(dir, 'capabilities', 'x.json'), JSON.stringify({ capabilityId: 'x', agentType: 'ai', version: '1', displayName: 'x', summary: 'x', inputContract: ['post_contxt'], outputContract: ['post_context'] }));
      expect(problems()).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^facets\/post\.json: /),
          expect.stringMatching(/^facets\/extra\.json: schema: /),
          "capabilities/x.json: inputContract[0]: unknown facet 'post_contxt' (did you mean 'post_context'?)",
          "capabilities/x.json: outputContract[0]: facet 'post_context' is input-only and cannot be produced by a node",
        ]),
      );
    });

    it('refuses a bad manifest and a duplicate capability', () => {
      writeFileSync(join(dir, 'capabilities', 'dup.json'), JSON.stringify(JSON.parse(readFileSync(join(dir, 'capabilities', 'designer.VisualDesign.json'), 'utf8'))));
      expect(problems()).toEqual([expect.stringContaining("capabilityId: 'designer.VisualDesign' (instance default) is registered twice")]);
      writeFileSync(join(dir, 'catalog.json'), JSON.stringify({ name: 'bad name!' }));
      expect(problems()).toEqual(['catalog.json: name: must be 1-200 letters, digits, _ . -']);
      expect(() => readCatalogFolder(join(dir, 'missing'))).toThrow(CatalogFolderError);
    });
  });
});
