/**
 * The knowledge graph in `pnpm start`'s embedded mode: every service in one
 * process on the in-process event bus (startStack({ bus: 'memory',
 * entityResolution: true })). A playbook resolves records; the ambiguous one
 * is in the review queue; approving it merges the pair.
 *
 * Needs `pnpm build`.
 */
import { http, registerUser, startStack, type GatewayUser, type Stack } from '@af/testing';
import { waitForRun } from './skeleton.js';

let stack: Stack;
let alice: GatewayUser;

const playbook = `id: enrich-in-process
name: Enrich in process
steps:
  - name: people
    step_type: tool
    action: resolve_entities
    inputs:
      entities:
        - { name: Ezekiel Okonkwo, type: PERSON, state: CA, city: Fresno }
        - { name: "Okonkwo, Ezekiel", type: PERSON, state: CA, city: Fresno }
        - { name: E. Okonkwo, type: PERSON, state: CA, city: Oakland }
`;

beforeAll(async () => {
  stack = await startStack({ bus: 'memory', entityResolution: true });
  alice = await registerUser(stack.gatewayUrl, 'alice-er-memory@example.com');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

it('resolves, queues the ambiguous record and merges it on approval, all in one process', async () => {
  const started = await http('POST', `${stack.gatewayUrl}/api/v1/runs`, {
    token: alice.token,
    body: { playbook, inputs: {} },
  });
  expect(started.status).toBe(201);
  const run = await waitForRun(stack, alice.token, started.body.run.id);
  expect(run.nodes[0]).toMatchObject({ status: 'completed', output: { merge_count: 1 } });
  const reviews = await http('GET', `${stack.gatewayUrl}/api/agent-factory/entity-reviews`, {
    token: alice.token,
  });
  expect(reviews.body.reviews.map((r: any) => r.source_entity_name)).toEqual(['E. Okonkwo']);
  const approved = await http(
    'POST',
    `${stack.gatewayUrl}/api/agent-factory/entity-reviews/${reviews.body.reviews[0].id}/approve`,
    { token: alice.token },
  );
  expect(approved.status).toBe(200);
  const found = await http('GET', `${stack.gatewayUrl}/api/agent-factory/graph/search?q=okonkwo`, {
    token: alice.token,
  });
  expect(found.body.entities.map((e: any) => e.merge_count)).toEqual([3]);
});
