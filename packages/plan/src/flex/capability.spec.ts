import { heartbeatTimeoutSeconds, parseCapabilityRegistration } from './capability.js';
import { testCatalog } from './test-catalog.fixture.js';

const catalog = testCatalog();
/** The seed's §5.6.2 payload, with facets the test catalog knows. */
const writer = {
  capabilityId: 'writer.en',
  agentType: 'ai',
  version: '2025.03.02',
  displayName: 'Content Writer (English)',
  summary: 'Creates long-form and social copy in English with brand-aware tone controls.',
  inputTraits: { languages: ['en'], formats: ['linkedIn_post', 'twitter_thread'], strengths: ['brand_voice_alignment', 'cta_generation'], limitations: ['no_paid_ads_claims'] },
  inputContract: ['toneOfVoice', 'writerBrief', 'audienceProfile'],
  outputContract: ['copyVariants', 'rationaleSummary'],
  cost: { tier: 'standard', estimatedTokens: 6000 },
  preferredModels: ['gpt-5.1'],
  heartbeat: { intervalSeconds: 60 },
  metadata: { owner: 'marketing-ai', docsUrl: 'https://internal.docs/agents/writer-en', catalogTags: ['sandbox'] },
};

const fieldsOf = (raw: unknown) => {
  const r = parseCapabilityRegistration(raw, catalog, 'registration');
  return r.ok ? [] : r.issues.map((i) => [i.code, i.field]);
};

describe('parseCapabilityRegistration', () => {
  it('accepts the seed payload and fills defaults', () => {
    const r = parseCapabilityRegistration(writer, catalog);
    expect(r).toMatchObject({ ok: true, registration: { capabilityId: 'writer.en', instanceId: 'default', scopes: [], agentType: 'ai', metadata: { owner: 'marketing-ai' } } });
    if (r.ok) expect(heartbeatTimeoutSeconds(r.registration)).toBe(180);
    expect(heartbeatTimeoutSeconds({})).toBeUndefined();
    expect(heartbeatTimeoutSeconds({ heartbeat: { intervalSeconds: 10, timeoutSeconds: 15 } })).toBe(15);
  });

  it('accepts a human capability with scopes, instance and UI templates', () => {
    const human = { ...writer, capabilityId: 'HumanAgent.clarifyBrief', agentType: 'human', instanceId: 'ops-1', scopes: ['en', 'writer.fr'], instructionTemplates: { task: 'Answer' }, assignmentDefaults: { maxNotifications: 1 } };
    expect(parseCapabilityRegistration(human, catalog)).toMatchObject({ ok: true, registration: { instanceId: 'ops-1', scopes: ['en', 'writer.fr'] } });
  });

  it('rejects unknown facets with a hint and direction mismatches', () => {
    const r = parseCapabilityRegistration({ ...writer, inputContract: ['toneOfVoise', 'rationaleSummary'], outputContract: ['toneOfVoice'] }, catalog);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([
      { code: 'unknown_facet', field: 'inputContract[0]', message: "inputContract[0]: unknown facet 'toneOfVoise' (did you mean 'toneOfVoice'?)", suggestedFix: 'toneOfVoice' },
      { code: 'direction_mismatch', field: 'inputContract[1]', message: "inputContract[1]: facet 'rationaleSummary' is output-only and cannot be consumed by a node" },
      { code: 'direction_mismatch', field: 'outputContract[0]', message: "outputContract[0]: facet 'toneOfVoice' is input-only and cannot be produced by a node" },
    ]);
  });

  it.each([
    [{ ...writer, capabilityId: undefined }, ['invalid_field', 'registration.capabilityId']],
    [{ ...writer, capabilityId: 'writer en' }, ['invalid_field', 'registration.capabilityId']],
    [{ ...writer, capabilityId: 'writer..en' }, ['invalid_field', 'registration.capabilityId']],
    [{ ...writer, capabilityId: 'writer.' }, ['invalid_field', 'registration.capabilityId']],
    [{ ...writer, capabilityId: `w${'x'.repeat(200)}` }, ['invalid_field', 'registration.capabilityId']],
    [{ ...writer, agentType: 'robot' }, ['invalid_field', 'registration.agentType']],
    [{ ...writer, agentType: 'AI' }, ['invalid_field', 'registration.agentType']],
    [{ ...writer, version: '' }, ['invalid_field', 'registration.version']],
    [{ ...writer, summary: '   ' }, ['invalid_field', 'registration.summary']],
    [{ ...writer, outputContract: [] }, ['invalid_field', 'registration.outputContract']],
    [{ ...writer, inputContract: ['toneOfVoice', 'toneOfVoice'] }, ['invalid_field', 'registration.inputContract[1]']],
    [{ ...writer, inputContract: [{ type: 'object' }] }, ['invalid_field', 'registration.inputContract[0]']],
    [{ ...writer, cost: { tier: 'gold' } }, ['invalid_field', 'registration.cost.tier']],
    [{ ...writer, cost: { estimatedTokens: -1 } }, ['invalid_field', 'registration.cost.estimatedTokens']],
    [{ ...writer, heartbeat: { intervalSeconds: 0 } }, ['invalid_field', 'registration.heartbeat.intervalSeconds']],
    [{ ...writer, heartbeat: { intervalSeconds: 60, timeoutSeconds: 30 } }, ['invalid_field', 'registration.heartbeat.timeoutSeconds']],
    [{ ...writer, endpoint: 'http://agent' }, ['invalid_field', 'registration.endpoint']],
    [{ ...writer, metadata: { catalogTags: 'sandbox' } }, ['invalid_field', 'registration.metadata.catalogTags']],
    [{ ...writer, preferedModels: ['x'] }, ['unknown_field', 'registration.preferedModels']],
    [{ ...writer, defaultContract: {} }, ['legacy_field', 'registration.defaultContract']],
  ])('names the bad field %#', (raw, expected) => {
    expect(fieldsOf(raw)).toContainEqual(expected);
  });

  it('explains legacy fields and suggests the nearest key', () => {
    const r = parseCapabilityRegistration({ ...writer, preferedModels: ['x'] }, catalog);
    expect(r).toMatchObject({ ok: false, issues: [{ suggestedFix: 'preferredModels' }] });
    const legacy = parseCapabilityRegistration({ ...writer, defaultContract: {} }, catalog);
    expect(legacy).toMatchObject({ ok: false, issues: [{ message: expect.stringContaining('declare facet names in outputContract') }] });
    expect(parseCapabilityRegistration({ ...writer, agentType: 'AI' }, catalog)).toMatchObject({ ok: false, issues: [{ suggestedFix: 'ai' }] });
  });

  it('refuses a non-object without throwing', () => {
    expect(parseCapabilityRegistration(null, catalog)).toMatchObject({ ok: false });
    expect(parseCapabilityRegistration('writer', catalog)).toMatchObject({ ok: false });
  });
});
