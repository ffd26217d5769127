/**
 * The wire mapper loses nothing: every golden plan and a plan using every IR
 * field come back equal after PlanGraphSchema, absent stays absent, proto3
 * zero values read as "not given", and plan.proto declares exactly the IR's
 * fields and enum values. (The real protobuf codec is exercised in
 * packages/contracts/src/plan-wire.spec.ts and by the e2e suites.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { FIXTURES, fixtureJson } from '../../test/fixture-loader.js';
import {
  CachePolicySchema,
  ErrorPolicySchema,
  PlanGraphSchema,
  PlanInputSchema,
  PlanNodeSchema,
  RetryPolicySchema,
  RouteSchema,
  type PlanGraph,
} from '../ir.js';
import { PlanWireError, planFromWire, planToWire } from './plan-wire.js';
import { WIRE_ENUMS, type PlanGraphWire, type PlanNodeWire } from './plan-wire.types.js';

const PROTO = readFileSync(join(__dirname, '../../../../protos/agentfactory/plan/v1/plan.proto'), 'utf8');

/** A hop through JSON: keys holding undefined disappear, as unset optional scalars do on the wire. */
function asDecoded(wire: PlanGraphWire): PlanGraphWire {
  return JSON.parse(JSON.stringify(wire)) as PlanGraphWire;
}

function roundTrip(plan: PlanGraph): PlanGraph {
  return PlanGraphSchema.parse(planFromWire(asDecoded(planToWire(plan))));
}

function goldenPlans(): string[] {
  return (readdirSync(FIXTURES, { recursive: true }) as string[]).filter((f) => f.endsWith('.plan.json')).sort();
}

/** A plan that sets every field the IR has, with awkward values where presence matters. */
const EVERYTHING: PlanGraph = PlanGraphSchema.parse({
  irVersion: 1,
  version: 3,
  id: 'all-fields',
  name: 'Every field',
  provenance: { frontEnd: 'master_agent', sourceId: 'src-1', sourceVersion: '' },
  executionMode: 'llm_augmented',
  runContext: 'scheduled',
  approvalPolicy: 'auto_approve',
  inputs: [
    { name: 'a', type: 'list', description: 'd', required: true, default: ['x', 1], extractFrom: 'query' },
    { name: 'b', default: null },
    { name: 'c', default: 0 },
    { name: 'd', default: false },
    { name: 'e', default: '' },
    { name: 'f', default: { nested: { deep: [null, 2.5] } } },
    { name: 'g', type: '' },
  ],
  nodes: [
    {
      id: 'fetch',
      kind: 'tool',
      action: 'call_connector',
      description: '',
      inputs: { url: 'https://x.org/{a}', list: [1, 'two', null, true, { k: 'v' }] },
      params: { connector: 'c1', nested: { deep: 1.5 } },
      condition: '',
      conditionDialect: 'dsl',
      outputKey: 'fetched',
      inputSchema: { type: 'object', properties: { url: { type: 'string' } } },
      outputSchema: { type: 'object' },
      errorPolicy: {
        onError: 'retry',
        retry: { maxRetries: 0, backoffMs: 0, multiplier: 1.5, maxBackoffMs: 120_000, retryableCodes: ['TIMEOUT'] },
        fallback: ['fb'],
        rollback: { action: 'undo', params: { id: '{fetched.id}' } },
        rollbackOnError: true,
        timeoutMs: 3_000_000_000,
      },
      cache: { key: 'k:{a}', ttlSeconds: 86_400 },
      dependsOn: [],
      source: 'steps[0]',
    },
    { id: 'fb', kind: 'capability', capabilityId: 'agent.x', fallbackFor: 'fetch', errorPolicy: {} },
    {
      id: 'choose',
      kind: 'route',
      dependsOn: ['fetch'],
      routes: [
        { condition: '{fetched.count} > 0', to: ['each'] },
        { condition: '{"==":[1,1]}', conditionDialect: 'jsonlogic', to: [] },
      ],
      elseTo: ['wait'],
    },
    {
      id: 'each',
      kind: 'map',
      dependsOn: ['choose'],
      body: {
        nodes: [
          { id: 'inner', kind: 'llm', action: 'llm_analyze', inputs: { item: '{current}' } },
          { id: 'nested', kind: 'map', dependsOn: ['inner'], body: { nodes: [{ id: 'leaf', kind: 'transform' }], itemsFrom: '{inner.results}' } },
        ],
        itemsFrom: '{fetched.results}',
        maxIterations: 50,
        concurrency: 4,
        continueOnError: false,
      },
    },
    { id: 'wait', kind: 'delay', params: { seconds: 5 } },
    { id: 'ok', kind: 'approval', dependsOn: ['each'] },
    { id: 'person', kind: 'human', dependsOn: ['ok'] },
    { id: 'child', kind: 'subflow', dependsOn: ['person'], conditionDialect: 'object', condition: '{"field":"x"}' },
    { id: 'play', kind: 'tool', conditionDialect: 'playbook', condition: '{a} is defined' },
  ],
  output: { format: 'report', destinations: [] },
  metadata: { triggers: [{ type: 'cron' }], empty: {} },
});

