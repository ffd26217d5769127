/**
 * `capability` nodes end to end (startStack + example agents in this
 * process, test/fixtures/capability-agent.ts): an AI agent registers its
 * capability with an `endpoint` in the planner's registry; a flex run
 * (`POST /api/v1/flex/run.stream`) plans a capability node, the orchestrator
 * dispatches it to the agent (CapabilityAgentService/Invoke), validates the
 * output, and the goal condition holds. Then over gRPC StartRun: an agent that
 * is down (fail over to an alternate in the node; retries then the plan's
 * fallback node; a retry once it is back), outputs and inputs that break the
 * node contracts (`validation_error`, the node fails per its policy), and a
 * crash of the orchestrator mid-call whose replay does not make the agent
 * work twice.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { planner } from '@af/contracts';
import { ScriptedChatModel } from '@af/llm';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { http, postRunStream, REPO_ROOT, startStack, type Stack } from '@af/testing';
import { aiRegistration, copywriter, modelHandler, startTestAgent, type TestAgent } from '../fixtures/capability-agent.js';
import { byId, frames, harness, output, RunStatus, start, status, until, type Frame, type Harness } from './helpers.js';

let stack: Stack;
let h: Harness;
let registry: planner.CapabilityRegistryServiceClient;
const agents: TestAgent[] = [];

const CATALOG = join(REPO_ROOT, 'catalogs/flex-marketing');
const caseInputs = () => JSON.parse(readFileSync(join(CATALOG, 'envelopes/new-case-post.json'), 'utf8')).inputs as Record<string, unknown>;
const POST_COPY = { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string', minLength: 1 } } };
const CASE_INPUTS = {
  type: 'object',
  required: ['company_information', 'post_context'],
  properties: { company_information: { type: 'object', required: ['name'] }, post_context: { type: 'object', required: ['type', 'data'] } },
};

async function agent(handler = copywriter): Promise<TestAgent> {
  const a = await startTestAgent(handler);
  agents.push(a);
  return a;
}

async function register(capabilityId: string, endpoint: string, extra: Record<string, unknown> = {}): Promise<void> {
  await call(registry.registerCapability({ principal: h.principal, registration: aiRegistration(capabilityId, endpoint, extra), idempotencyKey: '' }));
}

/** A capability node writing `post_copy` from the case inputs. */
const writeNode = (id: string, capabilityId: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: 'capability',
  action: capabilityId,
  capabilityId,
  inputs: { company_information: '{company_information}', post_context: '{post_context}' },
  inputSchema: CASE_INPUTS,
  outputSchema: POST_COPY,
  params: { instruction: 'Write the LinkedIn post about the case.', flex: { inputFacets: ['company_information', 'post_context'], outputFacets: ['post_copy'] } },
  ...extra,
});

async function runPlan(nodes: Array<Record<string, unknown>>, inputs: Record<string, unknown> = caseInputs()): Promise<string> {
  return start(h, { nodes, inputs: Object.keys(inputs).map((name) => ({ name })) }, { inputs });
}

const ofNode = (fs: Frame[], nodeId: string, type?: string) => fs.filter((f) => f.nodeId === nodeId && (!type || f.type === type));

