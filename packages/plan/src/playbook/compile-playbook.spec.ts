import { compilePlaybook, connectorLookup, kahnLevels, type CompileResult, type PlanGraph } from '../index.js';
import { fixtureJson, fixtureText, golden } from '../../test/fixture-loader.js';

const connectors = connectorLookup(fixtureJson<unknown[]>('connectors.json'));

function compiled(file: string, withConnectors = true): { plan: PlanGraph; result: CompileResult & { ok: true } } {
  const result = compilePlaybook(fixtureText(`playbooks/${file}.yaml`), withConnectors ? { connectors } : {});
  if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 2));
  return { plan: result.plan, result };
}

describe('compilePlaybook golden graphs (seed §5 examples)', () => {
  it.each(['nonprofit-investigation', 'monitor-new-filings', 'web-research-pipeline'])('%s compiles to its golden PlanGraph', (file) => {
    const { plan, result } = compiled(file);
    expect(plan).toEqual(golden(`playbooks/${file}.plan.json`, plan));
    expect({ levels: kahnLevels(plan), results: result.results, warnings: result.warnings }).toEqual(
      golden(`playbooks/${file}.levels.json`, { levels: kahnLevels(plan), results: result.results, warnings: result.warnings }),
    );
  });
});

describe('compilePlaybook: the nonprofit investigation in detail', () => {
  const { plan, result } = compiled('nonprofit-investigation');
  const node = (id: string) => plan.nodes.find((n) => n.id === id)!;

  it('carries the document settings into the plan', () => {
    expect(plan.provenance).toEqual({ frontEnd: 'playbook', sourceId: 'nonprofit-investigation', sourceVersion: '1.0' });
    expect(plan).toMatchObject({ executionMode: 'hybrid', runContext: 'interactive', approvalPolicy: 'require' });
    expect(plan.inputs.map((i) => [i.name, i.type, i.required, i.extractFrom ?? null, i.default ?? null])).toEqual([
      ['entity_name', 'entity_name', true, 'query', null],
      ['committee_id', 'string', false, null, null],
      ['start_date', 'date', false, null, '2020-01-01'],
    ]);
    expect(plan.metadata.triggers).toEqual([
      { pattern: 'investigate nonprofit', type: 'keyword', priority: 10 },
      { pattern: '^who funds (.+)\\?$', type: 'regex', priority: 0 },
    ]);
    expect(plan.output).toMatchObject({ format: 'markdown', save_to: 'document', auto_enrich_graph: true });
  });

  it('maps each step type to its node kind, parallel sub-steps to siblings', () => {
    expect(plan.nodes.map((n) => [n.id, n.kind])).toEqual([
      ['pull_990_data', 'tool'],
      ['fec_data', 'tool'],
      ['initial_search', 'tool'],
      ['extract_officers', 'tool'],
      ['cross_ref', 'tool'],
      ['analyze', 'llm'],
      ['confirm_save', 'approval'],
      ['save_matches', 'tool'],
      ['report', 'llm'],
      // The output block: a trailing route_output node (output-block.ts).
      ['output', 'tool'],
      // output.auto_enrich_graph: an enrich_knowledge node after each connector step (enrich-nodes.ts).
      ['pull_990_data_enrich', 'tool'],
      ['fec_data_enrich', 'tool'],
    ]);
    expect(plan.metadata.parallel_groups).toEqual([{ name: 'fetch_sources', steps: ['fec_data', 'initial_search'] }]);
  });

  it('puts connector and endpoint into the params of call_connector nodes', () => {
    expect(node('pull_990_data')).toMatchObject({
      action: 'call_connector',
      inputs: { query: '{entity_name}' },
      params: { connector: 'propublica-nonprofit', endpoint: 'search_organizations' },
      errorPolicy: { onError: 'stop', timeoutMs: 30_000, retry: { maxRetries: 2 } },
    });
  });

  it('maps on_error (default skip, retry = once) and output_schema to JSON Schema', () => {
    expect(node('cross_ref').errorPolicy?.onError).toBe('skip');
    expect(node('analyze').errorPolicy).toMatchObject({ onError: 'retry', retry: { maxRetries: 1 }, timeoutMs: 120_000 });
    expect(node('analyze').outputKey).toBe('analysis');
    expect(node('analyze').outputSchema).toEqual({
      type: 'object',
      properties: {
        findings: { type: 'string', description: 'Narrative findings' },
        flagged_people: { type: 'array', items: { type: 'string' } },
        risk_score: { type: 'number' },
      },
      required: ['findings', 'flagged_people', 'risk_score'],
    });
  });

  it('compiles the approval gate with its preview wired as an input', () => {
    expect(node('confirm_save')).toMatchObject({
      kind: 'approval',
      inputs: { prompt: 'Save {cross_ref.count} matches for {entity_name} to the workspace?', preview: '{cross_ref}' },
      params: { preview_from: 'cross_ref', preview_limit: 5, on_reject: 'skip', timeout_minutes: 60 },
    });
  });

  it('derives dependencies from data references and barriers, so independent steps share a level', () => {
    expect(kahnLevels(plan)).toEqual([
      ['pull_990_data', 'fec_data', 'initial_search'],
      ['extract_officers', 'pull_990_data_enrich', 'fec_data_enrich'],
      ['cross_ref'],
      ['analyze'],
      ['confirm_save'],
      ['save_matches'],
      ['report'],
      ['output'],
    ]);
    expect(node('extract_officers').dependsOn).toEqual(['pull_990_data']);
    // The approval waits for everything before it; the write waits for the approval; the report for the write.
    expect(node('confirm_save').dependsOn).toEqual(['cross_ref', 'analyze']);
    expect(node('save_matches').dependsOn).toEqual(['cross_ref', 'confirm_save']);
    expect(node('report').dependsOn).toEqual(['cross_ref', 'analyze', 'save_matches']);
    expect(node('output').dependsOn).toEqual(['report']);
  });

  it('returns one valid result per step, including the parallel group', () => {
    expect(result.results.map((r) => [r.step, r.source, r.valid])).toEqual([
      ['pull_990_data', 'steps[0]', true],
      ['fetch_sources', 'steps[1]', true],
      ['fec_data', 'steps[1].parallel_steps[0]', true],
      ['initial_search', 'steps[1].parallel_steps[1]', true],
      ['extract_officers', 'steps[2]', true],
      ['cross_ref', 'steps[3]', true],
      ['analyze', 'steps[4]', true],
      ['confirm_save', 'steps[5]', true],
      ['save_matches', 'steps[6]', true],
      ['report', 'steps[7]', true],
    ]);
  });
});

