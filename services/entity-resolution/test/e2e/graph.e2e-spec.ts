/**
 * entity-resolution across processes. Real: the service (`dist/main.js`),
 * PostgreSQL (a fresh database), gRPC (ActionService + EntityService).
 * Resolve → review → approve → reverse → analyse, tenant isolation, bad
 * inputs, and the ActionService contract every serving service runs.
 *
 * Needs `pnpm --filter @af/entity-resolution build`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { action, entity } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { createTestDatabase, freePort, ServiceProcess, TEST_NATS_URL, type TestDatabase } from '@af/testing';
import pg from 'pg';
import { MODEL_FILE_FORMAT, MODEL_FILE_VERSION } from '../../src/domain/model-file.js';
import { DEFAULT_MODEL } from '../../src/domain/scoring.js';

const SERVICE_AUTH_SECRET = randomBytes(32).toString('hex');
const auth = new ServiceAuth({ secret: SERVICE_AUTH_SECRET, service: 'e2e' });
const alice = { userId: `alice-${randomBytes(3).toString('hex')}`, teamIds: [] };
const bob = { userId: `bob-${randomBytes(3).toString('hex')}`, teamIds: [] };

let db: TestDatabase;
let svc: ServiceProcess;
let actions: action.ActionServiceClient;
let graph: entity.EntityServiceClient;

beforeAll(async () => {
  db = await createTestDatabase();
  const port = await freePort();
  svc = new ServiceProcess('entity-resolution', {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: `t${randomBytes(4).toString('hex')}`,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(port),
    METRICS_PORT: '0',
    LOG_LEVEL: 'debug',
    SERVICE_AUTH_SECRET,
    ER_MAX_ANALYZE_NODES: '500',
  });
  await svc.start();
  actions = createGrpcClient<action.ActionServiceClient>(
    'action',
    action.ACTION_SERVICE_NAME,
    `127.0.0.1:${port}`,
    { auth },
  );
  graph = createGrpcClient<entity.EntityServiceClient>(
    'entity',
    entity.ENTITY_SERVICE_NAME,
    `127.0.0.1:${port}`,
    { auth },
  );
}, 90_000);

afterAll(async () => {
  await svc?.stop();
  await db?.drop();
});

let seq = 0;
const run = (
  name: string,
  inputs: Record<string, unknown>,
  params: Record<string, unknown> = {},
  principal = alice,
) => {
  const runId = randomUUID();
  return call(
    actions.execute({
      action: name,
      inputs,
      params,
      principal,
      idempotencyKey: `${runId}:n${++seq}:1`,
      runId,
      nodeId: `n${seq}`,
      attempt: 1,
      timeoutMs: 30_000,
    }),
  );
};
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return (err as { code?: unknown }).code;
  }
  throw new Error('expected the call to fail');
};

/** Alice's graph state: entity groups and links, to compare before / after. */
async function snapshot(owner: string) {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    const { rows } = await c.query(
      `SELECT id, parent_id, root_id FROM entity_resolution.entities WHERE owner = $1 ORDER BY id`,
      [owner],
    );
    return rows;
  } finally {
    await c.end();
  }
}

const people = [
  {
    name: 'Ezekiel Okonkwo',
    type: 'PERSON',
    state: 'CA',
    city: 'Fresno',
    employer: 'Riverside Health Alliance',
    relationships: [
      {
        type: 'OFFICER_OF',
        target: { name: 'Riverside Health Alliance Inc', type: 'ORG', external_ids: { ein: '04-3568784' } },
      },
    ],
  },
  {
    name: 'Okonkwo, Ezekiel',
    type: 'PERSON',
    state: 'CA',
    city: 'Fresno',
    relationships: [
      {
        type: 'OFFICER_OF',
        target: {
          name: 'RIVERSIDE HEALTH ALLIANCE, INCORPORATED',
          type: 'ORG',
          external_ids: { ein: '043568784' },
        },
      },
    ],
  },
  {
    name: 'Maria Lopez',
    type: 'PERSON',
    state: 'TX',
    relationships: [
      {
        type: 'OFFICER_OF',
        target: { name: 'Summit Literacy Fund', type: 'ORG', external_ids: { ein: '11-1111111' } },
      },
    ],
  },
  {
    name: 'Lopez, Maria',
    type: 'PERSON',
    state: 'TX',
    relationships: [
      {
        type: 'DONATED_TO',
        target: { name: 'Friends of Summit PAC', type: 'ORG', external_ids: { fec_id: 'C00523514' } },
      },
    ],
  },
  // Ambiguous: initial only, another city.
  { name: 'E. Okonkwo', type: 'PERSON', state: 'CA', city: 'Oakland' },
];

