/**
 * The /api/v1/flex routes through the gateway with the real services as
 * processes (one stack, the marketing catalog loaded as the shared catalog):
 * a plan answers its enums as names, unknown body and query keys are 400s
 * naming the field with the key that was probably meant, a rejection's
 * reason is stored and answered as `reason`, a run's `complete` frame gives
 * wall time (`durationMs`) beside active time (`activeMs`), and no response
 * says which web framework served it (`X-Powered-By`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { http, postRunStream, REPO_ROOT, registerUser, startStack, until, type GatewayUser, type Stack } from '@af/testing';

const CATALOG = join(REPO_ROOT, 'catalogs/flex-marketing');
const RUN = '4b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3';

let stack: Stack;
let alice: GatewayUser;

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const flex = (method: string, path: string, body?: unknown) => http(method, url(`/api/v1/flex${path}`), { token: alice.token, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  stack = await startStack();
  alice = await registerUser(stack.gatewayUrl, 'alice@flex-api.example');
  const loaded = spawnSync(process.execPath, [join(REPO_ROOT, 'services/planner/dist/cli/load-catalog.js'), 'catalogs/flex-marketing', '--planner', `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`, '--shared'], {
    env: { PATH: process.env.PATH ?? '', INIT_CWD: REPO_ROOT, SERVICE_AUTH_SECRET: stack.serviceAuthSecret },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (loaded.status !== 0) throw new Error(`load-catalog: ${loaded.stderr}`);
});

afterAll(async () => {
  await stack?.stop();
});

describe('POST /api/v1/flex/plan', () => {
  it('answers the plan with enum names (node kinds, run context, …), never protobuf numbers', async () => {
    const envelope = JSON.parse(readFileSync(join(CATALOG, 'envelopes/new-case-post.json'), 'utf8'));
    const res = await flex('POST', '/plan', envelope);
    expect(res.status).toBe(200);
    expect(res.body.accepted).toBe(true);
    const nodes = res.body.plan.nodes as Array<Record<string, unknown>>;
    expect(nodes.length).toBeGreaterThan(0);
    for (const n of nodes) expect(['tool', 'llm', 'approval', 'human', 'capability', 'map', 'route', 'subflow', 'delay', 'transform']).toContain(n.kind);
    expect(nodes.map((n) => n.kind)).toContain('capability');
    for (const key of ['executionMode', 'runContext', 'approvalPolicy'] as const) {
      if (key in res.body.plan) expect(typeof res.body.plan[key]).toBe('string');
    }
    expect(JSON.stringify(res.body.plan)).not.toMatch(/"(kind|executionMode|runContext|approvalPolicy|frontEnd|onError|conditionDialect)":\d/);
  });
});

describe('unknown keys on flex routes', () => {
  it.each([
    ['POST', '/capabilities/no-such/heartbeat', { instanceID: 'i-1' }, 'instanceID', 'instanceId'],
    ['POST', '/facets', { facets: [{ name: 'x' }], colection: 'mine' }, 'colection', 'collection'],
    ['POST', '/tasks/some-task/decline', { reasonCode: 'other', reson: 'busy' }, 'reson', 'reason'],
    ['POST', '/hitl/resolve', { requestId: 'r', decision: 'approve', instruction: 'go' }, 'instruction', 'instructions'],
    ['POST', '/run.resume', { runId: RUN, ouput: { a: 1 } }, 'ouput', 'output'],
    ['GET', `/tasks?runid=${RUN}`, undefined, 'runid', 'runId'],
    ['GET', '/capabilities?include_inactiv=true', undefined, 'include_inactiv', 'include_inactive'],
  ])('%s %s is a 400 naming the field with a did-you-mean', async (method, path, body, field, meant) => {
    const res = await flex(method, path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_ARGUMENT');
    expect(res.body.error.violations).toEqual([{ field, reason: `unknown field (did you mean '${meant}'?)`, code: 'unknown_field', suggestedFix: meant }]);
  });
});

describe('unknown keys in what the planner validates (registrations, task envelopes)', () => {
  it('are 400s naming the field with a did-you-mean too', async () => {
    const registration = { capabilityId: 'flexapi.Writer', agentType: 'ai', version: '1', displayName: 'W', summary: 'Writes.', inputContract: ['post_context'], outputContract: ['post_copy'], endpoint: '127.0.0.1:1', displayname: 'typo' };
    const reg = await flex('POST', '/capabilities/register', registration);
    expect(reg.status).toBe(400);
    expect(reg.body.error.violations).toContainEqual(expect.objectContaining({ field: 'displayname', reason: expect.stringContaining("did you mean 'displayName'") }));
    const envelope = JSON.parse(readFileSync(join(CATALOG, 'envelopes/new-case-post.json'), 'utf8'));
    const plan = await flex('POST', '/plan', { ...envelope, outputContracts: {} });
    expect(plan.status).toBe(400);
    expect(plan.body.error.violations).toContainEqual(expect.objectContaining({ field: 'outputContracts', reason: expect.stringContaining("did you mean 'outputContract'") }));
  });
});

/** A run waiting at one approval gate; its pending request. */
async function pendingGate(id: string): Promise<{ runId: string; requestId: string }> {
  const yaml = `id: ${id}\nname: Gate ${id}\nversion: "1.0"\nsteps:\n  - name: confirm\n    step_type: approval\n    prompt: "Go on?"\n`;
  const started = await http('POST', url('/api/v1/runs'), { token: alice.token, body: { yaml, inputs: {} } });
  expect(started.status).toBe(201);
  const runId = started.body.run.id as string;
  const request = await until(`the approval of run ${runId}`, async () => (await http('GET', url(`/api/agent-factory/approvals?run_id=${runId}`), { token: alice.token })).body.approvals?.[0]);
  return { runId, requestId: request.id };
}

