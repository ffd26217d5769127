/**
 * The `llm` node through the orchestrator process with the scripted chat
 * model (LLM_PROVIDER=scripted): structured output validated against the
 * node's output_schema, with a retry that feeds the validation errors back.
 */
import { orchestrator } from '@af/contracts';
import { PlanGraphSchema, planToWire } from '@af/plan';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { startStack, type Stack } from '@af/testing';

let stack: Stack;
let client: orchestrator.OrchestratorServiceClient;
const principal = { userId: 'llm-user', teamIds: [] };

beforeAll(async () => {
  const script = [{ json: { summary: 'missing the risk field' } }, { json: { summary: 'Two filings, both recent', risk: 2 } }];
  stack = await startStack({ env: { orchestrator: { LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify(script) } } });
  client = createGrpcClient('orchestrator', orchestrator.ORCHESTRATOR_SERVICE_NAME, `127.0.0.1:${stack.services.orchestrator.env.GRPC_PORT}`, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
});

afterAll(async () => {
  await stack?.stop();
});

async function runToEnd(nodes: unknown[]): Promise<orchestrator.Run> {
  const plan = planToWire(PlanGraphSchema.parse({ nodes }));
  const { run } = await call(client.startRun({ outputContract: undefined, goalCondition: [], policies: [], principal, plan, inputs: {}, idempotencyKey: '', runContext: 'background' }));
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { run: r } = await call(client.getRun({ principal, runId: run!.id }));
    if ([3, 4, 5].includes(r!.status)) return r!;
    if (Date.now() > deadline) throw new Error('run did not finish');
    await new Promise((res) => setTimeout(res, 50));
  }
}

it('synthesize_report returns schema-valid output, retrying an invalid answer', async () => {
  const r = await runToEnd([
    { id: 'prep', kind: 'tool', action: 'transform_data', inputs: { data: [{ year: 2023 }, { year: 2024 }] }, params: {} },
    {
      id: 'report',
      kind: 'llm',
      action: 'synthesize_report',
      inputs: { filings: '{prep.data}' },
      params: { instructions: 'Summarise the filings and rate the risk 1-5.' },
      outputSchema: { type: 'object', fields: [{ name: 'summary', type: 'string' }, { name: 'risk', type: 'integer' }] },
      dependsOn: ['prep'],
    },
  ]);
  expect(r.status).toBe(orchestrator.RunStatus.RUN_STATUS_COMPLETED);
  expect(r.outputs!.report).toEqual({ summary: 'Two filings, both recent', risk: 2 });
  // The script is used up: a further llm node fails clearly instead of inventing an answer.
  const again = await runToEnd([{ id: 'more', kind: 'llm', action: 'llm_analyze', inputs: { x: 1 }, params: { instructions: 'analyse' }, outputSchema: { type: 'object', fields: [{ name: 'v', type: 'string' }] }, errorPolicy: { onError: 'stop' } }]);
  expect(again.status).toBe(orchestrator.RunStatus.RUN_STATUS_FAILED);
  expect(again.nodes[0]!.error).toMatch(/script/i);
});
