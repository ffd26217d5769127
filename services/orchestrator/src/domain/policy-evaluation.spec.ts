import {
  conditionHolds,
  firingKey,
  followUpKey,
  gateId,
  isGateId,
  isHalting,
  keyOfGate,
  metricBelow,
  metricValue,
  nextPolicyDeadline,
  policyVars,
  selectorMatches,
  triggeredPayload,
  validationSubjects,
} from './policy-evaluation.js';
import type { RuntimePolicy } from './runtime-policy.js';

const run = { completed: 2, failed: 0, skipped: 1, elapsedMs: 40, planVersion: 1 };
const node = { id: 'score[1]', nodeId: 'score', kind: 'tool', action: 'call_connector', outputKey: 'qa' };

describe('policyVars', () => {
  it('exposes outputs by key, inputs, run stats, the node and its output, and outputs as facets', () => {
    const vars = policyVars({ outputs: { fetch: { count: 3 } }, inputs: { org: 'acme' }, run, node, output: { score: 0.4 } });
    expect(vars).toMatchObject({
      fetch: { count: 3 },
      inputs: { org: 'acme' },
      input: { org: 'acme' },
      run,
      node,
      output: { score: 0.4 },
      metadata: { runContextSnapshot: { facets: { fetch: { value: { count: 3 } }, qa: { value: { score: 0.4 } } } } },
    });
  });
});

describe('conditions and selectors', () => {
  const vars = policyVars({ outputs: {}, inputs: {}, run, node, output: { score: 0.4, items: 'not-an-array' } });

  it('no condition always holds; a JSON-Logic or DSL one is evaluated against the vars', () => {
    expect(conditionHolds(undefined, vars)).toEqual({ fire: true });
    expect(conditionHolds({ jsonLogic: { '<': [{ var: 'output.score' }, 0.5] } }, vars)).toEqual({ fire: true });
    expect(conditionHolds({ dsl: 'output.score >= 0.5' }, vars)).toEqual({ fire: false });
    expect(conditionHolds({ dsl: 'facets.qa.score < 0.5' }, vars)).toEqual({ fire: true });
  });

  it('a condition that cannot be evaluated does not fire and says why', () => {
    const r = conditionHolds({ jsonLogic: { some: [{ var: 'output.items' }, { '==': [{ var: '' }, 1] }] } }, vars);
    expect(r.fire).toBe(false);
    expect(r.error).toMatch(/array/);
  });

  it('selectors match by base node id, kind and capability', () => {
    const t = (selector?: object) => ({ kind: 'onNodeComplete' as const, ...(selector ? { selector } : {}) });
    expect(selectorMatches(t(), node)).toBe(true);
    expect(selectorMatches(t({ nodeId: 'score' }), node)).toBe(true);
    expect(selectorMatches(t({ nodeId: 'score[1]' }), node)).toBe(false);
    expect(selectorMatches(t({ kind: 'tool', nodeId: 'score' }), node)).toBe(true);
    expect(selectorMatches(t({ kind: 'llm' }), node)).toBe(false);
    expect(selectorMatches(t({ capabilityId: 'qa.review' }), node)).toBe(false);
    expect(selectorMatches(t({ capabilityId: 'qa.review' }), { ...node, capabilityId: 'qa.review' })).toBe(true);
  });
});

describe('validationSubjects (onValidationFail with a selector)', () => {
  const nodes = [
    { id: 'fetch', kind: 'tool', outputKey: 'rows' },
    { id: 'draft', kind: 'capability', capabilityId: 'writer.Copy' },
    { id: 'a/b', kind: 'tool' },
  ];
  const errors = [
    { path: '/rows/0/name', keyword: 'required', message: 'x' },
    { path: '/draft/title', keyword: 'minLength', message: 'y' },
    { path: '/', keyword: 'type', message: 'z' },
    { path: '/draft', keyword: 'type', message: 'w' },
    { path: '/a~1b', keyword: 'type', message: 'v' },
    { path: '/unknown', keyword: 'required', message: 'u' },
    { keyword: 'odd' },
  ];
  const t = (selector: object) => ({ kind: 'onValidationFail' as const, selector });

  it('keeps the errors about the selected nodes’ outputs (by output key, the pointer’s first segment)', () => {
    expect(validationSubjects(t({ nodeId: 'fetch' }), errors, nodes)).toEqual({ nodeIds: ['fetch'], errors: [errors[0]] });
    expect(validationSubjects(t({ capabilityId: 'writer.Copy' }), errors, nodes)).toEqual({ nodeIds: ['draft'], errors: [errors[1], errors[3]] });
    expect(validationSubjects(t({ kind: 'tool' }), errors, nodes)).toEqual({ nodeIds: ['fetch', 'a/b'], errors: [errors[0], errors[4]] });
  });

  it('errors about the whole output, unknown keys or without a pointer concern no node', () => {
    expect(validationSubjects(t({ kind: 'map' }), errors, nodes)).toEqual({ nodeIds: [], errors: [] });
    expect(validationSubjects(t({ nodeId: 'fetch' }), [errors[2]!, errors[5]!, errors[6]!], nodes)).toEqual({ nodeIds: [], errors: [] });
  });
});

