import { ScriptedChatModel } from '@af/llm';
import { planningContext, sampleEnvelope } from '../../test/fixtures/marketing-catalog.js';
import { planTask } from '../domain/planning/planning-loop.js';
import { LlmPlanner } from './llm-planner.js';

const { envelope, notes } = sampleEnvelope('new-case-post');
const node = (id: string, capabilityId: string, inputFacets: string[], outputFacets: string[], dependsOn: string[] = [], stage = 'execution') => ({ id, stage, capabilityId, inputFacets, outputFacets, dependsOn, rationale: `${id} because` });
const valid = {
  rationale: 'strategy first, then copy and visuals, then review',
  nodes: [
    node('strategy', 'strategist.SocialPosting', ['company_information', 'post_context'], ['creative_brief', 'strategic_rationale', 'handoff_summary'], [], 'structuring'),
    node('copy', 'copywriter.SocialpostDrafting', ['company_information', 'creative_brief'], ['post_copy', 'handoff_summary'], ['strategy']),
    node('design', 'designer.VisualDesign', ['company_information', 'creative_brief'], ['post_visual', 'handoff_summary'], ['strategy']),
    node('review', 'director.SocialPostingReview', ['company_information', 'post_context', 'strategic_rationale', 'post_copy', 'post_visual'], ['post', 'feedback'], ['copy', 'design']),
  ],
};
const invalid = { ...valid, nodes: [valid.nodes[0], { ...valid.nodes[1], capabilityId: 'copywriter.LinkedInWriter' }, ...valid.nodes.slice(2)] };

describe('LlmPlanner with a scripted model', () => {
  it('an invalid draft is rejected with diagnostics fed back; the revised draft is generated', async () => {
    const model = new ScriptedChatModel([{ json: invalid }, { json: valid }]);
    const planner = new LlmPlanner({ model, modelName: 'scripted-planner' });
    const out = await planTask(planningContext(envelope), planner, { maxAttempts: 3, notes });
    expect(out.events.map((e) => [e.type, e.payload.attempt])).toEqual([
      ['plan_requested', 1],
      ['plan_rejected', 1],
      ['plan_requested', 2],
      ['plan_generated', 2],
    ]);
    expect(out.events[1]!.payload).toMatchObject({
      status: 'rejected',
      nextAttempt: 2,
      plannerRuntime: 'llm',
      plannerModel: 'scripted-planner',
      failures: expect.arrayContaining([expect.objectContaining({ constraintId: 'capability.copywriter.LinkedInWriter', cause: 'missing_producer', nodeId: 'copy' })]),
    });
    expect(out.accepted).toBe(true);
    expect(out.plan!.metadata.flex).toMatchObject({ plannerRuntime: 'llm', plannerModel: 'scripted-planner', attempt: 2 });
    expect(out.plan!.nodes.map((n) => n.id)).toEqual(['strategy', 'copy', 'design', 'review', 'fallback_review']);
    // The second call saw the first draft's diagnostics.
    expect(model.calls).toHaveLength(2);
    expect(model.prompts[1]).toContain('DIAGNOSTICS OF YOUR PREVIOUS DRAFT (rejected)');
    expect(model.prompts[1]).toContain('capability.copywriter.LinkedInWriter @copy');
    expect(model.prompts[0]).not.toContain('DIAGNOSTICS OF YOUR PREVIOUS DRAFT');
    expect(model.calls[0]!.structuredOutput?.name).toBe('plan_draft');
    expect(out.events[3]!.payload.prompt).toMatchObject({ facetRows: expect.any(Number), capabilityRows: 4 });
  });

  it('repairs an answer that does not match the draft schema within the attempt', async () => {
    const model = new ScriptedChatModel([{ json: { steps: [] } }, { json: valid }]);
    const out = await planTask(planningContext(envelope), new LlmPlanner({ model, modelName: 'm' }), { maxAttempts: 1 });
    expect(out.accepted).toBe(true);
    expect(out.events.map((e) => e.type)).toEqual(['plan_requested', 'plan_generated']);
    expect(model.prompts[1]).toContain('does not match the output schema');
  });

  it('gives up after maxAttempts rejected drafts', async () => {
    const model = new ScriptedChatModel([{ json: invalid }, { json: invalid }]);
    const out = await planTask(planningContext(envelope), new LlmPlanner({ model, modelName: 'm' }), { maxAttempts: 2 });
    expect(out.accepted).toBe(false);
    expect(out.attempts.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    expect(out.events.map((e) => e.type)).toEqual(['plan_requested', 'plan_rejected', 'plan_requested', 'plan_rejected']);
    expect(out.events[3]!.payload).not.toHaveProperty('nextAttempt');
  });

  it('falls back to the deterministic draft when the model fails, and says so', async () => {
    const model = new ScriptedChatModel([{ error: 'provider unavailable (503)' }]);
    const out = await planTask(planningContext(envelope), new LlmPlanner({ model, modelName: 'm' }), { maxAttempts: 2 });
    expect(out.accepted).toBe(true);
    expect(out.plan!.metadata.flex).toMatchObject({ plannerRuntime: 'deterministic-fallback', plannerModel: 'm' });
    expect(out.bundle.infos).toEqual([expect.objectContaining({ constraintId: 'planner.fallback', suggestion: expect.stringContaining('provider unavailable (503)') })]);
  });

  it('can be told not to fall back', async () => {
    const model = new ScriptedChatModel([{ error: 'boom' }]);
    await expect(planTask(planningContext(envelope), new LlmPlanner({ model, modelName: 'm', fallbackToDeterministic: false }), { maxAttempts: 1 })).rejects.toThrow('boom');
  });
});
