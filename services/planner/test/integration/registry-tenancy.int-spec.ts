/**
 * Owners of capabilities and facets against real PostgreSQL and NATS
 * JetStream, two replicas: the same id registered by several owners, what
 * each principal resolves, team and shared registrations, facet upserts per
 * owner, and the other replica following events that carry the owner.
 */
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { marketingFacets, marketingRegistrations } from '../fixtures/marketing-catalog.js';
import { eventually, natsPrefix, startReplica, type Replica } from './harness.js';

const alice = { userId: 'alice', teamIds: ['red'] };
const bob = { userId: 'bob', teamIds: [] };
const carol = { userId: 'carol', teamIds: ['red'] };
const operator = { userId: 'system:operator', teamIds: [] };

let db: TestDatabase;
let a: Replica;
let b: Replica;

const writer = (over: Record<string, unknown> = {}) => ({ ...marketingRegistrations().find((r) => r.capabilityId === 'copywriter.SocialpostDrafting')!, capabilityId: 'writer', instanceId: 'default', ...over });

beforeAll(async () => {
  db = await createTestDatabase();
  const prefix = natsPrefix();
  a = await startReplica(db, prefix);
  b = await startReplica(db, prefix);
  await a.facets.upsert(operator, marketingFacets(), 'flex.marketing', { visibility: 'shared' });
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

describe('capabilities per owner', () => {
  it('one id, several owners: each principal resolves its own, then its team, then shared', async () => {
    await b.registry.list(bob); // b loaded before the registrations: it learns them from events
    await a.registry.register(operator, writer({ endpoint: 'shared.example:1', displayName: 'Shared writer' }));
    await a.registry.register(alice, writer({ teamId: 'red', endpoint: 'red.example:1', displayName: 'Red writer' }));
    await a.registry.register(bob, writer({ endpoint: 'bob.example:1', displayName: 'Bob writer' }));
    const name = async (r: Replica, p: typeof alice) => (await r.registry.get(p, 'writer')).registration.displayName;
    for (const r of [a, b]) {
      await eventually(async () => (await r.registry.list(bob)).some((c) => c.registration.displayName === 'Bob writer'));
      expect(await name(r, alice)).toBe('Red writer');
      expect(await name(r, carol)).toBe('Red writer');
      expect(await name(r, bob)).toBe('Bob writer');
      expect(await name(r, { userId: 'dave', teamIds: [] })).toBe('Shared writer');
      expect(await name(r, operator)).toBe('Shared writer');
    }
    const views = await a.registry.views(alice);
    expect(views.filter((v) => v.capabilityId === 'writer')).toHaveLength(1);
    const rows = await db.query('SELECT owner, owner_user_id FROM planner.flex_capabilities ORDER BY owner');
    expect(rows).toEqual([
      { owner: 'shared', owner_user_id: 'system:operator' },
      { owner: 'team:red', owner_user_id: 'alice' },
      { owner: 'user:bob', owner_user_id: 'bob' },
    ]);
  });

  it("a look-alike under another id is invisible to others; heartbeats and deregistration reach only the caller's own", async () => {
    await a.registry.register(bob, writer({ capabilityId: 'writer.lookalike', endpoint: 'evil.example:1' }));
    expect((await a.registry.views(alice)).map((v) => v.capabilityId)).not.toContain('writer.lookalike');
    await expect(a.registry.get(alice, 'writer.lookalike')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(a.registry.heartbeat(alice, 'writer.lookalike')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // carol (team red) beats the team's writer; bob's own writer is his, the shared one is the operator's.
    expect((await a.registry.heartbeat(carol, 'writer')).owner).toBe('team:red');
    expect((await a.registry.deregister(bob, 'writer')).owner).toBe('user:bob');
    await expect(a.registry.heartbeat({ userId: 'dave', teamIds: [] }, 'writer')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect((await a.registry.get(operator, 'writer')).instances).toHaveLength(1);
  });

  it('refuses bad ownership fields naming them', async () => {
    await expect(a.registry.register(bob, writer({ teamId: 'red' }))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', violations: [{ field: 'teamId', reason: "you are not a member of team 'red'" }] });
    await expect(a.registry.register(bob, writer({ visibility: 'shared' }))).rejects.toMatchObject({ code: 'PERMISSION_DENIED', violations: [{ field: 'visibility' }] });
    await expect(a.registry.register(bob, writer({ visibility: 'everyone' }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'visibility' }] });
    await expect(a.registry.register(bob, writer({ visibility: 'team' }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'teamId' }] });
  });
});

describe('facets per owner', () => {
  const tone = (values: string[]) => ({ name: 'tone', title: 'Tone', description: 'Tone.', schema: { type: 'string', enum: values }, metadata: { version: 'v1', direction: 'input' } });

  it("an upsert changes the caller's own facets; a shared name is the operator's", async () => {
    await a.facets.upsert(bob, [tone(['snarky'])], undefined);
    expect((await a.facets.snapshot(bob)).catalog.get('tone')?.schema).toMatchObject({ enum: ['snarky'] });
    expect((await a.facets.snapshot(alice)).catalog.has('tone')).toBe(false);
    await a.facets.upsert(alice, [tone(['warm'])], undefined, { teamId: 'red' });
    await eventually(async () => ((await b.facets.snapshot(carol)).catalog.get('tone')?.schema as { enum?: string[] } | undefined)?.enum?.[0] === 'warm');
    expect((await b.facets.snapshot(bob)).catalog.get('tone')?.schema).toMatchObject({ enum: ['snarky'] });
    expect((await a.facets.snapshot(alice)).owners.get('tone')).toBe('team:red');

    const postCopy = marketingFacets().find((f) => f.name === 'post_copy')!;
    await expect(a.facets.upsert(bob, [tone(['x']), postCopy], undefined)).rejects.toMatchObject({
      code: 'PERMISSION_DENIED',
      violations: [{ field: 'facets[1].name', code: 'shared_facet', reason: expect.stringContaining("facet 'post_copy' belongs to the shared catalog: only operators") }],
    });
    await expect(a.facets.upsert(bob, [tone(['x'])], undefined, { visibility: 'shared' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED', violations: [{ field: 'visibility' }] });
    await expect(a.facets.upsert(bob, [tone(['x'])], undefined, { teamId: 'red' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED', violations: [{ field: 'teamId' }] });
  });

  it('a breaking change is checked only against capabilities that see the facet', async () => {
    const postCopy = marketingFacets().find((f) => f.name === 'post_copy')!;
    const inputOnly = { ...postCopy, metadata: { ...(postCopy.metadata as object), direction: 'input' } };
    const err = await a.facets.upsert(operator, [inputOnly], 'flex.marketing').catch((e) => e);
    expect(err).toMatchObject({ code: 'FAILED_PRECONDITION' });
    // Every owner's writer (shared, team red, bob's) uses the shared post_copy.
    expect(err.violations.map((v: { reason: string }) => v.reason).sort()).toEqual([
      "'input' would break capability writer, which produces post_copy",
      "'input' would break capability writer, which produces post_copy",
      "'input' would break capability writer, which produces post_copy",
      "'input' would break capability writer.lookalike, which produces post_copy",
    ]);
  });
});
