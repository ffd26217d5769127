/**
 * The orchestrator's agent client (infra/capability-agent.client.ts) against
 * a real agent over loopback gRPC (test/fixtures/capability-agent.ts): Struct
 * payloads both ways, the agent's idempotency record, and each failure the
 * executor maps — agent down, deadline, a status with violations, a cancelled
 * node, a port that serves something else. Real: grpc-js, NestJS, the proto
 * contracts. No database.
 */
import { AppError } from '@af/service-kit';
import { ScriptedChatModel } from '@af/llm';
import { freePort } from '@af/testing';
import type { AgentCall } from '../../src/app/executors/capability.executor.js';
import { CapabilityAgentClients } from '../../src/infra/capability-agent.client.js';
import { copywriter, modelHandler, startTestAgent, type TestAgent } from '../fixtures/capability-agent.js';

// The agents listen on loopback, which the egress policy refuses unless allowed (capability-egress.int-spec.ts).
const clients = new CapabilityAgentClients({ allow: '127.0.0.1' });
let agent: TestAgent;

const request = (over: Partial<AgentCall> = {}): AgentCall => ({
  capabilityId: 'writer.en',
  instanceId: 'default',
  runId: 'run-1',
  nodeId: 'write',
  attempt: 1,
  idempotencyKey: `run-1:write:${Math.random().toString(36).slice(2)}`,
  inputs: {
    company_information: { name: 'CompanyX', brand_assets: ['a.svg'] },
    post_context: { type: 'new_case', data: { customer_name: 'Acme', content_description: 'Acme saved 32%.', nested: { n: 1.5, ok: true, none: null } } },
  },
  instruction: 'Write the post.',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string' } } },
  timeoutMs: 5000,
  clarifications: [{ nodeId: 'write', capabilityId: 'writer.en', questionId: 'q', question: 'Tone?', answer: 'warm', createdAt: 't0', answeredAt: 't1' }],
  principal: { userId: 'u1', teamIds: [] },
  inputFacets: ['company_information', 'post_context'],
  outputFacets: ['post_copy'],
  scope: '',
  allowClarify: false,
  ...over,
});

const live = () => new AbortController().signal;

/** Answers after 1.5 s; afterAll waits for these so no timer outlives the file. */
const slowCalls: Array<Promise<unknown>> = [];
const slow = () => {
  const answer = new Promise<{ output: Record<string, unknown> }>((r) => setTimeout(() => r({ output: { post_copy: 'late' } }), 1500));
  slowCalls.push(answer);
  return answer;
};

async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

beforeAll(async () => {
  agent = await startTestAgent(copywriter);
});

afterAll(async () => {
  await Promise.all(slowCalls);
  await clients.close();
  await agent?.stop();
});

beforeEach(() => agent.setHandler(copywriter));

