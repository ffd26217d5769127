import { AppError } from '@af/service-kit';
import type { CapabilitySnapshot, InstanceSnapshot } from '../../domain/capability-dispatch.js';
import { Completed, type NodeContext } from '../../domain/node-executor.js';
import { appErrorOf, nodeContext } from '../../../test/unit/node-context.js';
import { agentFailure, capabilityExecutor, type AgentAnswer, type AgentCall, type CapabilityExecutorDeps } from './capability.executor.js';

const OUTPUT = { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string', minLength: 1 } } };
const INPUT = { type: 'object', required: ['brief'], properties: { brief: { type: 'object', required: ['topic'], properties: { topic: { type: 'string' } } } } };

const ctx = (node: Record<string, unknown>, over: Partial<NodeContext> = {}): NodeContext =>
  nodeContext({ id: 'write', kind: 'capability', capabilityId: 'writer.en', ...node }, { attempt: 2, timeoutMs: 5000, ...over });
const failure = appErrorOf;

const inst = (instanceId: string, over: Partial<InstanceSnapshot> = {}): InstanceSnapshot => ({
  instanceId,
  scopes: [],
  endpoint: `${instanceId}:1`,
  status: 'active',
  lastSeenAt: '2025-01-01T00:00:00.000Z',
  ...over,
});

type Reply = AgentAnswer | Error | ((call: AgentCall) => AgentAnswer | Error);

/** A registry and agents in memory: `replies` by endpoint (default: a valid post). */
function fakes(registry: Record<string, Partial<CapabilitySnapshot> & { instances: InstanceSnapshot[] }>, replies: Record<string, Reply> = {}) {
  const calls: Array<{ endpoint: string; call: AgentCall; timeoutMs: number; at: number }> = [];
  const frames: Array<{ type: string; payload: Record<string, unknown> }> = [];
  const lookups: string[] = [];
  const deps: CapabilityExecutorDeps = {
    directory: {
      get: async (id) => {
        lookups.push(id);
        const c = registry[id];
        return c ? { capabilityId: id, agentType: 'ai', ...c } : undefined;
      },
    },
    agents: {
      invoke: async (endpoint, call, { timeoutMs }) => {
        calls.push({ endpoint, call, timeoutMs, at: Date.now() });
        const r = replies[endpoint] ?? { output: { post_copy: `from ${endpoint}` }, clarify: null, replayed: false };
        const answer = typeof r === 'function' ? r(call) : r;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    },
    frame: async (_ctx, frame) => void frames.push(frame),
  };
  return { deps, calls, frames, lookups };
}

const ok = (output: Record<string, unknown>): AgentAnswer => ({ output, clarify: null, replayed: false });

describe('capabilityExecutor', () => {
  it('invokes the agent with the node contract and key, and completes with the validated output', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a')], inputSchema: { type: 'object' }, outputSchema: { type: 'object' } } });
    const c = ctx({
      inputs: { brief: { topic: 'x' } },
      inputSchema: INPUT,
      outputSchema: OUTPUT,
      description: 'Writer',
      params: { instruction: 'Write it.', flex: { inputFacets: ['brief'], outputFacets: ['post_copy'], scope: 'en' } },
    });
    const clarification = { nodeId: 'write', questionId: 'q1', question: 'Tone?', answer: 'warm', createdAt: 't0', answeredAt: 't1' };
    const started = Date.now();
    const result = await capabilityExecutor(f.deps)({ ...c, inputs: { ...c.inputs, hitlClarifications: [clarification] } });
    expect(result).toBeInstanceOf(Completed);
    expect(result).toMatchObject({ output: { post_copy: 'from a:1' }, payload: { dispatch: { capabilityId: 'writer.en', instanceId: 'a' } } });
    expect(f.calls).toHaveLength(1);
    const { endpoint, call, timeoutMs, at } = f.calls[0]!;
    expect(endpoint).toBe('a:1');
    // The agent gets what is left of the node's 5 s: at most 5 s, less only by the time spent before the call.
    expect(timeoutMs).toBeLessThanOrEqual(5000);
    expect(timeoutMs).toBeGreaterThanOrEqual(5000 - (at - started));
    expect(call).toEqual({
      capabilityId: 'writer.en',
      instanceId: 'a',
      runId: 'run-1',
      nodeId: 'write',
      attempt: 2,
      idempotencyKey: 'run-1:write:2',
      inputs: { brief: { topic: 'x' } },
      instruction: 'Write it.',
      inputSchema: INPUT,
      outputSchema: OUTPUT,
      timeoutMs: 5000,
      clarifications: [{ nodeId: 'write', capabilityId: '', questionId: 'q1', question: 'Tone?', answer: 'warm', createdAt: 't0', answeredAt: 't1' }],
      principal: { userId: 'u1', teamIds: [] },
      inputFacets: ['brief'],
      outputFacets: ['post_copy'],
      scope: 'en',
      allowClarify: false,
    });
    expect(f.frames).toEqual([]);
  });

  it('uses the capability contracts when the node has none, and marks replayed answers', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a')], inputSchema: INPUT, outputSchema: OUTPUT } }, { 'a:1': { ...ok({ post_copy: 'again' }), replayed: true } });
    const bad = await failure(capabilityExecutor(f.deps)(ctx({ inputs: { brief: {} } })));
    expect(bad.violations).toEqual([{ field: 'inputs/brief/topic', reason: expect.stringContaining('topic'), code: 'validation_error' }]);
    const good = await capabilityExecutor(f.deps)(ctx({ inputs: { brief: { topic: 't' } } }));
    expect(good).toMatchObject({ output: { post_copy: 'again' }, payload: { dispatch: { replayed: true } } });
    expect(f.calls[0]!.call).toMatchObject({ inputSchema: INPUT, outputSchema: OUTPUT });
  });

  it('reports the duration and outcome (flex.node.duration_ms)', async () => {
    const seen: Array<[string, string, number]> = [];
    const f = fakes({ 'writer.en': { instances: [inst('a')], inputSchema: INPUT, outputSchema: OUTPUT } }, { 'a:1': ok({ post_copy: 'hi' }) });
    const observe = (id: string, outcome: string, ms: number) => void seen.push([id, outcome, ms]);
    await capabilityExecutor({ ...f.deps, observe })(ctx({ capabilityId: 'writer.en', inputs: { brief: { topic: 't' } } }));
    await failure(capabilityExecutor({ ...f.deps, observe })(ctx({ capabilityId: 'writer.en', inputs: { brief: {} } })));
    expect(seen.map(([id, outcome]) => [id, outcome])).toEqual([
      ['writer.en', 'completed'],
      ['writer.en', 'failed'],
    ]);
    expect(seen.every(([, , ms]) => ms >= 0)).toBe(true);
  });

  it('refuses inputs that break the node input schema before any call (validation_error frame, not retried)', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a')] } });
    const err = await failure(capabilityExecutor(f.deps)(ctx({ inputs: { brief: { topic: 3 } }, inputSchema: INPUT })));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe("node write: the inputs of capability 'writer.en' do not satisfy its input schema: inputs/brief/topic must be string");
    expect(f.lookups).toEqual([]);
    expect(f.calls).toEqual([]);
    expect(f.frames).toEqual([{ type: 'validation_error', payload: { scope: 'capability_input', nodeId: 'write', capabilityId: 'writer.en', errors: [{ path: '/brief/topic', keyword: 'type', message: 'must be string' }] } }]);
  });

  it('fails an output that breaks the output schema with the JSON pointer (validation_error frame, not retried)', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a')] } }, { 'a:1': ok({ post_copy: '', extra: 1 }) });
    const err = await failure(capabilityExecutor(f.deps)(ctx({ outputSchema: { ...OUTPUT, additionalProperties: false } })));
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', retryable: false });
    expect(err.message).toContain("the output of capability 'writer.en' does not satisfy the node's output schema: output/extra must NOT have additional properties (and 1 more)");
    expect(err.violations.map((v) => [v.field, v.code])).toEqual([
      ['output/extra', 'validation_error'],
      ['output/post_copy', 'validation_error'],
    ]);
    expect(f.frames[0]).toMatchObject({ type: 'validation_error', payload: { scope: 'capability_output', capabilityId: 'writer.en', instanceId: 'a', errors: [{ path: '/extra', keyword: 'additionalProperties' }, { path: '/post_copy', keyword: 'minLength' }] } });
  });

  it('fails an answer without output, and a broken node schema, naming the field', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a')] } }, { 'a:1': { output: null, clarify: null, replayed: false } });
    const none = await failure(capabilityExecutor(f.deps)(ctx({})));
    expect(none).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'output', code: 'validation_error' }] });
    const broken = await failure(capabilityExecutor(f.deps)(ctx({ inputSchema: { type: 'objekt' } })));
    expect(broken).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'inputSchema', code: 'invalid_schema' }] });
  });

  it('turns a clarify answer into hitl_clarify when the node allows it, and refuses it otherwise', async () => {
    const ask: AgentAnswer = { output: null, clarify: { question: 'Which tone?', questionId: 'tone' }, replayed: false };
    const f = fakes({ 'writer.en': { instances: [inst('a')] } }, { 'a:1': ask });
    expect(await capabilityExecutor(f.deps)(ctx({ params: { allow_clarify: true } }))).toEqual({ hitl_clarify: { question: 'Which tone?', questionId: 'tone' } });
    expect(f.calls[0]!.call.allowClarify).toBe(true);
    const err = await failure(capabilityExecutor(f.deps)(ctx({})));
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false });
    expect(err.message).toContain('does not allow clarifications');
  });

  it('prefers the instance serving the node scope', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a', { lastSeenAt: '2025-02-01T00:00:00.000Z' }), inst('fr', { scopes: ['fr'] })] } });
    await capabilityExecutor(f.deps)(ctx({ params: { flex: { scope: 'fr' } } }));
    expect(f.calls.map((c) => c.endpoint)).toEqual(['fr:1']);
  });

  it('fails over to the next instance, then to an alternate, when agents are UNAVAILABLE', async () => {
    const down = new AppError('UNAVAILABLE', 'connect ECONNREFUSED');
    const f = fakes(
      {
        'writer.en': { instances: [inst('a', { lastSeenAt: '2025-02-01T00:00:00.000Z' }), inst('b')] },
        'writer.alt': { instances: [inst('c')] },
      },
      { 'a:1': down, 'b:1': down },
    );
    const result = await capabilityExecutor(f.deps)(ctx({ params: { alternates: ['writer.alt'] } }));
    expect(f.calls.map((c) => [c.endpoint, c.call.capabilityId, c.call.idempotencyKey])).toEqual([
      ['a:1', 'writer.en', 'run-1:write:2'],
      ['b:1', 'writer.en', 'run-1:write:2'],
      ['c:1', 'writer.alt', 'run-1:write:2'],
    ]);
    expect(result).toMatchObject({
      output: { post_copy: 'from c:1' },
      payload: { dispatch: { capabilityId: 'writer.alt', instanceId: 'c', failedOver: [{ capabilityId: 'writer.en', instanceId: 'a', code: 'UNAVAILABLE' }, { capabilityId: 'writer.en', instanceId: 'b', code: 'UNAVAILABLE' }] } },
    });
  });

  it('falls back to an alternate when the capability has no active instance', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a', { status: 'inactive' })] }, 'writer.alt': { instances: [inst('c')] } });
    const result = await capabilityExecutor(f.deps)(ctx({ params: { flex: { alternates: ['writer.alt'] } } }));
    expect(result).toMatchObject({ payload: { dispatch: { capabilityId: 'writer.alt', instanceId: 'c' } } });
    expect(f.lookups).toEqual(['writer.en', 'writer.alt']);
  });

  it('is UNAVAILABLE (retryable) when every agent is down or stale, naming each candidate', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a')] }, 'writer.alt': { instances: [inst('c', { status: 'inactive' })] } }, { 'a:1': new AppError('UNAVAILABLE', 'connect ECONNREFUSED') });
    const err = await failure(capabilityExecutor(f.deps)(ctx({ params: { alternates: ['writer.alt'] } })));
    expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true });
    expect(err.message).toContain("capability 'writer.alt' has no active instance");
    expect(err.message).toContain("capability 'writer.en' (instance a at a:1) is unavailable: connect ECONNREFUSED");
    expect(err.violations).toEqual([
      { field: 'params.alternates[0]', reason: expect.stringContaining('no active instance'), code: 'no_active_instance' },
      { field: 'capabilityId', reason: expect.stringContaining('is unavailable'), code: 'agent_unavailable' },
    ]);
  });

  it('is FAILED_PRECONDITION (not retried) when no candidate can ever serve', async () => {
    const f = fakes({ 'human.x': { agentType: 'human', instances: [inst('h')] }, 'writer.en': { instances: [inst('a', { endpoint: '' })] } });
    const err = await failure(capabilityExecutor(f.deps)(ctx({ params: { alternates: ['human.x', 'ghost'] } })));
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION', retryable: false });
    expect(err.violations.map((v) => [v.field, v.code])).toEqual([
      ['capabilityId', 'no_endpoint'],
      ['params.alternates[0]', 'human_capability'],
      ['params.alternates[1]', 'not_registered'],
    ]);
    expect(f.calls).toEqual([]);
  });

  it("is NOT_FOUND (not retried) when the run's owner can use no capability by the node's ids, and asks the registry as the owner", async () => {
    const asked: Array<[string, unknown]> = [];
    const f = fakes({});
    const directory = { get: async (id: string, _t: number, principal: unknown) => (asked.push([id, principal]), undefined) };
    const err = await failure(capabilityExecutor({ ...f.deps, directory })(ctx({ params: { alternates: ['writer.alt'] } }, { userId: 'alice', teamIds: ['red'] })));
    expect(err).toMatchObject({ code: 'NOT_FOUND', retryable: false });
    expect(err.message).toContain("capability 'writer.en' is not registered for the run's owner (its own, its teams' or the shared catalog)");
    expect(err.violations.map((v) => [v.field, v.code])).toEqual([
      ['capabilityId', 'not_registered'],
      ['params.alternates[0]', 'not_registered'],
    ]);
    expect(asked).toEqual([
      ['writer.en', { userId: 'alice', teamIds: ['red'] }],
      ['writer.alt', { userId: 'alice', teamIds: ['red'] }],
    ]);
    expect(f.calls).toEqual([]);
  });

  it('needs a capability id and a registry', async () => {
    const f = fakes({});
    const none = await failure(capabilityExecutor(f.deps)(ctx({ capabilityId: undefined })));
    expect(none).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'capabilityId' }] });
    const noPlanner = await failure(capabilityExecutor({ ...f.deps, directory: undefined })(ctx({})));
    expect(noPlanner.code).toBe('FAILED_PRECONDITION');
    expect(noPlanner.message).toContain('PLANNER_URL');
  });

  it('lets a registry failure through as it is (an unreachable planner is retried)', async () => {
    const f = fakes({});
    const err = await failure(capabilityExecutor({ ...f.deps, directory: { get: async () => Promise.reject(new AppError('UNAVAILABLE', 'planner down')) } })(ctx({})));
    expect(err).toMatchObject({ code: 'UNAVAILABLE', retryable: true, message: 'planner down' });
  });

  it('does not call past the node timeout', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a'), inst('b')] } }, { 'a:1': new AppError('UNAVAILABLE', 'down') });
    const slow = { ...f.deps, agents: { invoke: async (...args: Parameters<CapabilityExecutorDeps['agents']['invoke']>) => {
      await new Promise((r) => setTimeout(r, 30));
      return f.deps.agents.invoke(...args);
    } } };
    const err = await failure(capabilityExecutor(slow)(ctx({}, { timeoutMs: 20 })));
    expect(err).toMatchObject({ code: 'DEADLINE_EXCEEDED', retryable: true });
    expect(err.message).toContain('the node timeout (20 ms) passed before an agent answered (tried: writer.en/a UNAVAILABLE)');
    expect(f.calls).toHaveLength(1);
  });

  it('rethrows when the run is interrupted instead of failing over', async () => {
    const controller = new AbortController();
    const f = fakes({ 'writer.en': { instances: [inst('a'), inst('b')] } }, {
      'a:1': () => {
        controller.abort();
        return new AppError('CANCELLED', 'the node was interrupted');
      },
    });
    const err = await failure(capabilityExecutor(f.deps)(ctx({}, { signal: controller.signal })));
    expect(err.code).toBe('CANCELLED');
    expect(f.calls).toHaveLength(1);
  });

  it('maps non-UNAVAILABLE agent errors without failing over', async () => {
    const f = fakes({ 'writer.en': { instances: [inst('a'), inst('b')] } }, { 'a:1': new AppError('INVALID_ARGUMENT', 'bad brief', { violations: [{ field: 'brief', reason: 'too short' }] }) });
    const err = await failure(capabilityExecutor(f.deps)(ctx({})));
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', retryable: false, violations: [{ field: 'brief', reason: 'too short' }] });
    expect(err.message).toBe("node write: capability 'writer.en' (instance a at a:1) refused the call: bad brief");
    expect(f.calls).toHaveLength(1);
  });
});

