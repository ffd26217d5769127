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
