/**
 * Auto-enrichment across processes: gateway, planner, orchestrator,
 * connector-runtime, output-router and entity-resolution
 * (startStack({ entityResolution: true, outputRouter: true })), real gRPC,
 * PostgreSQL, NATS, and a fixture HTTP server behind the connector. A
 * playbook with `output.auto_enrich_graph` pulls people and organisations
 * from the connector; the compiler's enrich_knowledge nodes feed the graph
 * through the endpoints' entity_extraction hints, with provenance on every
 * fact; the ambiguous pair is in the review queue; approving merges it;
 * reversing restores it (a second reversal is 409); analyze_graph returns
 * communities; another user sees none of it (404). Bad inputs: an unknown
 * entity type in a hint, malformed ids, max_nodes over the limit. An agent
 * profile's `output_config.auto_enrich_graph` does the same for the
 * connector steps of the playbook its chat run executes.
 *
 * Needs `pnpm build`.
 */
import pg from 'pg';
import { http, readSse, registerUser, startFixtureServer, startStack, type FixtureServer, type GatewayUser, type Stack } from '@af/testing';
import { waitForRun } from './skeleton.js';

let api: FixtureServer;
let stack: Stack;
let alice: GatewayUser;
let bob: GatewayUser;
let carol: GatewayUser;
let dave: GatewayUser;
const url = (path: string) => `${stack.gatewayUrl}${path}`;

const connector = (baseUrl: string, personType = 'PERSON') => `id: registry-api
name: Registry API
type: rest_api
version: "1.0"
connection:
  base_url: "${baseUrl}"
  auth: { type: none }
endpoints:
  people:
    method: GET
    path: /people
    parameters:
      - { name: after, type: integer, required: false }
    response_mapping:
      results_path: items
      fields: { name: full_name, organization: org, city: city, state: state }
      entity_extraction:
        - { field: name, entity_type: ${personType} }
        - { field: organization, entity_type: ORG, relationship_type: OFFICER_OF }
  orgs:
    method: GET
    path: /orgs
    response_mapping:
      results_path: items
      fields: { name: org_name, ein: ein, state: state }
      entity_extraction:
        - { field: name, entity_type: ORG }
`;

const playbook = `id: enrich-from-registry
name: Enrich from the registry
steps:
  - name: orgs
    step_type: tool
    action: call_connector
    connector: registry-api
    endpoint: orgs
    on_error: stop
  - name: people
    step_type: tool
    action: call_connector
    connector: registry-api
    endpoint: people
    inputs: { after: "{orgs.count}" }
    on_error: stop
output:
  format: json
  auto_enrich_graph: true
`;

const analyze = (maxNodes: number) => `id: registry-communities
name: Registry communities
steps:
  - name: communities
    step_type: tool
    action: analyze_graph
    params: { algorithm: community_detection, scope: full_graph, max_nodes: ${maxNodes} }
`;

beforeAll(async () => {
  api = await startFixtureServer();
  api.route('GET', '/orgs', () => ({
    json: {
      items: [
        { org_name: 'Riverside Health Alliance Inc', ein: '04-3568784', state: 'CA' },
        { org_name: 'Summit Literacy Fund', ein: '12-34', state: 'TX' },
      ],
    },
  }));
  api.route('GET', '/people', () => ({
    json: {
      items: [
        { full_name: 'Ezekiel Okonkwo', org: 'Riverside Health Alliance Inc', city: 'Fresno', state: 'CA' },
        { full_name: 'Okonkwo, Ezekiel', org: 'Riverside Health Alliance Inc', city: 'Fresno', state: 'CA' },
        { full_name: 'Maria Lopez', org: 'Summit Literacy Fund', state: 'TX' },
        // Ambiguous: an initial only, another city.
        { full_name: 'E. Okonkwo', city: 'Oakland', state: 'CA' },
      ],
    },
  }));
  stack = await startStack({ entityResolution: true, outputRouter: true });
  alice = await registerUser(stack.gatewayUrl, 'alice-enrich@example.com');
  bob = await registerUser(stack.gatewayUrl, 'bob-enrich@example.com');
  carol = await registerUser(stack.gatewayUrl, 'carol-enrich@example.com');
  dave = await registerUser(stack.gatewayUrl, 'dave-enrich@example.com');
  // Dave's registry: the record with an initial only gave its officer role to the same organisation.
  api.route('GET', '/v2/orgs', () => ({ json: { items: [] } }));
  api.route('GET', '/v2/people', () => ({
    json: {
      items: [
        { full_name: 'Ezekiel Okonkwo', org: 'Riverside Health Alliance Inc', city: 'Fresno', state: 'CA' },
        { full_name: 'Okonkwo, Ezekiel', org: 'Riverside Health Alliance Inc', city: 'Fresno', state: 'CA' },
        { full_name: 'E. Okonkwo', org: 'RIVERSIDE HEALTH ALLIANCE', city: 'Oakland', state: 'CA' },
      ],
    },
  }));
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await api?.close();
});

