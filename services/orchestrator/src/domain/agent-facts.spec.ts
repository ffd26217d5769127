import type { PlanNode } from '@af/plan';
import { agentFacts, agentFramePayload } from './agent-facts.js';

const node = (id: string, action: string, params: Record<string, unknown> = {}, kind: PlanNode['kind'] = 'tool'): PlanNode =>
  ({ id, kind, action, params, inputs: {}, dependsOn: [] }) as PlanNode;

describe('agentFacts', () => {
  const nodes = [
    node('pull', 'call_connector', { connector: 'fec', endpoint: 'search' }),
    node('broken', 'call_connector', { connector: 'irs', endpoint: 'filings' }),
    node('never', 'call_connector', { connector: 'sec', endpoint: 'x' }),
    node('resolve', 'resolve_entities'),
    node('save', 'save_to_workspace'),
    node('think', 'llm_analyze', {}, 'llm'),
  ];
  const states = new Map([
    ['pull', { status: 'completed' as const }],
    ['broken', { status: 'failed' as const }],
    ['never', { status: 'skipped' as const }],
    ['resolve', { status: 'completed' as const }],
    ['save', { status: 'completed' as const }],
    ['think', { status: 'completed' as const }],
  ]);
  const outputs: Record<string, unknown> = {
    pull: { results: [1, 2, 3] },
    resolve: { entities: [{}, {}], new_entity_count: 1 },
    save: { document_id: 'doc_1', path: 'Reports/x.md', rows: 3 },
    think: { entities: 'not a list' },
  };
  const facts = agentFacts(nodes, states, (n) => outputs[n.id]);

  it('lists the connector calls that ran, with their result counts', () => {
    expect(facts.connectorsCalled).toEqual([
      { connector: 'fec', endpoint: 'search', node_id: 'pull', status: 'completed', results_count: 3 },
      { connector: 'irs', endpoint: 'filings', node_id: 'broken', status: 'failed' },
    ]);
  });

  it('counts entity lists and counts in completed outputs', () => {
    expect(facts.entitiesDiscovered).toBe(3);
  });

  it('names the outputs produced with their ids', () => {
    expect(facts.outputsProduced).toEqual([{ type: 'save_to_workspace', node_id: 'save', document_id: 'doc_1', path: 'Reports/x.md' }]);
  });

  it('finds nothing in a run whose steps did not run', () => {
    expect(agentFacts(nodes, new Map(), () => undefined)).toEqual({ connectorsCalled: [], entitiesDiscovered: 0, outputsProduced: [] });
  });
});

describe('agentFramePayload', () => {
  it('names the agent, who invoked it and the team on the complete frame', () => {
    expect(agentFramePayload({ profileId: 'p1', invokedBy: 'bob', teamId: 't1' })).toEqual({ agent_profile_id: 'p1', invoked_by: 'bob', team_id: 't1' });
    expect(agentFramePayload({ profileId: 'p1', invokedBy: 'alice', teamId: null })).toEqual({ agent_profile_id: 'p1', invoked_by: 'alice' });
  });

  it('is empty for a run that is not an agent\'s', () => {
    expect(agentFramePayload(null)).toEqual({});
  });
});