describe('CapabilityAgentClients', () => {
  it('sends the whole request (Struct inputs, schemas, clarifications) and returns the output', async () => {
    const r = request();
    const answer = await clients.invoke(agent.address, r, { timeoutMs: 5000, signal: live() });
    expect(answer).toEqual({ output: { post_copy: 'CompanyX is proud of Acme: Acme saved 32%.' }, clarify: null, replayed: false });
    const got = agent.calls.at(-1)!;
    expect(got).toMatchObject({
      capabilityId: 'writer.en',
      runId: 'run-1',
      nodeId: 'write',
      attempt: 1,
      idempotencyKey: r.idempotencyKey,
      inputs: r.inputs,
      instruction: 'Write the post.',
      outputSchema: r.outputSchema,
      timeoutMs: 5000,
      clarifications: r.clarifications,
      principal: { userId: 'u1', teamIds: [] },
      outputFacets: ['post_copy'],
    });
  });

  it('gets the recorded answer for a key already answered, without the agent working again', async () => {
    const r = request();
    await clients.invoke(agent.address, r, { timeoutMs: 5000, signal: live() });
    const again = await clients.invoke(agent.address, r, { timeoutMs: 5000, signal: live() });
    expect(again.replayed).toBe(true);
    expect(agent.executions.filter((k) => k === r.idempotencyKey)).toHaveLength(1);
  });

  it('returns a clarification question', async () => {
    agent.setHandler(() => ({ clarify: { question: 'Which tone?', questionId: 'tone' } }));
    const answer = await clients.invoke(agent.address, request({ allowClarify: true }), { timeoutMs: 5000, signal: live() });
    expect(answer).toEqual({ output: null, clarify: { question: 'Which tone?', questionId: 'tone' }, replayed: false });
  });

  it('works with an agent whose answers come from a chat model', async () => {
    const model = new ScriptedChatModel({ responses: [{ json: { post_copy: 'Scripted post' } }] });
    agent.setHandler(modelHandler(model));
    const answer = await clients.invoke(agent.address, request(), { timeoutMs: 5000, signal: live() });
    expect(answer.output).toEqual({ post_copy: 'Scripted post' });
    expect(model.calls[0]!.structuredOutput?.schema).toMatchObject({ required: ['post_copy'] });
  });

  it("restores the agent's error status and violations", async () => {
    const err = await failure(clients.invoke(agent.address, request({ inputs: {} }), { timeoutMs: 5000, signal: live() }));
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'inputs', reason: 'missing company or case description' }] });
  });

  it('is DEADLINE_EXCEEDED when the agent answers after the deadline', async () => {
    agent.setHandler(slow);
    const t0 = Date.now();
    const err = await failure(clients.invoke(agent.address, request(), { timeoutMs: 300, signal: live() }));
    expect(err.code).toBe('DEADLINE_EXCEEDED');
    expect(Date.now() - t0).toBeLessThan(1400);
  });

  it('is CANCELLED at once when the node is interrupted', async () => {
    agent.setHandler(slow);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const t0 = Date.now();
    const err = await failure(clients.invoke(agent.address, request(), { timeoutMs: 5000, signal: controller.signal }));
    expect(err.code).toBe('CANCELLED');
    expect(Date.now() - t0).toBeLessThan(1000);
    const aborted = new AbortController();
    aborted.abort();
    expect((await failure(clients.invoke(agent.address, request(), { timeoutMs: 5000, signal: aborted.signal }))).code).toBe('CANCELLED');
  });

  it('is UNAVAILABLE quickly when nothing listens at the address, and serves again once the agent is back', async () => {
    const other = await startTestAgent(copywriter);
    await other.stop();
    const t0 = Date.now();
    const err = await failure(clients.invoke(other.address, request(), { timeoutMs: 5000, signal: live() }));
    expect(err.code).toBe('UNAVAILABLE');
    expect(Date.now() - t0).toBeLessThan(3000);
    await other.restart();
    try {
      // The channel reconnects within its backoff (≤ 1 s).
      let answer;
      for (let i = 0; i < 30 && !answer; i++) {
        answer = await clients.invoke(other.address, request(), { timeoutMs: 2000, signal: live() }).catch(() => new Promise((r) => setTimeout(r, 100)).then(() => undefined));
      }
      expect(answer).toMatchObject({ output: { post_copy: expect.any(String) } });
    } finally {
      await other.stop();
    }
  });

  it('is UNIMPLEMENTED when the address serves something else', async () => {
    const { startGrpcServer, createLogger } = await import('@af/service-kit');
    const { Module } = await import('@nestjs/common');
    @Module({})
    class Empty {}
    const port = await freePort();
    const server = await startGrpcServer({ module: { module: Empty }, packages: ['common'], host: '127.0.0.1', port, log: createLogger('empty', 'warn'), auth: null });
    try {
      const err = await failure(clients.invoke(`127.0.0.1:${port}`, request(), { timeoutMs: 5000, signal: live() }));
      expect(err.code).toBe('UNIMPLEMENTED');
    } finally {
      await server.close();
    }
  });
});
