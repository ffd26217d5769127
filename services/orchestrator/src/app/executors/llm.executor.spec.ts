import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptedChatModel, outputSchemaToJsonSchema, type LlmTool } from '@af/llm';
import { compilePlaybookValue, type PlanGraph, type PlanNode } from '@af/plan';
import { AppError } from '@af/service-kit';
import fc from 'fast-check';
import type { NodeContext } from '../../domain/node-executor.js';
import { createLlmExecutor, type LlmNodeReport } from './llm.executor.js';

// Golden plans compiled by @af/plan: the executor takes llm nodes exactly as the compiler emits them.
const fixtures = join(__dirname, '../../../../../packages/plan/test/fixtures');
const golden = (file: string): PlanGraph => JSON.parse(readFileSync(join(fixtures, file), 'utf8')) as PlanGraph;
const webResearch = golden('playbooks/web-research-pipeline.plan.json');
const nonprofit = golden('playbooks/nonprofit-investigation.plan.json');
const nodeOf = (plan: PlanGraph, id: string): PlanNode => plan.nodes.find((n) => n.id === id)!;

const analyze = nodeOf(nonprofit, 'analyze'); // llm_analyze, object output_schema
const report = nodeOf(nonprofit, 'report'); // synthesize_report, params.template
const classify = nodeOf(webResearch, 'classify'); // llm_analyze, record_set output_schema
const deepDive = nodeOf(webResearch, 'deep_dive'); // research_with_tools, tools [search_web, crawl_url], max_rounds 3

function ctxFor(node: PlanNode, inputs: Record<string, unknown>, over: Partial<NodeContext> = {}): NodeContext {
  return {
    runId: 'run-1',
    userId: 'user-1',
    node,
    instanceId: node.id,
    inputs,
    params: node.params,
    scope: { vars: {} },
    resolve: (v) => v,
    attempt: 1,
    idempotencyKey: `run-1:${node.id}:1`,
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    run: { approvalPolicy: 'require', runContext: 'interactive', depth: 0, dryRun: false },
    ...over,
  };
}

async function failure(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

const findings = { findings: 'Ann is an officer and a donor.', flagged_people: ['Ann'], risk_score: 0.6 };
const analyzeInputs = { matches: [{ entity_a: 'Ann', entity_b: 'Ann B.' }], officer_names: ['Ann', 'Bo'], all_donors: ['Ann'], since: '2024-01-01' };

function searchWeb(): LlmTool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name: 'search_web',
    description: 'Search the web',
    schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    calls,
    async invoke(args) {
      calls.push(args);
      return { results: [{ title: `Result for ${String(args.query)}` }], count: 1 };
    },
  };
}
function crawlUrl(fail = false): LlmTool {
  return {
    name: 'crawl_url',
    description: 'Fetch a page as markdown',
    schema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    async invoke(args) {
      if (fail) throw new Error(`fetch ${String(args.url)} failed: 503`);
      return { content: '# page' };
    },
  };
}

