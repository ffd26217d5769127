import { planningContext, sampleEnvelope } from '../../../test/fixtures/marketing-catalog.js';
import { planTask } from './planning-loop.js';
import { DeterministicPlanner } from './planner.js';
import { runGoalConditions, runOutputContract } from './run-contract.js';

describe('run output contract and goal conditions', () => {
  it('restates the §10.1 contract over node outputs and points the goal at the last producer', async () => {
    const { envelope } = sampleEnvelope('linkedin-variants');
    const { plan } = await planTask(planningContext(envelope), new DeterministicPlanner(), { maxAttempts: 1 });
    const contract = runOutputContract(plan!, envelope.outputContract);
    expect(contract.schema).toEqual({
      type: 'object',
      properties: { normalize_output: { type: 'object', properties: { copyVariants: envelope.outputContract.schema.properties!['copyVariants' as never] }, required: ['copyVariants'] } },
      required: ['normalize_output'],
    });
    expect(runGoalConditions(plan!, envelope.goalConditions)).toEqual([
      { facet: 'copywriter_SocialpostDrafting_v2', path: '/handoff_summary/status', condition: { jsonLogic: { '==': [{ var: 'status' }, 'ready'] }, dsl: 'status == "ready"', canonicalDsl: 'status == "ready"' }, target: 'handoff_summary' },
    ]);
  });

  it('maps a directly bound property to its producer and keeps unknown goal targets as given', async () => {
    const { envelope } = sampleEnvelope('new-case-post', (e) => {
      e.goal_condition = [
        { facet: 'post', path: '/copy', condition: 'copy != ""' },
        { facet: 'elsewhere', path: '/x', condition: 'x == 1' },
      ];
      e.outputContract.constraints = [{ constraintId: 'c', expr: 'post.copy != ""', level: 'soft' }];
    });
    const { plan } = await planTask(planningContext(envelope), new DeterministicPlanner(), { maxAttempts: 1 });
    expect(runOutputContract(plan!, envelope.outputContract)).toMatchObject({
      schema: { properties: { director_SocialPostingReview: { required: ['post'] } }, required: ['director_SocialPostingReview'] },
      constraints: [{ constraintId: 'c', level: 'soft', expr: { '!=': [{ var: 'post.copy' }, ''] } }],
    });
    expect(runGoalConditions(plan!, envelope.goalConditions).map((g) => [g.facet, g.path, g.target])).toEqual([
      ['director_SocialPostingReview', '/post/copy', 'post'],
      ['elsewhere', '/x', 'elsewhere'],
    ]);
  });
});
