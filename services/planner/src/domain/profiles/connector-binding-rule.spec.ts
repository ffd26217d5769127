import type { PlanNode } from '@af/plan';
import { connectorSteps, unboundConnectorIssues } from './connector-binding-rule.js';

const node = (id: string, over: Partial<PlanNode>): PlanNode => ({ id, kind: 'tool', inputs: {}, params: {}, dependsOn: [], ...over }) as PlanNode;
const plan = {
  nodes: [
    node('find_org', { action: 'call_connector', params: { connector: 'fixture-api', endpoint: 'search_orgs' } }),
    node('summarise', { kind: 'llm', action: 'llm_analyze' }),
    node('watch', { action: 'detect_new_data', inputs: { connector: 'feeds', endpoint: 'latest' } }),
    node('dynamic', { action: 'call_connector', params: { connector: '{pick.connector}', endpoint: 'x' } }),
    node('each', { kind: 'map', body: { nodes: [node('each_filing', { action: 'call_connector', params: { connector: 'filings' } })] } }),
  ],
};

describe('connectorSteps', () => {
  it('finds connector calls, map bodies included, skipping references', () => {
    expect(connectorSteps(plan)).toEqual([
      { step: 'find_org', connector: 'fixture-api', endpoint: 'search_orgs', field: 'connector' },
      { step: 'watch', connector: 'feeds', endpoint: 'latest', field: 'inputs.connector' },
      { step: 'each_filing', connector: 'filings', field: 'connector' },
    ]);
    expect(connectorSteps({ nodes: [node('x', { action: 'transform_data' })] })).toEqual([]);
  });
});

describe('unboundConnectorIssues (rule 5)', () => {
  it('no issues when every connector is bound and the endpoints allowed', () => {
    const bindings = [
      { connectorId: 'fixture-api', allowedEndpoints: ['search_orgs'], status: 'active' },
      { connectorId: 'feeds', allowedEndpoints: [], status: 'auth_failed' },
      { connectorId: 'filings', allowedEndpoints: ['a'], status: 'active' },
    ];
    expect(unboundConnectorIssues(plan, 'agent', bindings)).toEqual([]);
  });

  it('names the step and the connector that is not bound, and what is', () => {
    const issues = unboundConnectorIssues(plan, 'np', [{ connectorId: 'feeds', allowedEndpoints: [], status: 'active' }]);
    expect(issues.map((i) => [i.step, i.connector, i.code, i.field])).toEqual([
      ['find_org', 'fixture-api', 'connector_not_bound', 'connector'],
      ['each_filing', 'filings', 'connector_not_bound', 'connector'],
    ]);
    expect(issues[0]!.message).toBe("step 'find_org' calls connector 'fixture-api', which is not bound to agent '@np' (bound: feeds); bind it with PUT /api/agent-factory/connectors/fixture-api/bindings/{profile_id}");
    expect(unboundConnectorIssues(plan, 'np', [])[0]!.message).toMatch(/it has no connectors bound/);
  });

  it('a disabled binding and a disallowed endpoint are refused too', () => {
    const issues = unboundConnectorIssues(plan, 'np', [
      { connectorId: 'fixture-api', allowedEndpoints: ['get_filings'], status: 'active' },
      { connectorId: 'feeds', allowedEndpoints: [], status: 'disabled' },
      { connectorId: 'filings', allowedEndpoints: [], status: 'active' },
    ]);
    expect(issues.map((i) => [i.step, i.code, i.field])).toEqual([
      ['find_org', 'endpoint_not_allowed', 'endpoint'],
      ['watch', 'binding_disabled', 'inputs.connector'],
    ]);
    expect(issues[0]!.message).toMatch(/may call only get_filings/);
  });
});
