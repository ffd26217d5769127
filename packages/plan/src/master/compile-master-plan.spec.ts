import { compileMasterPlan, kahnLevels, type PlanGraph } from '../index.js';
import { fixtureJson, golden } from '../../test/fixture-loader.js';

function ok(json: unknown, opts = {}): PlanGraph {
  const r = compileMasterPlan(json, opts);
  if (!r.ok) throw new Error(JSON.stringify(r.errors, null, 2));
  return r.plan;
}

describe('compileMasterPlan (seed multi-agent-rag.md execution plans)', () => {
  it.each(['diamond', 'sequential-hitl'])('%s compiles to its golden PlanGraph', (file) => {
    const plan = ok(fixtureJson(`master-plans/${file}.json`));
    expect(plan).toEqual(golden(`master-plans/${file}.plan.json`, plan));
  });

  it('diamond: fan-out, fan-in, then the composer', () => {
    const plan = ok(fixtureJson('master-plans/diamond.json'));
    expect(kahnLevels(plan)).toEqual([['rag_agent-a1b2c3', 'web_agent-d4e5f6'], ['code_agent-0'], ['composer']]);
    expect(plan.nodes[2]).toMatchObject({
      kind: 'capability',
      capabilityId: 'code_agent',
      inputs: { task: 'compare budget vs benchmarks', dependency_outputs: { 'rag_agent-a1b2c3': '{rag_agent-a1b2c3}', 'web_agent-d4e5f6': '{web_agent-d4e5f6}' } },
      errorPolicy: { onError: 'skip', retry: { maxRetries: 2, multiplier: 2 }, timeoutMs: 30_000 },
    });
    expect(plan.metadata.analysis).toEqual({ intent: 'compare_budget', entities: { metric: 'budget' } });
  });

  it('agents with HITL tools are gated by an approval node whose rejection skips the agent', () => {
    const plan = ok(fixtureJson('master-plans/sequential-hitl.json'));
    expect(kahnLevels(plan)).toEqual([['rag_agent-1'], ['code_agent-1'], ['mail_agent_0__approval'], ['mail_agent_0'], ['composer']]);
    expect(plan.nodes.find((n) => n.id === 'mail_agent_0__approval')).toMatchObject({ kind: 'approval', params: { tool_names: ['send_email'], on_reject: 'skip', timeout_seconds: 120 } });
  });

  it('parallel agents without dependencies share stage 1; composer can be left out', () => {
    const plan = ok([{ agent_id: 'rag', agent_name: 'rag_agent', task: 'q3 revenue' }, { agent_id: 'web', agent_name: 'web_agent', task: 'competitor news' }], { composer: false });
    expect(kahnLevels(plan)).toEqual([['rag', 'web']]);
  });

  it.each([
    ['a cycle (seed: "Circular dependency ValueError")', [{ agent_id: 'a', agent_name: 'x', task: 't', depends_on: ['b'] }, { agent_id: 'b', agent_name: 'x', task: 't', depends_on: ['a'] }], { code: 'cycle', field: 'execution_plan[0].depends_on', message: 'circular dependency: a → b → a' }],
    ['an unknown dependency', [{ agent_id: 'rag', agent_name: 'x', task: 't' }, { agent_id: 'b', agent_name: 'x', task: 't', depends_on: ['rga'] }], { code: 'nonexistent_step', field: 'execution_plan[1].depends_on[0]', suggestedFix: 'rag' }],
    ['a missing task', [{ agent_id: 'a', agent_name: 'x' }], { code: 'invalid_field', field: 'execution_plan[0].task' }],
    ['duplicate agent ids', [{ agent_id: 'a', agent_name: 'x', task: 't' }, { agent_id: 'a', agent_name: 'y', task: 't' }], { code: 'duplicate_id', field: 'execution_plan[1].agent_id' }],
    ['no agents', { execution_plan: [] }, { code: 'invalid_field', field: 'execution_plan' }],
  ])('rejects %s', (_name, json, expected) => {
    const r = compileMasterPlan(json);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toContainEqual(expect.objectContaining(expected));
  });
});
