import { AppError } from '@af/service-kit';
import type { NewRequest } from '../domain/new-request.js';
import { mayAct, type ApprovalRequest, type RequestStatus, type Resolution } from '../domain/request.js';
import type { IntentClassifier, ListFilter, RequestStore } from './ports.js';
import { RequestCommands } from './request-commands.js';
import { RequestQueries } from './request-queries.js';

/** The store's contract in memory (the SQL one is integration-tested against PostgreSQL). */
class MemoryStore implements RequestStore {
  readonly rows = new Map<string, ApprovalRequest>();
  readonly audits: Array<{ id: string; type: string; actor: string; detail: Record<string, unknown> }> = [];
  private n = 0;

  async insert(n: NewRequest, resolved?: { status: RequestStatus; resolution: Resolution; decidedBy: string }) {
    const existing = [...this.rows.values()].find((r) => n.idempotencyKey && r.ownerUserId === n.ownerUserId && (r as any).key === n.idempotencyKey);
    if (existing) return { request: existing, created: false };
    const now = new Date(Date.UTC(2026, 0, 1, 0, 0, this.n));
    const id = `00000000-0000-4000-8000-${String(++this.n).padStart(12, '0')}`;
    const r = {
      id,
      kind: n.kind,
      status: resolved?.status ?? 'pending',
      ownerUserId: n.ownerUserId,
      runId: n.runId,
      nodeId: n.nodeId,
      runContext: n.runContext,
      operatorPrompt: n.operatorPrompt,
      details: n.details,
      outputSchema: n.outputSchema,
      capabilityId: n.capabilityId,
      teamIds: n.teamIds,
      allowTeamDecisions: n.allowTeamDecisions,
      assigneeUserIds: n.assigneeUserIds,
      timeoutAt: n.timeoutSeconds ? new Date(now.getTime() + n.timeoutSeconds * 1000) : null,
      notify: n.notify,
      resolution: resolved?.resolution ?? null,
      resolutionKey: null,
      decidedBy: resolved?.decidedBy ?? null,
      decidedAt: resolved ? now : null,
      createdAt: now,
      updatedAt: now,
      key: n.idempotencyKey,
    } as ApprovalRequest;
    this.rows.set(id, r);
    return { request: r, created: true };
  }

  async get(id: string) {
    return this.rows.get(id) ?? null;
  }

  async list(f: ListFilter, limit: number, after: { createdAt: string; id: string } | null) {
    return [...this.rows.values()]
      .filter((r) => mayAct(r, f.principal) && (!f.kinds.length || f.kinds.includes(r.kind)) && (!f.statuses.length || f.statuses.includes(r.status)))
      .filter((r) => (!f.capabilityId || r.capabilityId === f.capabilityId) && (!f.runId || r.runId === f.runId))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .filter((r) => !after || r.createdAt.getTime() < Date.parse(after.createdAt))
      .slice(0, limit);
  }

  async resolve(id: string, status: RequestStatus, resolution: Resolution, decidedBy: string, resolutionKey: string | null) {
    const r = this.rows.get(id)!;
    if (r.status !== 'pending') return null;
    const done = { ...r, status, resolution, decidedBy, decidedAt: new Date(), resolutionKey };
    this.rows.set(id, done);
    return done;
  }

  async audit(id: string, type: string, actor: string, detail: Record<string, unknown>) {
    this.audits.push({ id, type, actor, detail });
  }
}

const classifier = (intent: 'enhance' | 'override'): IntentClassifier & { calls: Array<[string, string]> } => {
  const calls: Array<[string, string]> = [];
  return { calls, classify: async (task, instructions) => (calls.push([task, instructions]), { intent, source: 'model' }) };
};

const owner = { userId: 'owner', teamIds: [] };
const stranger = { userId: 'stranger', teamIds: [] };

