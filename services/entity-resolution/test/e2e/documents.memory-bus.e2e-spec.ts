/**
 * The document index in `pnpm start`'s embedded mode: every service in one
 * process with the in-process bus (startStack({ bus: 'memory' })). An upload
 * through the gateway is ingested from output-router's event and found by
 * `search_documents` in a playbook run; the other user finds nothing of it.
 *
 * Needs `pnpm build`.
 */
import { http, registerUser, startStack, type GatewayUser, type Stack } from '@af/testing';

let stack: Stack;
let alice: GatewayUser;
let bob: GatewayUser;

const req = (user: GatewayUser, method: string, path: string, body?: unknown) =>
  http(method, `${stack.gatewayUrl}${path}`, { token: user.token, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  stack = await startStack({ outputRouter: true, entityResolution: true, bus: 'memory' });
  alice = await registerUser(stack.gatewayUrl, 'alice-docs-mem@example.com');
  bob = await registerUser(stack.gatewayUrl, 'bob-docs-mem@example.com');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

async function searchOutput(user: GatewayUser, query: string): Promise<any> {
  const playbook = `id: ask\nname: Ask\nsteps:\n  - name: docs\n    step_type: tool\n    action: search_documents\n    inputs: { query: ${JSON.stringify(query)} }\n`;
  const started = await req(user, 'POST', '/api/v1/runs', { playbook, inputs: {} });
  expect(started.status).toBe(201);
  for (;;) {
    const run = (await req(user, 'GET', `/api/v1/runs/${started.body.run.id}`)).body.run;
    if (['completed', 'failed', 'cancelled'].includes(run.status)) return run.nodes.find((n: any) => n.node_id === 'docs').output;
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('ingests an upload from the in-process event and finds it for its owner only', async () => {
  const up = await req(alice, 'POST', '/api/agent-factory/workspace/documents', {
    title: 'fleet.md',
    content_type: 'text/markdown',
    content: '# Fleet\n\n## Tugboats\n\nThe tugboat Sleipnir is refitted in Gdansk every second winter.\n',
  });
  expect(up.status).toBe(201);
  const id = up.body.document.id;
  const deadline = Date.now() + 30_000;
  let row: any;
  while (Date.now() < deadline) {
    [row] = await stack.db.query<any>('SELECT status FROM entity_resolution.doc_index_documents WHERE document_id = $1', [id]);
    if (row?.status === 'indexed') break;
    await new Promise((r) => setTimeout(r, 150));
  }
  expect(row?.status).toBe('indexed');
  const out = await searchOutput(alice, 'Where is the tugboat Sleipnir refitted?');
  expect(out.documents[0]).toMatchObject({ document_id: id, section: 'Fleet > Tugboats', file_type: 'markdown' });
  expect(out.documents[0].text).toContain('refitted in Gdansk');
  expect((await searchOutput(bob, 'Where is the tugboat Sleipnir refitted?')).count).toBe(0);
});