describe('entity-resolution over gRPC', () => {
  let reviewId = '';

  it('resolve_entities merges variants, links relationships and queues the ambiguous record', async () => {
    const out = await run('resolve_entities', { entities: people });
    const o = out.outputs as {
      resolved: Array<{ name: string; type: string; merge_count: number }>;
      merge_count: number;
      ambiguous: Array<{ name: string; review_id: string }>;
    };
    expect(out.replayed).toBe(false);
    // The entities given (relationship targets are resolved too, but not listed).
    expect(o.merge_count).toBe(2);
    expect(o.resolved.map((p) => p.name).sort()).toEqual(['E. Okonkwo', 'Ezekiel Okonkwo', 'Maria Lopez']);
    expect(o.ambiguous.map((a) => a.name)).toEqual(['E. Okonkwo']);
    reviewId = o.ambiguous[0]!.review_id;
    const reviews = await call(graph.listReviews({ principal: alice, status: '', limit: 0 }));
    expect(reviews.reviews.map((r) => [r.id, r.sourceEntityName, r.candidateEntityName, r.status])).toEqual([
      [reviewId, 'E. Okonkwo', 'Ezekiel Okonkwo', 'pending'],
    ]);
    const found = await call(
      graph.searchGraph({ principal: alice, query: 'riverside health', entityTypes: ['ORG'], limit: 5 }),
    );
    expect(found.entities).toHaveLength(1);
    expect(found.entities[0]).toMatchObject({ mergeCount: 2, externalIds: { ein: '04-3568784' } });
  });

  it('answers the entity each record belongs to once the call ends, when a later record of the call bridged an earlier one', async () => {
    const carol = { userId: `carol-${randomBytes(3).toString('hex')}`, teamIds: [] };
    const out = await run(
      'resolve_entities',
      {
        entities: [
          { name: 'Ezekiel Okonkwo', type: 'PERSON', employer: 'Fresno Water Trust', city: 'Fresno' },
          { name: 'Okonkwo, Ezekiel Q.', type: 'PERSON', state: 'CA' },
          { name: 'Ezekiel Q. Okonkwo', type: 'PERSON', state: 'CA', employer: 'Fresno Water Trust', city: 'Fresno' },
        ],
      },
      {},
      carol,
    );
    const o = out.outputs as { resolved: Array<{ entity_id: string; aliases: string[] }>; ambiguous: Array<{ entity_id: string }>; count: number };
    // The third record merged into one and bridged the other: one entity holds all three.
    expect(o.count).toBe(1);
    expect(o.ambiguous).toHaveLength(1);
    expect(o.ambiguous[0]!.entity_id).toBe(o.resolved[0]!.entity_id);
    const [root] = await snapshot(carol.userId).then((rows) => [...new Set(rows.map((r) => r.root_id))]);
    expect(o.resolved[0]!.entity_id).toBe(root);
  });

  it('approving merges the pair; reversing restores the exact prior state, even after a later merge', async () => {
    const before = await snapshot(alice.userId);
    const decided = await call(graph.decideReview({ principal: alice, reviewId, decision: 'approve' }));
    expect(decided.review?.status).toBe('approved_merge');
    expect(decided.logEntry?.action).toBe('user_merge');
    const merged = await call(
      graph.searchGraph({ principal: alice, query: 'okonkwo', entityTypes: [], limit: 5 }),
    );
    expect(merged.entities).toHaveLength(1);
    expect(merged.entities[0]!.aliases).toEqual(expect.arrayContaining(['E. Okonkwo', 'Okonkwo, Ezekiel']));
    // A later merge touching the same entity.
    await run('resolve_entities', {
      entities: [{ name: 'Dr. Ezekiel Okonkwo', type: 'PERSON', state: 'CA', city: 'Fresno' }],
    });
    const reversed = await call(graph.reverseDecision({ principal: alice, logId: decided.logEntry!.id }));
    expect(reversed.entry?.reversedAt).not.toBe('');
    const after = await snapshot(alice.userId);
    // Every entity that existed before has its prior link and root back; the later record stays merged.
    const prior = new Map(before.map((r) => [r.id, r]));
    expect(after.filter((r) => prior.has(r.id))).toEqual(before);
    expect(after.length).toBe(before.length + 1);
    await expect(
      codeOf(call(graph.reverseDecision({ principal: alice, logId: decided.logEntry!.id }))),
    ).resolves.toBe('FAILED_PRECONDITION');
    await expect(
      codeOf(call(graph.decideReview({ principal: alice, reviewId, decision: 'reject' }))),
    ).resolves.toBe('FAILED_PRECONDITION');
  });

  it('splits a member out (user_split) and reverses the split', async () => {
    const [maria] = (
      await call(
        graph.searchGraph({ principal: alice, query: 'Maria Lopez', entityTypes: ['PERSON'], limit: 1 }),
      )
    ).entities;
    expect(maria!.members.map((m) => m.name)).toEqual(['Maria Lopez', 'Lopez, Maria']);
    const member = maria!.members[1]!.id;
    const split = await call(graph.splitEntity({ principal: alice, memberId: member }));
    expect(split.entry).toMatchObject({
      action: 'user_split',
      sourceEntityName: 'Lopez, Maria',
      targetEntityName: 'Maria Lopez',
      isReversible: true,
    });
    const apart = await call(
      graph.searchGraph({ principal: alice, query: 'lopez', entityTypes: ['PERSON'], limit: 5 }),
    );
    expect(apart.entities.map((e) => e.mergeCount)).toEqual([1, 1]);
    await expect(codeOf(call(graph.splitEntity({ principal: alice, memberId: member })))).resolves.toBe(
      'FAILED_PRECONDITION',
    );
    await expect(codeOf(call(graph.splitEntity({ principal: bob, memberId: member })))).resolves.toBe(
      'NOT_FOUND',
    );
    await call(graph.reverseDecision({ principal: alice, logId: split.entry!.id }));
    const together = await call(
      graph.searchGraph({ principal: alice, query: 'lopez', entityTypes: ['PERSON'], limit: 5 }),
    );
    expect(together.entities.map((e) => [e.name, e.mergeCount])).toEqual([['Maria Lopez', 2]]);
  });

  it('analyze_graph finds the two communities; a subgraph and a shortest path too', async () => {
    const out = await run('analyze_graph', {}, { algorithm: 'community_detection', max_nodes: 100 });
    const results = out.outputs!.results as Array<{ members: Array<{ name: string }> }>;
    const named = results.map((c) => c.members.map((m) => m.name).sort()).filter((m) => m.length > 1);
    expect(named).toEqual([
      ['Friends of Summit PAC', 'Maria Lopez', 'Summit Literacy Fund'],
      ['Ezekiel Okonkwo', 'Riverside Health Alliance Inc'],
    ]);
    const path = await run(
      'analyze_graph',
      { entities: ['Summit Literacy Fund', 'Friends of Summit PAC'] },
      { algorithm: 'shortest_path' },
    );
    expect((path.outputs!.results as Array<{ length: number }>)[0]?.length).toBe(2);
    const pr = await call(
      graph.analyzeGraph({ principal: alice, algorithm: 'pagerank', entities: [], maxNodes: 50 }),
    );
    expect(pr.nodeCount).toBeGreaterThanOrEqual(5);
  });

  it('search_knowledge_graph returns related entities; detect_new_entities moves its watermark', async () => {
    const out = await run(
      'search_knowledge_graph',
      { entity_name: 'Maria Lopez' },
      { include_related: true, max_hops: 1 },
    );
    expect((out.outputs!.entities as Array<{ name: string }>).map((e) => e.name).sort()).toEqual([
      'Friends of Summit PAC',
      'Maria Lopez',
      'Summit Literacy Fund',
    ]);
    expect((out.outputs!.relationships as Array<{ type: string }>).map((r) => r.type).sort()).toEqual([
      'DONATED_TO',
      'OFFICER_OF',
    ]);
    const first = await run('detect_new_entities', { entity_types: ['ORG'] });
    expect(first.outputs!.count).toBe(3);
    const again = await run(
      'detect_new_entities',
      { entity_types: ['ORG'] },
      { watermark: first.outputs!.watermark },
    );
    expect(again.outputs!.count).toBe(0);
  });

  it('extract_entities and cross_reference run on the records given', async () => {
    const ex = await run('extract_entities', {
      data: [{ contributor_name: 'John Smith', employer: 'Acme Corp' }],
    });
    expect(ex.outputs!.count).toBe(2);
    const xr = await run(
      'cross_reference',
      { dataset_a: [{ name: 'Acme Inc' }], dataset_b: [{ name: 'ACME Incorporated' }, { name: 'Other' }] },
      { match_strategy: 'exact' },
    );
    expect(xr.outputs).toMatchObject({ count: 1, unmatched_a: [], unmatched_b: [{ name: 'Other' }] });
  });

  it('another user sees none of it', async () => {
    expect(
      (await call(graph.listReviews({ principal: bob, status: 'approved_merge', limit: 10 }))).reviews,
    ).toEqual([]);
    expect(
      (await call(graph.searchGraph({ principal: bob, query: 'okonkwo', entityTypes: [], limit: 5 })))
        .entities,
    ).toEqual([]);
    const log = await call(graph.listResolutionLog({ principal: alice, action: 'user_merge', limit: 1 }));
    await expect(
      codeOf(call(graph.reverseDecision({ principal: bob, logId: log.entries[0]!.id }))),
    ).resolves.toBe('NOT_FOUND');
    await expect(
      codeOf(call(graph.decideReview({ principal: bob, reviewId, decision: 'approve' }))),
    ).resolves.toBe('NOT_FOUND');
    expect((await run('analyze_graph', {}, { algorithm: 'pagerank' }, bob)).outputs!.node_count).toBe(0);
    expect((await call(graph.discoveryStats({ principal: bob }))).total).toBe('0');
    expect(Number((await call(graph.discoveryStats({ principal: alice }))).total)).toBeGreaterThan(0);
  });

  it('refuses bad inputs naming the field', async () => {
    const bad = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (err) {
        return { code: (err as { code?: unknown }).code, message: String((err as Error).message) };
      }
      throw new Error('expected the call to fail');
    };
    expect(
      await bad(run('resolve_entities', { entities: [{ name: 'X', type: 'SPACESHIP' }] })),
    ).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('inputs.entities[0].type'),
    });
    expect(
      await bad(
        run('resolve_entities', { entities: [{ name: 'X', type: 'ORG', external_ids: { ein: '12-34' } }] }),
      ),
    ).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('inputs.entities[0].external_ids.ein'),
    });
    expect(await bad(run('analyze_graph', {}, { algorithm: 'pagerank', max_nodes: 501 }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('params.max_nodes'),
    });
    expect(await bad(run('analyze_graph', {}, { algorithm: 'telepathy' }))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('params.algorithm'),
    });
    await expect(
      codeOf(call(graph.reverseDecision({ principal: alice, logId: 'not-a-uuid' }))),
    ).resolves.toBe('INVALID_ARGUMENT');
    await expect(
      codeOf(call(graph.decideReview({ principal: alice, reviewId, decision: 'maybe' }))),
    ).resolves.toBe('INVALID_ARGUMENT');
    await expect(
      codeOf(
        call(graph.getNeighbourhood({ principal: alice, entityId: randomUUID(), maxHops: 1, maxNodes: 10 })),
      ),
    ).resolves.toBe('NOT_FOUND');
  });
});

