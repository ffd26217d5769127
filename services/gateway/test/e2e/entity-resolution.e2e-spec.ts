/**
 * The knowledge graph through the gateway, across processes: gateway,
 * planner, orchestrator, connector-runtime, approval and entity-resolution
 * (startStack({ entityResolution: true })), real gRPC, PostgreSQL, NATS.
 * A playbook resolves people and organisations; the ambiguous pair lands in
 * the review queue; approving merges it; reversing restores it (and a second
 * reversal is 409); analyze_graph returns communities; another user sees
 * none of it (404); bad inputs are 400 naming the field.
 *
 * Needs `pnpm build`.
 */
import { http, registerUser, startStack, type GatewayUser, type Stack } from '@af/testing';
import { waitForRun } from './skeleton.js';

let stack: Stack;
let alice: GatewayUser;
let bob: GatewayUser;
const url = (path: string) => `${stack.gatewayUrl}${path}`;

const playbook = `id: enrich-officers
name: Enrich officers
steps:
  - name: people
    step_type: tool
    action: resolve_entities
    inputs:
      entities:
        - { name: Ezekiel Okonkwo, type: PERSON, state: CA, city: Fresno, relationships: [{ type: OFFICER_OF, target: { name: Riverside Health Alliance Inc, type: ORG, external_ids: { ein: 04-3568784 } } }] }
        - { name: "Okonkwo, Ezekiel", type: PERSON, state: CA, city: Fresno }
        - { name: Maria Lopez, type: PERSON, state: TX, relationships: [{ type: OFFICER_OF, target: { name: Summit Literacy Fund, type: ORG } }] }
        - { name: E. Okonkwo, type: PERSON, state: CA, city: Oakland }
  - name: communities
    step_type: tool
    action: analyze_graph
    inputs: { entities: "{people.resolved}" }
    params: { algorithm: community_detection, scope: full_graph, max_nodes: 100 }
`;

