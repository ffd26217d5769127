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
  // Table filters and a table export, as in the multi-process stack.
  const W = `${stack.gatewayUrl}/api/agent-factory/workspace`;
  const rows = await http('GET', `${W}/tables/default/grants/rows?filter.name=a`, { token: alice.token });
  expect(rows.body.rows.map((r: any) => r.id)).toEqual([1]);
  expect((await http('GET', `${W}/tables/default/grants/rows?filter.nope=a`, { token: alice.token })).status).toBe(400);
  const exported = await http('POST', `${W}/tables/default/grants/export`, { token: alice.token, body: { format: 'json', filters: { id: 1 } } });
  expect(exported.status).toBe(201);
  const listed = await http('GET', `${W}/exports`, { token: alice.token });
  expect(listed.body.exports.map((e: any) => e.export_id)).toEqual([exported.body.export_id]);
  const file = await fetch(`${stack.gatewayUrl}${exported.body.download_url}`, { headers: { authorization: `Bearer ${alice.token}` } });
  expect(((await file.json()) as Array<{ name: string }>).map((r) => r.name)).toEqual(['a']);
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
