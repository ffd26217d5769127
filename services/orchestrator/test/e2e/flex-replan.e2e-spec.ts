/**
 * Runtime-policy replans of planner-made (flex) runs through the real
 * services (planner with the sample capability catalog registered,
 * orchestrator, approval, gateway as processes; PostgreSQL, NATS): the
 * orchestrator asks the planner's PlanTask again — with the envelope the plan
 * was made from, the current plan version and its completed nodes — and
 * applies the answer as plan version N+1 with the completed nodes locked; an
 * envelope the planner refuses pauses the run with plan_rejected naming the
 * field.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { orchestrator, planner } from '@af/contracts';
import { planFromWire } from '@af/plan';
import { call, createGrpcClient, ServiceAuth } from '@af/service-kit';
import { REPO_ROOT, startStack, type Stack } from '@af/testing';
import { frames, getRun, harness, RunStatus, shape, start, until, type Harness } from './helpers.js';

let stack: Stack;
let h: Harness;
let planners: planner.PlannerServiceClient;
/** The plan the planner made for the sample envelope (IR object shape). */
let flexPlan: Record<string, any>;

const CATALOG = join(REPO_ROOT, 'catalogs', 'flex-marketing');
const envelope = JSON.parse(readFileSync(join(CATALOG, 'envelopes', 'new-case-post.json'), 'utf8')) as Record<string, any>;
const inputs = { post_context: { type: 'case', summary: 'Acme cut onboarding time in half' }, company_information: { name: 'Acme Corp' } };
const prep = { id: 'prep', kind: 'tool', action: 'transform_data', inputs: { data: [{ note: 'brief ready' }] }, params: {}, dependsOn: [] as string[] };

beforeAll(async () => {
  stack = await startStack({ env: { planner: { FLEX_PLANNER_RUNTIME: 'deterministic' }, orchestrator: { RUN_LEASE_MS: '1500' } } });
  h = harness(stack, 'flex-user');
  const address = `127.0.0.1:${stack.services.planner.env.GRPC_PORT}`;
  planners = createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, address, { auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }) });
  // The sample catalog (15 facets, 7 capabilities) registered through the registry API.
  const loaded = spawnSync(process.execPath, [join(REPO_ROOT, 'services/planner/dist/cli/load-catalog.js'), CATALOG, '--planner', address, '--user', 'flex-user'], {
    env: { PATH: process.env.PATH ?? '', INIT_CWD: REPO_ROOT, SERVICE_AUTH_SECRET: stack.serviceAuthSecret },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(loaded.stderr).toBe('');
  expect(loaded.stdout).toContain('7 capabilities');
  const res = await call(planners.planTask({ principal: h.principal, envelope, previousPlan: undefined, completedNodeIds: [], replanTrigger: undefined, maxAttempts: 0, planner: '' }));
  expect(res.accepted).toBe(true);
  flexPlan = planFromWire(res.plan) as Record<string, any>;
}, 90_000);

afterAll(async () => {
  await stack?.stop();
});

/** The planner's plan with a first step of our own that completes at once (the planner's nodes wait for it). */
function withPrep(plan: Record<string, any>) {
  const nodes = plan.nodes.map((n: Record<string, any>) => (n.dependsOn.length === 0 ? { ...n, dependsOn: ['prep'] } : n));
  return { ...plan, nodes: [prep, ...nodes] };
}

async function cancel(runId: string) {
  await call(h.runs.cancelRun({ principal: h.principal, runId, idempotencyKey: '' })).catch(() => undefined);
}

