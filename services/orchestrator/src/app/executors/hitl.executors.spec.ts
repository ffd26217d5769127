import { AppError } from '@af/service-kit';
import type { ClarificationEntry, RequestView } from '../../domain/human-request.js';
import type { NodeContext, NodeExecutor } from '../../domain/node-executor.js';
import { appErrorOf, nodeContext } from '../../../test/unit/node-context.js';
import type { Decision } from '../../domain/run-state.js';
import { WaitFor } from '../../domain/waiting.js';
import type { ApprovalService, ApprovalWaits, OpenRequest } from '../approval-port.js';
import { clarifying, hitlGated } from './hitl-wrappers.js';
import { humanExecutor } from './human.executor.js';
import { approvalExecutor, delayExecutor, limitPreview } from './waiting.executors.js';

/** The ports in memory: the service answers what `answer` says; the waits record what the executors wrote. */
function fakes(answer: (r: OpenRequest) => Partial<RequestView> = () => ({})) {
  const created: OpenRequest[] = [];
  const registered: Array<[string, string | null, Decision | null]> = [];
  const questions: Array<ClarificationEntry & { requestId: string }> = [];
  const entries: ClarificationEntry[] = [];
  const states = new Map<string, { status: string; skipReason: string | null }>();
  let options: Record<string, unknown> = {};
  const approvals: ApprovalService = {
    create: async (r) => {
      created.push(r);
      return { id: `req-${created.length}`, kind: r.kind, status: 'pending', ownerUserId: r.ownerUserId, runId: r.runId, nodeId: r.nodeId, timeoutAt: null, resolution: null, ...answer(r) };
    },
    get: async () => {
      throw new Error('not used');
    },
    decide: async () => {
      throw new Error('not used');
    },
  };
  const waits: ApprovalWaits = {
    register: async (_run, node, req, d) => void registered.push([node, req, d]),
    apply: async () => false,
    requestOf: async () => null,
    addQuestion: async (_run, e) => void questions.push(e),
    clarifications: async () => entries,
    nodeState: async (_run, node) => states.get(node) ?? null,
    runOptions: async () => options,
  };
  return { deps: { approvals, waits }, created, registered, questions, entries, states, setOptions: (o: Record<string, unknown>) => (options = o) };
}

const ctx = nodeContext;
const error = appErrorOf;

const gateNode = { id: 'confirm', kind: 'approval', action: 'approval', inputs: { prompt: 'Fetch 3?', preview: { results: [1, 2, 3], count: 3 } }, params: { preview_limit: 1, on_reject: 'skip', timeout_minutes: 2 } };

