/**
 * The same workspace playbook in `pnpm start`'s embedded mode: every service
 * in one process on the in-process event bus (startStack({ bus: 'memory' })),
 * output-router among them. Real: PostgreSQL, gRPC between the services.
 *
 * Needs `pnpm build`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { http, registerUser, startStack, type Stack } from '@af/testing';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ bus: 'memory', outputRouter: true });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

it('runs a playbook writing to the workspace, and the gateway shows what it wrote', async () => {
  const alice = await registerUser(stack.gatewayUrl, 'alice@example.com');
  const playbook = readFileSync(
    join(__dirname, '..', 'fixtures', 'save-notify-remember.playbook.yaml'),
    'utf8',
  );
  const started = await http('POST', `${stack.gatewayUrl}/api/v1/runs`, {
    token: alice.token,
    body: { playbook, inputs: { rows: [{ id: 1, name: 'a' }] } },
  });
  expect(started.status).toBe(201);
  let run: any;
  do {
    await new Promise((r) => setTimeout(r, 100));
    run = (
      await http('GET', `${stack.gatewayUrl}/api/v1/runs/${started.body.run.id}`, { token: alice.token })
    ).body.run;
  } while (!['completed', 'failed', 'cancelled'].includes(run.status));
  expect(run.status).toBe('completed');
  expect(run.outputs.saved.rows_inserted).toBe(1);
  const docs = await http('GET', `${stack.gatewayUrl}/api/agent-factory/workspace/documents`, {
    token: alice.token,
  });
  expect(docs.body.documents).toHaveLength(1);
  const todos = await http('GET', `${stack.gatewayUrl}/api/agent-factory/workspace/todos`, {
    token: alice.token,
  });
  expect(todos.body.todos.map((t: any) => t.title)).toEqual(['Review grants']);
});

it("routes a playbook's output block at the end of a background run and tells its owner", async () => {
  const bob = await registerUser(stack.gatewayUrl, 'bob@example.com');
  const playbook = [
    'id: in-process-digest',
    'name: In-process digest',
    'execution_mode: deterministic',
    'inputs:',
    '  - { name: rows, type: list, required: true }',
    'steps:',
    '  - name: pick',
    '    step_type: tool',
    '    action: transform_data',
    "    inputs: { data: '{rows}' }",
    'output:',
    '  save_to: document',
  ].join('\n');
  const started = await http('POST', `${stack.gatewayUrl}/api/v1/runs`, {
    token: bob.token,
    body: { playbook, inputs: { rows: [{ id: 1, name: 'a' }] }, run_context: 'background' },
  });
  expect(started.status).toBe(201);
  const id = started.body.run.id as string;
  let run: any;
  do {
    await new Promise((r) => setTimeout(r, 100));
    run = (await http('GET', `${stack.gatewayUrl}/api/v1/runs/${id}`, { token: bob.token })).body.run;
  } while (!['completed', 'failed', 'cancelled'].includes(run.status));
  expect(run.outputs.output.routing_report.map((r: any) => [r.destination, r.status])).toEqual([
    ['chat', 'success'],
    ['document', 'success'],
  ]);
  let notice: any;
  for (let i = 0; i < 100 && !notice; i++) {
    const inbox = await http('GET', `${stack.gatewayUrl}/api/agent-factory/workspace/notifications`, { token: bob.token });
    notice = inbox.body.notifications.find((n: any) => n.source.run_id === id && n.source.action === 'run_finished');
    if (!notice) await new Promise((r) => setTimeout(r, 100));
  }
  expect(notice).toMatchObject({ title: 'In-process digest completed', action_url: `/api/v1/runs/${id}` });
});
