import { PlanNodeSchema } from '@af/plan';
import {
  contractViolations,
  dispatchCandidates,
  dispatchScope,
  nodeFacets,
  nodeInstruction,
  rankInstances,
  unavailability,
  type CapabilitySnapshot,
  type InstanceSnapshot,
} from './capability-dispatch.js';

const node = (over: Record<string, unknown> = {}) => PlanNodeSchema.parse({ id: 'write', kind: 'capability', ...over });
const inst = (instanceId: string, over: Partial<InstanceSnapshot> = {}): InstanceSnapshot => ({
  instanceId,
  scopes: [],
  endpoint: `127.0.0.1:${instanceId.length + 5000}`,
  status: 'active',
  lastSeenAt: '2025-01-01T00:00:00.000Z',
  ...over,
});
const cap = (instances: InstanceSnapshot[], over: Partial<CapabilitySnapshot> = {}): CapabilitySnapshot => ({ capabilityId: 'writer.en', agentType: 'ai', instances, ...over });
const noScope = { required: false };

describe('dispatchCandidates', () => {
  it('takes the node capability, then its alternates in order, without repeats', () => {
    expect(dispatchCandidates(node({ capabilityId: 'writer.en' }), { alternates: ['writer.fr', 'writer.en', 'writer.de'] })).toEqual([
      { capabilityId: 'writer.en', field: 'capabilityId' },
      { capabilityId: 'writer.fr', field: 'params.alternates[0]' },
      { capabilityId: 'writer.de', field: 'params.alternates[2]' },
    ]);
  });

  it('reads params.capability_id and params.flex.alternates when the node has no capabilityId / alternates', () => {
    expect(dispatchCandidates(node(), { capability_id: 'a.b', flex: { alternates: ['c.d', 7, ''] } })).toEqual([
      { capabilityId: 'a.b', field: 'params.capability_id' },
      { capabilityId: 'c.d', field: 'params.flex.alternates[0]' },
    ]);
  });

  it('is empty when the node names no capability', () => {
    expect(dispatchCandidates(node(), {})).toEqual([]);
  });
});

describe('dispatchScope', () => {
  it('prefers params.scope, then the envelope scope in params.flex; require only with scope_mode require', () => {
    expect(dispatchScope({ scope: 'en', flex: { scope: 'fr' } })).toEqual({ scope: 'en', required: false });
    expect(dispatchScope({ flex: { scope: 'fr', scopeMode: 'require' } })).toEqual({ scope: 'fr', required: true });
    expect(dispatchScope({ scope_mode: 'require' })).toEqual({ required: false });
    expect(dispatchScope({ scope: '' })).toEqual({ required: false });
  });
});

describe('rankInstances', () => {
  it('keeps active instances with an endpoint, scope first, then the most recently seen, then by id', () => {
    const c = cap([
      inst('old', { lastSeenAt: '2025-01-01T00:00:00.000Z' }),
      inst('new', { lastSeenAt: '2025-01-02T00:00:00.000Z' }),
      inst('fr', { scopes: ['fr'], lastSeenAt: '2024-12-01T00:00:00.000Z' }),
      inst('down', { status: 'inactive', lastSeenAt: '2025-02-01T00:00:00.000Z' }),
      inst('noaddr', { endpoint: '' }),
      inst('b-same', { lastSeenAt: 'garbage' }),
      inst('a-same', { lastSeenAt: 'garbage' }),
    ]);
    expect(rankInstances(c, noScope).map((i) => i.instanceId)).toEqual(['new', 'old', 'fr', 'a-same', 'b-same']);
    expect(rankInstances(c, { scope: 'fr', required: false }).map((i) => i.instanceId)).toEqual(['fr', 'new', 'old', 'a-same', 'b-same']);
    expect(rankInstances(c, { scope: 'fr', required: true }).map((i) => i.instanceId)).toEqual(['fr']);
  });
});

