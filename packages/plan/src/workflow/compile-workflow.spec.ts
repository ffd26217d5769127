import { compileWorkflowSteps, kahnLevels, type PlanGraph } from '../index.js';
import { fixtureJson, golden } from '../../test/fixture-loader.js';

function ok(json: unknown): PlanGraph {
  const r = compileWorkflowSteps(json);
  if (!r.ok) throw new Error(JSON.stringify(r.errors, null, 2));
  return r.plan;
}

describe('compileWorkflowSteps golden graphs (seed workflow-orchestrator-design.md)', () => {
  it.each(['vip-emails', 'enrich-contacts'])('%s compiles to its golden PlanGraph', (file) => {
    const plan = ok(fixtureJson(`workflows/${file}.json`));
    expect(plan).toEqual(golden(`workflows/${file}.plan.json`, plan));
  });
});

describe('compileWorkflowSteps: the seed example (VIP emails)', () => {
  const plan = ok(fixtureJson('workflows/vip-emails.json'));
  const node = (id: string) => plan.nodes.find((n) => n.id === id)!;

  it('maps step types to node kinds and params to wired inputs', () => {
    expect(plan.nodes.map((n) => [n.id, n.kind, n.action])).toEqual([
      ['step1', 'tool', 'search_emails'],
      ['step2', 'tool', 'get_contact_by_email'],
      ['step3', 'transform', 'evaluate_condition'],
      ['step4', 'tool', 'send_message'],
    ]);
    expect(node('step1')).toMatchObject({ params: { plugin: 'google-mail' }, inputs: { query: 'is:unread from:{{vip_list}}' } });
    expect(plan.inputs).toEqual([{ name: 'vip_list', type: 'string', required: false }]);
  });

  it('rewrites stepX.data to the node output and compiles conditions to JSON-Logic', () => {
    expect(node('step2').inputs).toEqual({ email: '{{step1[*].from}}' });
    expect(node('step3').params).toEqual({ condition: { '==': [{ var: 'step2.priority' }, 'high'] }, conditionDialect: 'jsonlogic' });
    expect(node('step4')).toMatchObject({ condition: '{"==":[{"var":"step3.result"},true]}', conditionDialect: 'jsonlogic' });
  });

  it('adds dependencies for steps read but not declared (step3 reads step2, step4 reads step1)', () => {
    expect(plan.nodes.map((n) => [n.id, n.dependsOn])).toEqual([
      ['step1', []],
      ['step2', ['step1']],
      ['step3', ['step2']],
      ['step4', ['step3', 'step1']],
    ]);
    expect(kahnLevels(plan)).toEqual([['step1'], ['step2'], ['step3'], ['step4']]);
    expect(plan.provenance).toEqual({ frontEnd: 'workflow_steps' });
  });
});

describe('compileWorkflowSteps: loops, groups, retries, fallbacks, rollback, cache', () => {
  const plan = ok(fixtureJson('workflows/enrich-contacts.json'));
  const node = (id: string) => plan.nodes.find((n) => n.id === id)!;

  it('parallel_group members become siblings that inherit the group dependencies', () => {
    expect(node('enrich').dependsOn).toEqual(['step2']);
    expect(node('sentiment').dependsOn).toEqual(['step2', 'step1']);
    expect(node('per_contact').dependsOn).toEqual(['enrich', 'sentiment']);
  });

  it('retryPolicy and fallbackSteps', () => {
    expect(node('enrich').errorPolicy).toEqual({
      onError: 'fallback',
      fallback: ['enrich_fallback'],
      rollbackOnError: false,
      retry: { maxRetries: 3, backoffMs: 1000, multiplier: 2, maxBackoffMs: 60_000, retryableCodes: ['TIMEOUT', 'RATE_LIMIT', 'NETWORK_ERROR', 'ECONNRESET'] },
    });
    expect(node('enrich_fallback')).toMatchObject({ fallbackFor: 'enrich', dependsOn: ['step2'], params: { plugin: 'clearbit' } });
  });

  it('loop → map node whose body runs in order per item', () => {
    expect(node('per_contact')).toMatchObject({
      kind: 'map',
      body: { itemsFrom: '{{enrich}}', maxIterations: 50, concurrency: 1, continueOnError: true },
    });
    expect(node('per_contact').body!.nodes.map((n) => [n.id, n.kind, n.dependsOn])).toEqual([
      ['wait', 'delay', []],
      ['notify', 'tool', ['wait']],
    ]);
    expect(node('per_contact').body!.nodes[1]!.errorPolicy!.rollback).toEqual({ plugin: 'slack', action: 'delete_message', params: { ts: '{{notify.ts}}' } });
  });

  it('cache, llm_decision, executeIf objects and rollbackOnError', () => {
    expect(node('step1').cache).toEqual({ key: 'emails:{{input.mailbox}}', ttlSeconds: 300 });
    expect(node('sentiment')).toMatchObject({ kind: 'llm', action: 'llm_decision', params: { prompt: 'Classify the tone of each email' } });
    expect(JSON.parse(node('summary').condition!)).toEqual({ and: [{ exists: { var: 'sentiment.decision' } }, { '!': { is_empty: { var: 'step1' } } }] });
    expect(node('summary').errorPolicy).toMatchObject({ onError: 'stop', rollbackOnError: true });
    expect(plan.metadata.output_schema).toEqual([{ name: 'enriched_contacts', type: 'array' }]);
  });
});

