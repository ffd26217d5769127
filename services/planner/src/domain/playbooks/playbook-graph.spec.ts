import { compilePlaybook, defaultActionRegistry } from '@af/plan';
import { playbookGraph } from './playbook-graph.js';

const yaml = `
id: report
name: Report
version: "1.0"
inputs:
  - name: q
    type: string
    required: true
steps:
  - name: find
    step_type: tool
    action: search_documents
    inputs: { query: "{q}" }
  - name: summary
    step_type: llm_task
    action: synthesize_report
    inputs: { docs: "{find.documents}" }
    output_schema:
      fields:
        - { name: text, type: string }
        - { name: points, type: "string[]" }
  - name: save
    step_type: tool
    action: save_to_workspace
    inputs: { data: "{find.documents}" }
`;

describe('playbookGraph', () => {
  it('lists steps with node types, outputs, side effects, edges and levels', () => {
    const result = compilePlaybook(yaml);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const graph = playbookGraph(result.plan, defaultActionRegistry());
    expect(graph.nodes.map((n) => [n.id, n.kind, n.step_type, n.side_effect])).toEqual([
      ['find', 'tool', 'tool', false],
      ['summary', 'llm', 'llm_task', false],
      ['save', 'tool', 'tool', true],
    ]);
    expect(graph.nodes[1]!.outputs).toEqual({ text: 'string', points: 'string[]' });
    expect(graph.nodes[0]!.outputs).toHaveProperty('documents');
    expect(graph.edges).toEqual([
      { from: 'find', to: 'summary', kind: 'depends_on' },
      { from: 'find', to: 'save', kind: 'depends_on' },
      // A side-effecting step keeps its place in the document (after summary).
      { from: 'summary', to: 'save', kind: 'depends_on' },
    ]);
    expect(graph.levels).toEqual([['find'], ['summary'], ['save']]);
  });
});
