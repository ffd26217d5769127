/**
 * One validation round reports everything that will fail: schema errors and
 * reference errors together, each with its line and column, whole-value
 * suggested fixes, did-you-mean for enum values, connector checks and a YAML
 * syntax error that quotes its line.
 */
import { compilePlaybook, connectorLookup, type CompileResult, type PlanIssue } from '../index.js';
import { fixtureJson } from '../../test/fixture-loader.js';

const connectors = connectorLookup(fixtureJson<unknown[]>('connectors.json'));

function failed(r: CompileResult): PlanIssue[] {
  if (r.ok) throw new Error('expected the playbook to be refused');
  return r.errors;
}

function pick(errors: PlanIssue[]) {
  return errors.map((e) => ({ code: e.code, field: e.field, line: e.line, column: e.column, ...(e.suggestedFix !== undefined ? { suggestedFix: e.suggestedFix } : {}) }));
}

// Line numbers matter below: each misspelling sits on a line of its own.
const EVERYTHING_WRONG = `id: all-wrong
name: Everything wrong at once
inputs:
  - { name: topic, type: string, required: true }
steps:
  - name: filings
    step_type: tool
    action: serch_web
    inputs:
      query: "{topik}"
  - name: page
    step_type: tool
    action: crawl_url
    ouput_key: pages
    inputs:
      url: "https://example.org"
  - name: report
    step_type: llm_task
    action: synthesize_report
    inputs:
      data: "{filngs.results}"
      title: "Title: {pages.titel}"
    output_schema: { type: object, fields: [{ name: text, type: string }] }
  - name: confirm
    step_type: aproval
    prompt: "Save {report.text}?"
`;

describe('one round: schema and reference errors together', () => {
  const errors = failed(compilePlaybook(EVERYTHING_WRONG));

  it('reports the misspelt action, variable, step, output field, key and enum value, each where it is', () => {
    expect(pick(errors)).toEqual([
      { code: 'unresolved_reference', field: 'steps[0].action', line: 8, column: 13, suggestedFix: 'search_web' },
      { code: 'unresolved_reference', field: 'steps[0].inputs.query', line: 10, column: 14, suggestedFix: '{topic}' },
      { code: 'unknown_field', field: 'steps[1].ouput_key', line: 14, column: 16, suggestedFix: 'output_key' },
      { code: 'nonexistent_step', field: 'steps[2].inputs.data', line: 21, column: 13, suggestedFix: '{filings.results}' },
      { code: 'unresolved_reference', field: 'steps[2].inputs.title', line: 22, column: 14, suggestedFix: 'Title: {pages.title}' },
      { code: 'invalid_field', field: 'steps[3].step_type', line: 25, column: 16, suggestedFix: 'approval' },
    ]);
  });

  it('names the step of every step error', () => {
    expect(errors.filter((e) => e.field.startsWith('steps[') && e.code !== 'unknown_field' && e.code !== 'invalid_field').map((e) => e.step)).toEqual(['filings', 'filings', 'report', 'report']);
  });

  it('gives a did-you-mean for the enum value and the allowed values', () => {
    const e = errors.find((x) => x.field === 'steps[3].step_type')!;
    expect(e.message).toBe("steps[3].step_type: 'aproval' is not one of tool, llm_task, approval (did you mean 'approval'?)");
  });

  it('checks the rest as the author meant it: the renamed key and the corrected enum leave no follow-on errors', () => {
    // `{pages.titel}` is found through the renamed output_key (no "step 'pages' does not exist");
    // the approval step, its type corrected, is not reported for lacking inputs.
    expect(errors).toHaveLength(6);
  });

  it('keeps per-step results with positions for the steps that parsed', () => {
    const r = compilePlaybook(EVERYTHING_WRONG);
    expect(r.results.map((s) => [s.step, s.valid])).toEqual([
      ['filings', false],
      ['page', false],
      ['report', false],
      ['confirm', false],
    ]);
    const page = r.results.find((s) => s.step === 'page')!;
    expect(page.errors).toEqual([expect.objectContaining({ code: 'unknown_field', field: 'ouput_key', suggestedFix: 'output_key' })]);
    const report = r.results.find((s) => s.step === 'report')!;
    expect(report.errors.map((e) => [e.field, e.line, e.column])).toEqual([
      ['inputs.data', 21, 13],
      ['inputs.title', 22, 14],
    ]);
  });
});