describe('compilePlaybook: monitor and research fixtures', () => {
  it('keeps monitor_config, version as written, and orders writes (notify → journal → watermark)', () => {
    const { plan } = compiled('monitor-new-filings');
    expect(plan.provenance?.sourceVersion).toBe('2.1');
    expect(plan.runContext).toBe('monitor');
    expect(plan.metadata.monitor_config).toEqual({ interval: '15m', active_hours: { start: '08:00', end: '22:00', timezone: 'America/New_York' }, suppress_if_empty: true });
    expect(kahnLevels(plan)).toEqual([['detect'], ['extract'], ['keep_people'], ['notify'], ['journal'], ['advance_watermark'], ['output']]);
    expect(plan.nodes.find((n) => n.id === 'keep_people')!.params.operations).toHaveLength(4);
    expect(plan.nodes.find((n) => n.id === 'detect')!.outputKey).toBe('new_files');
  });

  it('applies a parallel group condition and on_error to its sub-steps', () => {
    const { plan } = compiled('web-research-pipeline');
    const web = plan.nodes.find((n) => n.id === 'web')!;
    expect(web.condition).toBe('{topic} is defined');
    expect(web.errorPolicy?.onError).toBe('skip');
    expect(plan.nodes.find((n) => n.id === 'deep_dive')!.params.max_rounds).toBe(3);
    expect(plan.nodes.find((n) => n.id === 'classify')!.outputSchema).toMatchObject({ properties: { results: { type: 'array' } } });
  });

  it('compiles without a connector lookup (generic call_connector envelope)', () => {
    const result = compilePlaybook(fixtureText('playbooks/nonprofit-investigation.yaml'));
    expect(result.ok).toBe(true);
  });
});