async function sql(text: string, values: unknown[]) {
  const c = new pg.Client({ connectionString: stack.db.url });
  await c.connect();
  try {
    return (await c.query(text, values)).rows;
  } finally {
    await c.end();
  }
}

describe('auto-enrichment of the knowledge graph from connector steps', () => {
  let runId = '';
  let reviewId = '';
  let mergeLogId = '';

  it('refuses a connector whose entity_extraction hint names an unknown entity type', async () => {
    const res = await http('POST', url('/api/agent-factory/connectors'), {
      token: alice.token,
      body: { yaml: connector(api.url, 'SPACESHIP') },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'endpoints.people.response_mapping.entity_extraction[0].entity_type' }),
      ]),
    );
    const created = await http('POST', url('/api/agent-factory/connectors'), {
      token: alice.token,
      body: { yaml: connector(api.url) },
    });
    expect(created.status).toBe(201);
  });

  it('a playbook run feeds the graph after each connector step, with provenance on every fact', async () => {
    const started = await http('POST', url('/api/v1/runs'), { token: alice.token, body: { playbook, inputs: {} } });
    expect(started.status).toBe(201);
    runId = started.body.run.id;
    const run = await waitForRun(stack, alice.token, runId, 60_000);
    expect([run.status, run.error]).toEqual(['completed', null]);
    const node = (id: string) => run.nodes.find((n: any) => n.node_id === id);
    expect(node('orgs_enrich')).toMatchObject({ status: 'completed' });
    expect(node('people_enrich')).toMatchObject({ status: 'completed' });
    // The malformed EIN of a record is reported, not stored, and the record is still resolved.
    expect(node('orgs_enrich').output.skipped).toEqual([
      { record_index: 1, field: 'ein', value: '12-34', reason: 'an EIN has nine digits (NN-NNNNNNN)' },
    ]);
    expect(node('orgs_enrich').output.resolved.map((e: any) => e.name)).toEqual([
      'Riverside Health Alliance Inc',
      'Summit Literacy Fund',
    ]);
    const people = node('people_enrich').output;
    expect(people.relationship_count).toBe(3);
    expect(people.ambiguous.map((a: any) => a.name)).toEqual(['E. Okonkwo']);

    const reviews = await http('GET', url('/api/agent-factory/entity-reviews'), { token: alice.token });
    const queued = reviews.body.reviews.map((r: any) => [r.source_entity_name, r.candidate_entity_name, r.source_entity_type, r.execution_id]);
    expect(queued).toContainEqual(['E. Okonkwo', 'Ezekiel Okonkwo', 'PERSON', runId]);
    // The rest: an organisation named by a person record (no state, no id) against the same name from the orgs
    // endpoint, which the scorer does not merge on the name alone.
    for (const [source, candidate, type] of queued.filter((q: string[]) => q[0] !== 'E. Okonkwo')) expect([source, type]).toEqual([candidate, 'ORG']);
    reviewId = reviews.body.reviews.find((r: any) => r.source_entity_name === 'E. Okonkwo').id;

    // Provenance of every entity row: connector, endpoint, run, the connector's node, record index, time.
    const [{ owner: userId }] = await sql(`SELECT owner FROM entity_resolution.review_queue WHERE id = $1`, [reviewId]);
    const rows = await sql(
      `SELECT e.name, p.connector, p.endpoint, p.run_id, p.node_id, p.record_index, p.retrieved_at
         FROM entity_resolution.provenance p JOIN entity_resolution.entities e ON e.id = p.entity_id
        WHERE p.owner = $1 ORDER BY p.id`,
      [userId],
    );
    expect(rows.length).toBe(2 + 4 + 3);
    for (const r of rows) {
      expect(r).toMatchObject({ connector: 'registry-api', run_id: runId });
      expect(r.retrieved_at).toBeInstanceOf(Date);
      expect(typeof r.record_index).toBe('number');
    }
    expect(rows.map((r) => [r.name, r.endpoint, r.node_id, r.record_index])).toEqual(
      expect.arrayContaining([
        ['Summit Literacy Fund', 'orgs', 'orgs', 1],
        ['E. Okonkwo', 'people', 'people', 3],
      ]),
    );
    // Relationships carry theirs as properties.
    const [ezekiel] = (await http('GET', url('/api/agent-factory/graph/search?q=Ezekiel%20Okonkwo&types=PERSON'), { token: alice.token })).body.entities;
    const around = await http('GET', url(`/api/agent-factory/graph/entities/${ezekiel.id}/neighbourhood?max_hops=1`), { token: alice.token });
    expect(around.body.relationships[0]).toMatchObject({
      type: 'OFFICER_OF',
      properties: {
        source_connector: 'registry-api',
        source_endpoint: 'people',
        source_execution_id: runId,
        source_node: 'people',
        source_field: 'organization',
      },
    });
    const discoveries = await http('GET', url(`/api/agent-factory/executions/${runId}/discoveries`), { token: alice.token });
    expect(new Set(discoveries.body.discoveries.map((d: any) => d.source_connector))).toEqual(new Set(['registry-api']));
  });

  it('approving merges the pair; reversing restores it; a second reversal is 409', async () => {
    const approved = await http('POST', url(`/api/agent-factory/entity-reviews/${reviewId}/approve`), { token: alice.token });
    expect(approved.status).toBe(200);
    mergeLogId = approved.body.log_entry.id;
    const merged = await http('GET', url('/api/agent-factory/graph/search?q=okonkwo&types=PERSON'), { token: alice.token });
    expect(merged.body.entities).toHaveLength(1);
    const reversed = await http('POST', url(`/api/agent-factory/entity-resolution/reverse/${mergeLogId}`), { token: alice.token });
    expect(reversed.status).toBe(200);
    const apart = await http('GET', url('/api/agent-factory/graph/search?q=okonkwo&types=PERSON'), { token: alice.token });
    expect(apart.body.entities.map((e: any) => [e.name, e.merge_count]).sort()).toEqual([
      ['E. Okonkwo', 1],
      ['Ezekiel Okonkwo', 2],
    ]);
    const twice = await http('POST', url(`/api/agent-factory/entity-resolution/reverse/${mergeLogId}`), { token: alice.token });
    expect(twice.status).toBe(409);
  });

  it('analyze_graph returns the communities of the enriched graph', async () => {
    const started = await http('POST', url('/api/v1/runs'), { token: alice.token, body: { playbook: analyze(100), inputs: {} } });
    const run = await waitForRun(stack, alice.token, started.body.run.id);
    expect(run.nodes[0].status).toBe('completed');
    // Names of each community (an organisation may be there twice: see the review queue above).
    const groups = run.nodes[0].output.results
      .map((c: any) => [...new Set<string>(c.members.map((m: any) => m.name))].sort())
      .filter((m: string[]) => m.length > 1)
      .sort();
    expect(groups).toEqual([
      ['Ezekiel Okonkwo', 'Riverside Health Alliance Inc'],
      ['Maria Lopez', 'Summit Literacy Fund'],
    ]);
  });

  it('another user sees none of it', async () => {
    expect((await http('GET', url('/api/agent-factory/entity-reviews?status=approved_merge'), { token: bob.token })).body.reviews).toEqual([]);
    expect((await http('GET', url('/api/agent-factory/graph/search?q=okonkwo'), { token: bob.token })).body.entities).toEqual([]);
    expect((await http('POST', url(`/api/agent-factory/entity-reviews/${reviewId}/approve`), { token: bob.token })).status).toBe(404);
    expect((await http('POST', url(`/api/agent-factory/entity-resolution/reverse/${mergeLogId}`), { token: bob.token })).status).toBe(404);
    expect((await http('GET', url(`/api/agent-factory/executions/${runId}/discoveries`), { token: bob.token })).status).toBe(404);
    const pr = await http('POST', url('/api/agent-factory/graph/analyze'), { token: bob.token, body: { algorithm: 'community_detection' } });
    expect(pr.body.node_count).toBe(0);
  });

  it('refuses malformed ids and max_nodes over the limit, naming the field', async () => {
    const badReverse = await http('POST', url('/api/agent-factory/entity-resolution/reverse/not-a-uuid'), { token: alice.token });
    expect([badReverse.status, badReverse.body.error.violations[0].field]).toEqual([400, 'log_id']);
    const badReview = await http('POST', url('/api/agent-factory/entity-reviews/12345/approve'), { token: alice.token });
    expect([badReview.status, badReview.body.error.violations[0].field]).toEqual([400, 'review_id']);
    const badSplit = await http('POST', url('/api/agent-factory/graph/entities/nope/split'), { token: alice.token });
    expect([badSplit.status, badSplit.body.error.violations[0].field]).toEqual([400, 'member_id']);
    const tooMany = await http('POST', url('/api/agent-factory/graph/analyze'), { token: alice.token, body: { algorithm: 'community_detection', max_nodes: 10_000_000 } });
    expect([tooMany.status, tooMany.body.error.violations[0].field]).toEqual([400, 'max_nodes']);
    const started = await http('POST', url('/api/v1/runs'), { token: alice.token, body: { playbook: analyze(10_000_000), inputs: {} } });
    const run = await waitForRun(stack, alice.token, started.body.run.id);
    expect(run.nodes[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('params.max_nodes') });
  });
});

