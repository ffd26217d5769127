/**
 * Nothing that waits for a person is lost: the orchestrator killed (SIGKILL)
 * while a run waits — and a decision made while it is down — still resumes
 * the run; the approval service killed mid-wait keeps its requests and
 * timeouts; a decision whose event never reaches the orchestrator is found
 * by its periodic reconciliation.
 */
import { startStack, type Stack } from '@af/testing';
import { client, fixture, node, register, type User } from './helpers.js';

let stack: Stack;
let c: ReturnType<typeof client>;
let dana: User;
const yaml = fixture('review-and-publish.playbook.yaml');

beforeAll(async () => {
  stack = await startStack({ env: { orchestrator: { RUN_LEASE_MS: '1500' } } });
  c = client(stack);
  dana = await register(stack, 'dana@example.com');
});

afterAll(async () => {
  await stack?.stop();
});

describe('resilience', () => {
  it('orchestrator killed while waiting: a decision made while it is down, and one made after its restart, both resume their runs', async () => {
    const before = await c.startPlaybook(dana, yaml);
    const after = await c.startPlaybook(dana, yaml);
    const a = await c.pending(dana, before, 'confirm');
    const b = await c.pending(dana, after, 'confirm');
    await c.waitForStatus(dana, before, 'waiting');
    await c.waitForStatus(dana, after, 'waiting');

    await stack.services.orchestrator.kill();
    // The approval service records the decision without the orchestrator; the event waits in JetStream.
    const decided = await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, { instructions: 'while you were out' });
    expect(decided.status).toBe(200);
    await stack.services.orchestrator.start();

    const one = await c.waitForEnd(dana, before);
    expect(one.status).toBe('completed');
    expect(node(one, 'confirm').output).toMatchObject({ approved: true, instructions: 'while you were out', request_id: a.id });

    expect((await c.run(dana, after)).status).toBe('waiting');
    expect((await c.req('POST', `/api/agent-factory/approvals/${b.id}/approve`, dana, {})).status).toBe(200);
    expect((await c.waitForEnd(dana, after)).status).toBe('completed');
  });

  it('approval service killed mid-wait: requests survive, a timeout that came due while it was down still fires, decisions still resume', async () => {
    const waiting = await c.startPlaybook(dana, yaml);
    const timed = await c.startPlan(dana, {
      nodes: [
        { id: 'gate', kind: 'approval', inputs: { prompt: 'Go?' }, params: { timeout_seconds: 2 } },
        { id: 'next', kind: 'tool', action: 'transform_data', inputs: { data: [1] }, params: { operations: [] }, dependsOn: ['gate'] },
      ],
    });
    const a = await c.pending(dana, waiting, 'confirm');
    await c.pending(dana, timed, 'gate');

    await stack.services.approval.kill();
    // Down past the timeout: the leader that held the sweeper lock is gone with its session.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await c.run(dana, timed)).status).toBe('waiting');
    await stack.services.approval.start();

    const done = await c.waitForEnd(dana, timed);
    expect(node(done, 'gate')).toMatchObject({ status: 'skipped', skip_reason: 'timed_out' });
    expect((await c.req('GET', `/api/agent-factory/approvals/${a.id}`, dana)).body.approval.status).toBe('pending');
    expect((await c.req('POST', `/api/agent-factory/approvals/${a.id}/approve`, dana, {})).status).toBe(200);
    expect((await c.waitForEnd(dana, waiting)).status).toBe('completed');
  });

  it('a decision whose event never arrives is picked up by reconciliation', async () => {
    const runId = await c.startPlaybook(dana, yaml);
    const a = await c.pending(dana, runId, 'confirm');
    await c.waitForStatus(dana, runId, 'waiting');
    // Resolve behind the service's back: no outbox row, so no event — only reconciliation can find it.
    await stack.db.query(
      `UPDATE approval.requests SET status = 'approved', decided_by = $2, decided_at = now(), resolution = '{"decision":"approve","instructions":"out of band"}'::jsonb
        WHERE id = $1`,
      [a.id, dana.id],
    );
    const run = await c.waitForEnd(dana, runId, 30_000);
    expect(run.status).toBe('completed');
    expect(node(run, 'confirm').output).toMatchObject({ approved: true, instructions: 'out of band', request_id: a.id });
  });
});