describe('approvalExecutor', () => {
  it('opens an approval_gate request keyed by the attempt and waits with a hitl_request frame', async () => {
    const f = fakes(() => ({ timeoutAt: '2026-01-01T00:02:00.000Z' }));
    const out = await approvalExecutor(f.deps)(ctx(gateNode));
    expect(f.created).toEqual([
      expect.objectContaining({
        kind: 'approval_gate',
        ownerUserId: 'u1',
        runId: 'run-1',
        nodeId: 'confirm',
        operatorPrompt: 'Fetch 3?',
        timeoutSeconds: 120,
        autoApprove: false,
        idempotencyKey: 'run-1:confirm:1',
        details: { preview: { results: [1], count: 3 }, preview_from: null, preview_limit: 1, on_reject: 'skip' },
      }),
    ]);
    expect(f.registered).toEqual([['confirm', 'req-1', null]]);
    expect(out).toBeInstanceOf(WaitFor);
    const w = out as WaitFor;
    expect(w.until).toBeNull();
    expect(w.frame).toEqual({
      type: 'hitl_request',
      payload: expect.objectContaining({
        pendingNodeId: 'confirm',
        requestId: 'req-1',
        kind: 'approval_gate',
        operatorPrompt: 'Fetch 3?',
        onReject: 'skip',
        preview: { results: [1], count: 3 },
        delivery: 'inline',
        timeoutAt: '2026-01-01T00:02:00.000Z',
        contractSummary: expect.objectContaining({ nodeId: 'confirm', kind: 'approval' }),
      }),
    });
  });

  it('auto_approve records the automatic approval and passes at once', async () => {
    const f = fakes((r) => ({ status: 'approved', resolution: { decidedBy: 'policy:auto_approve', decidedAt: 't', decision: 'approve', automatic: r.autoApprove } }));
    const out = await approvalExecutor(f.deps)(ctx(gateNode, { run: { approvalPolicy: 'auto_approve', runContext: 'scheduled', depth: 0, dryRun: false } }));
    expect(f.created[0]!.autoApprove).toBe(true);
    expect(out).toMatchObject({ approved: true, decided_by: 'policy:auto_approve', automatic: true, request_id: 'req-1' });
    expect(f.registered).toEqual([]);
  });

  it('a replay whose request was rejected meanwhile records the decision and waits without a frame', async () => {
    const f = fakes(() => ({ status: 'rejected', resolution: { decidedBy: 'u1', decidedAt: 't', decision: 'reject' } }));
    const out = (await approvalExecutor(f.deps)(ctx(gateNode))) as WaitFor;
    expect(out.frame).toBeNull();
    expect(f.registered).toEqual([['confirm', 'req-1', expect.objectContaining({ status: 'rejected', requestId: 'req-1' })]]);
  });

  it('opens tool HITL requests with agent, tools and task; background runs go to the queue', async () => {
    const f = fakes();
    const node = { id: 'mail_agent_0__approval', kind: 'approval', action: 'hitl_approval', inputs: { task: 'Send the Q3 report' }, params: { agent_id: 'mail_agent_0', agent_name: 'mail_agent', tool_names: ['send_email'], on_reject: 'skip', timeout_seconds: 30, team_ids: ['t1'], allow_team_decisions: true } };
    const out = (await approvalExecutor(f.deps)(ctx(node, { run: { approvalPolicy: 'require', runContext: 'background', depth: 0, dryRun: false } }))) as WaitFor;
    expect(f.created[0]).toMatchObject({
      kind: 'tool_hitl',
      operatorPrompt: 'mail_agent wants to use send_email. Approve?',
      details: { agent_id: 'mail_agent_0', agent_name: 'mail_agent', tool_names: ['send_email'], task_description: 'Send the Q3 report', on_reject: 'skip' },
      timeoutSeconds: 30,
      teamIds: ['t1'],
      allowTeamDecisions: true,
    });
    expect(out.frame!.payload).toMatchObject({ kind: 'tool_hitl', delivery: 'queue', agentId: 'mail_agent_0', toolNames: ['send_email'], taskDescription: 'Send the Q3 report' });
  });

  it('skips a tool HITL gate of a non-streaming run without asking anyone', async () => {
    const f = fakes();
    f.setOptions({ non_streaming: true });
    const out = (await approvalExecutor(f.deps)(ctx({ id: 'g', kind: 'approval', action: 'hitl_approval', params: { tool_names: ['x'] } }))) as WaitFor;
    expect(f.created).toEqual([]);
    expect(f.registered).toEqual([['g', null, expect.objectContaining({ kind: 'non_streaming', status: 'skipped', reasonCode: 'hitl_skipped_non_streaming' })]]);
    expect(out.frame).toEqual({ type: 'log', payload: { event: 'hitl_skipped_non_streaming', pendingNodeId: 'g' } });
  });

  it('retries while the approval service is unreachable (same key), then passes lasting or permanent failures on', async () => {
    const f = fakes();
    const real = f.deps.approvals.create;
    let calls = 0;
    f.deps.approvals.create = async (r) => {
      if (++calls < 3) throw new AppError('UNAVAILABLE', 'approval service restarting');
      return real(r);
    };
    const deps = { ...f.deps, retryDelayMs: () => 1 };
    expect(await approvalExecutor(deps)(ctx(gateNode))).toBeInstanceOf(WaitFor);
    expect(calls).toBe(3);
    expect(f.created.map((r) => r.idempotencyKey)).toEqual(['run-1:confirm:1']);

    f.deps.approvals.create = async () => {
      calls++;
      throw new AppError('UNAVAILABLE', 'approval service down');
    };
    calls = 0;
    expect((await error(approvalExecutor(deps)(ctx(gateNode)))).code).toBe('UNAVAILABLE');
    expect(calls).toBe(4);

    f.deps.approvals.create = async () => {
      calls++;
      throw new AppError('FAILED_PRECONDITION', 'no approval service is configured (set APPROVAL_URL)');
    };
    calls = 0;
    expect((await error(approvalExecutor(deps)(ctx(gateNode)))).message).toContain('APPROVAL_URL');
    expect(calls).toBe(1);
  });
});