beforeAll(async () => {
  stack = await startStack({ entityResolution: true });
  alice = await registerUser(stack.gatewayUrl, 'alice-er@example.com');
  bob = await registerUser(stack.gatewayUrl, 'bob-er@example.com');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('entity resolution through the gateway', () => {
  let runId = '';
  let reviewId = '';
  let mergeLogId = '';

  it('a playbook resolves entities; the ambiguous pair is queued for review; analyze_graph returns communities', async () => {
    const started = await http('POST', url('/api/v1/runs'), {
      token: alice.token,
      body: { playbook, inputs: {} },
    });
    expect(started.status).toBe(201);
    runId = started.body.run.id;
    const run = await waitForRun(stack, alice.token, runId);
    expect([run.status, run.error]).toEqual(['completed', null]);
    const people = run.nodes.find((n: any) => n.node_id === 'people');
    expect(people.output.merge_count).toBe(1);
    expect(people.output.ambiguous.map((a: any) => a.name)).toEqual(['E. Okonkwo']);
    const communities = run.nodes.find((n: any) => n.node_id === 'communities').output.results;
    expect(
      communities
        .map((c: any) => c.members.map((m: any) => m.name).sort())
        .filter((m: string[]) => m.length > 1)
        .sort(),
    ).toEqual([
      ['Ezekiel Okonkwo', 'Riverside Health Alliance Inc'],
      ['Maria Lopez', 'Summit Literacy Fund'],
    ]);
    const reviews = await http('GET', url('/api/agent-factory/entity-reviews'), { token: alice.token });
    expect(reviews.status).toBe(200);
    expect(
      reviews.body.reviews.map((r: any) => [
        r.source_entity_name,
        r.candidate_entity_name,
        r.status,
        r.execution_id,
      ]),
    ).toEqual([['E. Okonkwo', 'Ezekiel Okonkwo', 'pending', runId]]);
    reviewId = reviews.body.reviews[0].id;
    const discoveries = await http('GET', url(`/api/agent-factory/executions/${runId}/discoveries`), {
      token: alice.token,
    });
    expect(discoveries.status).toBe(200);
    expect(discoveries.body.discoveries.map((d: any) => d.discovery_type).sort()).toEqual(
      expect.arrayContaining(['entity_merge', 'new_entity', 'new_relationship']),
    );
    const stats = await http('GET', url('/api/agent-factory/discoveries/stats'), { token: alice.token });
    expect(stats.body).toMatchObject({ pending_reviews: 1, relationships: 2 });
  });

  it('approving merges the pair; reversing restores it; a second reversal is 409', async () => {
    const approved = await http('POST', url(`/api/agent-factory/entity-reviews/${reviewId}/approve`), {
      token: alice.token,
    });
    expect(approved.status).toBe(200);
    expect(approved.body.review.status).toBe('approved_merge');
    mergeLogId = approved.body.log_entry.id;
    const merged = await http('GET', url('/api/agent-factory/graph/search?q=okonkwo&types=PERSON'), {
      token: alice.token,
    });
    expect(merged.body.entities).toHaveLength(1);
    expect(merged.body.entities[0].aliases.sort()).toEqual(['E. Okonkwo', 'Okonkwo, Ezekiel']);
    const again = await http('POST', url(`/api/agent-factory/entity-reviews/${reviewId}/reject`), {
      token: alice.token,
    });
    expect(again.status).toBe(409);

    const reversed = await http('POST', url(`/api/agent-factory/entity-resolution/reverse/${mergeLogId}`), {
      token: alice.token,
    });
    expect(reversed.status).toBe(200);
    expect(reversed.body.entry.reversed_at).not.toBeNull();
    const split = await http('GET', url('/api/agent-factory/graph/search?q=okonkwo&types=PERSON'), {
      token: alice.token,
    });
    expect(split.body.entities.map((e: any) => [e.name, e.merge_count]).sort()).toEqual([
      ['E. Okonkwo', 1],
      ['Ezekiel Okonkwo', 2],
    ]);
    const twice = await http('POST', url(`/api/agent-factory/entity-resolution/reverse/${mergeLogId}`), {
      token: alice.token,
    });
    expect(twice.status).toBe(409);
    const log = await http('GET', url('/api/agent-factory/entity-resolution/log?action=user_merge'), {
      token: alice.token,
    });
    expect(log.body.entries.map((e: any) => [e.id, e.is_reversible, e.reversed_at !== null])).toEqual([
      [mergeLogId, false, true],
    ]);
  });

  it('splits a member out and reverses the split', async () => {
    const [ezekiel] = (
      await http('GET', url('/api/agent-factory/graph/search?q=Ezekiel%20Okonkwo&types=PERSON'), {
        token: alice.token,
      })
    ).body.entities;
    const member = ezekiel.members.find((m: any) => m.name === 'Okonkwo, Ezekiel');
    const split = await http('POST', url(`/api/agent-factory/graph/entities/${member.id}/split`), {
      token: alice.token,
    });
    expect(split.status).toBe(200);
    expect(split.body.entry).toMatchObject({ action: 'user_split', is_reversible: true });
    expect(
      (
        await http('POST', url(`/api/agent-factory/graph/entities/${member.id}/split`), {
          token: alice.token,
        })
      ).status,
    ).toBe(409);
    expect(
      (await http('POST', url(`/api/agent-factory/graph/entities/${member.id}/split`), { token: bob.token }))
        .status,
    ).toBe(404);
    expect(
      (
        await http('POST', url(`/api/agent-factory/entity-resolution/reverse/${split.body.entry.id}`), {
          token: alice.token,
        })
      ).status,
    ).toBe(200);
    const [back] = (
      await http('GET', url('/api/agent-factory/graph/search?q=Ezekiel%20Okonkwo&types=PERSON'), {
        token: alice.token,
      })
    ).body.entities;
    expect(back.merge_count).toBe(2);
  });

  it('serves neighbourhoods and analysis over HTTP', async () => {
    const [ezekiel] = (
      await http('GET', url('/api/agent-factory/graph/search?q=Ezekiel%20Okonkwo'), { token: alice.token })
    ).body.entities;
    const around = await http(
      'GET',
      url(`/api/agent-factory/graph/entities/${ezekiel.id}/neighbourhood?max_hops=1`),
      { token: alice.token },
    );
    expect(around.status).toBe(200);
    expect(around.body.entities.map((e: any) => e.name).sort()).toEqual([
      'Ezekiel Okonkwo',
      'Riverside Health Alliance Inc',
    ]);
    expect(around.body.relationships.map((r: any) => r.type)).toEqual(['OFFICER_OF']);
    const pr = await http('POST', url('/api/agent-factory/graph/analyze'), {
      token: alice.token,
      body: { algorithm: 'pagerank' },
    });
    expect(pr.status).toBe(200);
    expect(pr.body.node_count).toBe(5);
  });

  it('another user sees none of it', async () => {
    expect(
      (
        await http('GET', url('/api/agent-factory/entity-reviews?status=approved_merge'), {
          token: bob.token,
        })
      ).body.reviews,
    ).toEqual([]);
    expect(
      (await http('GET', url('/api/agent-factory/graph/search?q=okonkwo'), { token: bob.token })).body
        .entities,
    ).toEqual([]);
    expect(
      (await http('POST', url(`/api/agent-factory/entity-reviews/${reviewId}/approve`), { token: bob.token }))
        .status,
    ).toBe(404);
    expect(
      (
        await http('POST', url(`/api/agent-factory/entity-resolution/reverse/${mergeLogId}`), {
          token: bob.token,
        })
      ).status,
    ).toBe(404);
    expect(
      (await http('GET', url(`/api/agent-factory/executions/${runId}/discoveries`), { token: bob.token }))
        .status,
    ).toBe(404);
    expect(
      (await http('GET', url('/api/agent-factory/discoveries'), { token: bob.token })).body.discoveries,
    ).toEqual([]);
  });

  it('refuses bad inputs with 400 naming the field', async () => {
    const unknownType = `id: bad-type
name: Bad type
steps:
  - name: people
    step_type: tool
    action: resolve_entities
    inputs: { entities: [{ name: X, type: SPACESHIP }] }
`;
    const started = await http('POST', url('/api/v1/runs'), {
      token: alice.token,
      body: { playbook: unknownType, inputs: {} },
    });
    const run = await waitForRun(stack, alice.token, started.body.run.id);
    // The step fails with the field named (the run itself completes, as a failed tool step does by default).
    expect(run.nodes[0]).toMatchObject({
      node_id: 'people',
      status: 'failed',
      error: expect.stringContaining('inputs.entities[0].type: unknown entity type'),
    });
    const reverseBad = await http('POST', url('/api/agent-factory/entity-resolution/reverse/not-a-uuid'), {
      token: alice.token,
    });
    expect(reverseBad.status).toBe(400);
    expect(reverseBad.body.error.violations[0].field).toBe('log_id');
    const tooMany = await http('POST', url('/api/agent-factory/graph/analyze'), {
      token: alice.token,
      body: { algorithm: 'pagerank', max_nodes: 1_000_000 },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.violations[0].field).toBe('max_nodes');
    const badAlg = await http('POST', url('/api/agent-factory/graph/analyze'), {
      token: alice.token,
      body: { algorithm: 'telepathy' },
    });
    expect(badAlg.status).toBe(400);
    const badQuery = await http('GET', url('/api/agent-factory/entity-reviews?status=maybe'), {
      token: alice.token,
    });
    expect(badQuery.status).toBe(400);
  });
});