describe('suggestedFix is the whole corrected value of the field', () => {
  const one = (steps: string, inputs = ''): PlanIssue => failed(compilePlaybook(`id: p\nname: P\n${inputs}steps:\n${steps}`))[0]!;

  it.each([
    ['a whole reference', '      query: "{fetch.reslts}"', '{fetch.results}'],
    ['a reference inside a template, the text around it kept', '      query: "news about {fetch.count} things since {today}"', undefined],
    ['the root and the rest of the path', '      query: "{fetc.results[0].title}"', '{fetch.results[0].title}'],
    ['a {{double}} reference keeps its form', '      query: "x {{fetch.cont}} y"', 'x {{fetch.count}} y'],
    ['a field access on a list gets its projection', '      query: "{fetch.results.title}"', '{fetch.results[*].title}'],
  ])('%s', (_what, line, fix) => {
    const steps = `  - { name: fetch, step_type: tool, action: search_web, inputs: { query: x } }\n  - name: use\n    step_type: tool\n    action: search_web\n    inputs:\n${line}\n`;
    const r = compilePlaybook(`id: p\nname: P\nsteps:\n${steps}`);
    if (fix === undefined) {
      expect(r.ok).toBe(true);
      return;
    }
    expect(failed(r)[0]!.suggestedFix).toBe(fix);
  });

  it('a misspelt input inside a template', () => {
    const e = one('  - { name: s, step_type: tool, action: search_web, inputs: { query: "filings of {compny} in {year}" } }\n', 'inputs:\n  - { name: company }\n  - { name: year, type: number }\n');
    expect(e).toMatchObject({ field: 'steps[0].inputs.query', suggestedFix: 'filings of {company} in {year}' });
  });

  it('a reference nested in a structured input', () => {
    const e = one(
      '  - { name: fetch, step_type: tool, action: search_web, inputs: { query: x } }\n  - { name: t, step_type: llm_task, action: llm_analyze, inputs: { data: { rows: ["n = {fetch.cout}"] } }, output_schema: { fields: [{ name: v, type: string }] } }\n',
    );
    expect(e).toMatchObject({ code: 'unresolved_reference', field: 'steps[1].inputs.data.rows[0]', suggestedFix: 'n = {fetch.count}', line: 5 });
  });

  it('a misspelt condition root', () => {
    const e = one('  - { name: web, step_type: tool, action: search_web, inputs: { query: x } }\n  - { name: s, step_type: tool, action: search_web, inputs: { query: y }, condition: "{wbe.count} > 0 AND {web.count} < 9" }\n');
    expect(e).toMatchObject({ field: 'steps[1].condition', suggestedFix: '{web.count} > 0 AND {web.count} < 9' });
  });
});