describe('humanExecutor', () => {
  const human = {
    id: 'brief',
    kind: 'human',
    capabilityId: 'HumanAgent.clarifyBrief',
    description: 'Clarify the brief',
    inputs: { objective: 'Launch' },
    params: { input_facets: ['post_context'], output_facets: ['creative_brief'], assignees: ['designer'], timeout_seconds: 60 },
    outputSchema: { type: 'object', required: ['brief'], properties: { brief: { type: 'string' } } },
  };

  it('opens a human task with the node contract and waits with an awaiting_human log frame', async () => {
    const f = fakes();
    const out = (await humanExecutor(f.deps)(ctx(human))) as WaitFor;
    expect(f.created[0]).toMatchObject({
      kind: 'human_task',
      capabilityId: 'HumanAgent.clarifyBrief',
      operatorPrompt: 'Clarify the brief',
      outputSchema: human.outputSchema,
      assigneeUserIds: ['designer'],
      timeoutSeconds: 60,
      details: { executor_type: 'human', on_decline: 'fail_run', contract_summary: expect.objectContaining({ inputFacets: ['post_context'], outputFacets: ['creative_brief'], inputs: { objective: 'Launch' } }) },
    });
    expect(out.frame).toMatchObject({ type: 'log', payload: { event: 'awaiting_human', executorType: 'human', taskId: 'req-1', pendingNodeId: 'brief', capabilityId: 'HumanAgent.clarifyBrief' } });
  });

  it('completes at once when a replay finds the task already submitted', async () => {
    const f = fakes(() => ({ status: 'submitted', resolution: { decidedBy: 'designer', decidedAt: 't', output: { brief: 'B' } } }));
    expect(await humanExecutor(f.deps)(ctx(human))).toEqual({ brief: 'B' });
  });

  it('keeps oversized inputs out of the task', async () => {
    const f = fakes();
    await humanExecutor(f.deps)(ctx({ ...human, inputs: { blob: 'x'.repeat(140_000) } }));
    expect((f.created[0]!.details.contract_summary as Record<string, unknown>).inputs).toEqual({ truncated: true, bytes: 140_011 });
  });

  it('refuses a human node without an output schema', async () => {
    const f = fakes();
    const err = await error(humanExecutor(f.deps)(ctx({ ...human, outputSchema: undefined })));
    expect(err.violations[0]!.field).toBe('outputSchema');
    expect(f.created).toEqual([]);
  });
});

describe('clarifying', () => {
  const llm = { id: 'draft', kind: 'llm', action: 'llm_analyze', inputs: { topic: 'filings' }, params: { allow_clarify: true }, outputSchema: { type: 'object', required: ['summary'] } };

  it('leaves nodes that may not clarify alone', async () => {
    const f = fakes();
    const inner: NodeExecutor = async (c) => ({ seen: c.inputs });
    expect(await clarifying(inner, f.deps)(ctx({ ...llm, params: {} }))).toEqual({ seen: { topic: 'filings' } });
  });

  it('passes the clarifications and a widened schema, and returns a normal answer', async () => {
    const f = fakes();
    f.entries.push({ nodeId: 'draft', questionId: 'q1', question: 'Which year?', answer: '2024', createdAt: 't' });
    let seen: NodeContext | undefined;
    const out = await clarifying(async (c) => ((seen = c), { summary: 'ok' }), f.deps)(ctx(llm));
    expect(out).toEqual({ summary: 'ok' });
    expect(seen!.inputs.hitlClarifications).toEqual(f.entries);
    expect(seen!.node.outputSchema).toMatchObject({ type: 'object', anyOf: [{ required: ['summary'] }, { required: ['hitl_clarify'] }] });
    expect(f.created).toEqual([]);
  });

  it('turns a question into a clarify request keyed by the answers so far, with a hitl_request frame', async () => {
    const f = fakes();
    f.entries.push({ nodeId: 'draft', questionId: 'q1', question: 'Which year?', answer: '2024', createdAt: 't' }, { nodeId: 'other', questionId: 'q9', question: '?', answer: 'x', createdAt: 't' });
    const out = (await clarifying(async () => ({ hitl_clarify: { question: 'Which state?' } }), f.deps)(ctx(llm))) as WaitFor;
    expect(f.created[0]).toMatchObject({ kind: 'clarify', operatorPrompt: 'Which state?', idempotencyKey: 'run-1:draft:1:clarify:2' });
    expect(f.questions).toEqual([expect.objectContaining({ requestId: 'req-1', nodeId: 'draft', questionId: 'req-1', question: 'Which state?' })]);
    expect(out.frame).toMatchObject({ type: 'hitl_request', payload: { kind: 'clarify', pendingNodeId: 'draft', operatorPrompt: 'Which state?', questionId: 'req-1' } });
  });

  it('stops a node that keeps asking', async () => {
    const f = fakes();
    f.entries.push({ nodeId: 'draft', questionId: 'q1', question: '?', answer: 'a', createdAt: 't' });
    const err = await error(clarifying(async () => ({ hitl_clarify: { question: 'Again?' } }), f.deps)(ctx({ ...llm, params: { allow_clarify: true, max_clarifications: 1 } })));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('max_clarifications is 1');
  });
});

