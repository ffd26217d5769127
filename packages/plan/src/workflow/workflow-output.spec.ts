import { compileWorkflowSteps } from '../index.js';
import { workflowOutputCheck } from './workflow-output.js';

const steps = [
  { id: 'step1', type: 'action', plugin: 'p', action: 'search' },
  { id: 'step2', type: 'action', plugin: 'p', action: 'enrich', params: { rows: '{{step1.data}}' } },
];

describe('workflowOutputCheck', () => {
  it('turns the seed field list into a JSON Schema: each field required unless required: false, typed unless any', () => {
    expect(workflowOutputCheck([{ name: 'contacts', type: 'array' }, { name: 'note', type: 'any', required: false }, { name: 'n' }])).toEqual({
      schema: { type: 'object', properties: { contacts: { type: 'array' }, note: {}, n: {} }, required: ['contacts', 'n'] },
      sources: {},
    });
  });

  it('keeps each field source as a reference', () => {
    expect(workflowOutputCheck([{ name: 'emails', type: 'array', source: 'step1.items' }, { name: 'x', source: '{{step2}}' }])!.sources).toEqual({
      emails: '{step1.items}',
      x: '{{step2}}',
    });
  });

  it('takes a JSON Schema object as it is', () => {
    const schema = { type: 'object', required: ['step2'] };
    expect(workflowOutputCheck(schema)).toEqual({ schema, sources: {} });
  });

  it('is null without an output_schema', () => {
    expect(workflowOutputCheck(undefined)).toBeNull();
    expect(workflowOutputCheck(null)).toBeNull();
  });
});

describe('compileWorkflowSteps: output_schema', () => {
  it('is kept on the plan with sources rewritten like every workflow reference (step.data… → step…)', () => {
    const r = compileWorkflowSteps({ workflow_steps: steps, output_schema: [{ name: 'contacts', type: 'array', source: 'step2.data.rows' }] });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.plan.metadata.output_schema).toEqual([{ name: 'contacts', type: 'array', source: '{step2.rows}' }]);
  });

  it.each([
    ['a field without a name', [{ type: 'array' }], 'output_schema[0].name'],
    ['an unknown type', [{ name: 'x', type: 'list' }], 'output_schema[0].type'],
    ['a source naming no step', [{ name: 'x', source: 'step9.data' }], 'output_schema[0].source'],
    ['neither a list nor an object', 'contacts', 'output_schema'],
  ])('refuses %s, naming the field', (_name, output_schema, field) => {
    const r = compileWorkflowSteps({ workflow_steps: steps, output_schema });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.field)).toContainEqual(expect.stringContaining(field));
  });
});
