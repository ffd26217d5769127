import { compilePlaybook, kahnLevels, outputRoutingReport, type CompileResult, type PlanGraph } from '../index.js';

const steps = `
steps:
  - name: fetch
    step_type: tool
    action: transform_data
    inputs: { data: '{rows}' }
    output_key: fetched
  - name: count
    step_type: tool
    action: transform_data
    inputs: { data: '{fetched.data}' }
  - name: other
    step_type: tool
    action: transform_data
    inputs: { data: '{rows}' }
`;

function yaml(output: string, extra = ''): string {
  return `id: out-test\nname: Output test\nexecution_mode: hybrid\n${extra}inputs:\n  - { name: rows, type: list, required: true }\n${steps}${output}`;
}

function plan(text: string, hasModel = false): PlanGraph {
  const r = compilePlaybook(text, { hasModel });
  if (!r.ok) throw new Error(JSON.stringify(r.errors, null, 2));
  return r.plan;
}

function errors(text: string): Array<{ field: string; code: string; message: string }> {
  const r: CompileResult = compilePlaybook(text);
  if (r.ok) throw new Error('expected errors');
  return r.errors.map((e) => ({ field: e.field, code: e.code, message: e.message }));
}

describe('the output block compiles to a trailing route_output node', () => {
  it('adds no node without an output block', () => {
    expect(plan(yaml('')).nodes.map((n) => n.id)).toEqual(['fetch', 'count', 'other']);
  });

  it('depends on every sink step and routes their outputs to chat and a document', () => {
    const p = plan(yaml('output:\n  format: markdown\n  save_to: document\n'));
    const out = p.nodes.at(-1)!;
    expect(out).toMatchObject({ id: 'output', kind: 'tool', action: 'route_output', source: 'output', dependsOn: ['count', 'other'] });
    expect(out.inputs).toEqual({ data: { count: '{count}', other: '{other}' } });
    expect(out.params.destinations).toEqual([
      { type: 'chat', format: 'markdown' },
      { type: 'document', format: 'markdown', config: { filename_template: 'out-test_{today}', folder: 'Playbooks/out-test', create_if_missing: true } },
    ]);
    expect(p.metadata.output_node).toBe('output');
    expect(kahnLevels(p).at(-1)).toEqual(['output']);
  });

  it('save_to workspace writes the last sink (or the first section) to a table named after the playbook', () => {
    const p = plan(yaml('output:\n  format: structured\n  save_to: both\n'));
    const out = p.nodes.at(-1)!;
    expect(out.inputs.records).toBe('{other}');
    expect(out.params.destinations).toEqual([
      { type: 'chat', format: 'json' },
      expect.objectContaining({ type: 'document', format: 'json' }),
      { type: 'data_workspace_table', config: { table_name: 'out_test', schema_mapping: 'infer', source: 'playbook:out-test' } },
    ]);
    const none = plan(yaml('output:\n  save_to: none\n')).nodes.at(-1)!;
    expect(none.params.destinations).toEqual([{ type: 'chat', format: 'markdown' }]);
  });

  it('renders sections from their source references (step names become output keys)', () => {
    const p = plan(yaml(`output:\n  sections:\n    - { title: Rows, source: fetched, format: csv }\n    - { title: Count, source: count }\n  template: 'Report for {rows[0].name}'\n  save_to: workspace\n`));
    const out = p.nodes.at(-1)!;
    expect(out.inputs).toEqual({
      data: { sections: [{ title: 'Rows', format: 'csv', content: '{fetched}' }, { title: 'Count', content: '{count}' }], text: 'Report for {rows[0].name}' },
      records: '{fetched}',
    });
  });

  it('takes `run_output` as its id when a step is named output', () => {
    const text = yaml('output:\n  save_to: none\n').replace('name: other', 'name: output');
    const p = plan(text);
    expect(p.nodes.at(-1)!.id).toBe('run_output');
    expect(p.metadata.output_node).toBe('run_output');
  });

  it('summary_prompt: an llm node when the mode allows and a model exists, else a skipped summary in the report', () => {
    const text = yaml('output:\n  summary_prompt: Summarise the rows\n');
    const withModel = plan(text, true);
    const summary = withModel.nodes.find((n) => n.id === 'output_summary')!;
    expect(summary).toMatchObject({ kind: 'llm', action: 'llm_analyze', params: { instructions: 'Summarise the rows' }, dependsOn: ['count', 'other'] });
    expect(summary.errorPolicy?.onError).toBe('skip');
    const out = withModel.nodes.at(-1)!;
    expect(out.dependsOn).toEqual(['count', 'other', 'output_summary']);
    expect(out.inputs.summary).toBe('{output_summary.summary}');

    const noModel = plan(text, false);
    expect(noModel.nodes.some((n) => n.kind === 'llm')).toBe(false);
    expect(noModel.nodes.at(-1)!.params.summary).toEqual({ status: 'skipped', reason: expect.stringContaining('no LLM model is configured') });
    const deterministic = plan(text.replace('execution_mode: hybrid', 'execution_mode: deterministic'), true);
    expect(deterministic.nodes.at(-1)!.params.summary).toEqual({ status: 'skipped', reason: expect.stringContaining('execution_mode is deterministic') });
  });
});