beforeAll(async () => {
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500' } } });
  h = harness(stack, 'capability-e2e-user');
  registry = createGrpcClient<planner.CapabilityRegistryServiceClient>('planner', planner.CAPABILITY_REGISTRY_SERVICE_NAME, `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
  const facets = readdirSync(join(CATALOG, 'facets')).map((f) => JSON.parse(readFileSync(join(CATALOG, 'facets', f), 'utf8')));
  // The facets are the shared catalog (loaded by the operator): every user below plans with them.
  await call(registry.upsertFacets({ principal: { userId: 'system:operator', teamIds: [] }, facets, collection: 'flex.marketing', idempotencyKey: '', visibility: 'shared', teamId: '' }));
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop().catch(() => undefined)));
  await stack?.stop();
});


describe('a flex run on an AI agent', () => {
  it('plans a capability node, runs it on the registered agent, validates its output and meets the goal', async () => {
    const model = new ScriptedChatModel({ responses: [{ json: { post_copy: 'Thank you, Acme Corp: 32% more efficiency with CompanyX.' } }] });
    const writer = await agent(modelHandler(model));
    const password = 'correct horse battery staple';
    await http('POST', `${stack.gatewayUrl}/api/auth/register`, { body: { email: 'agent-owner@example.com', password } });
    const token = (await http('POST', `${stack.gatewayUrl}/api/auth/login`, { body: { email: 'agent-owner@example.com', password } })).body.access_token as string;

    // The agent registers over HTTP with its address; the registry shows it.
    const reg = await http('POST', `${stack.gatewayUrl}/api/v1/flex/capabilities/register`, { token, body: aiRegistration('e2e.Copywriter', writer.address) });
    expect(reg.status).toBe(201);
    expect(reg.body.capability.instances).toEqual([expect.objectContaining({ instanceId: 'default', endpoint: writer.address, status: 'active' })]);
    const badAddress = await http('POST', `${stack.gatewayUrl}/api/v1/flex/capabilities/register`, { token, body: aiRegistration('e2e.Nowhere', 'not an address') });
    expect(badAddress.status).toBe(400);
    expect(badAddress.body.error.violations).toEqual([expect.objectContaining({ field: 'endpoint' })]);

    const envelope = JSON.parse(readFileSync(join(CATALOG, 'envelopes/new-case-post.json'), 'utf8'));
    envelope.policies = { planner: { selection: { prefer: ['e2e.Copywriter'] } } };
    envelope.outputContract = { schema: { type: 'object', required: ['post_copy'], properties: { post_copy: { type: 'string' } } } };
    envelope.goal_condition = [{ facet: 'post_copy', path: '', condition: { dsl: 'value != ""' } }];
    const fs = await postRunStream(`${stack.gatewayUrl}/api/v1/flex/run.stream`, token, envelope);
    const types = fs.map((f) => `${f.type}${f.nodeId ? `:${f.nodeId}` : ''}`);
    const generated = fs.find((f) => f.type === 'plan_generated')!;
    expect(generated.payload.nodes).toContainEqual(expect.objectContaining({ id: 'e2e_Copywriter', kind: 'capability', capabilityId: 'e2e.Copywriter' }));
    expect(types).toEqual(expect.arrayContaining(['node_start:e2e_Copywriter', 'node_complete:e2e_Copywriter']));
    expect(types).not.toContain('node_error:e2e_Copywriter');
    const completed = fs.find((f) => f.type === 'node_complete' && f.nodeId === 'e2e_Copywriter')!;
    expect(completed.payload).toMatchObject({ dispatch: { capabilityId: 'e2e.Copywriter', instanceId: 'default' } });
    const complete = fs.at(-1)!;
    expect(complete).toMatchObject({ type: 'complete', payload: { status: 'completed', goal_condition_results: [expect.objectContaining({ facet: 'e2e_Copywriter', path: '/post_copy', satisfied: true })] } });

    // What the agent got: the node contract, the run's key, the resolved facets.
    const runId = fs[0]!.runId as string;
    expect(writer.calls).toHaveLength(1);
    expect(writer.calls[0]).toMatchObject({
      capabilityId: 'e2e.Copywriter',
      runId,
      nodeId: 'e2e_Copywriter',
      attempt: 1,
      idempotencyKey: `${runId}:e2e_Copywriter:1`,
      inputs: { company_information: { name: 'CompanyX' }, post_context: { type: 'new_case' } },
      outputSchema: { required: ['post_copy'] },
      outputFacets: ['post_copy'],
    });
    expect(writer.calls[0]!.instruction).not.toBe('');
    expect(model.calls).toHaveLength(1);
    const debug = await http('GET', `${stack.gatewayUrl}/api/v1/flex/runs/${runId}`, { token });
    expect(debug.body.nodes).toContainEqual(expect.objectContaining({ nodeId: 'e2e_Copywriter', status: 'completed', output: { post_copy: 'Thank you, Acme Corp: 32% more efficiency with CompanyX.' } }));
  });
});

describe('an agent that is down', () => {
  let backup: TestAgent;

  it('fails over within the attempt to the alternate the node lists', async () => {
    const down = await agent();
    await down.stop();
    backup = await agent();
    await register('e2e.DownWriter', down.address);
    await register('e2e.BackupWriter', backup.address);
    const runId = await runPlan([writeNode('write', 'e2e.DownWriter', { params: { alternates: ['e2e.BackupWriter'] } })]);
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(output(run, 'write')).toEqual({ post_copy: expect.stringContaining('CompanyX is proud of Acme Corp') });
    const done = ofNode(await frames(h, runId), 'write', 'node_complete')[0]!;
    expect(done.payload.dispatch).toEqual({ capabilityId: 'e2e.BackupWriter', instanceId: 'default', failedOver: [{ capabilityId: 'e2e.DownWriter', instanceId: 'default', code: 'UNAVAILABLE' }] });
    expect(backup.calls.map((c) => c.idempotencyKey)).toEqual([`${runId}:write:1`]);
  });

  it('is UNAVAILABLE, retried, then handed to the plan fallback node', async () => {
    const before = backup.calls.length;
    const runId = await runPlan([
      writeNode('write', 'e2e.DownWriter', { errorPolicy: { onError: 'fallback', fallback: ['write_alt'], retry: { maxRetries: 1, backoffMs: 200 } } }),
      writeNode('write_alt', 'e2e.BackupWriter', { fallbackFor: 'write' }),
    ]);
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(status(run)).toMatchObject({ write: 'failed', write_alt: 'completed' });
    const fs = await frames(h, runId);
    expect(ofNode(fs, 'write', 'node_start').map((f) => f.payload.attempt)).toEqual([1, 2]);
    const error = ofNode(fs, 'write', 'node_error')[0]!;
    expect(error.payload).toMatchObject({ code: 'UNAVAILABLE', attempt: 2, continues: true, violations: [expect.objectContaining({ field: 'capabilityId', code: 'agent_unavailable' })] });
    expect(error.payload.error).toContain("capability 'e2e.DownWriter' (instance default at");
    expect(output(run, 'write')).toEqual(output(run, 'write_alt'));
    expect(backup.calls.slice(before).map((c) => c.idempotencyKey)).toEqual([`${runId}:write_alt:1`]);
  });

  it('succeeds on a retry once the agent is back, with the next attempt key', async () => {
    const flaky = await agent();
    await register('e2e.FlakyWriter', flaky.address);
    await flaky.stop();
    const runId = await runPlan([writeNode('write', 'e2e.FlakyWriter', { errorPolicy: { onError: 'stop', retry: { maxRetries: 3, backoffMs: 1500, multiplier: 1 } } })]);
    await until(h, runId, (r) => byId(r).write?.attempt === 2 || r.status !== RunStatus.RUN_STATUS_RUNNING, 15_000);
    await flaky.restart();
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(flaky.calls.length).toBeGreaterThanOrEqual(1);
    expect(flaky.calls.at(-1)!.idempotencyKey).toMatch(new RegExp(`^${runId}:write:[2-4]$`));
    const errs = ofNode(await frames(h, runId), 'write', 'node_error');
    expect(errs).toEqual([]);
  });

  it('fails the run naming the capability when nothing is registered for it', async () => {
    const runId = await runPlan([writeNode('write', 'e2e.Ghost')]);
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    const error = ofNode(await frames(h, runId), 'write', 'node_error')[0]!;
    // NOT_FOUND: nothing by that id that the run's owner may use (its own, its teams', the shared catalog).
    expect(error.payload).toMatchObject({ code: 'NOT_FOUND', attempt: 1, violations: [{ field: 'capabilityId', code: 'not_registered', reason: expect.stringContaining("'e2e.Ghost' is not registered for the run's owner") }] });
  });
});

describe('node contracts', () => {
  it('fails a node whose agent output breaks the output schema (validation_error, no retry) per its policy', async () => {
    const sloppy = await agent(() => ({ output: { post_copy: 42, note: 'x' } }));
    await register('e2e.SloppyWriter', sloppy.address);
    const runId = await runPlan([writeNode('write', 'e2e.SloppyWriter', { errorPolicy: { onError: 'stop', retry: { maxRetries: 2, backoffMs: 100 } } })]);
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    const fs = await frames(h, runId);
    const validation = fs.find((f) => f.type === 'validation_error')!;
    expect(validation).toMatchObject({ nodeId: 'write', payload: { scope: 'capability_output', nodeId: 'write', capabilityId: 'e2e.SloppyWriter', instanceId: 'default', errors: [{ path: '/post_copy', keyword: 'type', message: 'must be string' }] } });
    const error = ofNode(fs, 'write', 'node_error')[0]!;
    expect(error.payload).toMatchObject({ code: 'INVALID_ARGUMENT', attempt: 1, continues: false, violations: [{ field: 'output/post_copy', reason: 'must be string', code: 'validation_error' }] });
    expect(sloppy.calls).toHaveLength(1);
    expect(run.error).toContain("the output of capability 'e2e.SloppyWriter' does not satisfy the node's output schema: output/post_copy must be string");

    // With onError skip the same failure is recorded and the run goes on.
    const skipped = await until(h, await runPlan([writeNode('write', 'e2e.SloppyWriter', { errorPolicy: { onError: 'skip' } })]));
    expect(skipped.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(status(skipped)).toMatchObject({ write: 'failed' });
  });

  it('refuses inputs that break the input schema before calling the agent', async () => {
    const writer = await agent();
    await register('e2e.StrictWriter', writer.address);
    const inputs = { company_information: { website: 'https://companyx.com' }, post_context: 'not an object' };
    const runId = await runPlan([writeNode('write', 'e2e.StrictWriter')], inputs);
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_FAILED);
    const fs = await frames(h, runId);
    expect(fs.find((f) => f.type === 'validation_error')!.payload).toMatchObject({ scope: 'capability_input', capabilityId: 'e2e.StrictWriter' });
    const error = ofNode(fs, 'write', 'node_error')[0]!;
    expect(error.payload.violations.map((v: { field: string }) => v.field).sort()).toEqual(['inputs/company_information/name', 'inputs/post_context']);
    expect(writer.calls).toEqual([]);
  });
});

describe('an orchestrator crash mid-call', () => {
  it('replays the node with the same key; the agent answers from its record and works once', async () => {
    const slow = await agent();
    await register('e2e.SlowWriter', slow.address);
    slow.hold();
    const runId = await runPlan([writeNode('write', 'e2e.SlowWriter')]);
    await slow.callsReached(1);
    await stack.services.orchestrator.kill();
    await stack.services.orchestrator.start();
    // The new process takes the run over once the lease lapses and replays the node.
    await slow.callsReached(2, 30_000);
    slow.release();
    const run = await until(h, runId);
    expect(run.status).toBe(RunStatus.RUN_STATUS_COMPLETED);
    expect(slow.calls.map((c) => c.idempotencyKey)).toEqual([`${runId}:write:1`, `${runId}:write:1`]);
    expect(slow.executions).toEqual([`${runId}:write:1`]);
    const fs = await frames(h, runId);
    const done = ofNode(fs, 'write', 'node_complete');
    expect(done).toHaveLength(1);
    expect(done[0]!.payload.dispatch).toEqual({ capabilityId: 'e2e.SlowWriter', instanceId: 'default', replayed: true });
    expect(output(run, 'write')).toEqual({ post_copy: expect.stringContaining('CompanyX') });
  });
});
