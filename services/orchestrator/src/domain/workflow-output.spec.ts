import { checkWorkflowOutput } from './workflow-output.js';

describe('checkWorkflowOutput', () => {
  const fields = { output_schema: [{ name: 'contacts', type: 'array', source: '{step2.rows}' }, { name: 'step1', type: 'object' }] };

  it('holds when every field is there with its type', () => {
    expect(checkWorkflowOutput(fields, { step1: { n: 1 }, step2: { rows: [1, 2] } })).toEqual([]);
  });

  it('reports a field whose source read nothing (the step failed or had no such field) as missing', () => {
    const errors = checkWorkflowOutput(fields, { step1: { n: 1 } });
    expect(errors).toEqual([expect.objectContaining({ keyword: 'required', message: expect.stringContaining('contacts') })]);
  });

  it('reports a field of the wrong type with its JSON pointer', () => {
    expect(checkWorkflowOutput(fields, { step1: 'text', step2: { rows: [] } })).toEqual([expect.objectContaining({ path: '/step1', keyword: 'type' })]);
  });

  it('checks the whole final output against a JSON Schema object', () => {
    const schema = { output_schema: { type: 'object', required: ['summary'] } };
    expect(checkWorkflowOutput(schema, { other: 1 })).toHaveLength(1);
    expect(checkWorkflowOutput(schema, { summary: 'x' })).toEqual([]);
  });

  it('has nothing to check without an output_schema', () => {
    expect(checkWorkflowOutput({}, {})).toEqual([]);
    expect(checkWorkflowOutput(undefined, {})).toEqual([]);
  });
});
