/**
 * The typed PlanGraph message through the runtime codec (proto-loader +
 * protobufjs with grpcLoaderOptions, as Nest uses it): proto3 `optional`
 * scalars keep their presence (an empty string stays, an unset one stays
 * unset), unset messages arrive as null, enums as numbers, int64 as strings,
 * Struct fields and the recursive map body as plain JSON.
 */
import { loadSync } from '@grpc/proto-loader';
import { grpcLoaderOptions, orchestrator, plan, protoFiles, type ProtoPackage } from './index.js';

type Codec = { serialize(v: unknown): Buffer; deserialize(b: Buffer): unknown };

function codec(pkg: ProtoPackage, service: string, method: string, side: 'request' | 'response'): Codec {
  const def = loadSync(protoFiles(pkg), { ...grpcLoaderOptions, includeDirs: [...grpcLoaderOptions.includeDirs] });
  const m = (def[`agentfactory.${pkg}.v1.${service}`] as unknown as Record<string, Record<string, (x: unknown) => unknown>>)[method]!;
  return side === 'request'
    ? { serialize: m.requestSerialize as Codec['serialize'], deserialize: m.requestDeserialize as Codec['deserialize'] }
    : { serialize: m.responseSerialize as Codec['serialize'], deserialize: m.responseDeserialize as Codec['deserialize'] };
}

const leaf: plan.PlanNode = {
  id: 'leaf',
  kind: plan.NodeKind.NODE_KIND_LLM,
  inputs: { item: '{current}' },
  params: undefined,
  conditionDialect: plan.ConditionDialect.CONDITION_DIALECT_UNSPECIFIED,
  inputSchema: undefined,
  outputSchema: undefined,
  errorPolicy: undefined,
  cache: undefined,
  dependsOn: [],
  routes: [],
  elseTo: [],
  body: undefined,
};

const graph: plan.PlanGraph = {
  irVersion: 1,
  version: 2,
  id: 'p',
  name: '',
  provenance: { frontEnd: plan.FrontEnd.FRONT_END_PLAYBOOK, sourceId: 'p', sourceVersion: undefined },
  executionMode: plan.ExecutionMode.EXECUTION_MODE_DETERMINISTIC,
  runContext: plan.RunContext.RUN_CONTEXT_UNSPECIFIED,
  approvalPolicy: plan.ApprovalPolicy.APPROVAL_POLICY_AUTO_APPROVE,
  inputs: [
    { name: 'q', required: false, defaultJson: '0' },
    { name: 'r', type: '' },
  ],
  nodes: [
    {
      ...leaf,
      id: 'fetch',
      kind: plan.NodeKind.NODE_KIND_TOOL,
      action: 'call_connector',
      description: '',
      inputs: { list: [1, 'two', null, true, { k: [] }] },
      params: {},
      condition: '{q} > 0',
      outputKey: 'fetched',
      outputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      errorPolicy: {
        onError: plan.OnError.ON_ERROR_RETRY,
        retry: { maxRetries: 0, backoffMs: '0', multiplier: 1.5, maxBackoffMs: undefined, retryableCodes: ['TIMEOUT'] },
        fallback: ['fb'],
        rollback: { action: 'undo' },
        rollbackOnError: false,
        timeoutMs: '3000000000',
      },
      cache: { key: 'k', ttlSeconds: '86400' },
      routes: [{ condition: 'x', conditionDialect: plan.ConditionDialect.CONDITION_DIALECT_JSONLOGIC, to: ['a', 'b'] }],
      elseTo: ['c'],
    },
    {
      ...leaf,
      id: 'each',
      kind: plan.NodeKind.NODE_KIND_MAP,
      dependsOn: ['fetch'],
      body: { nodes: [leaf], itemsFrom: '{fetched.results}', maxIterations: undefined, concurrency: 4, continueOnError: false },
    },
  ],
  output: undefined,
  metadata: { triggers: [{ type: 'cron', at: null }] },
};

