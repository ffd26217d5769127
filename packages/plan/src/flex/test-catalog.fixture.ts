/** A small facet catalog for the flex unit tests (the seed's §5.6.2 writer example). */
import { FacetCatalog } from './facet.js';

export const facetDefinitions = [
  {
    name: 'toneOfVoice',
    title: 'Tone of Voice',
    description: 'Adjusts emotional style and diction of the generated text.',
    schema: { type: 'string', enum: ['friendly', 'professional', 'inspiring'] },
    semantics: 'Agent should skew language, phrasing, word choice to reflect the tone value.',
    metadata: { version: 'v1', directionality: 'input' },
  },
  {
    name: 'writerBrief',
    title: 'Writer Brief',
    description: 'Narrative direction, key points, blockers for writers.',
    schema: { type: 'object', required: ['angle'], properties: { angle: { type: 'string' }, keyPoints: { type: 'array', items: { type: 'string' } } }, additionalProperties: false },
    semantics: ['Apply the angle.', 'Cover every key point.'],
    metadata: { version: '1.0.0', direction: 'bidirectional' },
  },
  {
    name: 'audienceProfile',
    title: 'Audience Profile',
    description: 'Audience attributes.',
    schema: { type: 'object', properties: { persona: { type: 'string' } } },
    metadata: { version: '1.0.0', direction: 'input', requiredByDefault: false },
  },
  {
    name: 'copyVariants',
    title: 'Copy Variants',
    description: 'Structured set of draft variants.',
    schema: {
      type: 'array',
      items: { type: 'object', required: ['headline', 'body'], properties: { headline: { type: 'string' }, body: { type: 'string' }, url: { type: 'string', format: 'uri' } } },
    },
    metadata: { version: '1.0.0', direction: 'bidirectional', catalogTags: ['sandbox'] },
  },
  {
    name: 'rationaleSummary',
    title: 'Rationale Summary',
    description: 'Why the copy works.',
    schema: { type: 'string' },
    metadata: { version: '1.0.0', direction: 'output' },
  },
];

export const testCatalog = (): FacetCatalog => FacetCatalog.fromDefinitions(facetDefinitions);
