import { PlanNodeSchema } from '@af/plan';
import { rollbackNode, rollbackOrder, rollbackProblems } from './rollback.js';

const node = PlanNodeSchema.parse({ id: 'create', kind: 'tool', source: 'steps[1]' });

describe('rollbackOrder', () => {
  it('is the completed nodes with a rollback action, latest completion first', () => {
    const completions = new Map([
      ['a', 3],
      ['b', 7],
      ['c', 5],
      ['x[1]', 9],
    ]);
    expect(rollbackOrder(completions, (id) => id !== 'c')).toEqual(['x[1]', 'b', 'a']);
    expect(rollbackOrder(new Map(), () => true)).toEqual([]);
  });
});

describe('rollbackNode', () => {
  it('runs a connector call', () => {
    expect(rollbackNode(node, { connector: 'crm-api', endpoint: 'delete_contact', inputs: { id: '{create.id}' } })).toEqual({
      id: 'create.rollback',
      kind: 'tool',
      action: 'call_connector',
      params: { connector: 'crm-api', endpoint: 'delete_contact' },
      inputs: { id: '{create.id}' },
      dependsOn: [],
      source: 'steps[1].rollback',
    });
  });

  it('runs the workflow_steps form: params are the wired values, the plugin a param', () => {
    expect(rollbackNode(node, { plugin: 'hubspot', action: 'delete_contact', params: { id: '{{create.id}}' } })).toMatchObject({
      kind: 'tool',
      action: 'delete_contact',
      params: { plugin: 'hubspot' },
      inputs: { id: '{{create.id}}' },
    });
  });

  it('runs any node action', () => {
    expect(rollbackNode(node, { kind: 'tool', action: 'transform_data', params: { operations: [] }, inputs: { data: [] } })).toMatchObject({
      kind: 'tool',
      action: 'transform_data',
      params: { operations: [] },
      inputs: { data: [] },
    });
  });

  it('refuses a malformed action, saying what is wrong', () => {
    expect(rollbackProblems({})).toEqual(['needs an action (or connector and endpoint)']);
    expect(rollbackProblems({ connector: 'x', params: 'no' })).toEqual(['endpoint must be a non-empty string', 'params must be an object']);
    expect(() => rollbackNode(node, { action: '', inputs: [] })).toThrow('errorPolicy.rollback of create: needs an action (or connector and endpoint); inputs must be an object');
  });
});
