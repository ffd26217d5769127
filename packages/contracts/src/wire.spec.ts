/**
 * The runtime loader (proto-loader + protobufjs, as Nest uses it) must agree
 * with the generated types: Struct and Value fields travel as plain JSON.
 */
import { loadSync } from '@grpc/proto-loader';
import { grpcLoaderOptions, protoFiles, orchestrator } from './index.js';

type Codec = { serialize(v: unknown): Buffer; deserialize(b: Buffer): unknown };

function codec(service: string, method: string, side: 'request' | 'response'): Codec {
  const def = loadSync(protoFiles('orchestrator'), { ...grpcLoaderOptions, includeDirs: [...grpcLoaderOptions.includeDirs] });
  const m = (def[`agentfactory.orchestrator.v1.${service}`] as unknown as Record<string, Record<string, (x: unknown) => unknown>>)[method]!;
  return side === 'request'
    ? { serialize: m.requestSerialize as Codec['serialize'], deserialize: m.requestDeserialize as Codec['deserialize'] }
    : { serialize: m.responseSerialize as Codec['serialize'], deserialize: m.responseDeserialize as Codec['deserialize'] };
}

describe('wire round trip', () => {
  it('carries Struct and Value fields as plain JSON', () => {
    const c = codec('OrchestratorService', 'GetRun', 'response');
    const run: orchestrator.GetRunResponse = {
      run: {
        ...orchestrator.Run.fromJSON({ id: 'r1', status: 'RUN_STATUS_COMPLETED', planVersion: 2 }),
        outputs: { orgs: { results: [{ ein: 'e1', score: 0.5, ok: true, none: null }], count: 1 } },
        inputs: { q: 'x' },
        nodes: [
          { ...orchestrator.NodeState.fromJSON({ nodeId: 'a', status: 'NODE_STATUS_COMPLETED' }), outputJson: JSON.stringify([1, 'two', { three: 3 }]) },
          { ...orchestrator.NodeState.fromJSON({ nodeId: 'b' }), outputJson: JSON.stringify('scalar') },
        ],
      },
    };
    const back = c.deserialize(c.serialize(run)) as orchestrator.GetRunResponse;
    expect(back.run!.outputs).toEqual(run.run!.outputs);
    expect(back.run!.inputs).toEqual({ q: 'x' });
    expect(back.run!.nodes.map((n) => JSON.parse(n.outputJson))).toEqual([[1, 'two', { three: 3 }], 'scalar']);
    expect(back.run!.status).toBe(orchestrator.RunStatus.RUN_STATUS_COMPLETED);
  });

  it('keeps int64 as strings (forceLong=string)', () => {
    const c = codec('OrchestratorService', 'ListRunEvents', 'response');
    const back = c.deserialize(c.serialize({ events: [{ runId: 'r', seq: '9007199254740993', type: 'start', timestamp: 't', nodeId: '', payload: {} }] })) as {
      events: Array<{ seq: string }>;
    };
    expect(back.events[0]!.seq).toBe('9007199254740993');
  });
});