describe('planToWire → planFromWire → PlanGraphSchema', () => {
  const files = goldenPlans();

  it('finds the golden plans', () => {
    expect(files.length).toBeGreaterThanOrEqual(7);
  });

  it.each(files)('%s comes back equal', (file) => {
    const plan = PlanGraphSchema.parse(fixtureJson(file));
    expect(roundTrip(plan)).toStrictEqual(plan);
  });

  it('keeps every IR field, including empty strings, zeros, false and null defaults', () => {
    expect(roundTrip(EVERYTHING)).toStrictEqual(EVERYTHING);
  });

  it('keeps any JSON value as an input default', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (raw) => {
        const value: unknown = JSON.parse(JSON.stringify(raw));
        const plan = PlanGraphSchema.parse({ inputs: [{ name: 'x', default: value }], nodes: [{ id: 'a', kind: 'tool' }] });
        expect(roundTrip(plan).inputs[0]!.default).toStrictEqual(value);
      }),
    );
  });

  it('reads an empty routes / elseTo as absent, as the IR treats it', () => {
    const plan = PlanGraphSchema.parse({ nodes: [{ id: 'r', kind: 'route', routes: [], elseTo: [] }] });
    const back = roundTrip(plan);
    expect(back.nodes[0]).not.toHaveProperty('routes');
    expect(back.nodes[0]).not.toHaveProperty('elseTo');
  });
});

describe('planToWire: the typed wire form', () => {
  const wire = planToWire(EVERYTHING);
  const node = (id: string): PlanNodeWire => wire.nodes.find((n) => n.id === id)!;

  it('uses the proto enums (value i + 1 of the zod option list)', () => {
    expect(wire.nodes.map((n) => n.kind)).toEqual([1, 5, 7, 6, 9, 3, 4, 8, 1]);
    expect(wire).toMatchObject({ executionMode: 2, runContext: 3, approvalPolicy: 2, provenance: { frontEnd: 4 } });
    expect(node('fetch')).toMatchObject({ conditionDialect: 4, errorPolicy: { onError: 3 } });
    expect(node('fb').conditionDialect).toBe(0);
  });

  it('sends int64 durations as decimal strings and an input default as JSON text', () => {
    expect(node('fetch').errorPolicy).toMatchObject({ timeoutMs: '3000000000', retry: { backoffMs: '0', maxBackoffMs: '120000' } });
    expect(node('fetch').cache).toEqual({ key: 'k:{a}', ttlSeconds: '86400' });
    expect(wire.inputs.map((i) => i.defaultJson)).toEqual(['["x",1]', 'null', '0', 'false', '""', '{"nested":{"deep":[null,2.5]}}', undefined]);
  });

  it('carries free-form JSON as plain objects and nests map bodies', () => {
    expect(node('fetch').inputs).toEqual(EVERYTHING.nodes[0]!.inputs);
    expect(node('each').body!.nodes[1]!.body!.nodes[0]!.id).toBe('leaf');
  });

  it('refuses values protobuf would truncate, naming the field', () => {
    const big = PlanGraphSchema.parse({ nodes: [{ id: 'm', kind: 'map', body: { nodes: [{ id: 'x', kind: 'tool' }], concurrency: 2 ** 31 } }] });
    expect(() => planToWire(big)).toThrow(new PlanWireError('nodes[0].body.concurrency', '2147483648 does not fit the wire\'s int32'));
    const version = { ...EVERYTHING, version: 2 ** 40 };
    expect(() => planToWire(version)).toThrow(PlanWireError);
  });

  it('refuses an enum value the proto lacks', () => {
    const bad = { ...EVERYTHING, nodes: [{ ...EVERYTHING.nodes[0]!, kind: 'teleport' }] } as unknown as PlanGraph;
    expect(() => planToWire(bad)).toThrow(expect.objectContaining({ field: 'nodes[0].kind' }));
  });
});

