/**
 * Tool HITL end to end (seed multi-agent-rag "Adding HITL"): an agent whose
 * tools need approval waits behind a `tool_hitl` request; instructions are
 * classified enhance / override by the approval service's model (a scripted
 * one here: enhance, then override, then nothing left — the fallback), a
 * denial or a timeout keeps the agent from running, and a non-streaming run
 * skips the dialog. Runs start with the orchestrator's StartRun (master-plan
 * shapes have no gateway route yet); every decision goes through the gateway.
 */
import { compileMasterPlan } from '@af/plan';
import { startStack, type Stack } from '@af/testing';
import { client, node, register, type User } from './helpers.js';

let stack: Stack;
let c: ReturnType<typeof client>;
let dana: User;

beforeAll(async () => {
  stack = await startStack({
    env: { approval: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify([{ json: { intent: 'enhance' } }, { json: { intent: 'override' } }]) } },
  });
  c = client(stack);
  dana = await register(stack, 'dana@example.com');
});

afterAll(async () => {
  await stack?.stop();
});

const TASK = 'Send the Q3 report to john@example.com';

/** web_agent (no HITL, a pure node here) in parallel with mail_agent behind its tool HITL gate, then a join. */
const gatedPlan = (gateParams: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  metadata,
  nodes: [
    { id: 'web_agent_0', kind: 'tool', action: 'transform_data', inputs: { data: [{ trend: 'GPUs' }] }, params: { operations: [] } },
    {
      id: 'mail_agent_0__approval',
      kind: 'approval',
      action: 'hitl_approval',
      inputs: { task: TASK },
      params: { agent_id: 'mail_agent_0', agent_name: 'mail_agent', tool_names: ['send_email'], on_reject: 'skip', ...gateParams },
    },
    { id: 'mail_agent_0', kind: 'capability', capabilityId: 'mail_agent', action: 'mail_agent', inputs: { task: TASK }, params: { tools: ['send_email'] }, dependsOn: ['mail_agent_0__approval'], errorPolicy: { onError: 'skip' } },
    { id: 'joined', kind: 'tool', action: 'transform_data', inputs: { data: [1] }, params: { operations: [] }, dependsOn: ['web_agent_0', 'mail_agent_0'] },
  ],
});

