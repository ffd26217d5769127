import { validatePlan, type PlanNode } from '../index.js';

const node = (id: string, extra: Partial<PlanNode> = {}): PlanNode => ({ id, kind: 'tool', action: 'search_web', inputs: {}, params: {}, dependsOn: [], ...extra });
const plan = (nodes: PlanNode[], extra: Record<string, unknown> = {}) => ({ nodes, ...extra });
const codes = (issues: ReturnType<typeof validatePlan>) => issues.map((i) => [i.code, i.field]);

describe('validatePlan', () => {
  it('accepts a well-formed plan', () => {
    const p = plan([node('a', { inputs: { q: '{topic}' } }), node('b', { dependsOn: ['a'], inputs: { url: '{a.results[0].url}', since: '{30_days_ago}', run: '{execution_id}' } })], { inputs: [{ name: 'topic' }] });
    expect(validatePlan(p)).toEqual([]);
  });

  it('reports schema errors with the field path', () => {
    expect(codes(validatePlan({ nodes: [] }))).toEqual([['invalid_field', 'nodes']]);
    expect(codes(validatePlan({ nodes: [{ id: '1bad', kind: 'tool' }] }))).toEqual([['invalid_field', 'nodes[0].id']]);
    expect(codes(validatePlan({ nodes: [{ id: 'a', kind: 'robot' }] }))).toEqual([['invalid_field', 'nodes[0].kind']]);
    expect(codes(validatePlan('not a plan'))).toEqual([['invalid_field', '']]);
  });

  it('duplicate ids and output keys', () => {
    const issues = validatePlan(plan([node('a'), node('a'), node('b', { outputKey: 'c' }), node('c')]));
    expect(codes(issues)).toEqual([
      ['duplicate_id', 'nodes[1].id'],
      ['duplicate_output_key', 'nodes[3].outputKey'],
    ]);
  });

  it('unknown dependency with the nearest id as fix, and what waits for it is unreachable', () => {
    const issues = validatePlan(plan([node('fetch_data'), node('b', { dependsOn: ['fetch_dat'] }), node('c', { dependsOn: ['b'] })]));
    expect(issues).toEqual([
      expect.objectContaining({ code: 'nonexistent_step', field: 'nodes[1].dependsOn[0]', step: 'b', suggestedFix: 'fetch_data' }),
      expect.objectContaining({ code: 'unreachable_node', field: 'nodes[2]', step: 'c' }),
    ]);
  });

  it('cycles are reported once per cycle with the path and the edge to remove', () => {
    const issues = validatePlan(plan([node('a', { dependsOn: ['c'] }), node('b', { dependsOn: ['a'] }), node('c', { dependsOn: ['b'] }), node('d', { dependsOn: ['c'] }), node('x', { dependsOn: ['y'] }), node('y', { dependsOn: ['x'] })]));
    expect(issues.filter((i) => i.code === 'cycle').map((i) => [i.message, i.suggestedFix])).toEqual([
      ['circular dependency: a → b → c → a', "remove 'c' from the dependsOn of 'a'"],
      ['circular dependency: x → y → x', "remove 'y' from the dependsOn of 'x'"],
    ]);
    expect(issues.filter((i) => i.code === 'unreachable_node').map((i) => i.step)).toEqual(['d']);
  });

  it('references: unknown roots, forward references (no dependency) and malformed references', () => {
    const issues = validatePlan(
      plan([
        node('search', { inputs: { q: '{later.x}' } }),
        node('later', { inputs: { q: '{serch.results}', v: '{missing}' } }),
        node('bad', { params: { p: '{{a..b}}' } }),
      ]),
    );
    expect(issues).toEqual([
      expect.objectContaining({ code: 'forward_reference', field: 'nodes[0].inputs.q', suggestedFix: "add 'later' to dependsOn" }),
      expect.objectContaining({ code: 'nonexistent_step', field: 'nodes[1].inputs.q', suggestedFix: 'search' }),
      expect.objectContaining({ code: 'unresolved_reference', field: 'nodes[1].inputs.v' }),
      expect.objectContaining({ code: 'invalid_reference', field: 'nodes[2].params.p' }),
    ]);
  });

  it('a transitive dependency is enough for a reference', () => {
    expect(validatePlan(plan([node('a'), node('b', { dependsOn: ['a'] }), node('c', { dependsOn: ['b'], inputs: { x: '{a.count}' } })]))).toEqual([]);
  });

  it('conditions must compile in their dialect', () => {
    const issues = validatePlan(
      plan([
        node('a'),
        node('b', { dependsOn: ['a'], condition: '{a.count} > ' }),
        node('c', { dependsOn: ['a'], condition: '{"==":[{"var":"a.count"},1]}', conditionDialect: 'jsonlogic' }),
        node('d', { dependsOn: ['a'], condition: '{not json', conditionDialect: 'object' }),
      ]),
    );
    expect(codes(issues)).toEqual([
      ['invalid_condition', 'nodes[1].condition'],
      ['invalid_condition', 'nodes[3].condition'],
    ]);
  });

  it('llm nodes need an output schema; map nodes need a body', () => {
    expect(codes(validatePlan(plan([node('l', { kind: 'llm' }), node('m', { kind: 'map' })])))).toEqual([
      ['missing_output_schema', 'nodes[0].outputSchema'],
      ['invalid_field', 'nodes[1].body'],
    ]);
  });

  it('fallback and route targets must exist; route targets must wait for the route', () => {
    const issues = validatePlan(
      plan([
        node('a', { errorPolicy: { onError: 'fallback', fallback: ['a_fallbak'], rollbackOnError: false } }),
        node('a_fallback', { fallbackFor: 'a' }),
        node('r', { kind: 'route', routes: [{ condition: '{a.count} > 0', to: ['yes'] }], elseTo: ['no'], dependsOn: ['a'] }),
        node('yes', { dependsOn: ['r'] }),
        node('no'),
      ]),
    );
    expect(codes(issues)).toEqual([
      ['nonexistent_step', 'nodes[0].errorPolicy.fallback[0]'],
      ['invalid_route', 'nodes[2].elseTo[0]'],
    ]);
  });

  it('map bodies see current/index and the map node\'s ancestors, never its own output', () => {
    const body = (inputs: Record<string, unknown>) => ({ nodes: [node('each', { inputs })], itemsFrom: '{src.results}' });
    expect(validatePlan(plan([node('src'), node('m', { kind: 'map', dependsOn: ['src'], body: body({ x: '{current.url}', i: '{index}', s: '{src.count}' }) })]))).toEqual([]);
    const issues = validatePlan(plan([node('src'), node('other'), node('m', { kind: 'map', dependsOn: ['src'], body: body({ x: '{other.count}', y: '{m.x}' }) })]));
    expect(codes(issues)).toEqual([
      ['nonexistent_step', 'nodes[2].body.nodes[0].inputs.x'],
      ['nonexistent_step', 'nodes[2].body.nodes[0].inputs.y'],
    ]);
  });

  it('ids are unique across map bodies; plan inputs are unique', () => {
    const issues = validatePlan(plan([node('a'), node('m', { kind: 'map', body: { nodes: [node('a')], itemsFrom: '{x}' } })], { inputs: [{ name: 'x' }, { name: 'x' }] }));
    expect(codes(issues)).toEqual([
      ['duplicate_input', 'inputs[1].name'],
      ['duplicate_id', 'nodes[1].body.nodes[0].id'],
    ]);
  });

  it('subflows need exactly one of an inline plan or a playbook id; an inline plan is validated as its own graph', () => {
    const child = { nodes: [{ id: 'c1', kind: 'tool', inputs: { q: '{topic}' } }], inputs: [{ name: 'topic' }] };
    // The child's references are the child's own: '{topic}' is not an input of the parent.
    expect(validatePlan(plan([node('src'), node('sub', { kind: 'subflow', dependsOn: ['src'], inputs: { topic: '{src.count}' }, params: { plan: child } })]))).toEqual([]);
    expect(validatePlan(plan([node('sub', { kind: 'subflow', params: { playbook_id: 'org-filings', timeout_seconds: 30 } })]))).toEqual([]);
    expect(validatePlan(plan([node('sub', { kind: 'subflow', params: { workflow_slug: 'org-filings' } })]))).toEqual([]);
    expect(codes(validatePlan(plan([node('sub', { kind: 'subflow' })])))).toEqual([['invalid_field', 'nodes[0].params']]);
    expect(codes(validatePlan(plan([node('sub', { kind: 'subflow', params: { plan: child, playbook_id: 'x' } })])))).toEqual([['invalid_field', 'nodes[0].params']]);
    expect(codes(validatePlan(plan([node('sub', { kind: 'subflow', params: { playbook_id: 7 } })])))).toEqual([['invalid_field', 'nodes[0].params.playbook_id']]);
    const bad = validatePlan(plan([node('sub', { kind: 'subflow', params: { plan: { nodes: [{ id: 'c1', kind: 'tool', dependsOn: ['nope'] }] } } })]));
    expect(codes(bad)).toEqual([['nonexistent_step', 'nodes[0].params.plan.nodes[0].dependsOn[0]']]);
    expect(bad[0]!.message).toMatch(/^sub: child plan: c1: no node 'nope'/);
    // The parent's own references are still checked.
    expect(codes(validatePlan(plan([node('sub', { kind: 'subflow', inputs: { t: '{ghost.x}' }, params: { plan: child } })])))).toEqual([['nonexistent_step', 'nodes[0].inputs.t']]);
  });

  it('rollback actions must name what they run', () => {
    const ep = (rollback: Record<string, unknown>) => ({ onError: 'stop' as const, fallback: [], rollback, rollbackOnError: false });
    expect(validatePlan(plan([node('a', { errorPolicy: ep({ plugin: 'crm', action: 'delete', params: { id: '{a.id}' } }) })]))).toEqual([]);
    expect(validatePlan(plan([node('a', { errorPolicy: ep({ connector: 'crm-api', endpoint: 'delete', inputs: {} }) })]))).toEqual([]);
    const issues = validatePlan(plan([node('a', { errorPolicy: ep({ params: [] }) }), node('b', { errorPolicy: ep({ connector: 'x' }) })]));
    expect(issues.map((i) => [i.field, i.message])).toEqual([
      ['nodes[0].errorPolicy.rollback', 'a: rollback action needs an action (or connector and endpoint)'],
      ['nodes[0].errorPolicy.rollback', 'a: rollback action params must be an object'],
      ['nodes[1].errorPolicy.rollback', 'b: rollback action endpoint must be a non-empty string'],
    ]);
  });
});
