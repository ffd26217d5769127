import { compilePlaybook, connectorLookup, kahnLevels, type CompileResult, type StepValidationResult } from '../index.js';
import { fixtureJson } from '../../test/fixture-loader.js';

const connectors = connectorLookup(fixtureJson<unknown[]>('connectors.json'));

function playbook(steps: string, extra = ''): string {
  return `id: t\nname: T\n${extra}steps:\n${steps}`;
}

function ok(text: string, opts = {}): Extract<CompileResult, { ok: true }> {
  const r = compilePlaybook(text, opts);
  if (!r.ok) throw new Error(JSON.stringify(r.errors, null, 2));
  return r;
}

function result(r: CompileResult, step: string): StepValidationResult {
  return r.results.find((x) => x.step === step)!;
}

describe('step links: type compatibility (seed §5 rule 2)', () => {
  it('integer → number and entity[] → record[] are exact (no warning)', () => {
    const r = ok(
      playbook(`  - { name: kg, step_type: tool, action: search_knowledge_graph, inputs: { entity_name: x } }
  - { name: res, step_type: tool, action: resolve_entities, inputs: { entities: "{kg.entities}" }, params: { threshold: 1 } }
  - { name: x, step_type: tool, action: cross_reference, inputs: { dataset_a: "{res.resolved}", dataset_b: "{kg.relationships}" } }
`),
    );
    expect(r.results.flatMap((s) => s.warnings.filter((w) => w.code === 'loose_type_coercion'))).toEqual([]);
  });

  it('string → string[] is a loose coercion warning', () => {
    const r = ok(playbook(`  - { name: kg, step_type: tool, action: search_knowledge_graph, inputs: { entity_names: "{entity}" } }\n`, 'inputs:\n  - { name: entity, type: string }\n'));
    expect(result(r, 'kg').warnings).toEqual([
      { code: 'loose_type_coercion', field: 'inputs.entity_names', message: "'entity_names' expects string[]: a single string is wrapped as a one-element string[]", line: 6, column: 90 },
    ]);
  });

  it('record_set → record[] (whole step output) warns and suggests .results', () => {
    const r = ok(
      playbook(`  - { name: fec, step_type: tool, action: call_connector, connector: fec-contributions, endpoint: search_contributions }
  - { name: ex, step_type: tool, action: extract_entities, inputs: { data: "{fec}" } }
`),
      { connectors },
    );
    expect(result(r, 'ex').warnings[0]).toMatchObject({ code: 'loose_type_coercion', field: 'inputs.data', suggestedFix: '{fec.results}' });
  });

  it('array projection record[].field → field[] is checked against the record fields', () => {
    const good = ok(
      playbook(`  - { name: fec, step_type: tool, action: call_connector, connector: fec-contributions, endpoint: search_contributions }
  - { name: kg, step_type: tool, action: search_knowledge_graph, inputs: { entity_names: "{fec.results[*].donor_name}" } }
`),
      { connectors },
    );
    expect(result(good, 'kg')).toMatchObject({ valid: true, warnings: [] });
    const bad = compilePlaybook(
      playbook(`  - { name: fec, step_type: tool, action: call_connector, connector: fec-contributions, endpoint: search_contributions }
  - { name: kg, step_type: tool, action: search_knowledge_graph, inputs: { entity_names: "{fec.results}", entity_name: "{fec.results[*].amount}" } }
`),
      { connectors },
    );
    expect(result(bad, 'kg').errors).toEqual([
      { code: 'type_mismatch', field: 'inputs.entity_names', message: "'entity_names' expects string[] but is wired to a record[]", line: 5, column: 90 },
      { code: 'type_mismatch', field: 'inputs.entity_name', message: "'entity_name' expects string but is wired to a number[]", line: 5, column: 120 },
    ]);
    const loose = compilePlaybook(
      playbook(`  - { name: fec, step_type: tool, action: call_connector, connector: fec-contributions, endpoint: search_contributions }
  - { name: kg, step_type: tool, action: search_knowledge_graph, inputs: { entity_names: "{fec.results[*].amount}" } }
`),
      { connectors },
    );
    expect(result(loose, 'kg').warnings).toEqual([
      { code: 'loose_type_coercion', field: 'inputs.entity_names', message: "'entity_names' expects string[]: each element: number is converted to string", line: 5, column: 90 },
    ]);
  });

  it('an embedded reference makes a string, a whole reference keeps its type', () => {
    const r = compilePlaybook(
      playbook(`  - { name: web, step_type: tool, action: search_web, inputs: { query: x } }
  - { name: a, step_type: tool, action: crawl_url, inputs: { url: "https://x/{web.count}" } }
  - { name: b, step_type: tool, action: crawl_url, inputs: { url: "{web.count}" } }
`),
    );
    expect(result(r, 'a').valid).toBe(true);
    expect(result(r, 'b').warnings[0]).toMatchObject({ code: 'loose_type_coercion', message: "'url' expects string: integer is converted to string" });
  });

  it('graphql variables and response_mapping give connector inputs and open-typed record fields', () => {
    const r = ok(
      playbook(`  - { name: gh, step_type: tool, action: call_connector, connector: github-repos, endpoint: search_repos, inputs: { query: agents } }
  - { name: kg, step_type: tool, action: search_knowledge_graph, inputs: { entity_names: "{gh.results[*].name}" } }
`),
      { connectors },
    );
    expect(r.ok).toBe(true);
    const missing = compilePlaybook(playbook(`  - { name: gh, step_type: tool, action: call_connector, connector: github-repos, endpoint: search_repos }\n`), { connectors });
    expect(result(missing, 'gh').errors).toContainEqual(expect.objectContaining({ code: 'missing_required', field: 'inputs.query' }));
  });
});