describe('ActionService', () => {
  it('lists the six graph actions, enrich_knowledge and the two document-index actions', async () => {
    const listed = await call(actions.listActions({}));
    expect(listed.actions.map((a) => a.name).sort()).toEqual([
      'analyze_graph',
      'cross_reference',
      'detect_new_entities',
      'enrich_knowledge',
      'extract_entities',
      'find_file_by_vectors',
      'resolve_entities',
      'search_documents',
      'search_knowledge_graph',
    ]);
  });

  it('executes resolve_entities once per idempotency key and answers a repeat from the receipt its write stored', async () => {
    const count = async () => {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        const { rows } = await c.query(
          `SELECT count(*)::int AS n FROM entity_resolution.entities WHERE owner = $1 AND name = 'Probe Org LLC'`,
          [alice.userId],
        );
        return rows[0].n as number;
      } finally {
        await c.end();
      }
    };
    const runId = randomUUID();
    const req = {
      action: 'resolve_entities',
      inputs: { entities: [{ name: 'Probe Org LLC', type: 'ORG' }] },
      params: {},
      principal: alice,
      idempotencyKey: `${runId}:probe:1`,
      runId,
      nodeId: 'probe',
      attempt: 1,
      timeoutMs: 10_000,
    };
    const first = await call(actions.execute(req));
    // The call was completed by the resolve's own write (its receipt), not by a write after it: a
    // process dying between the two cannot make a retry resolve the record again.
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c
      .query(`SELECT status, outputs, receipt FROM entity_resolution.action_executions WHERE idempotency_key = $1`, [req.idempotencyKey])
      .finally(() => c.end());
    expect(rows).toEqual([
      {
        status: 'completed',
        outputs: null,
        receipt: { results: [expect.objectContaining({ decision: 'create_new', entityId: (first.outputs!.resolved as Array<{ entity_id: string }>)[0]!.entity_id })] },
      },
    ]);
    const again = await call(actions.execute(req));
    expect([first.replayed, again.replayed]).toEqual([false, true]);
    expect(again.outputs).toEqual(first.outputs);
    expect(await count()).toBe(1);
    const unknown = await codeOf(
      call(actions.execute({ ...req, action: 'resolve_everything', idempotencyKey: `${runId}:probe:2` })),
    );
    expect(unknown).toBe('INVALID_ARGUMENT');
  });
});

