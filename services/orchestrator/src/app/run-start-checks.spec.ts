import { compilePlaybook, type PlanGraph } from '@af/plan';
import { AppError } from '@af/service-kit';
import { RunCommands } from './run-commands.js';
import { assertRunnable } from './run-start-checks.js';

function compiled(yaml: string): PlanGraph {
  const r = compilePlaybook(yaml);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.plan;
}

const withLlm = compiled(`id: p
name: P
inputs:
  - { name: topic, type: string, required: true }
  - { name: depth, enum: [quick, deep] }
steps:
  - { name: find, step_type: tool, action: search_web, inputs: { query: "{topic}" } }
  - { name: summarise, step_type: llm_task, action: llm_analyze, inputs: { data: "{find.results}" }, output_schema: { fields: [{ name: text, type: string }] } }
`);

function refusal(fn: () => void): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('assertRunnable', () => {
  it('passes good inputs on an orchestrator with a model', () => {
    expect(() => assertRunnable(withLlm, { topic: 'x', depth: 'deep' }, { hasModel: true })).not.toThrow();
  });

  it('refuses bad inputs with INVALID_ARGUMENT naming each inputs.<name>', () => {
    const err = refusal(() => assertRunnable(withLlm, { topic: 3, depth: 'deap', extra: 1 }, { hasModel: true }));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toEqual([
      { field: 'inputs.topic', reason: 'must be a string, not a number', code: 'invalid_type' },
      { field: 'inputs.depth', reason: 'must be one of "quick", "deep", not "deap"', code: 'invalid_enum', suggestedFix: 'deep' },
      { field: 'inputs.extra', reason: 'is not an input of this playbook (its inputs: topic, depth)', code: 'unknown_input' },
    ]);
    expect(err.message).toContain('inputs.topic: must be a string');
  });

  it('refuses a playbook with llm steps when no model is configured, naming the step and how to configure one', () => {
    const err = refusal(() => assertRunnable(withLlm, { topic: 'x' }, { hasModel: false }));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.message).toBe(
      "step 'summarise' is an llm_task step, but no LLM model is configured for the orchestrator: set LLM_PROVIDER (openai, anthropic or ollama) with LLM_MODEL and LLM_API_KEY / LLM_BASE_URL",
    );
    expect(err.violations).toEqual([expect.objectContaining({ field: 'plan.nodes.summarise', code: 'no_model_configured', step: 'summarise' })]);
  });

  it('input errors come first; plans of other front-ends keep the old rules', () => {
    expect(refusal(() => assertRunnable(withLlm, {}, { hasModel: false })).code).toBe('INVALID_ARGUMENT');
    const raw: PlanGraph = { ...withLlm, provenance: undefined };
    expect(() => assertRunnable(raw, { topic: 'x', anything: 1 }, { hasModel: false })).not.toThrow();
  });
});

describe('StartRun calls it before anything is stored', () => {
  const neverCalled = new Proxy({}, { get: () => () => { throw new Error('the repository must not be reached'); } }) as never;

  it('a typed input error and a missing model are refused by start()', async () => {
    const commands = new RunCommands(neverCalled, undefined, undefined, undefined, { hasModel: false });
    const start = (inputs: Record<string, unknown>) => commands.start({ userId: 'u', plan: withLlm, inputs, runContext: '', idempotencyKey: 'k' });
    await expect(start({ topic: ['x'] })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [expect.objectContaining({ field: 'inputs.topic' })] });
    await expect(start({ topic: 'x' })).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  });
});