describe('flex replans', () => {
  it('a replan policy on a planner-made run asks the planner (PlanTask with the previous plan, its completed nodes and the trigger); version 2 keeps the completed node locked', async () => {
    expect(flexPlan.metadata.flex.envelope).toEqual(envelope);
    const runId = await start(h, withPrep(flexPlan), {
      inputs,
      policies: [{ id: 'rethink', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'prep' } }, action: { type: 'replan', rationale: 'the brief changed' } }],
    });
    const replanned = await until(h, runId, (r) => r.planVersion === 2 || r.status === RunStatus.RUN_STATUS_PAUSED);
    expect(replanned.planVersion).toBe(2);
    const fs = await frames(h, runId);
    const upTo = fs.findIndex((f) => f.type === 'plan_updated');
    expect(shape(fs.slice(0, upTo + 1))).toEqual(['start', 'node_start:prep', 'node_complete:prep', 'policy_triggered:prep', 'plan_requested', 'plan_generated', 'plan_updated']);
    expect(fs[4]!.payload).toEqual({ previousVersion: 1, trigger: { source: 'policy', policyId: 'rethink', rationale: 'the brief changed' } });
    const updated = fs[upTo]!.payload;
    expect(updated).toMatchObject({ previousVersion: 1, version: 2, trigger: { source: 'policy', policyId: 'rethink' }, locked: ['prep'] });
    expect(updated.nodes[0]).toEqual({ id: 'prep', status: 'completed' });

    // Version 2 is the planner's: its replan of version 1 with `prep` locked, and the envelope kept for the next replan.
    const { run } = await call(h.runs.getRun({ principal: h.principal, runId }));
    expect(run!.planVersions.map((v) => [v.version, v.source, v.policyId])).toEqual([
      [1, 'start', ''],
      [2, 'replan', 'rethink'],
    ]);
    // The stored plan of version 2 (GetRun lists versions, not plans).
    const [stored] = await stack.db.query<{ plan: Record<string, any> }>('SELECT plan FROM orchestrator.plan_versions WHERE run_id = $1 AND version = 2', [runId]);
    const v2 = stored!.plan;
    expect(v2.version).toBe(2);
    expect(v2.nodes[0]).toEqual(expect.objectContaining({ id: 'prep', kind: 'tool', action: 'transform_data' }));
    expect(v2.metadata.flex).toMatchObject({ planVersion: 2, lockedNodeIds: ['prep'], envelope: { objective: envelope.objective } });
    expect(v2.nodes.map((n: { id: string }) => n.id)).toEqual(['prep', ...flexPlan.nodes.map((n: { id: string }) => n.id)]);
    // The planner's nodes no longer wait for prep: they were planned again (pending, none locked but prep).
    expect(v2.nodes.find((n: { id: string }) => n.id === 'strategist_SocialPosting').dependsOn).toEqual([]);
    const prepState = run!.nodes.find((n) => n.nodeId === 'prep')!;
    expect(prepState.status).toBe(orchestrator.NodeStatus.NODE_STATUS_COMPLETED);
    expect(prepState.attempt).toBe(1);
    expect(run!.policyFirings.map((f) => [f.key, f.status])).toEqual([['rethink@prep', 'applied']]);
    await cancel(runId);
  });

  it('an envelope the planner refuses: plan_rejected naming the field, and the run pauses until ReplanRun brings a plan', async () => {
    const broken = { ...flexPlan, metadata: { ...flexPlan.metadata, flex: { ...flexPlan.metadata.flex, envelope: { ...envelope, objective: '' } } } };
    const runId = await start(h, withPrep(broken), {
      inputs,
      policies: [{ id: 'rethink', trigger: { kind: 'onNodeComplete', selector: { nodeId: 'prep' } }, action: { type: 'replan' } }],
    });
    const paused = await until(h, runId, (r) => r.status === RunStatus.RUN_STATUS_PAUSED);
    expect(paused.planVersion).toBe(1);
    const fs = await frames(h, runId);
    expect(shape(fs)).toEqual(['start', 'node_start:prep', 'node_complete:prep', 'policy_triggered:prep', 'plan_requested', 'plan_rejected', 'log']);
    expect(fs[5]!.payload).toMatchObject({ policyId: 'rethink', diagnostics: [expect.objectContaining({ field: 'envelope.objective' })] });
    expect(fs[6]!.payload).toEqual({ event: 'paused', by: 'policy:rethink', reason: 'awaiting_plan' });
    expect((await getRun(h, runId)).policyFirings.map((f) => [f.key, f.status])).toEqual([['rethink@prep', 'awaiting_plan']]);
    await cancel(runId);
  });
});