describe('enum did-you-mean', () => {
  it.each([
    ['execution_mode: determinstic', 'execution_mode', 'deterministic'],
    ['run_context: backgrund', 'run_context', 'background'],
    ['approval_policy: auto_aprove', 'approval_policy', 'auto_approve'],
  ])('%s → %s', (line, field, fix) => {
    const errors = failed(compilePlaybook(`id: p\nname: P\n${line}\nsteps:\n  - { name: s, step_type: tool, action: search_web, inputs: { query: x } }\n`));
    expect(errors[0]).toMatchObject({ code: 'invalid_field', field, suggestedFix: fix, line: 3 });
  });

  it('no suggestion when nothing is close', () => {
    const errors = failed(compilePlaybook('id: p\nname: P\nsteps:\n  - { name: s, step_type: banana, action: search_web, inputs: { query: x } }\n'));
    expect(errors).toHaveLength(1);
    expect(errors[0]!.suggestedFix).toBeUndefined();
    expect(errors[0]!.message).toContain("'banana' is not one of tool, llm_task, approval");
  });

  it('an input type and an on_error value', () => {
    const errors = failed(
      compilePlaybook('id: p\nname: P\ninputs:\n  - { name: n, type: numbr }\nsteps:\n  - { name: s, step_type: tool, action: search_web, inputs: { query: "{n}" }, on_error: skp }\n'),
    );
    expect(pick(errors).map((e) => [e.field, e.suggestedFix])).toEqual([
      ['inputs[0].type', 'number'],
      ['steps[0].on_error', 'skip'],
    ]);
  });
});

describe('schema errors that cannot be repaired still let the other steps be checked', () => {
  it('a step with an invalid name is reported once; the other steps are link-checked', () => {
    const errors = failed(compilePlaybook('id: p\nname: P\nsteps:\n  - { name: "bad name", step_type: tool, action: search_web, inputs: { query: x } }\n  - { name: s, step_type: tool, action: search_web, inputs: { query: "{nope}" } }\n'));
    expect(errors.map((e) => [e.code, e.field])).toEqual([
      ['invalid_field', 'steps[0].name'],
      ['unresolved_reference', 'steps[1].inputs.query'],
    ]);
  });

  it('a wrongly typed field is dropped for the link checks, not reported twice', () => {
    const errors = failed(compilePlaybook('id: p\nname: P\nsteps:\n  - { name: s, step_type: tool, action: 42, inputs: { query: x } }\n  - { name: t, step_type: tool, action: search_web, inputs: { query: "{s.x}" } }\n'));
    expect(errors.map((e) => [e.code, e.field])).toEqual([['invalid_field', 'steps[0].action']]);
  });

  it('steps that are not a list: the schema errors alone', () => {
    const errors = failed(compilePlaybook('id: p\nname: P\nsteps: 3\n'));
    expect(errors.map((e) => e.field)).toEqual(['steps']);
  });
});

