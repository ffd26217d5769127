import { connectorLookup } from '../contracts/connector-contract.js';
import { compilePlaybook } from './compile-playbook.js';

const connectors = connectorLookup([
  {
    id: 'people-api',
    endpoints: {
      list: {
        parameters: [{ name: 'q', type: 'string' }],
        response_mapping: {
          fields: { name: 'full_name', employer: 'work.org' },
          entity_extraction: [
            { field: 'name', entity_type: 'PERSON' },
            { field: 'employer', entity_type: 'ORG', relationship_type: 'WORKS_FOR' },
          ],
        },
      },
    },
  },
]);

const playbook = (enrich: boolean | undefined, condition = '') => `id: enrich-test
name: Enrich test
inputs:
  - { name: go, type: string, default: 'yes' }
steps:
  - name: people
    step_type: tool
    action: call_connector
    connector: people-api
    endpoint: list
    inputs: { q: smith }
    output_key: people_rows
${condition ? `    condition: "${condition}"\n` : ''}  - name: count
    step_type: tool
    action: transform_data
    inputs: { data: "{people_rows.results}" }
    params: { operations: [{ type: limit, count: 1 }] }
${enrich === undefined ? '' : `output:\n  format: markdown\n  auto_enrich_graph: ${enrich}\n`}`;

function compiled(yaml: string, withConnectors = true) {
  const r = compilePlaybook(yaml, withConnectors ? { connectors } : {});
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

describe('output.auto_enrich_graph', () => {
  it('adds an enrich_knowledge node after each connector step, with the endpoint hints and provenance', () => {
    const plan = compiled(playbook(true));
    const enrich = plan.nodes.find((n) => n.action === 'enrich_knowledge');
    expect(enrich).toMatchObject({
      id: 'people_enrich',
      kind: 'tool',
      inputs: { data: '{people_rows.results}' },
      params: {
        connector: 'people-api',
        endpoint: 'list',
        source_node: 'people',
        entity_extraction: [
          { field: 'name', entity_type: 'PERSON' },
          { field: 'employer', entity_type: 'ORG', relationship_type: 'WORKS_FOR' },
        ],
      },
      dependsOn: ['people'],
      errorPolicy: { onError: 'skip' },
      source: 'output.auto_enrich_graph',
    });
    expect(plan.metadata?.enrich_nodes).toEqual(['people_enrich']);
    // The output block does not wait for the graph.
    expect(plan.nodes.find((n) => n.action === 'route_output')?.dependsOn).not.toContain('people_enrich');
  });

  it('adds nothing when the output block does not ask for enrichment', () => {
    for (const yaml of [playbook(false), playbook(undefined)]) {
      expect(compiled(yaml).nodes.filter((n) => n.action === 'enrich_knowledge')).toEqual([]);
    }
  });

  it('without known connectors the node carries no hints (the service classifies fields by name)', () => {
    const enrich = compiled(playbook(true), false).nodes.find((n) => n.action === 'enrich_knowledge');
    expect(enrich?.params).toEqual({ connector: 'people-api', endpoint: 'list', source_node: 'people' });
  });

  it("keeps the connector step's condition, so a skipped step is not enriched", () => {
    const enrich = compiled(playbook(true, "{go} == 'yes'")).nodes.find((n) => n.action === 'enrich_knowledge');
    expect(enrich?.condition).toBe(compiled(playbook(true, "{go} == 'yes'")).nodes[0]!.condition);
    expect(enrich?.condition).toBeDefined();
  });

  it('does not take an id a step already has', () => {
    const yaml = playbook(true).replace('  - name: count', '  - name: people_enrich');
    const ids = compiled(yaml).nodes.map((n) => n.id);
    expect(ids).toContain('people_enrich_2');
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("an agent profile's output_config.auto_enrich_graph (autoEnrichGraph)", () => {
  const withProfileFlag = (yaml: string, autoEnrichGraph: boolean) => {
    const r = compilePlaybook(yaml, { connectors, autoEnrichGraph });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    return r.plan;
  };

  it("adds the same nodes to a playbook that does not ask for enrichment itself, naming the profile's flag", () => {
    for (const yaml of [playbook(undefined), playbook(false)]) {
      const plan = withProfileFlag(yaml, true);
      const enrich = plan.nodes.filter((n) => n.action === 'enrich_knowledge');
      expect(enrich).toHaveLength(1);
      expect(enrich[0]).toMatchObject({
        id: 'people_enrich',
        inputs: { data: '{people_rows.results}' },
        params: { connector: 'people-api', endpoint: 'list', source_node: 'people', entity_extraction: expect.any(Array) },
        dependsOn: ['people'],
        errorPolicy: { onError: 'skip' },
        source: 'output_config.auto_enrich_graph',
      });
      expect(enrich[0]!.description).toContain('output_config.auto_enrich_graph');
      expect(plan.metadata?.enrich_nodes).toEqual(['people_enrich']);
    }
  });

  it("keeps the playbook's own flag as the source when both ask, and adds each node once", () => {
    const enrich = withProfileFlag(playbook(true), true).nodes.filter((n) => n.action === 'enrich_knowledge');
    expect(enrich.map((n) => [n.id, n.source])).toEqual([['people_enrich', 'output.auto_enrich_graph']]);
  });

  it('adds nothing when neither asks, and nothing to a playbook without connector steps', () => {
    expect(withProfileFlag(playbook(undefined), false).nodes.filter((n) => n.action === 'enrich_knowledge')).toEqual([]);
    const noConnector = `id: no-connector
name: No connector
steps:
  - name: only
    step_type: tool
    action: transform_data
    inputs: { data: [{ a: 1 }, { a: 2 }] }
    params: { operations: [{ type: limit, count: 1 }] }
`;
    const plan = withProfileFlag(noConnector, true);
    expect(plan.nodes.filter((n) => n.action === 'enrich_knowledge')).toEqual([]);
    expect(plan.metadata?.enrich_nodes).toBeUndefined();
  });
});