async function setup(intent: 'enhance' | 'override' = 'enhance') {
  const store = new MemoryStore();
  const c = classifier(intent);
  const commands = new RequestCommands(store, c, { toolHitlSeconds: 120, humanTaskSeconds: 900 });
  const create = (over: Record<string, unknown> = {}) =>
    commands
      .create({
        ownerUserId: 'owner',
        kind: 'approval_gate',
        runId: '',
        nodeId: 'gate',
        runContext: 'interactive',
        operatorPrompt: 'Go?',
        details: {},
        outputSchema: null,
        capabilityId: '',
        teamIds: [],
        allowTeamDecisions: false,
        assigneeUserIds: [],
        timeoutSeconds: 0,
        autoApprove: false,
        idempotencyKey: '',
        ...over,
      })
      .then((r) => r.request);
  return { store, commands, create, classifier: c, queries: new RequestQueries(store) };
}

async function error(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof AppError)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e;
}

describe('RequestCommands', () => {
  it('creates idempotently by (owner, key)', async () => {
    const { store, create } = await setup();
    const a = await create({ idempotencyKey: 'run:gate:1' });
    expect(await create({ idempotencyKey: 'run:gate:1', operatorPrompt: 'changed' })).toEqual(a);
    expect((await create({ idempotencyKey: 'run:gate:1', ownerUserId: 'other' })).id).not.toBe(a.id);
    expect(store.rows.size).toBe(2);
  });

  it('records an automatic approval for auto_approve, tool HITL with its task as the effective task', async () => {
    const { create } = await setup();
    const gate = await create({ autoApprove: true });
    expect(gate).toMatchObject({ status: 'approved', decidedBy: 'policy:auto_approve', resolution: { decision: 'approve', automatic: true } });
    const tool = await create({ kind: 'tool_hitl', autoApprove: true, details: { task_description: 'Send the report' } });
    expect(tool.resolution).toMatchObject({ effectiveTask: 'Send the report', automatic: true });
  });

  it('approves once; a second decision is FAILED_PRECONDITION naming who decided', async () => {
    const { commands, create } = await setup();
    const r = await create();
    const done = await commands.decide({ principal: owner, requestId: r.id, idempotencyKey: 'k1', decision: 'approve', instructions: ' ok ' });
    expect(done).toMatchObject({ status: 'approved', decidedBy: 'owner', resolution: { decision: 'approve', instructions: 'ok' } });
    const late = await error(commands.decide({ principal: owner, requestId: r.id, idempotencyKey: 'k2', decision: 'reject', instructions: '' }));
    expect(late.code).toBe('FAILED_PRECONDITION');
    expect(late.message).toContain('already approved by owner');
    // The same call again (same key) answers with what it did.
    expect(await commands.decide({ principal: owner, requestId: r.id, idempotencyKey: 'k1', decision: 'approve', instructions: 'ok' })).toEqual(done);
  });

  it("stores a reject's reason as the resolution's reason, apart from instructions", async () => {
    const { commands, create } = await setup();
    const r = await create();
    const done = await commands.decide({ principal: owner, requestId: r.id, idempotencyKey: '', decision: 'reject', instructions: '', reason: '  numbers look wrong ' });
    expect(done).toMatchObject({ status: 'rejected', resolution: { decision: 'reject', instructions: '', reason: 'numbers look wrong' } });
    expect((await commands.get(owner, r.id)).resolution).toMatchObject({ reason: 'numbers look wrong' });
    // No reason given: none stored.
    const bare = await commands.decide({ principal: owner, requestId: (await create()).id, idempotencyKey: '', decision: 'reject', instructions: '' });
    expect(bare.resolution).not.toHaveProperty('reason');
  });

  it('refuses a reason on an approve and an over-long reason, naming reason; the request stays pending', async () => {
    const { commands, create } = await setup();
    const r = await create();
    const onApprove = await error(commands.decide({ principal: owner, requestId: r.id, idempotencyKey: '', decision: 'approve', instructions: '', reason: 'because' }));
    expect(onApprove).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'reason', reason: expect.stringContaining('only for a reject') }] });
    const tooLong = await error(commands.decide({ principal: owner, requestId: r.id, idempotencyKey: '', decision: 'reject', instructions: '', reason: 'x'.repeat(10_001) }));
    expect(tooLong).toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'reason' }] });
    expect((await commands.get(owner, r.id)).status).toBe('pending');
  });

  it('hides requests from strangers (NOT_FOUND), also for malformed ids', async () => {
    const { commands, create } = await setup();
    const r = await create();
    for (const p of [
      commands.get(stranger, r.id),
      commands.decide({ principal: stranger, requestId: r.id, idempotencyKey: '', decision: 'approve', instructions: '' }),
      commands.answer({ principal: stranger, requestId: r.id, idempotencyKey: '', answer: 'x' }),
      commands.get(owner, 'not-a-uuid'),
      commands.get(owner, '00000000-0000-4000-8000-999999999999'),
    ]) {
      expect((await error(p)).code).toBe('NOT_FOUND');
    }
    expect((await error(commands.get({ userId: '', teamIds: [] }, r.id))).code).toBe('UNAUTHENTICATED');
  });

  it('lets team members decide only when the request allows it', async () => {
    const { commands, create } = await setup();
    const closed = await create({ teamIds: ['t1'] });
    const open = await create({ teamIds: ['t1'], allowTeamDecisions: true });
    const member = { userId: 'member', teamIds: ['t1'] };
    expect((await error(commands.decide({ principal: member, requestId: closed.id, idempotencyKey: '', decision: 'approve', instructions: '' }))).code).toBe('NOT_FOUND');
    expect(await commands.decide({ principal: member, requestId: open.id, idempotencyKey: '', decision: 'approve', instructions: '' })).toMatchObject({ decidedBy: 'member' });
  });

  it('classifies tool HITL instructions and derives the effective task', async () => {
    const { commands, create, classifier: c } = await setup('override');
    const r = await create({ kind: 'tool_hitl', details: { task_description: 'Search AI trends', tool_names: ['send_email'] } });
    const done = await commands.decide({ principal: owner, requestId: r.id, idempotencyKey: '', decision: 'approve', instructions: 'search about cricket instead' });
    expect(c.calls).toEqual([['Search AI trends', 'search about cricket instead']]);
    expect(done.resolution).toMatchObject({ intent: 'override', effectiveTask: expect.stringContaining('### User Override Instructions\nsearch about cricket instead') });
  });

  it('does not classify without instructions, nor for a rejection', async () => {
    const { commands, create, classifier: c } = await setup();
    const a = await create({ kind: 'tool_hitl', details: { task_description: 'T' } });
    expect((await commands.decide({ principal: owner, requestId: a.id, idempotencyKey: '', decision: 'approve', instructions: '' })).resolution).toEqual({
      decision: 'approve',
      instructions: '',
      effectiveTask: 'T',
    });
    const b = await create({ kind: 'tool_hitl', details: { task_description: 'T' } });
    await commands.decide({ principal: owner, requestId: b.id, idempotencyKey: '', decision: 'reject', instructions: 'no' });
    expect(c.calls).toEqual([]);
  });

  it('refuses a decision without approve/reject, and actions a kind does not take', async () => {
    const { commands, create } = await setup();
    const r = await create();
    expect((await error(commands.decide({ principal: owner, requestId: r.id, idempotencyKey: '', decision: null, instructions: '' }))).violations[0]!.field).toBe('decision');
    expect((await error(commands.answer({ principal: owner, requestId: r.id, idempotencyKey: '', answer: 'x' }))).violations[0]!.code).toBe('wrong_action');
    const task = await create({ kind: 'human_task', outputSchema: { type: 'object' } });
    expect((await error(commands.decide({ principal: owner, requestId: task.id, idempotencyKey: '', decision: 'approve', instructions: '' }))).violations[0]!.code).toBe('wrong_action');
  });

  it('accepts a valid human task submission; an invalid one is refused, audited, and the task stays pending', async () => {
    const { commands, create, store } = await setup();
    const task = await create({ kind: 'human_task', capabilityId: 'HumanAgent.clarifyBrief', outputSchema: { type: 'object', required: ['brief'], properties: { brief: { type: 'string' } } } });
    const bad = await error(commands.submit({ principal: owner, requestId: task.id, idempotencyKey: '', outputJson: '{"brief": 3}' }));
    expect(bad.violations[0]).toMatchObject({ field: 'output.brief', code: 'type' });
    expect(store.audits).toEqual([{ id: task.id, type: 'submission_rejected', actor: 'owner', detail: { violations: bad.violations } }]);
    expect((await commands.get(owner, task.id)).status).toBe('pending');
    const ok = await commands.submit({ principal: owner, requestId: task.id, idempotencyKey: '', outputJson: '{"brief":"Launch"}' });
    expect(ok).toMatchObject({ status: 'submitted', resolution: { output: { brief: 'Launch' } } });
  });

  it('declines with a reason code and answers clarifications', async () => {
    const { commands, create } = await setup();
    const task = await create({ kind: 'human_task', outputSchema: { type: 'object' } });
    expect(await commands.decline({ principal: owner, requestId: task.id, idempotencyKey: '', reasonCode: 'out_of_scope', reason: 'not ours' })).toMatchObject({
      status: 'declined',
      resolution: { reasonCode: 'out_of_scope', reason: 'not ours' },
    });
    expect((await error(commands.decline({ principal: owner, requestId: task.id, idempotencyKey: '', reasonCode: 'meh', reason: '' }))).violations[0]!.field).toBe('reason_code');
    const q = await create({ kind: 'clarify', operatorPrompt: 'Which year?' });
    expect(await commands.answer({ principal: owner, requestId: q.id, idempotencyKey: '', answer: ' 2024 ' })).toMatchObject({ status: 'answered', resolution: { answer: '2024' } });
  });

  it('a decision that loses a race to the sweeper is FAILED_PRECONDITION', async () => {
    const { commands, create, store } = await setup();
    const r = await create();
    const realResolve = store.resolve.bind(store);
    store.resolve = async (id, ...rest) => {
      await realResolve(id, 'timed_out', { reasonCode: 'timeout' }, 'system:timeout', null);
      return realResolve(id, ...rest);
    };
    const err = await error(commands.decide({ principal: owner, requestId: r.id, idempotencyKey: 'k', decision: 'approve', instructions: '' }));
    expect(err.message).toContain('already timed_out by system:timeout');
  });
});

