import { compileMasterPlan } from '../master/compile-master-plan.js';
import { compilePlaybook } from '../playbook/compile-playbook.js';
import { validatePlan } from '../graph/validate-plan.js';
import { compileWorkflowSteps } from '../workflow/compile-workflow.js';
import {
  configurePlanLimits,
  countPlanNodes,
  countPlaybookSteps,
  countWorkflowSteps,
  DEFAULT_PLAN_MAX_NODES,
  planMaxNodes,
  planSizeIssue,
} from './plan-size.js';

afterEach(() => configurePlanLimits({ maxNodes: DEFAULT_PLAN_MAX_NODES }));

/** A chain playbook of `n` pure transform steps. */
function chainYaml(n: number): string {
  const lines = ['id: chain', 'name: Chain', 'inputs:', '  - name: rows', '    type: list', '    required: true', 'steps:'];
  for (let i = 0; i < n; i++) {
    lines.push(`  - name: s${i}`, '    step_type: tool', '    action: transform_data', '    inputs:', `      data: "${i === 0 ? '{rows}' : `{s${i - 1}.data}`}"`, '    operations:', '      - type: limit', '        value: 10');
  }
  return lines.join('\n') + '\n';
}

const node = (id: string, extra: Record<string, unknown> = {}) => ({ id, kind: 'tool', action: 'transform_data', ...extra });

describe('counting', () => {
  it('counts plan nodes, map body nodes and inline subflow plans', () => {
    const plan = {
      nodes: [
        node('a'),
        node('m', { kind: 'map', body: { nodes: [node('b1'), node('b2', { body: { nodes: [node('c')] } })] } }),
        node('s', { kind: 'subflow', params: { plan: { nodes: [node('x'), node('y')] } } }),
      ],
    };
    expect(countPlanNodes(plan)).toBe(8);
    expect(countPlanNodes({})).toBe(0);
    expect(countPlanNodes('nonsense')).toBe(0);
  });

  it('counts playbook steps as the nodes they become: a parallel step is its sub-steps', () => {
    expect(countPlaybookSteps({ steps: [{ name: 'a' }, { name: 'p', parallel_steps: [{ name: 'b' }, { name: 'c' }] }] })).toBe(3);
    expect(countPlaybookSteps({ steps: 'nope' })).toBe(0);
    expect(countPlaybookSteps(null)).toBe(0);
  });

  it('counts workflow steps with nested steps, loopSteps and fallbackSteps', () => {
    const steps = [{ id: 'a', fallbackSteps: [{ id: 'f' }] }, { id: 'l', loopSteps: [{ id: 'x' }, { id: 'y' }] }, { id: 'g', steps: [{ id: 'p' }] }];
    expect(countWorkflowSteps(steps)).toBe(7);
    expect(countWorkflowSteps({ workflow_steps: steps })).toBe(7);
  });

  it('counts 20,000-deep nesting without recursion', () => {
    let plan: Record<string, unknown> = { nodes: [node('leaf')] };
    for (let i = 0; i < 20_000; i++) plan = { nodes: [node(`n${i}`, { body: plan })] };
    expect(countPlanNodes(plan)).toBe(20_001);
  });
});

describe('the cap', () => {
  it('defaults to 1,000 and is configurable', () => {
    expect(planMaxNodes()).toBe(1_000);
    configurePlanLimits({ maxNodes: 10 });
    expect(planMaxNodes()).toBe(10);
    expect(() => configurePlanLimits({ maxNodes: 0 })).toThrow(RangeError);
  });

  // How fast the refusal is belongs to a benchmark, not a timed assertion here.
  it('refuses a 12,000-step playbook with one issue naming steps and the limit', () => {
    const result = compilePlaybook(chainYaml(12_000));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors).toEqual([
      { code: 'too_many_nodes', field: 'steps', message: '12000 steps (parallel_steps included); the limit is 1000 (PLAN_MAX_NODES)' },
    ]);
  });

  it('accepts a playbook at the cap, and the cap follows the configuration and the option', () => {
    expect(compilePlaybook(chainYaml(20), { maxNodes: 20 }).ok).toBe(true);
    expect(compilePlaybook(chainYaml(21), { maxNodes: 20 }).ok).toBe(false);
    configurePlanLimits({ maxNodes: 5 });
    const r = compilePlaybook(chainYaml(6));
    expect(!r.ok && r.errors[0]!.code).toBe('too_many_nodes');
  });

  it('counts parallel_steps against the cap', () => {
    const yaml = [
      'id: p',
      'name: P',
      'steps:',
      '  - name: group',
      '    parallel_steps:',
      ...Array.from({ length: 4 }, (_, i) => [`      - name: s${i}`, '        step_type: tool', '        action: transform_data', '        inputs:', '          data: []', '        operations:', '          - type: limit', '            value: 1']).flat(),
    ].join('\n');
    const r = compilePlaybook(yaml, { maxNodes: 3 });
    expect(!r.ok && r.errors[0]).toMatchObject({ code: 'too_many_nodes', field: 'steps', message: expect.stringMatching(/^4 steps/) });
  });

  it('refuses raw plans over the cap in validatePlan, map bodies included', () => {
    const plan = { nodes: [node('m', { kind: 'map', body: { nodes: Array.from({ length: 5 }, (_, i) => node(`b${i}`)) } })] };
    expect(validatePlan(plan, { maxNodes: 5 })).toEqual([
      { code: 'too_many_nodes', field: 'nodes', message: '6 nodes (map bodies and inline subflow plans included); the limit is 5 (PLAN_MAX_NODES)' },
    ]);
    expect(planSizeIssue(plan, 6)).toBeUndefined();
  });

  it('refuses workflow_steps and master plans over the cap', () => {
    const steps = Array.from({ length: 4 }, (_, i) => ({ id: `s${i}`, type: 'action', plugin: 'p', action: 'a' }));
    const w = compileWorkflowSteps({ workflow_steps: steps }, { maxNodes: 3 });
    expect(!w.ok && w.errors).toEqual([expect.objectContaining({ code: 'too_many_nodes', field: 'workflow_steps' })]);
    const agents = Array.from({ length: 4 }, (_, i) => ({ agent_id: `a${i}`, agent_name: `A${i}`, task: 't' }));
    const m = compileMasterPlan({ execution_plan: agents }, { maxNodes: 3 });
    expect(!m.ok && m.errors).toEqual([expect.objectContaining({ code: 'too_many_nodes', field: 'execution_plan' })]);
  });
});
