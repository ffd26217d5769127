import { PlanGraphSchema } from '@af/plan';
import { agentPlan } from './agent-plan.js';

describe('agentPlan', () => {
  it('research: one research_with_tools node over the bound endpoints, with the rounds and history', () => {
    const out = agentPlan({ strategy: 'research', handle: 'np', query: 'Who funds X?', tools: ['fec__search'], maxRounds: 4, history: [{ role: 'user', content: 'hi' }], systemPrompt: 'Be terse.' });
    if (!out.ok) throw new Error(out.reason);
    expect(PlanGraphSchema.parse(out.plan).nodes).toHaveLength(1);
    expect(out.plan.nodes[0]).toMatchObject({ kind: 'llm', action: 'research_with_tools', params: { tools: ['fec__search'], max_rounds: 4, system_prompt: 'Be terse.' } });
    expect(String(out.plan.nodes[0]!.params.instructions)).toContain('user: hi');
    expect(String(out.plan.nodes[0]!.params.instructions)).toContain('Question: Who funds X?');
  });

  it('research without a bound endpoint is refused with the reason', () => {
    expect(agentPlan({ strategy: 'research', handle: 'np', query: 'q', tools: [] })).toEqual({ ok: false, reason: expect.stringContaining('bind a connector') });
  });

  it('direct: one llm_analyze node answering {answer}', () => {
    const out = agentPlan({ strategy: 'direct', handle: 'np', query: 'Hello?', tools: ['ignored__x'] });
    if (!out.ok) throw new Error(out.reason);
    expect(out.plan.nodes[0]).toMatchObject({ kind: 'llm', action: 'llm_analyze', outputSchema: { required: ['answer'] } });
    expect(PlanGraphSchema.safeParse(out.plan).success).toBe(true);
  });
});
