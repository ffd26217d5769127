import { compilePlaybook, type CompileResult, type PlanIssue } from '../index.js';

const TEAM_A = '3f2c8a1e-5b7d-4c9e-8f10-2a3b4c5d6e7f';
const TEAM_B = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';

/** A playbook whose second step is an approval gate with `extra` lines (YAML, indented for the step). */
function playbook(extra: string, gateType = 'approval'): string {
  return [
    'id: team-gate',
    'name: Team gate',
    'steps:',
    '  - name: web',
    '    step_type: tool',
    '    action: search_web',
    '    inputs: { query: filings }',
    '  - name: confirm',
    `    step_type: ${gateType}`,
    ...(gateType === 'approval' ? ['    prompt: Publish {web.count} results?'] : ['    action: search_web', '    inputs: { query: x }']),
    ...extra.split('\n').filter((l) => l !== '').map((l) => `    ${l}`),
    '',
  ].join('\n');
}

function errorsOf(result: CompileResult): PlanIssue[] {
  if (result.ok) throw new Error('expected the playbook to be refused');
  return result.errors;
}

describe('approval steps: team decisions (allow_team_decisions + team_ids)', () => {
  it('compiles allow_team_decisions and team_ids into the approval node params', () => {
    const result = compilePlaybook(playbook(`allow_team_decisions: true\nteam_ids: [${TEAM_A}, ${TEAM_B}]\non_reject: skip`));
    if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 2));
    expect(result.plan.nodes.find((n) => n.id === 'confirm')).toMatchObject({
      kind: 'approval',
      action: 'approval',
      params: { preview_limit: 10, on_reject: 'skip', allow_team_decisions: true, team_ids: [TEAM_A, TEAM_B] },
    });
  });

  it('writes team ids in lower case (the gateway and the approval service compare them as text)', () => {
    const result = compilePlaybook(playbook(`allow_team_decisions: true\nteam_ids: ["${TEAM_A.toUpperCase()}"]`));
    if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 2));
    expect(result.plan.nodes[1]!.params).toMatchObject({ team_ids: [TEAM_A] });
  });

  it('works on an approval sub-step of a parallel block', () => {
    const yaml = [
      'id: par-gate',
      'name: Parallel gate',
      'steps:',
      '  - name: both',
      '    action: parallel',
      '    parallel_steps:',
      '      - { name: web, step_type: tool, action: search_web, inputs: { query: x } }',
      `      - { name: ok, step_type: approval, prompt: Go?, allow_team_decisions: true, team_ids: [${TEAM_A}] }`,
      '',
    ].join('\n');
    const result = compilePlaybook(yaml);
    if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 2));
    expect(result.plan.nodes.find((n) => n.id === 'ok')!.params).toMatchObject({ allow_team_decisions: true, team_ids: [TEAM_A] });
  });

  it('leaves the params out when the step does not mention teams, and keeps an explicit allow_team_decisions: false', () => {
    const plain = compilePlaybook(playbook(''));
    if (!plain.ok) throw new Error(JSON.stringify(plain.errors, null, 2));
    expect(plain.plan.nodes[1]!.params).not.toHaveProperty('team_ids');
    expect(plain.plan.nodes[1]!.params).not.toHaveProperty('allow_team_decisions');
    const off = compilePlaybook(playbook('allow_team_decisions: false'));
    if (!off.ok) throw new Error(JSON.stringify(off.errors, null, 2));
    expect(off.plan.nodes[1]!.params).toMatchObject({ allow_team_decisions: false });
    expect(off.plan.nodes[1]!.params).not.toHaveProperty('team_ids');
  });

  // [case, extra YAML, expected error]; every error names the field under steps[1] and has a line.
  const bad: Array<[string, string, Partial<PlanIssue> & { field: string }, RegExp]> = [
    ['allow_team_decisions without team_ids', 'allow_team_decisions: true', { code: 'missing_required', field: 'steps[1].team_ids', step: 'confirm', line: 8 }, /allow_team_decisions: true needs team_ids/],
    ['team_ids without allow_team_decisions', `team_ids: [${TEAM_A}]`, { code: 'invalid_field', field: 'steps[1].allow_team_decisions', step: 'confirm' }, /team_ids has no effect unless allow_team_decisions is true \(it is not set\)/],
    ['team_ids with allow_team_decisions: false', `allow_team_decisions: false\nteam_ids: [${TEAM_A}]`, { code: 'invalid_field', field: 'steps[1].allow_team_decisions', line: 11 }, /unless allow_team_decisions is true \(it is false\)/],
    ['an empty team_ids', 'allow_team_decisions: true\nteam_ids: []', { code: 'invalid_field', field: 'steps[1].team_ids', line: 12 }, /list at least one team id/],
    ['a team id that is not a UUID', `allow_team_decisions: true\nteam_ids: [${TEAM_A}, research-unit]`, { code: 'invalid_field', field: 'steps[1].team_ids[1]' }, /must be a team id \(a UUID/],
    ['a team id that is a number', 'allow_team_decisions: true\nteam_ids: [42]', { code: 'invalid_field', field: 'steps[1].team_ids[0]' }, /must be a team id/],
    ['team_ids that is not a list', `allow_team_decisions: true\nteam_ids: ${TEAM_A}`, { code: 'invalid_field', field: 'steps[1].team_ids' }, /steps\[1\]\.team_ids: /],
    ['a team listed twice (in any case)', `allow_team_decisions: true\nteam_ids: [${TEAM_A}, ${TEAM_B}, ${TEAM_A.toUpperCase()}]`, { code: 'invalid_field', field: 'steps[1].team_ids[2]', line: 12 }, /is already listed at team_ids\[0\]/],
    ['allow_team_decisions that is not a boolean', `allow_team_decisions: "yes"\nteam_ids: [${TEAM_A}]`, { code: 'invalid_field', field: 'steps[1].allow_team_decisions', line: 11 }, /steps\[1\]\.allow_team_decisions: /],
    ['a misspelt team_id', `allow_team_decisions: true\nteam_id: [${TEAM_A}]`, { code: 'unknown_field', field: 'steps[1].team_id', suggestedFix: 'team_ids' }, /unknown field 'team_id'/],
  ];

  it.each(bad)('refuses %s, naming the field', (_name, extra, expected, message) => {
    const errors = errorsOf(compilePlaybook(playbook(extra)));
    const match = errors.find((e) => e.field === expected.field);
    if (!match) throw new Error(`no error on ${expected.field} in ${JSON.stringify(errors, null, 2)}`);
    expect(match).toMatchObject(expected);
    expect(match.message).toMatch(message);
    for (const e of errors) expect(e.line).toEqual(expect.any(Number));
  });

  it('refuses team fields on a tool step with the "only applies to approval steps" error', () => {
    const errors = errorsOf(compilePlaybook(playbook(`allow_team_decisions: true\nteam_ids: [${TEAM_A}]`, 'tool')));
    expect(errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'invalid_field', field: 'steps[1].allow_team_decisions', step: 'confirm', message: "'allow_team_decisions' only applies to approval steps" }),
        expect.objectContaining({ code: 'invalid_field', field: 'steps[1].team_ids', step: 'confirm', message: "'team_ids' only applies to approval steps" }),
      ]),
    );
  });

  it('refuses team fields on an llm_task step and on a parallel group', () => {
    const llm = [
      'id: llm-team',
      'name: LLM team',
      'steps:',
      '  - name: sum',
      '    step_type: llm_task',
      '    action: synthesize_report',
      '    inputs: { data: x }',
      '    output_schema: { fields: [{ name: text, type: string }] }',
      `    team_ids: [${TEAM_A}]`,
      '',
    ].join('\n');
    expect(errorsOf(compilePlaybook(llm))).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'steps[0].team_ids', message: "'team_ids' only applies to approval steps", line: 9 })]));

    const group = [
      'id: group-team',
      'name: Group team',
      'steps:',
      '  - name: both',
      '    action: parallel',
      '    allow_team_decisions: true',
      '    parallel_steps:',
      '      - { name: ok, step_type: approval, prompt: Go? }',
      '',
    ].join('\n');
    expect(errorsOf(compilePlaybook(group))).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'steps[0].allow_team_decisions', message: expect.stringContaining('does not apply to a parallel step') })]),
    );
  });
});
