/**
 * Human tasks and clarifications end to end (flex spec §15): a `human`
 * node's contract becomes a task in the approval service, listed on
 * /api/v1/flex/tasks for its owner and assignees; a submission is validated
 * against the output schema before the run goes on; a decline or a missed
 * SLA fails the run. An llm node that may clarify asks twice in one run (a
 * scripted model); each answer is appended to hitlClarifications and the
 * node runs again. Runs start with StartRun (no gateway route compiles these
 * plan shapes yet); everything else goes through the gateway.
 */
import { startStack, type Stack } from '@af/testing';
import { client, node, register, type User } from './helpers.js';

let stack: Stack;
let c: ReturnType<typeof client>;
let owner: User;
let designer: User;
let stranger: User;

beforeAll(async () => {
  stack = await startStack({
    env: {
      orchestrator: {
        LLM_PROVIDER: 'scripted',
        LLM_SCRIPT: JSON.stringify([
          { json: { hitl_clarify: { question: 'Which year should the summary cover?' } } },
          { json: { hitl_clarify: { question: 'Which state?', questionId: 'state' } } },
          { json: { summary: 'Filings of 2024 in CA' } },
        ]),
      },
    },
  });
  c = client(stack);
  owner = await register(stack, 'owner@example.com');
  designer = await register(stack, 'designer@example.com');
  stranger = await register(stack, 'stranger@example.com');
});

afterAll(async () => {
  await stack?.stop();
});

const OUTPUT_SCHEMA = {
  type: 'object',
  required: ['headline', 'tone'],
  additionalProperties: false,
  properties: { headline: { type: 'string', minLength: 3 }, tone: { type: 'string', enum: ['bold', 'calm'] } },
};

const briefPlan = (params: Record<string, unknown> = {}) => ({
  nodes: [
    {
      id: 'brief',
      kind: 'human',
      capabilityId: 'HumanAgent.clarifyBrief',
      description: 'Write the creative brief for the launch post',
      inputs: { objective: 'Announce the summer retreat' },
      params: { input_facets: ['post_context'], output_facets: ['creative_brief'], assignees: [designer.id], ...params },
      outputSchema: OUTPUT_SCHEMA,
    },
    { id: 'post', kind: 'tool', action: 'transform_data', inputs: { data: ['{brief.headline}'] }, params: { operations: [] }, dependsOn: ['brief'] },
  ],
});