describe('llm executor: llm_analyze / synthesize_report', () => {
  it('returns output that matches the node outputSchema, with instructions and resolved inputs in the prompt', async () => {
    const model = new ScriptedChatModel([{ json: findings }]);
    const reports: LlmNodeReport[] = [];
    const out = await createLlmExecutor({ model, onReport: (r) => reports.push(r) })(ctxFor(analyze, analyzeInputs));
    expect(out).toEqual(findings);
    expect(model.prompts[0]).toContain('Identify officers who also appear as political donors.');
    expect(model.prompts[0]).toContain('"entity_b": "Ann B."');
    expect(model.calls[0]!.structuredOutput?.schema).toEqual(analyze.outputSchema);
    expect(reports).toEqual([{ runId: 'run-1', nodeId: 'analyze', action: 'llm_analyze', attempts: 1, mode: 'native' }]);
  });

  it('synthesize_report names the template; a record_set schema gets {results, count}', async () => {
    const model = new ScriptedChatModel([{ json: { report_markdown: '# Acme' } }, { json: { results: [{ title: 'A', stance: 'pro', confidence: 0.9 }], count: 1 } }]);
    const run = createLlmExecutor({ model });
    expect(await run(ctxFor(report, { analysis: 'x', name: 'Acme' }))).toEqual({ report_markdown: '# Acme' });
    expect(model.prompts[0]).toContain("Follow the report template 'investigation_report'.");
    expect(await run(ctxFor(classify, { titles: ['A'] }))).toEqual({ results: [{ title: 'A', stance: 'pro', confidence: 0.9 }], count: 1 });
  });

  it('retries an invalid answer with the violations fed back, then returns the valid one', async () => {
    const model = new ScriptedChatModel([{ json: { findings: 'x', flagged_people: 'Ann', risk_score: 0.6 } }, { json: findings }]);
    const reports: LlmNodeReport[] = [];
    expect(await createLlmExecutor({ model, onReport: (r) => reports.push(r) })(ctxFor(analyze, analyzeInputs))).toEqual(findings);
    expect(model.prompts[1]).toContain('- /flagged_people: must be array (type)');
    expect(reports[0]!.attempts).toBe(2);
  });

  it('fails with INVALID_ARGUMENT listing violations (JSON pointer in field) when every attempt is invalid', async () => {
    const bad = { json: { findings: 42, flagged_people: ['Ann'] } };
    const model = new ScriptedChatModel([bad, bad, bad]);
    const err = await failure(createLlmExecutor({ model })(ctxFor(analyze, analyzeInputs)));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/^node analyze: the model's output did not match the output schema after 3 attempt\(s\)/);
    expect(err.violations).toEqual(
      expect.arrayContaining([
        { field: '/findings', reason: 'must be string', code: 'type' },
        { field: '/risk_score', reason: "must have required property 'risk_score'", code: 'required' },
      ]),
    );
    expect(model.calls).toHaveLength(3);
  });

  it('honours maxAttempts', async () => {
    const model = new ScriptedChatModel([{ json: {} }]);
    const err = await failure(createLlmExecutor({ model, maxAttempts: 1 })(ctxFor(analyze, analyzeInputs)));
    expect(err.message).toContain('after 1 attempt(s)');
  });

  it('runs llm_decision (workflow_steps) and compose_answer (master plans) as structured tasks', async () => {
    const sentiment = nodeOf(golden('workflows/enrich-contacts.plan.json'), 'sentiment');
    const composer = nodeOf(golden('master-plans/diamond.plan.json'), 'composer');
    const model = new ScriptedChatModel([{ json: { decision: 'positive', reasoning: 'friendly tone' } }, { json: { answer: 'Budget is 10k', sources: ['doc1'] } }]);
    const run = createLlmExecutor({ model });
    expect(await run(ctxFor(sentiment, { emails: ['Thanks!'] }))).toEqual({ decision: 'positive', reasoning: 'friendly tone' });
    expect(model.prompts[0]).toContain('Classify the tone of each email');
    expect(await run(ctxFor(composer, { query: 'q', agent_outputs: {} }))).toEqual({ answer: 'Budget is 10k', sources: ['doc1'] });
    expect(model.prompts[1]).toContain('Cite the sources you used');
  });
});

