import { compilePlaybook, type CompileResult } from '../index.js';

const errorsOf = (r: CompileResult) => (r.ok ? [] : r.errors.map((e) => [e.code, e.field, e.suggestedFix ?? null]));

describe('schema errors inside parallel_steps are repaired too', () => {
  const yaml = `id: p
name: P
steps:
  - name: fetch
    parallel_steps:
      - { name: web, step_type: tool, action: search_web, inputs: { query: x }, ouput_key: hits }
      - { name: "bad name", step_type: tool, action: search_web, inputs: { query: y } }
      - { name: docs, step_type: tol, action: search_documents, inputs: { query: z } }
  - { name: use, step_type: tool, action: search_web, inputs: { query: "{hits.cont} {docs.documents}" } }
`;
  const r = compilePlaybook(yaml);

  it('reports the sub-steps’ schema errors and the reference errors behind them in one round', () => {
    expect(errorsOf(r)).toEqual([
      ['unknown_field', 'steps[0].parallel_steps[0].ouput_key', 'output_key'],
      ['invalid_field', 'steps[0].parallel_steps[1].name', null],
      ['invalid_field', 'steps[0].parallel_steps[2].step_type', 'tool'],
      ['unresolved_reference', 'steps[1].inputs.query', '{hits.count} {docs.documents}'],
    ]);
  });

  it('puts each schema error on its own sub-step’s result, not on the group’s; the unnamed sub-step has no result', () => {
    expect(r.results.map((s) => [s.source, s.errors.map((e) => e.field)])).toEqual([
      ['steps[0]', []],
      ['steps[0].parallel_steps[0]', ['ouput_key']],
      ['steps[0].parallel_steps[2]', ['step_type']],
      ['steps[1]', ['inputs.query']],
    ]);
  });
});

it('an unknown key whose intended key is also written is dropped, not renamed over it', () => {
  const r = compilePlaybook('id: p\nname: P\nsteps:\n  - { name: s, step_type: tool, action: search_web, inputs: { query: x }, output_key: a, ouput_key: b }\n  - { name: t, step_type: tool, action: search_web, inputs: { query: "{a.count}" } }\n');
  expect(errorsOf(r)).toEqual([['unknown_field', 'steps[0].ouput_key', 'output_key']]);
});