describe('output block and destination checks at validation', () => {
  it('names a template reference to nothing, and a malformed template', () => {
    expect(errors(yaml('output:\n  template: "{missing}"\n'))).toEqual([
      expect.objectContaining({ field: 'output.template', code: 'unknown_reference', message: expect.stringContaining("'missing'") }),
    ]);
    expect(errors(yaml('output:\n  template: "Rows: {fetched.data"\n'))).toEqual([expect.objectContaining({ field: 'output.template', code: 'invalid_template' })]);
  });

  const routeStep = (destinations: string) =>
    yaml('').replace(
      'steps:\n',
      `steps:\n  - name: route\n    step_type: tool\n    action: route_output\n    inputs: { data: '{rows}' }\n    params:\n      destinations: ${destinations}\n`,
    );

  it('refuses an unknown destination type, a bad table identifier, a template error and a missing schema_mapping', () => {
    const errs = errors(
      routeStep(
        `[{type: telegram}, {type: data_workspace_table, config: {table_name: 'Bad Name', schema_mapping: {a: text}}}, {type: document, config: {filename_template: 'x_{date'}}, {type: data_workspace_table, config: {table_name: t}}]`,
      ),
    );
    // The step-link check also reads `{date` as a broken reference; the destination check names the template.
    expect(errs.filter((e) => e.code === 'invalid_destination').map((e) => [e.field, e.code])).toEqual([
      ['steps[0].params.destinations[0].type', 'invalid_destination'],
      ['steps[0].params.destinations[1].config.table_name', 'invalid_destination'],
      ['steps[0].params.destinations[2].config.filename_template', 'invalid_destination'],
      ['steps[0].params.destinations[3].config.schema_mapping', 'invalid_destination'],
    ]);
    const dest = errs.filter((e) => e.code === 'invalid_destination');
    expect(dest[0]!.message).toContain('unknown destination type "telegram"');
    expect(dest[1]!.message).toContain('not a valid identifier');
    expect(dest[2]!.message).toContain('malformed variable');
    expect(dest[3]!.message).toContain('is required');
  });

  it('leaves values wired from other steps to the run, and accepts good destinations', () => {
    const ok = compilePlaybook(
      routeStep(`[{type: chat}, {type: webhook, config: {url: '{rows[0].url}'}}, {type: data_workspace_table, config: {table_name: grants, schema_mapping: {id: text, amount: REAL}, upsert_key: id}}]`),
    );
    expect(ok.ok).toBe(true);
    const wired = compilePlaybook(routeStep(`'{rows}'`));
    expect(wired.ok).toBe(true);
  });

  it('accepts the documented file-name variables ({date}, {datetime}, {time}, {run_id}, {node_id}, {today})', () => {
    const r = compilePlaybook(
      routeStep(`[{type: document, config: {filename_template: 'r_{date}_{datetime}_{time}_{run_id}_{node_id}_{today}'}}, {type: file_export, config: {filename_template: 'e_{date}'}}]`),
    );
    expect(r.ok ? [] : r.errors).toEqual([]);
    expect(errors(routeStep(`[{type: document, config: {filename_template: 'r_{dates}'}}]`))).toEqual([
      expect.objectContaining({ code: 'unresolved_reference', message: expect.stringContaining("did you mean 'date'") }),
    ]);
  });
});

describe('outputRoutingReport', () => {
  it("is the output node's report when it ran, undefined otherwise", () => {
    const out = { routing_report: [{ destination: 'chat', status: 'success' }], routed_to: ['chat'], success: true };
    expect(outputRoutingReport({ metadata: { output_node: 'output' } }, (id) => (id === 'output' ? out : undefined))).toEqual({
      routing_report: out.routing_report,
      routed_to: ['chat'],
      output_success: true,
    });
    expect(outputRoutingReport({ metadata: { output_node: 'output' } }, () => undefined)).toBeUndefined();
    expect(outputRoutingReport({ metadata: {} }, () => out)).toBeUndefined();
  });
});
