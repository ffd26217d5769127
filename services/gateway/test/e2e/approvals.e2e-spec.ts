/**
 * Issue 4: approval gates, pause/resume and run listing through the gateway,
 * with the real services as processes.
 */
import { readSse } from '@af/testing';
import {
  connectorYaml,
  fixture,
  http,
  registerAndLogin,
  routeFixtureApi,
  SECRET,
  startFixtureServer,
  startStack,
  waitForRun,
  type FixtureServer,
  type Stack,
} from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let token: string;
let other: string;

beforeAll(async () => {
  api = await startFixtureServer();
  routeFixtureApi(api);
  api.route('GET', '/orgs', (req) => ({
    json: { data: { items: ['a', 'b', 'c'].map((x) => ({ id: `ein-${String(req.query.q).toLowerCase()}-${x}`, org: { name: `${req.query.q} ${x}` } })) } },
  }));
  stack = await startStack();
  token = await registerAndLogin(stack, 'dana@example.com');
  other = await registerAndLogin(stack, 'eve@example.com');
  const res = await http('POST', url('/api/agent-factory/connectors'), { token, body: { yaml: connectorYaml(api.url), credentials: { api_key: SECRET } } });
  expect(res.status).toBe(201);
});

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

const url = (path: string) => `${stack.gatewayUrl}${path}`;

async function startRun(inputs: Record<string, unknown>, yaml = fixture('publish-with-approval.playbook.yaml')) {
  const res = await http('POST', url('/api/v1/runs'), { token, body: { playbook: yaml, inputs } });
  expect(res.status).toBe(201);
  return res.body.run.id as string;
}