describe('llm executor: research_with_tools', () => {
  it('calls a tool twice, then answers in the output schema', async () => {
    const search = searchWeb();
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'search_web', args: { query: 'acme growth' } }] },
      { toolCalls: [{ name: 'search_web', args: { query: 'acme revenue 2024' } }] },
      { json: { verified_claims: ['Acme grew'], notes: 'two searches agree' } },
    ]);
    const reports: LlmNodeReport[] = [];
    const run = createLlmExecutor({ model, tools: () => [search, crawlUrl()], onReport: (r) => reports.push(r) });
    expect(await run(ctxFor(deepDive, { headline: 'Acme grows' }))).toEqual({ verified_claims: ['Acme grew'], notes: 'two searches agree' });
    expect(search.calls).toEqual([{ query: 'acme growth' }, { query: 'acme revenue 2024' }]);
    // Only the tools the step names are offered, with its system prompt.
    expect(model.calls[0]!.tools).toEqual(['search_web', 'crawl_url']);
    expect(model.prompts[0]).toContain('system: Verify the top claims.');
    expect(model.prompts[0]).toContain('"headline": "Acme grows"');
    expect(reports[0]).toMatchObject({ nodeId: 'deep_dive', action: 'research_with_tools', rounds: 2, stoppedBy: 'answer', attempts: 0 });
    expect(reports[0]!.trace!.map((t) => [t.round, t.name, t.ok])).toEqual([
      [1, 'search_web', true],
      [2, 'search_web', true],
    ]);
  });

  it('offers only the tools named in params.tools', async () => {
    const other: LlmTool = { ...searchWeb(), name: 'delete_records' };
    const model = new ScriptedChatModel([{ json: { verified_claims: [], notes: 'nothing to verify' } }]);
    await createLlmExecutor({ model, tools: () => [other, searchWeb(), crawlUrl()] })(ctxFor(deepDive, { headline: 'h' }));
    expect(model.calls[0]!.tools).toEqual(['search_web', 'crawl_url']);
  });

  it('stops at max_rounds: a final answer after the budget is accepted', async () => {
    const call = { toolCalls: [{ name: 'search_web', args: { query: 'again' } }] };
    const model = new ScriptedChatModel([call, call, call, { json: { verified_claims: [], notes: 'ran out of rounds' } }]);
    const reports: LlmNodeReport[] = [];
    const out = await createLlmExecutor({ model, tools: () => [searchWeb(), crawlUrl()], onReport: (r) => reports.push(r) })(ctxFor(deepDive, { headline: 'h' }));
    expect(out).toEqual({ verified_claims: [], notes: 'ran out of rounds' });
    expect(reports[0]).toMatchObject({ rounds: 3, stoppedBy: 'max_rounds' });
    expect(model.prompts[3]).toContain('You have used all 3 tool-calling round(s)');
  });

  it('stops at max_rounds: fails with RESOURCE_EXHAUSTED when the model still wants tools', async () => {
    const call = { toolCalls: [{ name: 'search_web', args: { query: 'again' } }] };
    const node = { ...deepDive, params: { ...deepDive.params, max_rounds: 1 } };
    const model = new ScriptedChatModel([call, call]);
    const err = await failure(createLlmExecutor({ model, tools: () => [searchWeb(), crawlUrl()] })(ctxFor(node, { headline: 'h' })));
    expect(err.code).toBe('RESOURCE_EXHAUSTED');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('node deep_dive: the model was still calling tools after max_rounds=1 round(s) and gave no final answer (tools called: search_web)');
    expect(model.calls).toHaveLength(2);
  });

  it('feeds a tool error back to the model, which still answers', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'crawl_url', args: { url: 'https://acme.example' } }] },
      { json: { verified_claims: [], notes: 'the page could not be fetched' } },
    ]);
    const reports: LlmNodeReport[] = [];
    const out = await createLlmExecutor({ model, tools: () => [searchWeb(), crawlUrl(true)], onReport: (r) => reports.push(r) })(ctxFor(deepDive, { headline: 'h' }));
    expect(out).toEqual({ verified_claims: [], notes: 'the page could not be fetched' });
    expect(model.prompts[1]).toContain('tool(crawl_url): error: fetch https://acme.example failed: 503');
    expect(reports[0]!.trace).toEqual([expect.objectContaining({ name: 'crawl_url', ok: false, error: 'fetch https://acme.example failed: 503' })]);
  });

  it('reshapes a prose final answer into the output schema', async () => {
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'search_web', args: { query: 'acme' } }] },
      'Acme grew, according to one result.',
      { json: { verified_claims: ['Acme grew'], notes: 'one source' } },
    ]);
    expect(await createLlmExecutor({ model, tools: () => [searchWeb(), crawlUrl()] })(ctxFor(deepDive, { headline: 'h' }))).toEqual({
      verified_claims: ['Acme grew'],
      notes: 'one source',
    });
  });

  it('fails FAILED_PRECONDITION naming params.tools[i] when a named tool is not bound to the run', async () => {
    const model = new ScriptedChatModel([]);
    const err = await failure(createLlmExecutor({ model, tools: async () => [searchWeb()] })(ctxFor(deepDive, { headline: 'h' })));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.violations).toEqual([{ field: 'params.tools[1]', reason: "no tool 'crawl_url' is bound to this run (available: search_web)", code: 'unknown_tool' }]);
    expect(model.calls).toHaveLength(0);
  });

  it('fails FAILED_PRECONDITION when no tools are bound at all', async () => {
    const node = { ...deepDive, params: { system_prompt: 'x', max_rounds: 3 } };
    const err = await failure(createLlmExecutor({ model: new ScriptedChatModel([]) })(ctxFor(node, {})));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('no tools are bound to this run');
  });

  it('rejects bad params naming the field', async () => {
    const node = { ...deepDive, params: { tools: 'search_web', max_rounds: 'many' } };
    const err = await failure(createLlmExecutor({ model: new ScriptedChatModel([]), tools: () => [searchWeb()] })(ctxFor(node, {})));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations.map((v) => v.field)).toEqual(['params.tools', 'params.max_rounds']);
    const tooMany = await failure(createLlmExecutor({ model: new ScriptedChatModel([]), tools: () => [searchWeb()] })(ctxFor({ ...deepDive, params: { max_rounds: 500 } }, {})));
    expect(tooMany.violations[0]!.field).toBe('params.max_rounds');
  });

  it('maps its own timeout to DEADLINE_EXCEEDED', async () => {
    const hanging: LlmTool = {
      ...searchWeb(),
      invoke: (_args, { signal }) => new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    };
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'search_web', args: { query: 'q' } }] }]);
    const node = { ...deepDive, params: { ...deepDive.params, tools: ['search_web'] } };
    const err = await failure(createLlmExecutor({ model, tools: () => [hanging] })(ctxFor(node, {}, { timeoutMs: 20 })));
    expect(err.code).toBe('DEADLINE_EXCEEDED');
    expect(err.message).toBe('node deep_dive: the LLM step did not finish within 20 ms');
  });
});