describe("a rejection's reason", () => {
  it('hitl/resolve stores it and answers it as resolution.reason; the queue shows it as reason', async () => {
    const { requestId } = await pendingGate('reason-resolve');
    const res = await flex('POST', '/hitl/resolve', { requestId, decision: 'reject', reason: 'numbers look wrong' });
    expect(res.status).toBe(200);
    expect(res.body.request).toMatchObject({ status: 'rejected', resolution: { decision: 'reject', reason: 'numbers look wrong' } });
    expect(res.body.request.resolution).not.toHaveProperty('instructions');
    const stored = await http('GET', url(`/api/agent-factory/approvals/${requestId}`), { token: alice.token });
    expect(stored.body.approval).toMatchObject({ status: 'rejected', reason: 'numbers look wrong' });
  });

  it('run.resume with decision reject takes reason too', async () => {
    const { runId, requestId } = await pendingGate('reason-resume');
    const res = await flex('POST', '/run.resume', { runId, decision: 'reject', reason: 'not this week' });
    expect(res.status).toBe(200);
    expect(res.body.request).toMatchObject({ requestId, status: 'rejected', resolution: { reason: 'not this week' } });
  });

  it('is refused on an approve, naming reason, and the request stays pending', async () => {
    const { requestId } = await pendingGate('reason-approve');
    const res = await flex('POST', '/hitl/resolve', { requestId, decision: 'approve', reason: 'why not' });
    expect(res.status).toBe(400);
    expect(res.body.error.violations).toEqual([{ field: 'reason', reason: 'is only for decision reject' }]);
    expect((await http('GET', url(`/api/agent-factory/approvals/${requestId}`), { token: alice.token })).body.approval.status).toBe('pending');
  });

  it("the approval queue's reject stores `reason`; `instructions` is its deprecated name, answered with Deprecation headers", async () => {
    const first = await pendingGate('reason-queue');
    const res = await http('POST', url(`/api/agent-factory/approvals/${first.requestId}/reject`), { token: alice.token, body: { reason: 'too risky' } });
    expect(res.status).toBe(200);
    expect(res.body.approval).toMatchObject({ status: 'rejected', reason: 'too risky' });
    expect(res.headers.get('deprecation')).toBeNull();
    const second = await pendingGate('reason-queue-old');
    const old = await http('POST', url(`/api/agent-factory/approvals/${second.requestId}/reject`), { token: alice.token, body: { instructions: 'too risky' } });
    expect(old.status).toBe(200);
    expect(old.body.approval).toMatchObject({ status: 'rejected', reason: 'too risky' });
    expect(old.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(old.headers.get('warning')).toContain("body field 'instructions' is deprecated: send 'reason' instead");
    const both = await http('POST', url(`/api/agent-factory/approvals/${second.requestId}/reject`), { token: alice.token, body: { instructions: 'a', reason: 'b' } });
    expect(both.status).toBe(400);
    expect(both.body.error.violations).toEqual([expect.objectContaining({ field: 'instructions', code: 'deprecated_field' })]);
  });
});

describe('the complete frame of a flex run', () => {
  it('durationMs is wall time from the start (the wait for a person included), activeMs the time spent executing, beside it', async () => {
    const { runId, requestId } = await pendingGate('timing');
    const createdAt = Date.parse((await http('GET', url(`/api/v1/runs/${runId}`), { token: alice.token })).body.run.created_at);
    const decided = await flex('POST', '/hitl/resolve', { requestId, decision: 'approve' });
    expect(decided.status).toBe(200);
    const decidedAt = Date.parse(decided.body.request.resolution.decidedAt);
    const frames = await postRunStream(url('/api/v1/flex/run.stream'), alice.token, { constraints: { resumeRunId: runId } });
    const complete = frames.find((f) => f.type === 'complete')!;
    expect(complete.payload).toMatchObject({ status: 'completed', durationMs: expect.any(Number), activeMs: expect.any(Number) });
    const { durationMs, activeMs } = complete.payload as { durationMs: number; activeMs: number };
    // The run finished after the decision, so its wall time covers the whole wait.
    expect(durationMs).toBeGreaterThanOrEqual(decidedAt - createdAt);
    expect(activeMs).toBeGreaterThanOrEqual(0);
    expect(activeMs).toBeLessThanOrEqual(durationMs);
  });
});

describe('X-Powered-By', () => {
  it('is on no gateway response: success, flex, auth failure, not found, unreadable body', async () => {
    const responses = [
      await http('GET', url('/healthz')),
      await flex('GET', '/capabilities'),
      await flex('GET', '/sandbox/metadata'),
      await http('GET', url('/api/v1/flex/capabilities')),
      await http('GET', url('/no/such/route')),
      await http('POST', url('/api/v1/flex/plan'), { token: alice.token, raw: '{not json' }),
      await flex('POST', '/hitl/resolve', { requestId: 'r', decision: 'approve', instruction: 'go' }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 401, 404, 400, 400]);
    for (const r of responses) expect(r.headers.get('x-powered-by')).toBeNull();
  });
});