describe('connectors and endpoints are checked for the caller', () => {
  const bound = connectorLookup(fixtureJson<unknown[]>('connectors.json'), [
    { agentProfileId: 'researcher', connectorId: 'fec-contributions', allowedEndpoints: [], status: 'active' },
    { agentProfileId: 'researcher', connectorId: 'propublica-nonprofit', allowedEndpoints: [], status: 'disabled' },
    { agentProfileId: 'analyst', connectorId: 'propublica-nonprofit', allowedEndpoints: ['search_organizations'], status: 'active' },
    { agentProfileId: 'analyst', connectorId: 'fec-contributions', allowedEndpoints: [], status: 'auth_failed' },
  ]);
  const steps = (s: string) => `id: p\nname: P\nsteps:\n${s}`;

  it('an unknown connector names the step and suggests the nearest', () => {
    const [e] = failed(compilePlaybook(steps('  - { name: pull, step_type: tool, action: call_connector, connector: fec-contribution, endpoint: search_contributions }\n'), { connectors }));
    expect(e).toMatchObject({ code: 'unknown_connector', field: 'steps[0].connector', step: 'pull', suggestedFix: 'fec-contributions', line: 4 });
    expect(e!.message).toContain("step 'pull' calls connector 'fec-contribution'");
  });

  it('an unknown endpoint names the step and lists the endpoints', () => {
    const [e] = failed(compilePlaybook(steps('  - { name: pull, step_type: tool, action: call_connector, connector: fec-contributions, endpoint: serch_contributions }\n'), { connectors }));
    expect(e).toMatchObject({ code: 'unknown_endpoint', field: 'steps[0].endpoint', step: 'pull', suggestedFix: 'search_contributions' });
  });

  it('with no connectors at all, says so', () => {
    const [e] = failed(compilePlaybook(steps('  - { name: pull, step_type: tool, action: call_connector, connector: x, endpoint: y }\n'), { connectors: connectorLookup([]) }));
    expect(e!.message).toContain('you have no connectors yet');
  });

  it('detect_new_data names its connector in inputs', () => {
    const [e] = failed(
      compilePlaybook(steps('  - { name: watch, step_type: tool, action: detect_new_data, inputs: { connector: fec-contributions, endpoint: nope } }\n'), { connectors }),
    );
    expect(e).toMatchObject({ code: 'unknown_endpoint', field: 'steps[0].inputs.endpoint', step: 'watch' });
  });

  it('through an agent profile: an unbound connector, a disabled binding and an endpoint the binding does not allow are errors', () => {
    const errors = failed(
      compilePlaybook(
        steps(`  - { name: a, step_type: tool, action: call_connector, connector: fec-contributions, endpoint: search_contributions, params: { agent_profile_id: nobody } }
  - { name: b, step_type: tool, action: call_connector, connector: propublica-nonprofit, endpoint: search_organizations, params: { agent_profile_id: researcher }, inputs: { query: x } }
  - { name: c, step_type: tool, action: call_connector, connector: propublica-nonprofit, endpoint: get_organization, params: { agent_profile_id: analyst }, inputs: { ein: x } }
  - { name: d, step_type: tool, action: call_connector, connector: fec-contributions, endpoint: search_contributions, params: { agent_profile_id: researcher } }
`),
        { connectors: bound },
      ),
    );
    expect(errors.filter((e) => e.code !== 'missing_required').map((e) => [e.code, e.field, e.step])).toEqual([
      ['connector_not_bound', 'steps[0].connector', 'a'],
      ['binding_disabled', 'steps[1].connector', 'b'],
      ['endpoint_not_allowed', 'steps[2].endpoint', 'c'],
    ]);
  });

  it('a binding whose authentication failed is a warning; without bindings known nothing is checked', () => {
    const yaml = steps('  - { name: a, step_type: tool, action: call_connector, connector: fec-contributions, endpoint: search_contributions, params: { agent_profile_id: analyst } }\n');
    const r = compilePlaybook(yaml, { connectors: bound });
    expect(r.ok).toBe(true);
    expect(r.results[0]!.warnings.map((w) => w.code)).toEqual(['binding_auth_failed']);
    expect(compilePlaybook(yaml, { connectors }).results[0]!.warnings).toEqual([]);
  });
});

describe('a YAML syntax error quotes the offending line', () => {
  it('with line, column and a caret under the column', () => {
    const [e] = failed(compilePlaybook('id: p\nname: P\nsteps:\n  - name: [unclosed\n    step_type: tool\n'));
    expect(e).toMatchObject({ code: 'invalid_yaml', field: '', line: 5, column: 5 });
    const lines = e!.message.split('\n');
    expect(lines[0]).toMatch(/^invalid YAML at line 5, column 5: /);
    expect(lines[1]).toBe('5 |     step_type: tool');
    expect(lines[2]).toBe('  |     ^');
  });

  it('an error found at the end points at the last line with text', () => {
    const [e] = failed(compilePlaybook('id: p\nname: P\nsteps: [a, b\n\n'));
    expect(e).toMatchObject({ line: 3, column: 13 });
    expect(e!.message.split('\n').slice(1)).toEqual(['3 | steps: [a, b', '  |             ^']);
  });

  it('a tab-free long line is cut around the column', () => {
    const long = `id: p\nname: "${'x'.repeat(300)}\n`;
    const [e] = failed(compilePlaybook(long));
    const quoted = e!.message.split('\n')[1]!;
    expect(quoted.length).toBeLessThanOrEqual(130);
  });
});
