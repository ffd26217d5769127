/**
 * Capability registry against real PostgreSQL and NATS JetStream, two
 * replicas on one database: registration validation, upsert, heartbeats and
 * expiry, deregistration, ownership, and cache refresh across replicas.
 */
import { CAPABILITY_EGRESS, egressPolicyFrom } from '@af/egress';
import { createTestDatabase, type TestDatabase } from '@af/testing';
import { CapabilityRegistry } from '../../src/app/capability-registry.service.js';
import { CapabilityRepository } from '../../src/infra/capability.repository.js';
import { marketingFacets, marketingRegistrations } from '../fixtures/marketing-catalog.js';
import { eventually, natsPrefix, startReplica, type Replica } from './harness.js';

const alice = { userId: 'alice', teamIds: [] };
const bob = { userId: 'bob', teamIds: [] };
const mallory = { userId: 'mallory', teamIds: [] };

let db: TestDatabase;
let a: Replica;
let b: Replica;

const writer = () => ({ ...marketingRegistrations().find((r) => r.capabilityId === 'copywriter.SocialpostDrafting')!, capabilityId: 'writer.en', instanceId: 'w1', scopes: ['en'], heartbeat: { intervalSeconds: 10 } });

beforeAll(async () => {
  db = await createTestDatabase();
  const prefix = natsPrefix();
  a = await startReplica(db, prefix);
  b = await startReplica(db, prefix);
  await a.facets.upsert(alice, marketingFacets(), 'flex.marketing');
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

describe('registration', () => {
  it('validates field by field: unknown facets, direction mismatches, bad fields', async () => {
    const bad = { ...writer(), agentType: 'robot', inputContract: ['creative_breif', 'positioning'], heartbeat: { intervalSeconds: 0 } };
    await expect(a.registry.register(alice, bad)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: expect.arrayContaining([expect.objectContaining({ field: 'agentType' }), expect.objectContaining({ field: 'heartbeat.intervalSeconds' })]) });
    await expect(a.registry.register(alice, { ...writer(), inputContract: ['creative_breif', 'positioning'] })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      violations: [
        { field: 'inputContract[0]', code: 'unknown_facet', reason: "unknown facet 'creative_breif' (did you mean 'creative_brief'?)", suggestedFix: 'creative_brief' },
        { field: 'inputContract[1]', code: 'direction_mismatch', reason: "facet 'positioning' is output-only and cannot be consumed by a node" },
      ],
    });
    await expect(a.registry.register({ userId: '', teamIds: [] }, writer())).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(await db.query('SELECT * FROM planner.flex_capabilities')).toEqual([]);
  });

  it('upserts capability and instance, compiles contracts, and another replica sees it through the event', async () => {
    await b.registry.list(alice); // b has loaded (empty) and will serve from memory until the TTL
    const first = await a.registry.register(alice, writer());
    expect(first.created).toBe(true);
    expect(first.capability.inputSchema).toMatchObject({ type: 'object', additionalProperties: false, required: ['company_information', 'creative_brief'] });
    expect(first.capability.outputSchema).toMatchObject({ required: ['post_copy'] });
    expect(first.capability.catalogTags).toEqual(['marketing-agency', 'sandbox']);
    expect(first.capability.collection).toBe('flex.marketing');
    await eventually(async () => (await b.registry.list(alice)).some((c) => c.registration.capabilityId === 'writer.en'));

    const again = await a.registry.register(alice, { ...writer(), version: '2025.12.01', displayName: 'Writer v2' });
    expect(again.created).toBe(false);
    await eventually(async () => (await b.registry.get(alice, 'writer.en')).registration.displayName === 'Writer v2');
    const rows = await db.query('SELECT capability_id, instance_id, scopes, heartbeat_timeout_seconds, status FROM planner.flex_capability_instances');
    expect(rows).toEqual([{ capability_id: 'writer.en', instance_id: 'w1', scopes: ['en'], heartbeat_timeout_seconds: 30, status: 'active' }]);
    expect(await db.query("SELECT subject FROM planner.outbox WHERE subject LIKE '%af.capability.writer.en.registered'")).toHaveLength(2);
  });

  it('keeps several instances with their own scopes; the capability is active while one is', async () => {
    await a.registry.register(alice, { ...writer(), instanceId: 'w2', scopes: ['fr'] });
    const c = await a.registry.get(alice, 'writer.en');
    expect(c.instances.map((i) => [i.instanceId, i.scopes])).toEqual([
      ['w1', ['en']],
      ['w2', ['fr']],
    ]);
    const view = (await a.registry.views(alice)).find((v) => v.capabilityId === 'writer.en')!;
    expect(view.scopes.sort()).toEqual(['en', 'fr']);
  });

  it("another principal neither sees nor changes alice's capability", async () => {
    // Ids resolve per owner: mallory cannot name alice's writer.en at all (and has no facets to register one with).
    await expect(a.registry.get(mallory, 'writer.en')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(a.registry.heartbeat(mallory, 'writer.en', 'w1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(a.registry.deregister(mallory, 'writer.en')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(a.registry.register(mallory, writer())).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: expect.arrayContaining([expect.objectContaining({ code: 'unknown_facet' })]) });
    expect(await a.registry.list(mallory, { includeInactive: true })).toEqual([]);
    expect((await a.registry.get(alice, 'writer.en')).instances.map((i) => i.instanceId)).toEqual(['w1', 'w2']);
  });
});

describe('heartbeats', () => {
  it('a stale instance reads inactive; the sweeper marks it and tells the other replica; a heartbeat revives it', async () => {
    // 31 s later on both clocks: past the 30 s timeout (3 × 10 s interval).
    a.clock.now = b.clock.now = Date.now() + 31_000;
    expect(a.registry.statusOf(await a.registry.get(alice, 'writer.en'))).toBe('inactive');
    expect((await a.registry.list(alice)).map((c) => c.registration.capabilityId)).not.toContain('writer.en');
    expect((await a.registry.list(alice, { includeInactive: true })).map((c) => c.registration.capabilityId)).toContain('writer.en');
    expect((await a.registry.views(alice)).find((v) => v.capabilityId === 'writer.en')!.status).toBe('inactive');

    // The database clock has not moved: make the rows old instead.
    await db.query("UPDATE planner.flex_capability_instances SET last_seen_at = now() - interval '1 minute' WHERE capability_id = 'writer.en'");
    expect(await a.registry.sweep()).toBe(2);
    expect(await b.registry.sweep()).toBe(0); // each stale row is claimed once
    a.clock.now = b.clock.now = 0;
    await eventually(async () => (await b.registry.get(alice, 'writer.en')).instances.every((i) => i.status === 'inactive'));
    expect(b.registry.statusOf(await b.registry.get(alice, 'writer.en'))).toBe('inactive');

    const revived = await a.registry.heartbeat(alice, 'writer.en', 'w1');
    expect(revived.instances.find((i) => i.instanceId === 'w1')!.status).toBe('active');
    await eventually(async () => b.registry.statusOf(await b.registry.get(alice, 'writer.en')) === 'active');
  });

  it('a heartbeat for an unknown capability or instance is NOT_FOUND', async () => {
    await expect(a.registry.heartbeat(alice, 'nobody.here', 'default')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(a.registry.heartbeat(alice, 'writer.en', 'w9')).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('register it first') });
    await expect(a.registry.heartbeat(alice, '', 'w1')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('a registration without heartbeat never goes stale', async () => {
    const { heartbeat: _none, ...noHeartbeat } = { ...writer(), capabilityId: 'writer.static', instanceId: 'default' };
    await a.registry.register(alice, noHeartbeat);
    a.clock.now = Date.now() + 10 * 86_400_000;
    expect(a.registry.statusOf(await a.registry.get(alice, 'writer.static'))).toBe('active');
    a.clock.now = 0;
  });
});

describe('deregistration', () => {
  it('removes one instance, then all; the capability stays listed as inactive', async () => {
    const one = await a.registry.deregister(alice, 'writer.en', 'w2');
    expect(one.instances.map((i) => i.instanceId)).toEqual(['w1']);
    await expect(a.registry.deregister(alice, 'writer.en', 'w2')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const all = await a.registry.deregister(alice, 'writer.en');
    expect(all.instances).toEqual([]);
    expect(a.registry.statusOf(all)).toBe('inactive');
    await eventually(async () => (await b.registry.get(alice, 'writer.en')).instances.length === 0);
    await expect(a.registry.deregister(alice, 'nobody.here')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('facet catalog', () => {
  it('refuses a facet change that would break a registered capability, and serves the catalog to other replicas', async () => {
    const postCopy = marketingFacets().find((f) => f.name === 'post_copy')!;
    const inputOnly = { ...postCopy, metadata: { ...(postCopy.metadata as object), direction: 'input' } };
    await expect(a.facets.upsert(alice, [inputOnly], 'flex.marketing')).rejects.toMatchObject({
      code: 'FAILED_PRECONDITION',
      violations: [
        { field: 'facets[0].metadata.direction', code: 'direction_mismatch', reason: "'input' would break capability writer.en, which produces post_copy" },
        { field: 'facets[0].metadata.direction', code: 'direction_mismatch', reason: "'input' would break capability writer.static, which produces post_copy" },
      ],
    });
    await expect(a.facets.upsert(alice, [{ name: 'bad name' }], undefined)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: expect.arrayContaining([expect.objectContaining({ field: 'facets[0].name' })]) });
    await expect(a.facets.upsert(alice, [], undefined)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });

    const before = (await b.facets.snapshot(alice)).catalog.revision;
    const tone = { name: 'toneOfVoice', title: 'Tone of Voice', description: 'Tone.', schema: { type: 'string', enum: ['friendly', 'professional'] }, metadata: { version: 'v1', direction: 'input' } };
    const r = await a.facets.upsert(alice, [tone], 'flex.core');
    expect(r.facets.map((f) => [f.facet.name, f.collection])).toEqual([['toneOfVoice', 'flex.core']]);
    await eventually(async () => (await b.facets.snapshot(alice)).catalog.has('toneOfVoice'));
    expect((await b.facets.snapshot(alice)).catalog.revision).not.toBe(before);
  });
});

describe('registration: endpoint egress (CAPABILITY_EGRESS_ALLOW)', () => {
  const refusedWith = (reason: string) => ({ code: 'INVALID_ARGUMENT', message: `endpoint: ${reason}`, violations: [{ field: 'endpoint', reason, code: 'endpoint_refused' }] });

  it.each([
    ['unix:/var/run/docker.sock', '"unix:" targets are not allowed: an agent endpoint must be a TCP host:port'],
    ['169.254.169.254:80', 'egress to 169.254.169.254:80 refused: 169.254.169.254 is a cloud metadata address; an operator can allow it with CAPABILITY_EGRESS_ALLOW'],
    ['127.0.0.1:5432', 'egress to 127.0.0.1:5432 refused: 127.0.0.1 is a loopback address; an operator can allow it with CAPABILITY_EGRESS_ALLOW'],
    ['ipv4:10.0.0.7:50070', 'egress to 10.0.0.7:50070 refused: 10.0.0.7 is a private network address; an operator can allow it with CAPABILITY_EGRESS_ALLOW'],
    ['dns://8.8.8.8/agent.example.com:443', 'a DNS server in the target (dns://server/…) is not supported; write dns:///host:port'],
  ])('refuses %s, naming endpoint and the reason, and stores nothing', async (endpoint, reason) => {
    await expect(a.registry.register(alice, { ...writer(), capabilityId: 'egress.refused', endpoint })).rejects.toMatchObject(refusedWith(reason));
    expect(await db.query("SELECT * FROM planner.flex_capabilities WHERE capability_id = 'egress.refused'")).toEqual([]);
  });

  it('refuses other schemes in the schema, naming endpoint', async () => {
    for (const endpoint of ['unix-abstract:agent', 'vsock:3:50070', 'http://agent.example.com:80']) {
      await expect(a.registry.register(alice, { ...writer(), capabilityId: 'egress.refused', endpoint })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        violations: [expect.objectContaining({ field: 'endpoint', reason: 'must be host:port (or a gRPC target: dns:, ipv4:, ipv6:)' })],
      });
    }
  });

  it('accepts public addresses and hostnames (the orchestrator checks what they resolve to on every call)', async () => {
    await expect(a.registry.register(alice, { ...writer(), capabilityId: 'egress.public', endpoint: '93.184.216.34:50070' })).resolves.toMatchObject({ created: true });
    await expect(a.registry.register(alice, { ...writer(), capabilityId: 'egress.named', endpoint: 'localhost:50070' })).resolves.toMatchObject({ created: true });
  });

  it("opens an owner-scoped exception to that owner's capability only", async () => {
    // Bob needs the facets too (facets are per owner): his own copy.
    await a.facets.upsert(bob, marketingFacets(), 'flex.marketing');
    const scoped = new CapabilityRegistry(a.kit, new CapabilityRepository(a.kit.db), a.facets, 60_000, Date.now, {}, egressPolicyFrom('alice/egress.scoped=10.0.0.7:50070', CAPABILITY_EGRESS));
    await expect(scoped.register(alice, { ...writer(), capabilityId: 'egress.scoped', endpoint: '10.0.0.7:50070' })).resolves.toMatchObject({ created: true });
    await expect(scoped.register(bob, { ...writer(), capabilityId: 'egress.bobs', endpoint: '10.0.0.7:50070' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'endpoint' }] });
    await expect(scoped.register(alice, { ...writer(), capabilityId: 'egress.other', endpoint: '10.0.0.7:50070' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