describe('planFromWire: proto3 zero values and bad input', () => {
  /** A node as proto-loader decodes one that set nothing but id and kind. */
  const bareNode = (over: Partial<PlanNodeWire> = {}): PlanNodeWire => ({
    id: 'a',
    kind: 1,
    inputs: null as never,
    params: null as never,
    conditionDialect: 0,
    inputSchema: null as never,
    outputSchema: null as never,
    errorPolicy: null as never,
    cache: null as never,
    dependsOn: [],
    routes: [],
    elseTo: [],
    body: null as never,
    ...over,
  });
  const bare = (over: Partial<PlanGraphWire> = {}): PlanGraphWire => ({
    provenance: null as never,
    executionMode: 0,
    runContext: 0,
    approvalPolicy: 0,
    inputs: [],
    nodes: [bareNode()],
    output: null as never,
    metadata: null as never,
    ...over,
  });

  it('reads unset fields as absent, so the IR defaults apply', () => {
    const plan = PlanGraphSchema.parse(planFromWire(bare()));
    expect(plan).toStrictEqual({
      irVersion: 1,
      version: 1,
      executionMode: 'hybrid',
      runContext: 'interactive',
      approvalPolicy: 'require',
      inputs: [],
      nodes: [{ id: 'a', kind: 'tool', inputs: {}, params: {}, dependsOn: [] }],
      metadata: {},
    });
  });

  it('applies the error-policy and input defaults to unset members', () => {
    const plan = PlanGraphSchema.parse(
      planFromWire(bare({ inputs: [{ name: 'q' }], nodes: [bareNode({ errorPolicy: { onError: 0, retry: { retryableCodes: [] }, fallback: [], rollback: null as never } })] })),
    );
    expect(plan.inputs).toEqual([{ name: 'q', type: 'string', required: false }]);
    expect(plan.nodes[0]!.errorPolicy).toStrictEqual({
      onError: 'stop',
      retry: { maxRetries: 0, backoffMs: 1000, multiplier: 2, maxBackoffMs: 60_000, retryableCodes: [] },
      fallback: [],
      rollbackOnError: false,
    });
  });

  it('returns undefined for a missing plan, which the schema rejects', () => {
    expect(planFromWire(undefined)).toBeUndefined();
    expect(planFromWire(null)).toBeUndefined();
    expect(PlanGraphSchema.safeParse(planFromWire(undefined)).success).toBe(false);
  });

  it.each([
    ['an unset node kind', bare({ nodes: [bareNode({ kind: 0 })] }), ['nodes', 0, 'kind']],
    ['an unknown node kind', bare({ nodes: [bareNode({ kind: 42 })] }), ['nodes', 0, 'kind']],
    ['an unknown execution mode', bare({ executionMode: 9 }), ['executionMode']],
    ['an unset provenance front end', bare({ provenance: { frontEnd: 0 } }), ['provenance', 'frontEnd']],
    ['a zero cache ttl', bare({ nodes: [bareNode({ cache: { key: 'k', ttlSeconds: '0' } })] }), ['nodes', 0, 'cache', 'ttlSeconds']],
    ['no nodes', bare({ nodes: [] }), ['nodes']],
    ['a version of 0', bare({ version: 0 }), ['version']],
    ['an unknown route dialect', bare({ nodes: [bareNode({ routes: [{ condition: 'x', conditionDialect: 7, to: [] }] })] }), ['nodes', 0, 'routes', 0, 'conditionDialect']],
  ])('leaves %s to the schema, which names the path', (_what, wire, path) => {
    const r = PlanGraphSchema.safeParse(planFromWire(wire));
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path)).toContainEqual(path);
  });

  it('refuses a default_json that is not JSON, naming the input', () => {
    expect(() => planFromWire(bare({ inputs: [{ name: 'q' }, { name: 'r', defaultJson: '{oops' }] }))).toThrow(
      new PlanWireError('inputs[1].default', 'default_json must be JSON text'),
    );
  });
});

describe('plan.proto matches the IR', () => {
  const upperSnake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
  const lowerSnake = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
  const block = (kind: 'enum' | 'message', name: string): string => {
    const m = new RegExp(`^${kind} ${name} \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(PROTO);
    if (!m) throw new Error(`plan.proto has no ${kind} ${name}`);
    return m[1]!.replace(/\/\/.*$/gm, '');
  };

  it.each(Object.keys(WIRE_ENUMS) as Array<keyof typeof WIRE_ENUMS>)('enum %s lists the zod options in order', (name) => {
    const declared = [...block('enum', name).matchAll(/(\w+) = (\d+);/g)].map((m) => [m[1], Number(m[2])]);
    const prefix = upperSnake(name);
    expect(declared).toEqual([[`${prefix}_UNSPECIFIED`, 0], ...WIRE_ENUMS[name].map((v, i) => [`${prefix}_${v.toUpperCase()}`, i + 1])]);
  });

  const messages: Array<[string, string[]]> = [
    ['PlanGraph', Object.keys(PlanGraphSchema.shape)],
    ['Provenance', Object.keys(PlanGraphSchema.shape.provenance.unwrap().shape)],
    ['PlanInput', Object.keys(PlanInputSchema.shape).map((k) => (k === 'default' ? 'defaultJson' : k === 'enum' ? 'enumJson' : k))],
    ['PlanNode', Object.keys(PlanNodeSchema.shape)],
    ['ErrorPolicy', Object.keys(ErrorPolicySchema.shape)],
    ['RetryPolicy', Object.keys(RetryPolicySchema.shape)],
    ['CachePolicy', Object.keys(CachePolicySchema.shape)],
    ['Route', Object.keys(RouteSchema.shape)],
    ['MapBody', Object.keys(PlanNodeSchema.shape.body.unwrap().shape)],
  ];
  it.each(messages)('message %s has a field for every IR field and no other', (name, keys) => {
    const fields = [...block('message', name).matchAll(/^\s*(?:optional |repeated )?[\w.]+ (\w+) = \d+;/gm)].map((m) => m[1]);
    expect([...fields].sort()).toEqual(keys.map(lowerSnake).sort());
  });
});