describe('unavailability', () => {
  const candidate = { capabilityId: 'writer.en', field: 'capabilityId' };

  it('is undefined when an instance can take the call', () => {
    expect(unavailability(candidate, cap([inst('a')]), noScope)).toBeUndefined();
  });

  it.each([
    ['not registered', undefined, noScope, 'not_registered', false, "capability 'writer.en' is not registered"],
    ['human', cap([inst('a')], { agentType: 'human' }), noScope, 'human_capability', false, 'is a human capability'],
    ['no instances', cap([]), noScope, 'no_endpoint', false, 'it has no instances'],
    ['no endpoint', cap([inst('a', { endpoint: '' })]), noScope, 'no_endpoint', false, 'its 1 instance(s) registered no endpoint'],
    ['all inactive', cap([inst('a', { status: 'inactive', lastSeenAt: '2025-03-01T00:00:00.000Z' })]), noScope, 'no_active_instance', true, 'no active instance (1 inactive, last seen 2025-03-01T00:00:00.000Z)'],
    ['out of scope', cap([inst('a', { scopes: ['fr'] })]), { scope: 'de', required: true }, 'no_instance_in_scope', true, "serving scope 'de'"],
  ] as const)('%s', (_name, c, scope, code, transient, reason) => {
    const why = unavailability(candidate, c, scope);
    expect(why).toMatchObject({ capabilityId: 'writer.en', field: 'capabilityId', code, transient });
    expect(why!.reason).toContain(reason);
  });
});

describe('contractViolations', () => {
  const schema = { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string' }, meta: { type: 'object', properties: { n: { type: 'integer' } } } }, additionalProperties: false };

  it('is empty for a valid value or without a schema', () => {
    expect(contractViolations(schema, { post_copy: 'x' }, 'output')).toEqual([]);
    expect(contractViolations(undefined, 42, 'output')).toEqual([]);
    expect(contractViolations({}, 42, 'inputs')).toEqual([]);
  });

  it('names every failing field by JSON pointer under inputs / output', () => {
    const v = contractViolations(schema, { meta: { n: 1.5 }, extra: true }, 'output');
    expect(v).toEqual(
      expect.arrayContaining([
        { field: 'output/post_copy', pointer: '/post_copy', keyword: 'required', reason: expect.stringContaining('post_copy'), code: 'validation_error' },
        { field: 'output/meta/n', pointer: '/meta/n', keyword: 'type', reason: 'must be integer', code: 'validation_error' },
        { field: 'output/extra', pointer: '/extra', keyword: 'additionalProperties', reason: expect.any(String), code: 'validation_error' },
      ]),
    );
    expect(contractViolations({ type: 'object' }, 'text', 'inputs')).toEqual([{ field: 'inputs', pointer: '', keyword: 'type', reason: 'must be object', code: 'validation_error' }]);
  });

  it('throws for a schema that does not compile', () => {
    expect(() => contractViolations({ type: 'objekt' }, {}, 'output')).toThrow(/not a valid JSON Schema/);
  });
});

describe('nodeInstruction / nodeFacets', () => {
  it('takes params.instruction, then params.flex.instruction, then the description', () => {
    expect(nodeInstruction(node({ description: 'd' }), { instruction: 'top', flex: { instruction: 'flex' } })).toBe('top');
    expect(nodeInstruction(node({ description: 'd' }), { instruction: '  ', flex: { instruction: 'flex' } })).toBe('flex');
    expect(nodeInstruction(node({ description: 'd' }), {})).toBe('d');
    expect(nodeInstruction(node(), {})).toBe('');
  });

  it('reads the planner facets from params.flex (or input_facets / output_facets)', () => {
    expect(nodeFacets({ flex: { inputFacets: ['a'], outputFacets: ['b'] } })).toEqual({ input: ['a'], output: ['b'] });
    expect(nodeFacets({ input_facets: ['x'], output_facets: 'nope' })).toEqual({ input: ['x'], output: [] });
  });
});
