import { TransformError } from './transform/transform-error.js';
import { evaluateCondition, runWorkflowTransform } from './workflow-transform.js';

const scope = { vars: { step1: { min: 2 }, input: { tag: 'vip' } } };
const emails = [
  { from: 'a@x', subject: 'hi', score: 3, team: 'red' },
  { from: 'b@x', subject: 'yo', score: 1, team: 'blue' },
  { from: 'c@x', score: 2, team: 'red' },
];

function fails(fn: () => unknown): TransformError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(TransformError);
    return err as TransformError;
  }
  throw new Error('did not throw');
}

describe('seed transform operations', () => {
  it('map: each item through the mapping template with {{current}} and {{index}}; missing fields read as empty', () => {
    const out = runWorkflowTransform('map', emails, { mapping: { email: '{{current.from}}', subject: '{{current.subject}}', n: '{{index}}', tag: '{{input.tag}}' } }, scope);
    expect(out).toEqual([
      { email: 'a@x', subject: 'hi', n: 0, tag: 'vip' },
      { email: 'b@x', subject: 'yo', n: 1, tag: 'vip' },
      { email: 'c@x', subject: undefined, n: 2, tag: 'vip' },
    ]);
    expect(runWorkflowTransform('map', { results: [1, 2] }, { mapping: 'item {{current}}' }, scope)).toEqual(['item 1', 'item 2']);
  });

  it('filter: a condition object, an expression string or JSON-Logic over {{current}}, with the run scope', () => {
    expect(runWorkflowTransform('filter', emails, { condition: { field: 'current.score', operator: '>', value: 1 } }, scope)).toEqual([emails[0], emails[2]]);
    expect(runWorkflowTransform('filter', emails, { condition: { '==': [{ var: 'current.team' }, 'blue'] } }, scope)).toEqual([emails[1]]);
    expect(runWorkflowTransform('filter', emails, { condition: 'current.score > 1 && current.team == "red"' }, scope)).toEqual([emails[0], emails[2]]);
    expect(runWorkflowTransform('filter', emails, { condition: { '>=': [{ var: 'current.score' }, { var: 'step1.min' }] } }, scope)).toEqual([emails[0], emails[2]]);
  });

  it('reduce: sum, count, min, max, avg and concat, optionally over a field', () => {
    expect(runWorkflowTransform('reduce', emails, { reducer: 'sum', field: 'score' }, scope)).toBe(6);
    expect(runWorkflowTransform('reduce', emails, { reducer: 'sum', field: 'score', initialValue: 10 }, scope)).toBe(16);
    expect(runWorkflowTransform('reduce', emails, { reducer: 'count', field: 'subject' }, scope)).toBe(2);
    expect(runWorkflowTransform('reduce', emails, { reducer: 'max', field: 'score' }, scope)).toBe(3);
    expect(runWorkflowTransform('reduce', emails, { reducer: 'min', field: 'team' }, scope)).toBe('blue');
    expect(runWorkflowTransform('reduce', emails, { reducer: 'avg', field: 'score' }, scope)).toBe(2);
    expect(runWorkflowTransform('reduce', [], { reducer: 'avg' }, scope)).toBeNull();
    expect(runWorkflowTransform('reduce', [[1], [2, 3], 4], { reducer: 'concat' }, scope)).toEqual([1, 2, 3, 4]);
  });

  it('sort: stable, asc or desc, missing values last', () => {
    expect((runWorkflowTransform('sort', emails, { field: 'score', order: 'desc' }, scope) as typeof emails).map((e) => e.from)).toEqual(['a@x', 'c@x', 'b@x']);
    expect((runWorkflowTransform('sort', emails, { field: 'subject' }, scope) as typeof emails).map((e) => e.from)).toEqual(['a@x', 'b@x', 'c@x']);
    expect(runWorkflowTransform('sort', [3, 1, 2], {}, scope)).toEqual([1, 2, 3]);
  });

  it('group: items by the value of a field', () => {
    expect(runWorkflowTransform('group', emails, { field: 'team' }, scope)).toEqual({ red: [emails[0], emails[2]], blue: [emails[1]] });
  });

  it('refuses bad input with the field at fault', () => {
    expect(fails(() => runWorkflowTransform('explode', emails, {}, scope)).field).toBe('inputs.operation');
    expect(fails(() => runWorkflowTransform('map', { count: 2 }, { mapping: {} }, scope)).message).toBe('inputs.input: must be an array (or a record set {results: [...]}), got an object');
    expect(fails(() => runWorkflowTransform('map', emails, [], scope)).field).toBe('inputs.config');
    expect(fails(() => runWorkflowTransform('map', emails, {}, scope)).field).toBe('inputs.config.mapping');
    expect(fails(() => runWorkflowTransform('filter', emails, {}, scope)).field).toBe('inputs.config.condition');
    expect(fails(() => runWorkflowTransform('filter', emails, { condition: { field: 'x', operator: 'resembles', value: 1 } }, scope)).field).toBe('inputs.config.condition');
    expect(fails(() => runWorkflowTransform('reduce', emails, { reducer: 'median' }, scope)).message).toBe("inputs.config.reducer: must be one of sum, count, min, max, avg, concat, got 'median'");
    expect(fails(() => runWorkflowTransform('reduce', emails, { reducer: 'sum', field: 'team' }, scope)).message).toBe("inputs.config.field: item 0: sum needs numbers, got 'red'");
    expect(fails(() => runWorkflowTransform('sort', emails, { order: 'up' }, scope)).field).toBe('inputs.config.order');
    expect(fails(() => runWorkflowTransform('group', emails, {}, scope)).field).toBe('inputs.config.field');
  });
});

describe('evaluate_condition (conditional steps)', () => {
  it('gives {result} of the condition in its dialect', () => {
    const s = { vars: { step2: [1, 2], flag: true } };
    expect(evaluateCondition({ '>': [{ var: 'step2.length' }, 1] }, 'jsonlogic', s)).toEqual({ result: true });
    expect(evaluateCondition({ field: 'flag', operator: '==', value: false }, undefined, s)).toEqual({ result: false });
    expect(evaluateCondition('{flag} == true', undefined, s)).toEqual({ result: true });
  });

  it('refuses a missing or malformed condition', () => {
    expect(fails(() => evaluateCondition(undefined, 'jsonlogic', { vars: {} })).field).toBe('params.condition');
    expect(fails(() => evaluateCondition({ field: 'x', operator: '~~' }, 'object', { vars: {} })).field).toBe('params.condition');
    expect(fails(() => evaluateCondition({ '==': [1, 1] }, 'yaml', { vars: {} })).field).toBe('params.conditionDialect');
  });
});
