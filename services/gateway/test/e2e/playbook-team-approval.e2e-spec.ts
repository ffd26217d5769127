/**
 * Issue 6, "who may decide", for playbooks: an `approval` step's
 * `allow_team_decisions` + `team_ids` travel from playbook YAML through the
 * gateway's playbook and run routes, the planner's compiler and the
 * orchestrator onto the approval request, so a member of the named team
 * decides it; a stranger gets 404; a playbook with a bad team field is
 * refused with 400 naming the field. All through the gateway, with the real
 * services as processes.
 */
import { http, startStack, type Stack, until, registerUser, type GatewayUser } from '@af/testing';

type User = GatewayUser;

let stack: Stack;
let owner: User;
let member: User;
let stranger: User;
let teamId: string;

const url = (path: string) => `${stack.gatewayUrl}${path}`;
const req = (method: string, path: string, as: User, body?: unknown) => http(method, url(path), { token: as.token, ...(body !== undefined ? { body } : {}) });

const register = (email: string): Promise<User> => registerUser(stack.gatewayUrl, email);

/** Rank rows, ask (the owner or a team member), then publish; `team` is YAML lines for the approval step. */
function playbook(team: string[], id = 'team-reviewed-publish'): string {
  return [
    `id: ${id}`,
    'name: Rank rows, ask the team, then publish',
    'execution_mode: deterministic',
    'inputs:',
    '  - { name: rows, type: list, required: true }',
    'steps:',
    '  - name: ranked',
    '    step_type: tool',
    '    action: transform_data',
    '    inputs: { data: "{rows}" }',
    '    operations: [{ type: limit, value: 10 }]',
    '  - name: confirm',
    '    step_type: approval',
    '    prompt: "Publish {ranked.count} row(s)?"',
    '    preview_from: ranked',
    '    on_reject: stop',
    ...team.map((line) => `    ${line}`),
    '  - name: publish',
    '    step_type: tool',
    '    action: transform_data',
    '    inputs: { data: "{ranked.data}" }',
    '    operations: [{ type: limit, value: 1 }]',
    '    output_key: published',
    '',
  ].join('\n');
}

const rows = [{ name: 'Acme' }, { name: 'Globex' }];

const finished = (runId: string): Promise<any> =>
  until(`run ${runId} to finish`, async () => {
    const { body } = await req('GET', `/api/v1/runs/${runId}`, owner);
    return ['completed', 'failed', 'cancelled'].includes(body.run.status) ? body.run : undefined;
  });

const pendingFor = (as: User, runId: string): Promise<any> =>
  until(`the approval of run ${runId}`, async () => (await req('GET', `/api/agent-factory/approvals?run_id=${runId}`, as)).body.approvals?.[0]);

const runCount = async () => Number((await stack.db.query<{ n: string }>('SELECT count(*) AS n FROM orchestrator.runs'))[0]!.n);

beforeAll(async () => {
  stack = await startStack();
  owner = await register('ada@example.com');
  member = await register('ben@example.com');
  stranger = await register('cyd@example.com');
  const team = await req('POST', '/api/v1/teams', owner, { name: 'Publishing desk' });
  expect(team.status).toBe(201);
  teamId = team.body.team.id;
  expect((await req('POST', `/api/v1/teams/${teamId}/members`, owner, { user_id: member.id })).status).toBe(201);
});

afterAll(async () => {
  await stack?.stop();
});