async function task(runId: string, as: User = owner): Promise<any> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await c.req('GET', `/api/v1/flex/tasks?runId=${runId}`, as);
    if (res.status !== 200) throw new Error(`tasks: ${res.status} ${JSON.stringify(res.body)}`);
    if (res.body.tasks.length) return res.body.tasks[0];
    if (Date.now() > deadline) throw new Error(`no task for run ${runId}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('human tasks', () => {
  it('lists the task with its contract for the owner and the assignee, not for strangers', async () => {
    const runId = await c.startPlan(owner, briefPlan(), 'background');
    const t = await task(runId);
    expect(t).toMatchObject({
      taskId: t.requestId,
      kind: 'human_task',
      status: 'pending',
      runId,
      pendingNodeId: 'brief',
      capabilityId: 'HumanAgent.clarifyBrief',
      operatorPrompt: 'Write the creative brief for the launch post',
      outputSchema: OUTPUT_SCHEMA,
      contractSummary: { nodeId: 'brief', inputFacets: ['post_context'], outputFacets: ['creative_brief'], inputs: { objective: 'Announce the summer retreat' } },
    });
    // The default SLA (15 minutes) applies.
    expect(Math.round((Date.parse(t.dueAt) - Date.parse(t.createdAt)) / 1000)).toBe(900);
    const byCapability = await c.req('GET', '/api/v1/flex/tasks?capabilityId=HumanAgent.clarifyBrief', designer);
    expect(byCapability.body.tasks.map((x: any) => x.taskId)).toContain(t.taskId);
    expect((await c.req('GET', '/api/v1/flex/tasks?capabilityId=Other.capability', designer)).body.tasks).toEqual([]);
    expect((await c.req('GET', '/api/v1/flex/tasks', stranger)).body.tasks).toEqual([]);
    expect((await c.req('POST', `/api/v1/flex/tasks/${t.taskId}/decline`, stranger, { reasonCode: 'other' })).status).toBe(404);
    expect((await c.req('POST', '/api/v1/flex/run.resume', stranger, { runId, taskId: t.taskId, output: { headline: 'Hi', tone: 'bold' } })).status).toBe(404);
    expect((await c.req('POST', '/api/v1/flex/run.resume', stranger, { runId, output: {} })).status).toBe(404);
    const frame = JSON.parse((await c.frames(owner, runId, (f) => f.event === 'log' && JSON.parse(f.data).payload.event === 'awaiting_human')).frames.at(-1)!.data);
    expect(frame.payload).toMatchObject({ executorType: 'human', taskId: t.taskId, pendingNodeId: 'brief', capabilityId: 'HumanAgent.clarifyBrief' });
    expect((await c.req('POST', `/api/v1/runs/${runId}/cancel`, owner)).status).toBe(200);
  });

  it('refuses an output that does not satisfy the schema (the run keeps waiting), then takes a valid one from the assignee', async () => {
    const runId = await c.startPlan(owner, briefPlan());
    const t = await task(runId, designer);
    const bad = await c.req('POST', '/api/v1/flex/run.resume', designer, { runId, taskId: t.taskId, output: { headline: 'Hi', tone: 'loud', extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.violations.map((v: any) => v.field).sort()).toEqual(['output.extra', 'output.headline', 'output.tone']);
    const notJson = await c.req('POST', '/api/v1/flex/run.resume', designer, { runId, taskId: t.taskId });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.violations[0].field).toBe('output');
    await c.waitForStatus(owner, runId, 'waiting');
    await new Promise((r) => setTimeout(r, 300));
    expect((await c.run(owner, runId)).status).toBe('waiting');
    expect((await task(runId)).status).toBe('pending');

    const stale = await c.req('POST', '/api/v1/flex/run.resume', designer, { runId, taskId: t.taskId, expectedPlanVersion: 7, output: { headline: 'Retreat!', tone: 'bold' } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.violations[0].field).toBe('expectedPlanVersion');

    const ok = await c.req('POST', '/api/v1/flex/run.resume', designer, { runId, expectedPlanVersion: 1, output: { headline: 'Retreat!', tone: 'bold' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ runId, request: { taskId: t.taskId, status: 'submitted', resolution: { decidedBy: designer.id, output: { headline: 'Retreat!', tone: 'bold' } } } });
    const run = await c.waitForEnd(owner, runId);
    expect(run.status).toBe('completed');
    expect(node(run, 'brief').output).toEqual({ headline: 'Retreat!', tone: 'bold' });
    expect(node(run, 'post').output.data).toEqual(['Retreat!']);
    const late = await c.req('POST', '/api/v1/flex/run.resume', designer, { runId, taskId: t.taskId, output: { headline: 'Again', tone: 'calm' } });
    expect(late.status).toBe(409);
    expect((await c.req('POST', '/api/v1/flex/run.resume', owner, { runId, output: {} })).status).toBe(409);
  });

  it('a decline with a reason code fails the run and says why', async () => {
    const runId = await c.startPlan(owner, briefPlan());
    const t = await task(runId);
    const badCode = await c.req('POST', `/api/v1/flex/tasks/${t.taskId}/decline`, designer, { reasonCode: 'bored' });
    expect(badCode.status).toBe(400);
    expect(badCode.body.error.violations[0].field).toBe('reasonCode');
    const res = await c.req('POST', `/api/v1/flex/tasks/${t.taskId}/decline`, designer, { reasonCode: 'insufficient_information', reason: 'no budget given' });
    expect(res.status).toBe(200);
    expect(res.body.task).toMatchObject({ status: 'declined', resolution: { reasonCode: 'insufficient_information', reason: 'no budget given', decidedBy: designer.id } });
    const run = await c.waitForEnd(owner, runId);
    expect(run.status).toBe('failed');
    expect(run.error).toContain(`human task brief was declined by ${designer.id} (insufficient_information: no budget given)`);
    expect(node(run, 'post').status).toBe('cancelled');
  });

  it('a missed SLA fails the run', async () => {
    const runId = await c.startPlan(owner, briefPlan({ timeout_seconds: 1 }));
    const run = await c.waitForEnd(owner, runId);
    expect(run.status).toBe('failed');
    expect(run.error).toContain('human task brief missed its SLA');
    expect((await c.req('GET', `/api/v1/flex/tasks?runId=${runId}&status=all`, owner)).body.tasks[0]).toMatchObject({ status: 'timed_out' });
  });
});

describe('clarify', () => {
  it('asks twice in one run; each answer is appended to hitlClarifications and the node runs again', async () => {
    const runId = await c.startPlan(owner, {
      nodes: [
        {
          id: 'summary',
          kind: 'llm',
          action: 'llm_analyze',
          inputs: { topic: 'political filings' },
          params: { allow_clarify: true, instructions: 'Summarise the filings' },
          outputSchema: { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } },
        },
      ],
    });
    const first = await c.pending(owner, runId, 'summary', 'clarify');
    expect(first).toMatchObject({ kind: 'clarify', prompt: 'Which year should the summary cover?', status: 'pending' });
    // The answer through run.resume (the run's only pending request).
    const a1 = await c.req('POST', '/api/v1/flex/run.resume', owner, { runId, answer: '2024' });
    expect(a1.status).toBe(200);
    expect(a1.body.request).toMatchObject({ kind: 'clarify', status: 'answered', resolution: { answer: '2024' } });

    const deadline = Date.now() + 20_000;
    let second: any;
    while (!second && Date.now() < deadline) {
      const list = await c.req('GET', `/api/agent-factory/approvals?run_id=${runId}&kind=clarify`, owner);
      second = list.body.approvals.find((x: any) => x.id !== first.id);
      if (!second) await new Promise((r) => setTimeout(r, 50));
    }
    expect(second).toMatchObject({ prompt: 'Which state?', details: { question_id: 'state' } });
    // The second through the SPA route.
    expect((await c.req('POST', '/api/v1/flex/hitl/resolve', owner, { requestId: second.id, answer: 'CA' })).status).toBe(200);

    const run = await c.waitForEnd(owner, runId);
    expect(run.status).toBe('completed');
    expect(node(run, 'summary').output).toEqual({ summary: 'Filings of 2024 in CA' });
    const frames = await c.frames(owner, runId, 'complete');
    const asked = frames.frames.filter((f) => f.event === 'hitl_request').map((f) => JSON.parse(f.data).payload);
    expect(asked).toEqual([
      expect.objectContaining({ kind: 'clarify', operatorPrompt: 'Which year should the summary cover?', questionId: first.id }),
      expect.objectContaining({ kind: 'clarify', operatorPrompt: 'Which state?', questionId: 'state' }),
    ]);
    const answers = (await c.req('GET', `/api/agent-factory/approvals?run_id=${runId}&kind=clarify&status=answered`, owner)).body.approvals;
    expect(answers.map((x: any) => x.answer).sort()).toEqual(['2024', 'CA']);
    // The clarification history the node re-ran with (orchestrator.run_clarifications backs runContext.hitlClarifications).
    const history = await stack.db.query<{ question_id: string; answer: string }>('SELECT question_id, answer FROM orchestrator.run_clarifications WHERE run_id = $1 ORDER BY created_at', [runId]);
    expect(history).toEqual([
      { question_id: first.id, answer: '2024' },
      { question_id: 'state', answer: 'CA' },
    ]);
  });
});
