import { compilePlaybook, type PlanGraph } from '@af/plan';
import { AppError, type ServedAction } from '@af/service-kit';
import type { Run } from '../domain/run-state.js';
import { actionCheck } from './action-availability.js';
import { PolicyCommands } from './policy-commands.js';
import { RunCommands } from './run-commands.js';
import { assertNewPlanRunnable, assertRunnable } from './run-start-checks.js';

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

/** A ServedAction record for `action`, from a service of this deployment. */
const served = (action: string): ServedAction => ({ action, service: 'connector-runtime', address: '127.0.0.1:1', version: '1', sideEffects: false });

const withUnserved = compiled(`id: q
name: Q
steps:
  - { name: find, step_type: tool, action: search_web, inputs: { query: "x" } }
  - { name: ping, step_type: tool, action: send_notification, inputs: { message: "found {find.count} pages" } }
`);

async function rejection(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe("assertNewPlanRunnable (a replan's new plan)", () => {
  // search_web is served here; send_notification's service is not part of this deployment.
  const searchOnly = actionCheck({ servedBy: async (name) => (name === 'search_web' ? served(name) : undefined) });

  it('refuses llm steps without a model (FAILED_PRECONDITION, no_model_configured), whatever the inputs', async () => {
    const err = await rejection(assertNewPlanRunnable(withLlm, { capabilities: { hasModel: false } }));
    expect(err.code).toBe('FAILED_PRECONDITION');
    expect(err.violations).toEqual([expect.objectContaining({ field: 'plan.nodes.summarise', code: 'no_model_configured' })]);
  });

  it('refuses actions nothing serves (INVALID_ARGUMENT, action_unavailable), together with the caller’s violations', async () => {
    const team = { field: 'plan.nodes.x.assignee', reason: 'is not a team of the caller' };
    const err = await rejection(assertNewPlanRunnable(withUnserved, { checkActions: searchOnly, capabilities: { hasModel: true } }, [team]));
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.violations).toEqual([team, expect.objectContaining({ field: 'plan.nodes.ping.action', code: 'action_unavailable' })]);
    expect(err.message).toContain('plan.nodes.ping.action');
  });

  it('passes a plan whose actions are served on an orchestrator with a model; checks not given are not made', async () => {
    await expect(assertNewPlanRunnable(withUnserved, { checkActions: actionCheck({ servedBy: async (name) => served(name) }), capabilities: { hasModel: false } })).resolves.toBeUndefined();
    await expect(assertNewPlanRunnable(withLlm, {})).resolves.toBeUndefined();
  });
});

describe('ReplanRun applies them before anything is stored', () => {
  const neverCalled = new Proxy({}, { get: () => () => { throw new Error('the policy store must not be reached'); } }) as never;
  const runId = '00000000-0000-4000-8000-000000000001';
  const current = compiled(`id: c
name: C
steps:
  - { name: find, step_type: tool, action: search_web, inputs: { query: "x" } }
`);
  const run: Run = { id: runId, userId: 'u', status: 'running', runContext: 'background', plan: current, planVersion: 1, inputs: { topic: 'x' }, error: null, createdAt: new Date(), updatedAt: new Date() };
  const repo = { get: async () => run } as never;
  const commands = new PolicyCommands(repo, neverCalled, async () => ({}), neverCalled, undefined, {
    checkActions: actionCheck({ servedBy: async (name) => (name === 'search_web' ? served(name) : undefined) }),
    capabilities: { hasModel: false },
  });
  const replan = (plan: PlanGraph) => commands.replan('u', runId, { plan, rationale: '', policyId: '', expectedPlanVersion: 0, idempotencyKey: '' });

  it('a new plan with llm steps and no model, or with an unserved action, is refused with StartRun’s codes', async () => {
    await expect(replan(withLlm)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', violations: [expect.objectContaining({ code: 'no_model_configured' })] });
    await expect(replan(withUnserved)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [expect.objectContaining({ field: 'plan.nodes.ping.action', code: 'action_unavailable' })] });
  });
});