describe('llm executor: failures', () => {
  it('with no model configured fails FAILED_PRECONDITION, not retryable, and never answers', async () => {
    for (const node of [analyze, report, deepDive]) {
      const err = await failure(createLlmExecutor({ tools: () => [searchWeb()] })(ctxFor(node, {})));
      expect(err.code).toBe('FAILED_PRECONDITION');
      expect(err.retryable).toBe(false);
      expect(err.message).toMatch(new RegExp(`^node ${node.id}: no LLM is configured: set LLM_PROVIDER`));
    }
  });

  it('rejects an llm action it does not know', async () => {
    const err = await failure(createLlmExecutor({ model: new ScriptedChatModel([]) })(ctxFor({ ...analyze, action: 'summon_oracle' }, {})));
    expect(err.code).toBe('UNIMPLEMENTED');
    expect(err.message).toContain("llm action 'summon_oracle' is not supported (supported: llm_analyze, synthesize_report, research_with_tools");
  });

  it('maps provider failures: auth is not retryable, rate limits and outages are', async () => {
    const withStatus = (status: number) => Object.assign(new Error(`status ${status}`), { status });
    const model = (e: Error) => new ScriptedChatModel([() => { throw e; }]);
    const auth = await failure(createLlmExecutor({ model: model(withStatus(401)) })(ctxFor(analyze, {})));
    expect([auth.code, auth.retryable]).toEqual(['FAILED_PRECONDITION', false]);
    expect(auth.message).toContain('(check LLM_API_KEY)');
    const limited = await failure(createLlmExecutor({ model: model(withStatus(429)) })(ctxFor(analyze, {})));
    expect([limited.code, limited.retryable]).toEqual(['UNAVAILABLE', true]);
    const down = await failure(createLlmExecutor({ model: model(new Error('ECONNREFUSED')) })(ctxFor(analyze, {})));
    expect([down.code, down.retryable]).toEqual(['UNAVAILABLE', true]);
    expect(down.message).toBe('node analyze: the LLM provider failed: ECONNREFUSED');
  });

  it('an exhausted test script is a clear non-retryable failure, not an answer', async () => {
    const err = await failure(createLlmExecutor({ model: new ScriptedChatModel([]) })(ctxFor(analyze, {})));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toContain('has no scripted response');
  });

  it('rethrows unchanged when the run is cancelled (the engine handles it)', async () => {
    const ac = new AbortController();
    ac.abort();
    const err = await createLlmExecutor({ model: new ScriptedChatModel([{ json: findings }]) })(ctxFor(analyze, {}, { signal: ac.signal })).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(AppError);
  });
});

describe('output_schema mapping agrees with @af/plan', () => {
  it('property: @af/llm converts an output_schema to the JSON Schema the playbook compiler puts on the node', () => {
    const types = ['string', 'number', 'integer', 'date', 'boolean', 'string[]', 'object', 'record', 'number[]'];
    const field = fc.record(
      { name: fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/), type: fc.constantFrom(...types), description: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }) },
      { requiredKeys: ['name', 'type'] },
    );
    fc.assert(
      fc.property(fc.constantFrom('object', 'record_set', 'scalar') as fc.Arbitrary<'object' | 'record_set' | 'scalar'>, fc.uniqueArray(field, { minLength: 1, maxLength: 5, selector: (f) => f.name }), (type, fields) => {
        const declared = fields.map((f) => (f.description === undefined ? { name: f.name, type: f.type } : f));
        // A scalar declares exactly one field (both sides reject more).
        const output_schema = { type, fields: type === 'scalar' ? declared.slice(0, 1) : declared };
        const compiled = compilePlaybookValue({
          id: 'p',
          name: 'p',
          execution_mode: 'hybrid',
          steps: [{ name: 'ask', step_type: 'llm_task', action: 'llm_analyze', inputs: { data: 'x' }, params: { instructions: 'i' }, output_schema }],
        });
        expect(compiled.ok).toBe(true);
        if (!compiled.ok) return;
        expect(compiled.plan.nodes[0]!.outputSchema).toEqual(outputSchemaToJsonSchema(output_schema));
      }),
      { numRuns: 60 },
    );
  });
});