describe('RequestQueries', () => {
  it('lists what the caller may act on, filtered and paged', async () => {
    const { create, queries } = await setup();
    await create({ kind: 'human_task', outputSchema: { type: 'object' }, capabilityId: 'cap.a' });
    await create({ kind: 'human_task', outputSchema: { type: 'object' }, capabilityId: 'cap.b' });
    await create();
    await create({ ownerUserId: 'someone-else' });
    const q = { principal: owner, kinds: [], statuses: [], capabilityId: '', runId: '', pageSize: 2, pageToken: '' };
    const first = await queries.list(q);
    expect(first.requests).toHaveLength(2);
    expect(first.requests[0]!.kind).toBe('approval_gate');
    const second = await queries.list({ ...q, pageToken: first.nextPageToken });
    expect(second.requests.map((r) => r.capabilityId)).toEqual(['cap.a']);
    expect(second.nextPageToken).toBe('');
    expect((await queries.list({ ...q, pageSize: 0, kinds: ['human_task'], capabilityId: 'cap.b' })).requests.map((r) => r.capabilityId)).toEqual(['cap.b']);
    expect((await queries.list({ ...q, pageSize: 0, principal: stranger })).requests).toEqual([]);
  });

  it('refuses bad filters naming each', async () => {
    const { queries } = await setup();
    const err = await error(queries.list({ principal: owner, kinds: ['vote'], statuses: ['sleeping'], capabilityId: '', runId: 'x', pageSize: 500, pageToken: 'bogus' }));
    expect(err.violations.map((v) => v.field)).toEqual(['kinds[0]', 'statuses[0]', 'run_id', 'page_size', 'page_token']);
  });
});