describe('step links: warnings', () => {
  it('unused_output for a computed output nobody reads (not for writes or the last step)', () => {
    const r = ok(
      playbook(`  - { name: web, step_type: tool, action: search_web, inputs: { query: x } }
  - { name: docs, step_type: tool, action: search_documents, inputs: { query: x } }
  - { name: save, step_type: tool, action: save_to_workspace, inputs: { data: "{web.results}" }, params: { table_name: t } }
  - { name: last, step_type: tool, action: search_web, inputs: { query: y } }
`),
    );
    expect(r.results.map((s) => [s.step, s.warnings.map((w) => w.code)])).toEqual([
      ['web', []],
      ['docs', ['unused_output']],
      ['save', []],
      ['last', []],
    ]);
  });

  it('long_chain once, at the step that crosses the threshold', () => {
    const steps = ['  - { name: s0, step_type: tool, action: search_web, inputs: { query: x } }'];
    for (let i = 1; i < 6; i++) steps.push(`  - { name: s${i}, step_type: tool, action: search_web, inputs: { query: "{s${i - 1}.count}" } }`);
    const r = ok(playbook(`${steps.join('\n')}\n`), { longChainThreshold: 3 });
    expect(r.results.filter((s) => s.warnings.some((w) => w.code === 'long_chain')).map((s) => s.step)).toEqual(['s3']);
  });
});

describe('step links: references by step name and output_key', () => {
  it('a reference by step name is rewritten to the output_key in the plan', () => {
    const r = ok(
      playbook(`  - { name: pull, step_type: tool, action: search_web, inputs: { query: x }, output_key: pull_results }
  - { name: page, step_type: tool, action: crawl_url, inputs: { url: "{pull.results[0].url}" }, condition: "{pull.count} > 0" }
  - { name: ok, step_type: approval, preview_from: pull, prompt: "Seen {{pull.count}}?" }
`),
    );
    const page = r.plan.nodes.find((n) => n.id === 'page')!;
    expect(page.inputs.url).toBe('{pull_results.results[0].url}');
    expect(page.condition).toBe('{pull_results.count} > 0');
    expect(page.dependsOn).toEqual(['pull']);
    expect(r.plan.nodes.find((n) => n.id === 'ok')!.inputs).toEqual({ prompt: 'Seen {{pull_results.count}}?', preview: '{pull_results}' });
  });
});

describe('dependency rule', () => {
  it('independent reads run in parallel; a write waits for everything before it; later steps wait for the write', () => {
    const r = ok(
      playbook(`  - { name: a, step_type: tool, action: search_web, inputs: { query: x } }
  - { name: b, step_type: tool, action: search_documents, inputs: { query: y } }
  - { name: c, step_type: tool, action: crawl_url, inputs: { url: "{a.results[0].url}" } }
  - { name: w, step_type: tool, action: send_notification, inputs: { message: hi } }
  - { name: d, step_type: tool, action: search_web, inputs: { query: z } }
  - { name: e, step_type: tool, action: crawl_url, inputs: { url: "{d.results[0].url}" } }
`),
    );
    const deps = Object.fromEntries(r.plan.nodes.map((n) => [n.id, n.dependsOn]));
    expect(deps).toEqual({ a: [], b: [], c: ['a'], w: ['b', 'c'], d: ['w'], e: ['d'] });
    expect(kahnLevels(r.plan)).toEqual([['a', 'b'], ['c'], ['w'], ['d'], ['e']]);
  });

  it('a parallel block with a write is one barrier; its sub-steps stay parallel', () => {
    const r = ok(
      playbook(`  - { name: a, step_type: tool, action: search_web, inputs: { query: x } }
  - name: both
    action: parallel
    parallel_steps:
      - { name: n1, step_type: tool, action: send_notification, inputs: { message: "{a.count}" } }
      - { name: n2, step_type: tool, action: send_channel_message, inputs: { message: hi } }
  - { name: z, step_type: tool, action: search_web, inputs: { query: y } }
`),
    );
    expect(kahnLevels(r.plan)).toEqual([['a'], ['n1', 'n2'], ['z']]);
    expect(r.plan.nodes.find((n) => n.id === 'z')!.dependsOn).toEqual(['n1', 'n2']);
  });
});

describe('plugin contracts in step validation', () => {
  it('a registered plugin tool validates like a built-in', async () => {
    const { defaultActionRegistry } = await import('../index.js');
    const registry = defaultActionRegistry();
    registry.registerPlugin({
      plugin_name: 'trello',
      tool_contracts: [{ name: 'create_card', description: 'Create a card', inputs: { title: 'string', list_id: 'string' }, params: { labels: 'string[]' }, outputs: { card_id: 'string', url: 'string' } }],
    });
    const good = compilePlaybook(playbook(`  - { name: c, step_type: tool, action: create_card, inputs: { title: x, list_id: l }, params: { labels: [a] } }\n`), { registry });
    expect(good.ok).toBe(true);
    const bad = compilePlaybook(playbook(`  - { name: c, step_type: tool, action: create_card, inputs: { title: x } }\n`), { registry });
    expect(result(bad, 'c').errors).toEqual([expect.objectContaining({ code: 'missing_required', field: 'inputs.list_id' })]);
  });
});