async function waitForStatus(runId: string, status: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http('GET', url(`/api/v1/runs/${runId}`), { token });
    if (res.body.run?.status === status) return res.body.run;
    if (Date.now() > deadline) throw new Error(`run ${runId} is ${res.body.run?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const resume = (runId: string, body: Record<string, unknown>, as = token) => http('POST', url(`/api/v1/runs/${runId}/resume`), { token: as, body });

describe('approval gates', () => {
  it('waits with a hitl_request frame, then an approval resumes the run', async () => {
    const runId = await startRun({ org_name: 'Acme' });
    const waiting = await waitForStatus(runId, 'waiting');
    expect(waiting.nodes.map((n: any) => [n.node_id, n.status])).toEqual([
      ['find_org', 'completed'],
      ['confirm', 'waiting'],
      ['get_filings', 'pending'],
    ]);
    expect(api.count('GET', '/filings')).toBe(0);

    const sse = await readSse(url(`/api/v1/runs/${runId}/events`), { authorization: `Bearer ${token}` }, { until: (f) => f.event === 'hitl_request', timeoutMs: 10_000 });
    const hitl = JSON.parse(sse.frames.at(-1)!.data);
    expect(hitl).toMatchObject({ type: 'hitl_request', nodeId: 'confirm', payload: { pendingNodeId: 'confirm', kind: 'approval_gate', onReject: 'stop', operatorPrompt: 'Fetch filings for 3 organisation(s) matching Acme?' } });
    expect(hitl.payload.preview.results).toHaveLength(1);

    const ok = await resume(runId, { decision: 'approve', instructions: 'only the first one' });
    expect(ok.status).toBe(200);
    const run = await waitForRun(stack, token, runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.find((n: any) => n.node_id === 'confirm').output).toMatchObject({ approved: true, instructions: 'only the first one', decided_by: expect.any(String) });
    expect(run.outputs.filings.count).toBe(2);

    const frames = await readSse(url(`/api/v1/runs/${runId}/events`), { authorization: `Bearer ${token}` }, { until: (f) => f.event === 'complete' });
    expect(frames.frames.map((f) => f.event)).toEqual([
      'start', 'node_start', 'node_complete', 'node_start', 'hitl_request', 'log', 'node_complete', 'node_start', 'node_complete', 'complete',
    ]);

    // A decision on a finished run is a conflict, and nothing changes.
    const late = await resume(runId, { decision: 'approve' });
    expect(late.status).toBe(409);
    expect((await http('GET', url(`/api/v1/runs/${runId}`), { token })).body.run.status).toBe('completed');
  });

  it('on_reject: stop fails the run without running later steps', async () => {
    const before = api.count('GET', '/filings');
    const runId = await startRun({ org_name: 'Reject' });
    await waitForStatus(runId, 'waiting');
    expect((await resume(runId, { decision: 'reject', node_id: 'confirm' })).status).toBe(200);
    const run = await waitForRun(stack, token, runId);
    expect(run.status).toBe('failed');
    expect(run.error).toContain('rejected');
    expect(run.nodes.map((n: any) => n.status)).toEqual(['completed', 'failed', 'cancelled']);
    expect(api.count('GET', '/filings')).toBe(before);
  });

  it('on_reject: skip skips the gate and goes on', async () => {
    const runId = await startRun({ org_name: 'Skip' }, fixture('publish-with-approval.playbook.yaml').replace('on_reject: stop', 'on_reject: skip'));
    await waitForStatus(runId, 'waiting');
    await resume(runId, { decision: 'reject' });
    const run = await waitForRun(stack, token, runId);
    expect(run.status).toBe('completed');
    const gate = run.nodes.find((n: any) => n.node_id === 'confirm');
    expect(gate).toMatchObject({ status: 'skipped', skip_reason: 'rejected' });
    expect(run.outputs.filings.count).toBe(2);
  });

  it('approval_policy: auto_approve passes the gate with a recorded automatic decision', async () => {
    const yaml = fixture('publish-with-approval.playbook.yaml').replace('inputs:\n', 'approval_policy: auto_approve\ninputs:\n');
    const run = await waitForRun(stack, token, await startRun({ org_name: 'Auto' }, yaml));
    expect(run.status).toBe('completed');
    expect(run.nodes.find((n: any) => n.node_id === 'confirm').output).toMatchObject({ approved: true, decided_by: 'policy:auto_approve' });
  });

  it('refuses bad decisions with clear errors and leaves the run waiting', async () => {
    const runId = await startRun({ org_name: 'Bad' });
    await waitForStatus(runId, 'waiting');
    const maybe = await resume(runId, { decision: 'maybe' });
    expect(maybe.status).toBe(400);
    expect(maybe.body.error.violations[0].field).toBe('decision');
    const wrongNode = await resume(runId, { decision: 'approve', node_id: 'find_org' });
    expect(wrongNode.status).toBe(400);
    expect(wrongNode.body.error.violations[0].field).toBe('node_id');
    const noDecision = await resume(runId, { node_id: 'confirm' });
    expect(noDecision.status).toBe(400);
    const stranger = await resume(runId, { decision: 'approve' }, other);
    expect(stranger.status).toBe(404);
    const resumeWaiting = await resume(runId, {});
    expect(resumeWaiting.status).toBe(409);
    expect((await http('GET', url(`/api/v1/runs/${runId}`), { token })).body.run.status).toBe('waiting');
    // Cancel works on a waiting run; cancelling twice is a conflict.
    expect((await http('POST', url(`/api/v1/runs/${runId}/cancel`), { token })).status).toBe(200);
    const twice = await http('POST', url(`/api/v1/runs/${runId}/cancel`), { token });
    expect(twice.status).toBe(409);
    expect((await http('GET', url(`/api/v1/runs/${runId}`), { token })).body.run.nodes.map((n: any) => n.status)).toEqual(['completed', 'cancelled', 'cancelled']);
  });
});

describe('pause and resume', () => {
  it('pauses mid-node; resume replays the node without calling the API twice', async () => {
    const gate = api.hold('GET', '/orgs');
    const before = api.count('GET', '/orgs');
    const runId = await startRun({ org_name: 'Paused' }, fixture('org-filings.playbook.yaml'));
    await gate.arrived(1);
    const paused = await http('POST', url(`/api/v1/runs/${runId}/pause`), { token });
    expect(paused.status).toBe(200);
    expect(paused.body.run.status).toBe('paused');
    gate.release();
    await new Promise((r) => setTimeout(r, 500));
    const still = (await http('GET', url(`/api/v1/runs/${runId}`), { token })).body.run;
    expect(still.status).toBe('paused');
    expect(still.nodes[1].status).toBe('pending');

    expect((await http('POST', url(`/api/v1/runs/${runId}/pause`), { token })).status).toBe(409);
    const resumed = await resume(runId, {});
    expect(resumed.status).toBe(200);
    const run = await waitForRun(stack, token, runId);
    expect(run.status).toBe('completed');
    expect(api.count('GET', '/orgs') - before).toBe(1);
    expect(run.nodes.map((n: any) => n.attempt)).toEqual([1, 1]);
  });

  it('resume of a run that is not paused is a conflict', async () => {
    const runId = await startRun({ org_name: 'Done' }, fixture('org-filings.playbook.yaml'));
    await waitForRun(stack, token, runId);
    const res = await resume(runId, {});
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('not paused');
  });
});

describe('listing runs', () => {
  it('lists newest first with status filters and paging, and only your own', async () => {
    const all = await http('GET', url('/api/v1/runs?page_size=3'), { token });
    expect(all.status).toBe(200);
    expect(all.body.runs).toHaveLength(3);
    expect(all.body.runs[0].nodes).toBeUndefined();
    const created = all.body.runs.map((r: any) => r.created_at);
    expect([...created].sort().reverse()).toEqual(created);
    const next = await http('GET', url(`/api/v1/runs?page_size=3&page_token=${encodeURIComponent(all.body.next_page_token)}`), { token });
    expect(next.body.runs.map((r: any) => r.id)).not.toContain(all.body.runs[0].id);

    const failed = await http('GET', url('/api/v1/runs?status=failed'), { token });
    expect(failed.body.runs.length).toBeGreaterThan(0);
    expect(failed.body.runs.every((r: any) => r.status === 'failed')).toBe(true);

    const executions = await http('GET', url('/api/agent-factory/executions'), { token });
    expect(executions.body.runs.length).toBeGreaterThanOrEqual(all.body.runs.length);
    const one = await http('GET', url(`/api/agent-factory/executions/${all.body.runs[0].id}`), { token });
    expect(one.body.execution.id).toBe(all.body.runs[0].id);

    expect((await http('GET', url('/api/v1/runs'), { token: other })).body.runs).toEqual([]);
    expect((await http('GET', url('/api/v1/runs?status=sleeping'), { token })).status).toBe(400);
    expect((await http('GET', url('/api/v1/runs?page_token=bogus'), { token })).status).toBe(400);
    expect((await http('GET', url('/api/v1/runs?page_size=0'), { token })).status).toBe(400);
  });
});