describe('hitlGated', () => {
  const agent = { id: 'mail_agent_0', kind: 'capability', capabilityId: 'mail_agent', inputs: { task: 'Send the report' }, params: { tools: ['send_email'] }, dependsOn: ['mail_agent_0__approval'] };

  it('runs the agent with the effective task and hitl_context once its gate approved', async () => {
    const f = fakes();
    let seen: NodeContext | undefined;
    const gate = { approved: true, effective_task: 'Send the report + cc Ann', instructions: 'cc Ann', intent: 'enhance', decided_by: 'u1' };
    const out = await hitlGated(async (c) => ((seen = c), { done: true }), f.deps)(ctx(agent, { scope: { vars: { mail_agent_0__approval: gate } } }));
    expect(out).toEqual({ done: true });
    expect(seen!.inputs).toMatchObject({ task: 'Send the report + cc Ann', hitl_context: { approved: true, original_task: 'Send the report', instructions: 'cc Ann', intent: 'enhance', decided_by: 'u1' } });
  });

  it('does not run a denied, timed-out or non-streaming-skipped agent: the seed synthetic output instead', async () => {
    for (const [reason, error] of [
      ['rejected', 'denied_by_user'],
      ['timed_out', 'hitl_timeout'],
      ['hitl_skipped_non_streaming', 'hitl_skipped_non_streaming'],
    ]) {
      const f = fakes();
      f.states.set('mail_agent_0__approval[1]', { status: 'skipped', skipReason: reason! });
      const out = await hitlGated(async () => {
        throw new Error('must not run');
      }, f.deps)(ctx(agent, { instanceId: 'mail_agent_0[1]' }));
      expect(out).toEqual({ task_done: false, error, partial_data: expect.objectContaining({ reason: error, tools: ['send_email'] }) });
    }
  });

  it('leaves ungated nodes alone', async () => {
    const f = fakes();
    expect(await hitlGated(async () => 'ran', f.deps)(ctx({ ...agent, dependsOn: [] }))).toBe('ran');
  });
});

describe('delay and preview', () => {
  it('delays wait for their timer and refuse bad params', async () => {
    const out = (await delayExecutor(ctx({ id: 'd', kind: 'delay', params: { seconds: 1 } }))) as WaitFor;
    expect(out.until!.getTime()).toBeGreaterThan(Date.now());
    expect((await error(delayExecutor(ctx({ id: 'd', kind: 'delay', params: {} })))).code).toBe('INVALID_ARGUMENT');
  });

  it('cuts previews to the limit', () => {
    expect(limitPreview([1, 2, 3], 2)).toEqual([1, 2]);
    expect(limitPreview({ data: [1, 2, 3] }, 1)).toEqual({ data: [1] });
    expect(limitPreview('x', 1)).toBe('x');
    expect(limitPreview(undefined, 1)).toBeNull();
    expect(limitPreview(Array.from({ length: 20 }, (_, i) => i), undefined)).toHaveLength(10);
    expect(limitPreview({ report: 'x'.repeat(70_000) }, 10)).toMatchObject({ truncated: true, bytes: 70_013 });
  });
});