describe('ER_MODEL_FILE', () => {
  const modelFile = (model: unknown) => {
    const dir = mkdtempSync(join(tmpdir(), 'er-model-'));
    const path = join(dir, 'model.json');
    writeFileSync(path, JSON.stringify({ format: MODEL_FILE_FORMAT, version: MODEL_FILE_VERSION, fit: { fitted_at: new Date().toISOString() }, model }));
    return path;
  };
  const withModel = async (path: string) => {
    const port = await freePort();
    const p = new ServiceProcess('entity-resolution', { ...svc.env, GRPC_PORT: String(port), ER_MODEL_FILE: path }, 'entity-resolution-model');
    return { p, port };
  };

  it('scores with the model of the file: a sceptical calibration keeps apart what the shipped model merges', async () => {
    const cal = DEFAULT_MODEL.calibration!.PERSON!;
    const { p, port } = await withModel(modelFile({ ...DEFAULT_MODEL, calibration: { ...DEFAULT_MODEL.calibration, PERSON: { ...cal, bias: cal.bias - 40 } } }));
    await p.start();
    try {
      const own = createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, `127.0.0.1:${port}`, { auth });
      const carol = { userId: `carol-${randomBytes(3).toString('hex')}`, teamIds: [] };
      const pair = [
        { name: 'Ezekiel Okonkwo', type: 'PERSON', state: 'CA', city: 'Fresno' },
        { name: 'Okonkwo, Ezekiel', type: 'PERSON', state: 'CA', city: 'Fresno' },
      ];
      const runId = randomUUID();
      const out = await call(own.execute({ action: 'resolve_entities', inputs: { entities: pair }, params: {}, principal: carol, idempotencyKey: `${runId}:n1:1`, runId, nodeId: 'n1', attempt: 1, timeoutMs: 30_000 }));
      expect((out.outputs as { merge_count: number }).merge_count).toBe(0);
      // The shipped model (the suite's service) merges the same pair for another owner.
      const shipped = await run('resolve_entities', { entities: pair }, {}, { userId: `dave-${randomBytes(3).toString('hex')}`, teamIds: [] });
      expect((shipped.outputs as { merge_count: number }).merge_count).toBe(1);
    } finally {
      await p.stop();
    }
  }, 60_000);

  it('a bad file stops the start, naming the variable, the file, the field and the reason', async () => {
    const path = modelFile({ ...DEFAULT_MODEL, minTfU: 2 });
    const { p } = await withModel(path);
    await expect(p.start()).rejects.toThrow(/exited/);
    expect(p.output).toContain(`ER_MODEL_FILE: ${path}: model.minTfU: must be a probability of at most 1`);
  }, 60_000);
});