describe('compileWorkflowSteps: invalid workflows', () => {
  const fail = (json: unknown) => {
    const r = compileWorkflowSteps(json);
    expect(r.ok).toBe(false);
    return r.ok ? [] : r.errors;
  };

  it.each([
    ['unknown dependency', [{ id: 'step1', type: 'action', plugin: 'p', action: 'a' }, { id: 'step2', type: 'action', plugin: 'p', action: 'a', dependencies: ['stpe1'] }], { code: 'nonexistent_step', field: '[1].dependencies[0]', suggestedFix: 'step1' }],
    ['unknown step in a reference', [{ id: 'step1', type: 'action', plugin: 'p', action: 'a', params: { x: '{{step9.data.y}}' } }], { code: 'nonexistent_step', field: '[0].params.x' }],
    ['misspelt field', [{ id: 'step1', type: 'action', plugin: 'p', action: 'a', dependancies: [] }], { code: 'unknown_field', field: '[0].dependancies' }],
    ['unknown type', [{ id: 'step1', type: 'teleport' }], { code: 'invalid_field', field: '[0].type' }],
    ['action without plugin', [{ id: 'step1', type: 'action', action: 'a' }], { code: 'missing_required', field: '[0].plugin' }],
    ['transform with an unknown operation', [{ id: 't', type: 'transform', params: { operation: 'mapp', input: 'x' } }], { code: 'invalid_field', field: '[0].params.operation', suggestedFix: 'map' }],
    ['delay without duration', [{ id: 'd', type: 'delay' }], { code: 'missing_required', field: '[0].params.duration' }],
    ['loop without iterateOver', [{ id: 'l', type: 'loop', loopSteps: [{ id: 'x', type: 'delay', params: { duration: 1 } }] }], { code: 'missing_required', field: '[0].iterateOver' }],
    ['bad condition operator', [{ id: 'c', type: 'conditional', condition: { field: 'a', operator: 'bigger', value: 1 } }], { code: 'invalid_condition', field: '[0].condition' }],
    ['cacheKey without TTL', [{ id: 'a', type: 'action', plugin: 'p', action: 'a', cacheKey: 'k' }], { code: 'missing_required', field: '[0].cacheTTL' }],
    ['duplicate ids', [{ id: 'a', type: 'delay', params: { duration: 1 } }, { id: 'a', type: 'delay', params: { duration: 1 } }], { code: 'duplicate_step', field: '[1].id' }],
    ['reading a parallel group', [{ id: 'g', type: 'parallel_group', steps: [{ id: 'a', type: 'delay', params: { duration: 1 } }] }, { id: 'b', type: 'action', plugin: 'p', action: 'x', params: { v: '{{g.data}}' } }], { code: 'unresolved_reference', field: '[1].params.v', suggestedFix: 'a' }],
    ['circular dependencies', [{ id: 'step1', type: 'delay', params: { duration: 1 }, dependencies: ['step2'] }, { id: 'step2', type: 'delay', params: { duration: 1 }, dependencies: ['step1'] }], { code: 'cycle', field: '[0].dependencies' }],
    ['empty workflow', [], { code: 'invalid_field', field: '' }],
  ])('%s', (_name, json, expected) => {
    expect(fail(json)).toContainEqual(expect.objectContaining(expected));
  });
});
