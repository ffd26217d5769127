import { AppError } from '@af/service-kit';
import { compileWorkflowJson, unknownPlanKeys, validatePlanJson } from './plan-sources.js';

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

const steps = [
  { id: 'fetch', type: 'action', plugin: 'http', action: 'get', params: { url: 'https://example.com' } },
  { id: 'shape', type: 'transform', params: { operation: 'filter', input: 'fetch.items', condition: { '!!': [{ var: 'item.name' }] } }, dependencies: ['fetch'] },
];

describe('compileWorkflowJson', () => {
  it('compiles workflow_steps wrapped in an object, keeping body field paths', () => {
    const { plan } = compileWorkflowJson(JSON.stringify({ workflow_steps: steps }));
    expect(plan.provenance?.frontEnd).toBe('workflow_steps');
    expect(plan.nodes.map((n) => n.id)).toEqual(['fetch', 'shape']);
  });

  it('names an unknown field of a step by its path', () => {
    const bad = [steps[0], { ...steps[1], depends_on: ['fetch'] }];
    const err = thrown(() => compileWorkflowJson(JSON.stringify({ workflow_steps: bad })));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toContainEqual(expect.objectContaining({ field: 'workflow_steps[1].depends_on', code: 'unknown_field' }));
  });

  it('names a dependency on a missing step', () => {
    const bad = [steps[0], { ...steps[1], dependencies: ['fetsh'] }];
    const err = thrown(() => compileWorkflowJson(JSON.stringify({ workflow_steps: bad })));
    expect(err.violations.map((v) => v.field)).toContain('workflow_steps[1].dependencies[0]');
  });

  it.each([
    ['', 'workflow_steps', /is required/],
    ['{', 'workflow_steps', /not valid JSON/],
  ])('refuses %p naming %s', (json, field, reason) => {
    const err = thrown(() => compileWorkflowJson(json));
    expect(err.violations[0]).toMatchObject({ field, reason: expect.stringMatching(reason) });
  });
});

describe('validatePlanJson', () => {
  const node = (id: string, dependsOn: string[] = []) => ({ id, kind: 'tool', action: 'transform_data', dependsOn });

  it('accepts a valid plan', () => {
    const plan = validatePlanJson(JSON.stringify({ nodes: [node('a'), node('b', ['a'])] }));
    expect(plan.nodes.map((n) => n.dependsOn)).toEqual([[], ['a']]);
  });

  it('names a cycle with its nodes under plan.', () => {
    const err = thrown(() => validatePlanJson(JSON.stringify({ nodes: [node('a', ['b']), node('b', ['a'])] })));
    const cycle = err.violations.find((v) => v.code === 'cycle')!;
    expect(cycle.field).toMatch(/^plan\.nodes\[\d\]\.dependsOn$/);
    expect(cycle.reason).toMatch(/a → b → a|b → a → b/);
  });

  it('names an unknown reference', () => {
    const err = thrown(() => validatePlanJson(JSON.stringify({ nodes: [node('a'), node('b', ['c'])] })));
    expect(err.violations).toContainEqual(expect.objectContaining({ field: 'plan.nodes[1].dependsOn[0]', code: 'nonexistent_step' }));
  });

  it('names schema errors by path', () => {
    const err = thrown(() => validatePlanJson(JSON.stringify({ nodes: [{ id: 'a', kind: 'teleport' }] })));
    expect(err.violations[0]!.field).toBe('plan.nodes[0].kind');
  });

  it('refuses unknown keys with the nearest known one', () => {
    expect(unknownPlanKeys({ nodes: [{ id: 'a', kind: 'tool', depends_on: [] }], nodez: [] })).toEqual([
      expect.objectContaining({ field: 'nodez', suggestedFix: 'nodes' }),
      expect.objectContaining({ field: 'nodes[0].depends_on', suggestedFix: 'dependsOn' }),
    ]);
    const err = thrown(() => validatePlanJson(JSON.stringify({ nodes: [{ id: 'a', kind: 'tool', depends_on: [] }] })));
    expect(err.violations[0]).toMatchObject({ field: 'plan.nodes[0].depends_on', code: 'unknown_field' });
  });
});