describe('metrics', () => {
  const vars = policyVars({ outputs: { qa: { score: 0.3, text: '0.9', list: [] } }, inputs: {}, run });

  it('reads a number (or numeric text) at a path; anything else is no metric', () => {
    expect(metricValue('qa.score', vars)).toBe(0.3);
    expect(metricValue('qa.text', vars)).toBe(0.9);
    expect(metricValue('run.completed', vars)).toBe(2);
    expect(metricValue('qa.list', vars)).toBeUndefined();
    expect(metricValue('qa.missing', vars)).toBeUndefined();
    expect(metricValue('nope.x', vars)).toBeUndefined();
  });

  it('fires below the threshold only', () => {
    expect(metricBelow({ kind: 'onMetricBelow', metric: 'qa.score', threshold: 0.5 }, vars)).toEqual({ fire: true, value: 0.3 });
    expect(metricBelow({ kind: 'onMetricBelow', metric: 'qa.score', threshold: 0.3 }, vars)).toEqual({ fire: false });
    expect(metricBelow({ kind: 'onMetricBelow', metric: 'qa.missing', threshold: 10 }, vars)).toEqual({ fire: false });
  });
});

describe('timers, keys and frames', () => {
  const policies: RuntimePolicy[] = [
    { id: 'a', enabled: true, trigger: { kind: 'onTimeout', ms: 5000 }, action: { type: 'fail' } },
    { id: 'b', enabled: true, trigger: { kind: 'onTimeout', ms: 1000 }, action: { type: 'emit', event: 'slow' } },
    { id: 'c', enabled: false, trigger: { kind: 'onTimeout', ms: 10 }, action: { type: 'fail' } },
  ];
  const created = new Date('2026-01-01T00:00:00Z');

  it('the next deadline is the earliest enabled onTimeout policy that has not fired', () => {
    expect(nextPolicyDeadline(policies, created, () => false)).toEqual(new Date('2026-01-01T00:00:01Z'));
    expect(nextPolicyDeadline(policies, created, (k) => k === 'b')).toEqual(new Date('2026-01-01T00:00:05Z'));
    expect(nextPolicyDeadline(policies, created, () => true)).toBeNull();
  });

  it('firing keys and gate ids', () => {
    expect(firingKey('p')).toBe('p');
    expect(firingKey('p', 'visit[2]')).toBe('p@visit[2]');
    expect(followUpKey('p@visit[2]', 'reject')).toBe('p@visit[2]/reject');
    expect(gateId('p@x')).toBe('policy:p@x');
    expect(isGateId('policy:p@x')).toBe(true);
    expect(isGateId('x')).toBe(false);
    expect(keyOfGate('policy:p@x')).toBe('p@x');
  });

  it('policy_triggered carries the policy id, trigger and action with its details', () => {
    const p = policies[1]!;
    expect(triggeredPayload(p, 'b', p.action, { elapsedMs: 1200 })).toEqual({
      policyId: 'b',
      key: 'b',
      trigger: 'onTimeout',
      triggerDetails: { kind: 'onTimeout', ms: 1000 },
      action: 'emit',
      actionDetails: { type: 'emit', event: 'slow' },
      elapsedMs: 1200,
    });
  });

  it('fail, pause and replan halt the run; emit and hitl do not wait for a safe point', () => {
    expect([{ type: 'fail' }, { type: 'pause' }, { type: 'replan' }, { type: 'emit', event: 'x' }, { type: 'hitl' }].map((a) => isHalting(a as never))).toEqual([true, true, true, false, false]);
  });
});