describe('context from relationships', () => {
  it('merges the record with an initial only when it is related to the same organisation as the stored person', async () => {
    const as = { token: dave.token };
    expect((await http('POST', url('/api/agent-factory/connectors'), { ...as, body: { yaml: connector(`${api.url}/v2`) } })).status).toBe(201);
    const started = await http('POST', url('/api/v1/runs'), { ...as, body: { playbook, inputs: {} } });
    const run = await waitForRun(stack, dave.token, started.body.run.id, 60_000);
    expect([run.status, run.error]).toEqual(['completed', null]);
    expect(run.nodes.find((n: any) => n.node_id === 'people_enrich').output.ambiguous).toEqual([]);
    // Alice's E. Okonkwo, with no organisation, was a review item; Dave's is merged, on the shared officer role.
    const log = await http('GET', url('/api/agent-factory/entity-resolution/log?action=auto_merge'), as);
    const merge = log.body.entries.find((e: any) => e.source_entity_name === 'E. Okonkwo');
    expect(merge).toMatchObject({ target_entity_name: 'Ezekiel Okonkwo', is_reversible: true });
    expect(merge.match_details.levels).toMatchObject({ first_name: 'initial', city: 'different', context: 'one' });
    const people = await http('GET', url('/api/agent-factory/graph/search?q=okonkwo&types=PERSON'), as);
    expect(people.body.entities.map((e: any) => [e.name, e.merge_count])).toEqual([['Ezekiel Okonkwo', 3]]);
    expect((await http('GET', url('/api/agent-factory/entity-reviews'), as)).body.reviews).toEqual([]);
  });
});

