/**
 * Property-based tests: the compilers and the validator are total (they
 * return issues, never throw, for any input), generated valid playbooks
 * always compile to a DAG whose Kahn levels respect every dependency, and
 * validatePlan reports a cycle exactly when kahnLevels refuses the graph.
 */
import fc from 'fast-check';
import { stringify } from 'yaml';
import { compileMasterPlan, compilePlaybook, compileWorkflowSteps, kahnLevels, validatePlan, type PlanGraph, type PlanNode } from './index.js';

const READS = ['search_web', 'search_documents'] as const;

/** A random valid playbook: reads, crawls of earlier results, writes and approvals, references only backwards. */
const playbookArb = fc.array(fc.record({ kind: fc.constantFrom('read', 'crawl', 'write', 'approval', 'parallel'), pick: fc.nat(), cond: fc.boolean() }), { minLength: 1, maxLength: 25 }).map((specs) => {
  const producers: string[] = [];
  const steps: unknown[] = [];
  specs.forEach((s, i) => {
    const name = `s${i}`;
    const earlier = producers.length > 0 ? producers[s.pick % producers.length] : undefined;
    const condition = s.cond && earlier ? { condition: `{${earlier}.count} > 0 AND {topic} is defined` } : {};
    if (s.kind === 'crawl' && earlier) {
      // crawl_url has no `count`, so it is not offered as a producer.
      steps.push({ name, step_type: 'tool', action: 'crawl_url', inputs: { url: `https://x.org/{${earlier}.count}` }, ...condition });
      return;
    } else if (s.kind === 'write') {
      steps.push({ name, step_type: 'tool', action: 'send_notification', inputs: { message: earlier ? `{${earlier}.count} found` : 'hi' } });
      return;
    } else if (s.kind === 'approval') {
      steps.push({ name, step_type: 'approval', prompt: 'Continue?', ...(earlier ? { preview_from: earlier } : {}) });
      return;
    } else if (s.kind === 'parallel') {
      steps.push({
        name,
        action: 'parallel',
        parallel_steps: [0, 1].map((j) => ({ name: `${name}_${j}`, step_type: 'tool', action: READS[j], inputs: { query: earlier ? `{topic} {${earlier}.count}` : '{topic}' } })),
      });
      producers.push(`${name}_0`, `${name}_1`);
      return;
    } else {
      steps.push({ name, step_type: 'tool', action: READS[s.pick % 2], inputs: { query: '{topic}' }, ...condition });
    }
    producers.push(name);
  });
  return { id: 'generated', name: 'Generated', inputs: [{ name: 'topic', type: 'string', required: true }], steps };
});

function respectsLevels(plan: PlanGraph): boolean {
  const levelOf = new Map<string, number>();
  kahnLevels(plan).forEach((ids, k) => ids.forEach((id) => levelOf.set(id, k)));
  return plan.nodes.every((n) => n.dependsOn.every((d) => levelOf.get(d)! < levelOf.get(n.id)!));
}

describe('properties', () => {
  it('compilePlaybook never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        const r = compilePlaybook(text);
        return typeof r.ok === 'boolean' && (r.ok || r.errors.length > 0);
      }),
      { numRuns: 300 },
    );
  });

  it('compilePlaybook never throws on arbitrary YAML documents', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const r = compilePlaybook(stringify(value));
        return r.ok || r.errors.every((e) => typeof e.code === 'string' && typeof e.field === 'string' && e.message.length > 0);
      }),
      { numRuns: 300 },
    );
  });

  it('generated valid playbooks compile to a validated DAG whose levels respect every dependency', () => {
    fc.assert(
      fc.property(playbookArb, (doc) => {
        const r = compilePlaybook(stringify(doc));
        if (!r.ok) throw new Error(JSON.stringify(r.errors));
        expect(validatePlan(r.plan)).toEqual([]);
        expect(respectsLevels(r.plan)).toBe(true);
        // Every dependency points to a step written earlier.
        const pos = new Map(r.plan.nodes.map((n, i) => [n.id, i] as const));
        expect(r.plan.nodes.every((n) => n.dependsOn.every((d) => pos.get(d)! < pos.get(n.id)!))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('renaming a referenced step in a generated playbook is always reported with the field', () => {
    fc.assert(
      fc.property(playbookArb, fc.constantFrom('zzz_nowhere', 'q', 'missing_step'), (doc, bogus) => {
        const text = stringify(doc);
        if (!/\{s\d+(_\d)?\.count\}/.test(text)) return true;
        const broken = text.replace(/\{s\d+(_\d)?\.count\}/, `{${bogus}.count}`);
        const r = compilePlaybook(broken);
        return !r.ok && r.errors.some((e) => e.code === 'nonexistent_step' && /^steps\[\d+\]/.test(e.field));
      }),
      { numRuns: 150 },
    );
  });

  const graphArb = fc.array(fc.array(fc.nat({ max: 11 }), { maxLength: 3 }), { minLength: 1, maxLength: 12 }).map((deps) => ({
    nodes: deps.map((d, i): PlanNode => ({ id: `n${i}`, kind: 'tool', inputs: {}, params: {}, dependsOn: [...new Set(d.filter((j) => j < deps.length).map((j) => `n${j}`))] })),
  }));

  it('validatePlan reports a cycle exactly when kahnLevels refuses the graph', () => {
    fc.assert(
      fc.property(graphArb, (plan) => {
        const hasCycle = validatePlan(plan).some((i) => i.code === 'cycle');
        let threw = false;
        try {
          kahnLevels(plan);
        } catch {
          threw = true;
        }
        return hasCycle === threw && (threw || respectsLevels(plan as PlanGraph));
      }),
      { numRuns: 500 },
    );
  });

  it('validatePlan, compileWorkflowSteps and compileMasterPlan are total', () => {
    fc.assert(
      fc.property(fc.anything({ maxDepth: 4 }), (value) => {
        expect(Array.isArray(validatePlan(value))).toBe(true);
        expect(typeof compileWorkflowSteps(value).ok).toBe('boolean');
        expect(typeof compileMasterPlan(value).ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });

  it('random workflow_steps and master plans never throw', () => {
    const wfStep = fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'd'),
      type: fc.constantFrom('action', 'llm_decision', 'transform', 'delay', 'conditional'),
      plugin: fc.constant('p'),
      action: fc.constant('x'),
      params: fc.dictionary(fc.constantFrom('q', 'input', 'operation', 'duration'), fc.oneof(fc.constantFrom('{{a.data}}', '{{b.data[*].x}}', 'map', '{{zz}}'), fc.nat())),
      dependencies: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e')),
      executeIf: fc.option(fc.constantFrom('a.result == true', 'b.data.x > 3 && c.ok', '((('), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(wfStep, { minLength: 1, maxLength: 6 }), (steps) => {
        const r = compileWorkflowSteps(JSON.parse(JSON.stringify(steps)));
        return r.ok ? respectsLevels(r.plan) : r.errors.length > 0;
      }),
      { numRuns: 300 },
    );
    const agent = fc.record({ agent_id: fc.constantFrom('a', 'b', 'c'), agent_name: fc.constant('x'), task: fc.constant('t'), depends_on: fc.array(fc.constantFrom('a', 'b', 'c', 'd')) });
    fc.assert(
      fc.property(fc.array(agent, { minLength: 1, maxLength: 5 }), (agents) => {
        const r = compileMasterPlan({ execution_plan: agents });
        return r.ok ? respectsLevels(r.plan) : r.errors.length > 0;
      }),
      { numRuns: 300 },
    );
  });
});
