/**
 * The planner as a process (startStack: every service, real PostgreSQL and
 * NATS) over gRPC: the sample catalog loaded by the load-catalog command,
 * PlanTask for the seed's §10.1 envelope (deterministic) and with a scripted
 * LLM that first drafts an invalid plan, registration validation, bad
 * envelopes, and master-agent plans.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { planner } from '@af/contracts';
import { planFromWire } from '@af/plan';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { REPO_ROOT, startStack, type Stack } from '@af/testing';
import { CATALOG_DIR } from '../fixtures/marketing-catalog.js';
import { readFileSync } from 'node:fs';

let stack: Stack;
let plans: planner.PlannerServiceClient;
let registry: planner.CapabilityRegistryServiceClient;
let address: string;
const principal = { userId: 'alice', teamIds: [] };
const envelope = (name: string) => JSON.parse(readFileSync(join(CATALOG_DIR, 'envelopes', `${name}.json`), 'utf8'));
const node = (id: string, capabilityId: string, inputFacets: string[], outputFacets: string[], dependsOn: string[] = []) => ({ id, stage: 'execution', capabilityId, inputFacets, outputFacets, dependsOn, rationale: id });
const goodDraft = {
  nodes: [
    node('strategy', 'strategist.SocialPosting', ['company_information', 'post_context'], ['creative_brief', 'strategic_rationale', 'handoff_summary']),
    node('copy', 'copywriter.SocialpostDrafting', ['company_information', 'creative_brief'], ['post_copy', 'handoff_summary'], ['strategy']),
    node('design', 'designer.VisualDesign', ['company_information', 'creative_brief'], ['post_visual'], ['strategy']),
    node('review', 'director.SocialPostingReview', ['company_information', 'post_context', 'strategic_rationale', 'post_copy', 'post_visual'], ['post'], ['copy', 'design']),
  ],
};
const badDraft = { nodes: [goodDraft.nodes[0], { ...goodDraft.nodes[1], capabilityId: 'copywriter.LinkedInWriter' }, ...goodDraft.nodes.slice(2)] };

const loadCatalog = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [join(REPO_ROOT, 'services/planner/dist/cli/load-catalog.js'), ...args], { env: { PATH: process.env.PATH ?? '', INIT_CWD: REPO_ROOT, SERVICE_AUTH_SECRET: stack.serviceAuthSecret, ...env }, encoding: 'utf8', timeout: 60_000 });

beforeAll(async () => {
  stack = await startStack({
    env: { planner: { FLEX_PLANNER_RUNTIME: 'deterministic', LLM_PROVIDER: 'scripted', LLM_SCRIPT: JSON.stringify([{ json: badDraft }, { json: goodDraft }]) } },
  });
  address = `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`;
  plans = createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, address, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
  registry = createGrpcClient<planner.CapabilityRegistryServiceClient>('planner', planner.CAPABILITY_REGISTRY_SERVICE_NAME, address, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
});

afterAll(async () => {
  await stack?.stop();
});

describe('load-catalog', () => {
  it('loads catalogs/flex-marketing through the registry API', async () => {
    const r = loadCatalog(['catalogs/flex-marketing', '--planner', address, '--user', 'alice']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^loaded flex\.marketing into user alice: 15 facets, 7 capabilities \(7 new\), catalog revision [0-9a-f]{8}\n$/);
    const { capabilities } = await call(registry.listCapabilities({ principal, includeInactive: false, catalogTag: 'sandbox', produces: '' }));
    expect(capabilities.map((c) => c.capabilityId)).toEqual([
      'copywriter.Messaging',
      'copywriter.SocialpostDrafting',
      'designer.VisualDesign',
      'director.PositioningReview',
      'director.SocialPostingReview',
      'strategist.Positioning',
      'strategist.SocialPosting',
    ]);
    expect(capabilities.every((c) => c.collection === 'flex.marketing' && c.status === 'active')).toBe(true);
    const { facets } = await call(registry.listFacets({ principal, catalogTag: 'marketing-agency' }));
    expect(facets).toHaveLength(15);
    expect(facets.find((f) => f.name === 'handoff_summary')).toMatchObject({ direction: 'bidirectional', requiredByDefault: false, collection: 'flex.marketing' });
    // Loading again refreshes: nothing new.
    expect(loadCatalog(['catalogs/flex-marketing', '--planner', address, '--user', 'alice']).stdout).toContain('(0 new)');

    // It is alice's: another user sees none of it until the operator loads it into the shared catalog.
    const bob = { userId: 'bob', teamIds: [] };
    const bobs = async () => (await call(registry.listCapabilities({ principal: bob, includeInactive: true, catalogTag: '', produces: '' }))).capabilities;
    expect(await bobs()).toEqual([]);
    expect((await call(registry.listFacets({ principal: bob, catalogTag: '' }))).facets).toEqual([]);
    const shared = loadCatalog(['catalogs/flex-marketing', '--planner', address, '--shared']);
    expect(shared.status).toBe(0);
    expect(shared.stdout).toMatch(/^loaded flex\.marketing into the shared catalog: 15 facets, 7 capabilities \(7 new\)/);
    expect(await bobs()).toHaveLength(7);
    expect((await bobs()).every((c) => c.visibility === 'shared' && c.ownerId === '' && c.registeredBy === 'system:operator')).toBe(true);
    // alice still resolves her own copies first.
    const { capabilities: hers } = await call(registry.listCapabilities({ principal, includeInactive: true, catalogTag: '', produces: '' }));
    expect(hers.every((c) => c.visibility === 'private' && c.ownerId === 'alice')).toBe(true);
  });

  it('reports a broken catalog with file and field, and usage errors', () => {
    const missing = loadCatalog(['catalogs/nope', '--planner', address]);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('catalog.json');
    const usage = loadCatalog(['--frobnicate']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('usage: load-catalog');
    const sharedTeam = loadCatalog(['catalogs/flex-marketing', '--shared', '--team', 'red']);
    expect(sharedTeam.status).toBe(2);
    expect(sharedTeam.stderr).toContain('--shared loads the shared catalog as system:operator');
    // Every call to the planner is authenticated: no secret and no API key is a usage error, and a wrong secret is refused.
    const anonymous = loadCatalog(['catalogs/flex-marketing', '--planner', address], { SERVICE_AUTH_SECRET: '' });
    expect([anonymous.status, anonymous.stderr]).toEqual([2, expect.stringMatching(/no credentials: give an API key .*SERVICE_AUTH_SECRET/)]);
    const forged = loadCatalog(['catalogs/flex-marketing', '--planner', address], { SERVICE_AUTH_SECRET: 'f'.repeat(40) });
    expect(forged.status).toBe(1);
    expect(forged.stderr).toContain('planner refused: invalid principal token: the token signature is invalid');
    const sharedByKey = loadCatalog(['catalogs/flex-marketing', '--shared', '--api-key', 'afk_x', '--gateway', 'http://127.0.0.1:1']);
    expect(sharedByKey.status).toBe(2);
    expect(sharedByKey.stderr).toContain('--shared needs SERVICE_AUTH_SECRET (operators)');
  });
});

describe('RegisterCapability over gRPC', () => {
  it('answers INVALID_ARGUMENT naming each bad field, then registers and heartbeats', async () => {
    const reg = { capabilityId: 'writer.fr', agentType: 'ai', version: '1', displayName: 'Writer FR', summary: 'French copy', inputContract: ['creative_brief', 'post'], outputContract: ['post_context'], scopes: ['fr'], heartbeat: { intervalSeconds: 30 } };
    await expect(call(registry.registerCapability({ principal, registration: reg, idempotencyKey: 'k1' }))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      violations: [expect.objectContaining({ field: 'outputContract[0]', code: 'direction_mismatch' })],
    });
    const ok = await call(registry.registerCapability({ principal, registration: { ...reg, outputContract: ['post_copy'] }, idempotencyKey: 'k2' }));
    expect(ok).toMatchObject({ created: true, capability: { capabilityId: 'writer.fr', status: 'active', instances: [{ instanceId: 'default', scopes: ['fr'], heartbeatTimeoutSeconds: 90 }] } });
    const beat = await call(registry.heartbeat({ principal, capabilityId: 'writer.fr', instanceId: '', idempotencyKey: 'k3' }));
    expect(beat.capability!.instances[0]!.lastSeenAt >= ok.capability!.instances[0]!.lastSeenAt).toBe(true);
    const gone = await call(registry.deregisterCapability({ principal, capabilityId: 'writer.fr', instanceId: '', idempotencyKey: 'k4' }));
    expect(gone.capability).toMatchObject({ status: 'inactive', instances: [] });
    await expect(call(registry.getCapability({ principal, capabilityId: 'nobody' }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('PlanTask over gRPC', () => {
  it('plans the §10.1 sample envelope deterministically: accepted, with the expected nodes', async () => {
    const res = await call(plans.planTask({ principal, envelope: envelope('linkedin-variants'), previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: 0, planner: '' }));
    expect(res.accepted).toBe(true);
    expect(res.planVersion).toBe(1);
    expect(res.events.map((e) => e.type)).toEqual(['plan_requested', 'plan_generated']);
    const plan = planFromWire(res.plan) as { nodes: Array<{ id: string; kind: string }>; metadata: Record<string, any> };
    expect(plan.nodes.map((n) => `${n.id}:${n.kind}`)).toEqual([
      'structure_inputs:llm',
      'branch_variants:route',
      'copywriter_SocialpostDrafting_v1:capability',
      'copywriter_SocialpostDrafting_v2:capability',
      'normalize_output:llm',
      'fallback_normalize_output:human',
    ]);
    expect(plan.metadata.flex).toMatchObject({ plannerRuntime: 'deterministic', planVersion: 1, normalizationInjected: true, envelope: { objective: envelope('linkedin-variants').objective } });
    expect(res.diagnostics).toMatchObject({ status: 'accepted_with_findings', satisfactionScore: 1, failures: [] });
    expect(res.outputContract).toMatchObject({ schema: { required: ['normalize_output'] } });
    expect(res.goalCondition).toEqual([expect.objectContaining({ facet: 'copywriter_SocialpostDrafting_v2', path: '/handoff_summary/status' })]);
  });

  it('with the LLM planner: the scripted model’s invalid plan is rejected, its second is generated', async () => {
    const res = await call(plans.planTask({ principal, envelope: envelope('new-case-post'), previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: 3, planner: 'llm' }));
    expect(res.events.map((e) => [e.type, e.payload!.attempt])).toEqual([
      ['plan_requested', 1],
      ['plan_rejected', 1],
      ['plan_requested', 2],
      ['plan_generated', 2],
    ]);
    expect(res.events[1]!.payload).toMatchObject({ failures: [expect.objectContaining({ constraintId: 'capability.copywriter.LinkedInWriter', cause: 'missing_producer' })] });
    expect(res.accepted).toBe(true);
    expect((planFromWire(res.plan) as { metadata: Record<string, any> }).metadata.flex).toMatchObject({ plannerRuntime: 'llm', plannerModel: 'scripted (2 responses)', attempt: 2 });
  });

  it('refuses bad envelopes, naming each field', async () => {
    const bad = { ...envelope('linkedin-variants'), objective: '', outputContract: { schema: { type: 'objekt' } }, policies: { runtime: [{ id: 'g', trigger: { kind: 'manual' }, action: { type: 'goto' } }] } };
    const err = await call(plans.planTask({ principal, envelope: bad, previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: 0, planner: '' })).catch((e) => e);
    expect(err).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(err.violations.map((v: { field: string }) => v.field)).toEqual(expect.arrayContaining(['envelope.objective']));
    const later = await call(plans.planTask({ principal, envelope: { ...envelope('linkedin-variants'), policies: { runtime: [{ id: 'g', trigger: { kind: 'manual' }, action: { type: 'goto' } }] } }, previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: 0, planner: '' })).catch((e) => e);
    expect(later.violations).toEqual([expect.objectContaining({ field: 'envelope.policies.runtime[0].action.type', code: 'removed_action', suggestedFix: 'replan' })]);
    await expect(call(plans.planTask({ principal, envelope: undefined, previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: 0, planner: '' }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'envelope' }] });
    await expect(call(plans.planTask({ principal, envelope: envelope('linkedin-variants'), previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: 0, planner: 'quantum' }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'planner' }] });
    // Who asks comes from the signed principal token: a call without one is refused, whatever principal the message names.
    const unsigned = createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, address, { auth: null });
    await expect(call(unsigned.planTask({ principal, envelope: envelope('linkedin-variants'), previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: 0, planner: '' }))).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('replans a version with completed nodes locked', async () => {
    const first = await call(plans.planTask({ principal, envelope: envelope('new-case-post'), previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: 0, planner: '' }));
    const again = await call(plans.planTask({ principal, envelope: envelope('new-case-post'), previousPlan: first.plan, completedNodeIds: ['strategist_SocialPosting'], replanTrigger: { policyId: 'low_quality_replan' }, maxAttempts: 0, planner: '' }));
    expect(again).toMatchObject({ accepted: true, planVersion: 2 });
    expect(again.events[0]!.payload).toMatchObject({ replan: { previousVersion: 1, lockedNodeIds: ['strategist_SocialPosting'], trigger: { policyId: 'low_quality_replan' } } });
    await expect(call(plans.planTask({ principal, envelope: envelope('new-case-post'), previousPlan: first.plan, completedNodeIds: ['nope'], replanTrigger: undefined, maxAttempts: 0, planner: '' }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'completed_node_ids[0]' }] });
  });
});

describe('CompileMasterPlan', () => {
  it('compiles agents with depends_on into a plan, and names bad fields', async () => {
    const json = JSON.stringify({ query: 'q', execution_plan: [{ agent_id: 'rag', agent_name: 'RAG Agent', task: 'find' }, { agent_id: 'code', agent_name: 'Code Agent', task: 'analyse', depends_on: ['rag'] }] });
    const res = await call(plans.compileMasterPlan({ principal, json, omitComposer: false }));
    expect((planFromWire(res.plan) as { nodes: Array<{ id: string }> }).nodes.map((n) => n.id)).toEqual(['rag', 'code', 'composer']);
    await expect(call(plans.compileMasterPlan({ principal, json: '{', omitComposer: false }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: [{ field: 'json' }] });
    const bad = JSON.stringify({ execution_plan: [{ agent_id: 'code', agent_name: 'Code', task: 't', depends_on: ['rag'] }] });
    await expect(call(plans.compileMasterPlan({ principal, json: bad, omitComposer: true }))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', violations: expect.arrayContaining([expect.objectContaining({ field: 'execution_plan[0].depends_on[0]', code: 'nonexistent_step' })]) });
  });
});