describe("an agent profile's output_config.auto_enrich_graph", () => {
  const pull = `id: pull-registry
name: Pull the registry
execution_mode: deterministic
steps:
  - name: orgs
    step_type: tool
    action: call_connector
    connector: registry-api
    endpoint: orgs
    on_error: stop
`;

  it("feeds the graph from the connector steps of the playbook the profile's chat run executes", async () => {
    const as = { token: carol.token };
    expect((await http('POST', url('/api/agent-factory/connectors'), { ...as, body: { yaml: connector(api.url) } })).status).toBe(201);
    expect((await http('POST', url('/api/agent-factory/playbooks'), { ...as, body: { yaml: pull } })).status).toBe(201);
    const created = await http('POST', url('/api/agent-factory/profiles'), {
      ...as,
      body: { name: 'Registry enricher', handle: 'registry-enricher', strategy: 'pipeline', output_config: { auto_enrich_graph: true } },
    });
    expect(created.status).toBe(201);
    const profileId = created.body.profile.id;
    expect((await http('PUT', url(`/api/agent-factory/connectors/registry-api/bindings/${profileId}`), { ...as, body: {} })).status).toBe(200);
    expect((await http('POST', url(`/api/agent-factory/profiles/${profileId}/playbooks`), { ...as, body: { playbook_id: 'pull-registry' } })).status).toBe(201);

    const chat = await readSse(url('/api/async/orchestrator/stream'), { authorization: `Bearer ${carol.token}`, 'content-type': 'application/json' }, {
      method: 'POST',
      body: JSON.stringify({ message: '@registry-enricher pull the registry' }),
      timeoutMs: 60_000,
    });
    expect(chat.status).toBe(200);
    const frames = chat.frames.map((f) => JSON.parse(f.data) as { type: string; payload: any });
    expect(frames.find((f) => f.type === 'strategy')?.payload).toMatchObject({ strategy: 'pipeline', playbook_id: 'pull-registry' });
    const agentRunId = frames.find((f) => f.type === 'run')!.payload.run_id;
    const run = await waitForRun(stack, carol.token, agentRunId, 60_000);
    expect([run.status, run.error]).toEqual(['completed', null]);
    const enrich = run.nodes.find((n: any) => n.node_id === 'orgs_enrich');
    expect(enrich).toMatchObject({ status: 'completed' });
    expect(enrich.output.resolved.map((e: any) => e.name)).toEqual(['Riverside Health Alliance Inc', 'Summit Literacy Fund']);
    // In carol's graph, with the run's provenance; nobody else's.
    const discoveries = await http('GET', url(`/api/agent-factory/executions/${agentRunId}/discoveries`), as);
    expect(discoveries.body.discoveries.map((d: any) => [d.entity_name, d.source_connector, d.source_endpoint]).sort()).toEqual([
      ['Riverside Health Alliance Inc', 'registry-api', 'orgs'],
      ['Summit Literacy Fund', 'registry-api', 'orgs'],
    ]);
    expect((await http('GET', url(`/api/agent-factory/executions/${agentRunId}/discoveries`), { token: bob.token })).status).toBe(404);
  });
});