describe('playbook approval steps with team decisions', () => {
  it('a saved playbook names the team; its member sees and approves the gate, the run completes, the audit names the member; a stranger gets 404', async () => {
    // Upper case on purpose: the compiler writes the ids as the gateway stores them.
    const saved = await req('POST', '/api/agent-factory/playbooks', owner, { yaml: playbook(['allow_team_decisions: true', `team_ids: ["${teamId.toUpperCase()}"]`]) });
    expect(saved.status).toBe(201);
    const started = await req('POST', '/api/v1/runs', owner, { playbook_id: 'team-reviewed-publish', inputs: { rows } });
    expect(started.status).toBe(201);
    const runId = started.body.run.id as string;

    const approval = await pendingFor(member, runId);
    expect(approval).toMatchObject({ kind: 'approval_gate', status: 'pending', run_id: runId, step_name: 'confirm', prompt: 'Publish 2 row(s)?' });
    const [stored] = await stack.db.query<{ team_ids: string[]; allow_team_decisions: boolean }>('SELECT team_ids, allow_team_decisions FROM approval.requests WHERE id = $1', [approval.id]);
    expect(stored).toEqual({ team_ids: [teamId], allow_team_decisions: true });

    expect((await req('GET', `/api/agent-factory/approvals?run_id=${runId}`, stranger)).body.approvals).toEqual([]);
    expect((await req('GET', `/api/agent-factory/approvals/${approval.id}`, stranger)).status).toBe(404);
    const refused = await req('POST', `/api/agent-factory/approvals/${approval.id}/approve`, stranger, {});
    expect(refused.status).toBe(404);
    expect((await req('GET', `/api/v1/runs/${runId}`, owner)).body.run.status).toBe('waiting');

    const ok = await req('POST', `/api/agent-factory/approvals/${approval.id}/approve`, member, { instructions: 'ship it' });
    expect(ok.status).toBe(200);
    expect(ok.body.approval).toMatchObject({ status: 'approved', decided_by: member.id, instructions: 'ship it' });

    const run = await finished(runId);
    expect(run.status).toBe('completed');
    expect(run.nodes.find((n: any) => n.node_id === 'confirm').output).toMatchObject({ approved: true, decided_by: member.id });
    expect(run.outputs.published.count).toBe(1);
    const audit = await stack.db.query<{ type: string; actor: string }>('SELECT type, actor FROM approval.request_events WHERE request_id = $1 ORDER BY id', [approval.id]);
    expect(audit).toEqual([
      { type: 'created', actor: owner.id },
      { type: 'approved', actor: member.id },
    ]);
  });

  it('without the team fields, only the owner decides: the team member gets 404', async () => {
    const started = await req('POST', '/api/v1/runs', owner, { playbook: playbook([], 'owner-reviewed-publish'), inputs: { rows } });
    expect(started.status).toBe(201);
    const runId = started.body.run.id as string;
    const approval = await pendingFor(owner, runId);
    expect((await req('GET', `/api/agent-factory/approvals?run_id=${runId}`, member)).body.approvals).toEqual([]);
    expect((await req('POST', `/api/agent-factory/approvals/${approval.id}/approve`, member, {})).status).toBe(404);
    expect((await req('POST', `/api/agent-factory/approvals/${approval.id}/reject`, owner, { reason: 'not today' })).status).toBe(200);
    expect((await finished(runId)).status).toBe('failed');
  });

  it('refuses a playbook with a bad team field with 400 naming the field, and starts or stores nothing', async () => {
    const cases: Array<[string[], string, RegExp]> = [
      [['allow_team_decisions: true'], 'steps[1].team_ids', /allow_team_decisions: true needs team_ids/],
      [[`team_ids: [${teamId}]`], 'steps[1].allow_team_decisions', /team_ids has no effect unless allow_team_decisions is true/],
      [['allow_team_decisions: true', 'team_ids: []'], 'steps[1].team_ids', /list at least one team id/],
      [['allow_team_decisions: true', 'team_ids: [publishing-desk]'], 'steps[1].team_ids[0]', /must be a team id/],
      [['allow_team_decisions: true', `team_ids: [${teamId}, ${teamId}]`], 'steps[1].team_ids[1]', /already listed at team_ids\[0\]/],
    ];
    const runsBefore = await runCount();
    for (const [team, field, reason] of cases) {
      const yaml = playbook(team, 'bad-team-field');
      for (const [path, body] of [
        ['/api/v1/runs', { playbook: yaml, inputs: { rows } }],
        ['/api/agent-factory/playbooks', { yaml }],
      ] as const) {
        const res = await req('POST', path, owner, body);
        expect([path, field, res.status]).toEqual([path, field, 400]);
        expect(res.body.error.code).toBe('INVALID_ARGUMENT');
        const violation = res.body.error.violations.find((v: any) => v.field === field);
        expect(violation).toBeDefined();
        expect(violation.reason).toMatch(reason);
      }
      const validated = await req('POST', '/api/agent-factory/playbooks/validate', owner, { yaml });
      expect(validated.status).toBe(200);
      expect(validated.body.valid).toBe(false);
      expect(validated.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    }
    // A team field on a step that is not an approval gets the step-type error.
    const onTool = playbook([]).replace('    output_key: published', `    output_key: published\n    team_ids: [${teamId}]`);
    const res = await req('POST', '/api/v1/runs', owner, { playbook: onTool, inputs: { rows } });
    expect(res.status).toBe(400);
    expect(res.body.error.violations).toEqual([expect.objectContaining({ field: 'steps[2].team_ids', reason: "'team_ids' only applies to approval steps" })]);

    expect(await runCount()).toBe(runsBefore);
    expect((await req('GET', '/api/agent-factory/playbooks/bad-team-field', owner)).status).toBe(404);
  });
});