/** Drops proto-loader's virtual oneof names (`_id: 'id'`) of proto3 optional fields. */
function withoutOneofNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutOneofNames);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !k.startsWith('_')).map(([k, v]) => [k, withoutOneofNames(v)]));
}

describe('PlanGraph on the wire (runtime codec)', () => {
  const start = codec('orchestrator', 'OrchestratorService', 'StartRun', 'request');
  const decoded = start.deserialize(start.serialize({ plan: graph, inputs: { q: 1 }, idempotencyKey: 'k', runContext: '' })) as orchestrator.StartRunRequest;
  const back = decoded.plan!;

  it('keeps set optional scalars, zero values included', () => {
    expect(back).toMatchObject({ irVersion: 1, version: 2, id: 'p', name: '' });
    expect(back.inputs).toEqual([
      expect.objectContaining({ name: 'q', required: false, defaultJson: '0' }),
      expect.objectContaining({ name: 'r', type: '' }),
    ]);
    expect(back.nodes[0]).toMatchObject({ description: '', errorPolicy: { rollbackOnError: false, retry: { maxRetries: 0, backoffMs: '0' } } });
    expect(back.nodes[1]!.body).toMatchObject({ continueOnError: false, concurrency: 4 });
  });

  it('leaves unset optional scalars unset, not zero', () => {
    expect(back.provenance!.sourceVersion).toBeUndefined();
    expect(back.inputs[0]!.type).toBeUndefined();
    expect(back.nodes[0]!.errorPolicy!.retry!.maxBackoffMs).toBeUndefined();
    expect(back.nodes[1]!.body!.maxIterations).toBeUndefined();
    expect(back.nodes[1]!.action).toBeUndefined();
  });

  it('delivers unset messages as null and unset enums as 0', () => {
    expect(back.output).toBeNull();
    expect(back.nodes[1]!.errorPolicy).toBeNull();
    expect(back.nodes[1]!.cache).toBeNull();
    expect(back.runContext).toBe(plan.RunContext.RUN_CONTEXT_UNSPECIFIED);
    expect(back.nodes[1]!.conditionDialect).toBe(0);
  });

  it('carries enums as numbers, int64 as strings, Struct and the map body as plain JSON', () => {
    expect(back.nodes.map((n: plan.PlanNode) => n.kind)).toEqual([plan.NodeKind.NODE_KIND_TOOL, plan.NodeKind.NODE_KIND_MAP]);
    expect(back.nodes[0]!.errorPolicy!.timeoutMs).toBe('3000000000');
    expect(back.nodes[0]!.cache).toEqual({ key: 'k', ttlSeconds: '86400' });
    expect(back.nodes[0]!.inputs).toEqual({ list: [1, 'two', null, true, { k: [] }] });
    expect(back.nodes[0]!.params).toEqual({});
    expect(back.metadata).toEqual({ triggers: [{ type: 'cron', at: null }] });
    expect(back.nodes[0]!.routes).toEqual([{ condition: 'x', conditionDialect: 3, to: ['a', 'b'] }]);
    expect(back.nodes[1]!.body!.nodes[0]).toMatchObject({ id: 'leaf', kind: plan.NodeKind.NODE_KIND_LLM, inputs: { item: '{current}' } });
  });

  it('re-encodes what it decoded unchanged (the gateway forwards the planner plan as is)', () => {
    const compiled = codec('planner', 'PlannerService', 'CompilePlaybook', 'response');
    const fromPlanner = compiled.deserialize(compiled.serialize({ plan: graph, results: [] })) as { plan: plan.PlanGraph };
    const forwarded = start.deserialize(start.serialize({ plan: fromPlanner.plan, inputs: {}, idempotencyKey: 'k', runContext: '' })) as orchestrator.StartRunRequest;
    expect(withoutOneofNames(forwarded.plan)).toEqual(withoutOneofNames(back));
  });
});