describe('agentFailure', () => {
  const c = ctx({});
  const i = inst('a');
  it.each([
    ['UNAVAILABLE', 'UNAVAILABLE', true, 'is unavailable'],
    ['CANCELLED', 'UNAVAILABLE', true, 'cancelled the call'],
    ['DEADLINE_EXCEEDED', 'DEADLINE_EXCEEDED', true, 'did not answer within the node timeout (5000 ms)'],
    ['RESOURCE_EXHAUSTED', 'RESOURCE_EXHAUSTED', true, 'is busy'],
    ['ABORTED', 'ABORTED', true, 'is busy'],
    ['UNIMPLEMENTED', 'FAILED_PRECONDITION', false, 'does not serve agentfactory.agent.v1.CapabilityAgentService/Invoke'],
    ['INVALID_ARGUMENT', 'INVALID_ARGUMENT', false, 'refused the call'],
    ['PERMISSION_DENIED', 'PERMISSION_DENIED', false, 'failed'],
    ['INTERNAL', 'INTERNAL', false, 'failed'],
  ] as const)('%s → %s (retryable %s)', (from, to, retryable, text) => {
    const err = agentFailure(c, 'writer.en', i, new AppError(from, 'boom', { retryAfterMs: 250 }));
    expect(err).toMatchObject({ code: to, retryable, retryAfterMs: 250 });
    expect(err.message).toContain(`node write: capability 'writer.en' (instance a at a:1) ${text}`);
  });

  it('treats a non-AppError as INTERNAL', () => {
    expect(agentFailure(c, 'writer.en', i, new Error('weird'))).toMatchObject({ code: 'INTERNAL', retryable: false, message: expect.stringContaining('failed: weird') });
  });
});
