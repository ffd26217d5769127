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

  it("delivers the answer to the profile's destinations in a trailing route_output node named in the plan", () => {
    const destinations = [{ type: 'chat' }, { type: 'document', config: { folder: 'Research', filename_template: 'np_{date}' } }];
    for (const strategy of ['research', 'direct'] as const) {
      const out = agentPlan({ strategy, handle: 'np', query: 'q', tools: ['fec__search'], destinations });
      if (!out.ok) throw new Error(out.reason);
      expect(PlanGraphSchema.safeParse(out.plan).success).toBe(true);
      expect(out.plan.nodes.map((n) => n.id)).toEqual([strategy === 'research' ? 'research' : 'answer', 'output']);
      expect(out.plan.nodes[1]).toMatchObject({ kind: 'tool', action: 'route_output', inputs: { data: '{answer}' }, params: { destinations }, dependsOn: [out.plan.nodes[0]!.id] });
      expect(out.plan.metadata).toMatchObject({ output_node: 'output' });
    }
    const none = agentPlan({ strategy: 'direct', handle: 'np', query: 'q', tools: [], destinations: [] });
    if (!none.ok) throw new Error(none.reason);
    expect(none.plan.nodes).toHaveLength(1);
    expect(none.plan.metadata).not.toHaveProperty('output_node');
  });
});