describe('tool HITL', () => {
  it('asks with agent, tools and task while the parallel agent finishes; enhance instructions reach the gated agent as both tasks', async () => {
    const runId = await c.startPlan(dana, gatedPlan());
    const waiting = await c.waitForStatus(dana, runId, 'waiting');
    // Seed gantt: the agent without HITL ran while the HITL one waits.
    expect(node(waiting, 'web_agent_0').status).toBe('completed');
    expect(node(waiting, 'mail_agent_0__approval').status).toBe('waiting');
    expect(node(waiting, 'joined').status).toBe('pending');
    const hitl = JSON.parse((await c.frames(dana, runId, 'hitl_request')).frames.at(-1)!.data);
    expect(hitl.payload).toMatchObject({
      kind: 'tool_hitl',
      pendingNodeId: 'mail_agent_0__approval',
      agentId: 'mail_agent_0',
      agentName: 'mail_agent',
      toolNames: ['send_email'],
      taskDescription: TASK,
      operatorPrompt: 'mail_agent wants to use send_email. Approve?',
    });
    // The seed's HITL_TIMEOUT_SECONDS default (120 s) applies when the plan sets none.
    const a = await c.pending(dana, runId, 'mail_agent_0__approval');
    expect(Math.round((Date.parse(a.timeout_at) - Date.parse(a.created_at)) / 1000)).toBe(120);
    expect(a.details).toMatchObject({ agent_id: 'mail_agent_0', tool_names: ['send_email'], task_description: TASK });

    const res = await c.req('POST', '/hitl/respond', dana, { request_id: hitl.payload.requestId, decision: 'approved', instructions: 'also attach the Q2 numbers' });
    expect(res.status).toBe(200);
    expect(res.body.approval).toMatchObject({ status: 'approved', intent: 'enhance', instructions: 'also attach the Q2 numbers' });
    expect(res.body.approval.effective_task).toBe(
      `Complete BOTH the original task AND the additional user instructions below.\n\n### Original Task\n${TASK}\n\n### User Enhanced Instructions\nalso attach the Q2 numbers`,
    );
    const run = await c.waitForEnd(dana, runId);
    expect(run.status).toBe('completed');
    expect(node(run, 'mail_agent_0__approval').output).toMatchObject({ approved: true, intent: 'enhance', effective_task: res.body.approval.effective_task, tool_names: ['send_email'] });
    // The approved agent was attempted (not short-circuited): nothing is registered for it, so its error policy skipped it.
    expect(node(run, 'mail_agent_0').error).toContain("capability 'mail_agent' is not registered for the run's owner");
  });

  it('override instructions replace the task', async () => {
    const runId = await c.startPlan(dana, gatedPlan());
    const a = await c.pending(dana, runId, 'mail_agent_0__approval');
    const res = await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, { instructions: 'send it to mary@example.com instead' });
    expect(res.body.approval).toMatchObject({ intent: 'override' });
    expect(res.body.approval.effective_task).toBe(
      `IMPORTANT — The user wants you to follow these override instructions\nINSTEAD of the original task.\n\n### User Override Instructions\nsend it to mary@example.com instead\n\n### Original Task (for reference only)\n${TASK}`,
    );
    expect(node(await c.waitForEnd(dana, runId), 'mail_agent_0__approval').output.intent).toBe('override');
  });

  it('falls back to enhance when the classifier cannot answer, and skips it without instructions', async () => {
    const runId = await c.startPlan(dana, gatedPlan());
    const a = await c.pending(dana, runId, 'mail_agent_0__approval');
    // The script is used up: the classifier fails and the safe default applies.
    const res = await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, { instructions: 'cc the board' });
    expect(res.body.approval).toMatchObject({ status: 'approved', intent: 'enhance' });
    expect(res.body.approval.effective_task).toContain('### User Enhanced Instructions\ncc the board');
    await c.waitForEnd(dana, runId);

    const plain = await c.startPlan(dana, gatedPlan());
    const b = await c.pending(dana, plain, 'mail_agent_0__approval');
    const ok = await c.req('POST', `/api/agent-factory/approvals/${b.id}/approve`, dana, {});
    expect(ok.body.approval).toMatchObject({ intent: null, effective_task: TASK });
    await c.waitForEnd(dana, plain);
  });

  it('a denial keeps the agent from running: it outputs the seed synthetic denial (master plan compiled by @af/plan)', async () => {
    const compiled = compileMasterPlan({ query: 'send the report', execution_plan: [{ agent_id: 'mail_agent_0', agent_name: 'mail_agent', task: TASK, hitl_tools: ['send_email'], tools: ['send_email'] }] }, { composer: false });
    expect(compiled.ok).toBe(true);
    const runId = await c.startPlan(dana, (compiled as { plan: Record<string, unknown> }).plan);
    const a = await c.pending(dana, runId, 'mail_agent_0__approval');
    expect((await c.req('POST', '/hitl/respond', dana, { request_id: a.id, decision: 'denied' })).body.approval.status).toBe('rejected');
    const run = await c.waitForEnd(dana, runId);
    expect(run.status).toBe('completed');
    expect(node(run, 'mail_agent_0__approval')).toMatchObject({ status: 'skipped', skip_reason: 'rejected' });
    expect(node(run, 'mail_agent_0')).toMatchObject({
      status: 'completed',
      output: { task_done: false, error: 'denied_by_user', partial_data: { reason: 'denied_by_user', tools: ['send_email'] } },
    });
  });

  it('a timeout is a denial (hitl_timeout)', async () => {
    const runId = await c.startPlan(dana, gatedPlan({ timeout_seconds: 1 }));
    const run = await c.waitForEnd(dana, runId);
    expect(node(run, 'mail_agent_0__approval')).toMatchObject({ status: 'skipped', skip_reason: 'timed_out' });
    expect(node(run, 'mail_agent_0').output).toMatchObject({ task_done: false, error: 'hitl_timeout' });
    const a = (await c.req('GET', `/api/agent-factory/approvals?run_id=${runId}&status=all&kind=tool_hitl`, dana)).body.approvals[0];
    expect(a).toMatchObject({ status: 'timed_out', decided_by: 'system:timeout' });
  });

  it('a non-streaming run skips the dialog: nobody is asked, the agent reports hitl_skipped_non_streaming', async () => {
    const runId = await c.startPlan(dana, gatedPlan({}, { non_streaming: true }));
    const run = await c.waitForEnd(dana, runId);
    expect(run.status).toBe('completed');
    expect(node(run, 'mail_agent_0__approval')).toMatchObject({ status: 'skipped', skip_reason: 'hitl_skipped_non_streaming' });
    expect(node(run, 'mail_agent_0').output).toMatchObject({
      task_done: false,
      error: 'hitl_skipped_non_streaming',
      partial_data: { message: 'This agent requires human approval. Use the streaming endpoint.' },
    });
    expect((await c.req('GET', `/api/agent-factory/approvals?run_id=${runId}&status=all&kind=all`, dana)).body.approvals).toEqual([]);
    expect(node(run, 'web_agent_0').status).toBe('completed');
  });
});
