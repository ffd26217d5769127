/**
 * Real gRPC over loopback: a Nest microservice started by startGrpcServer
 * serves grpc.health.v1, server reflection, and maps AppError to a status with
 * the field-path detail that createGrpcClient/call restore; every RPC needs a
 * principal token (ServiceAuthGuard) whose principal replaces the message's.
 */
import { Controller, Module } from '@nestjs/common';
import { plan, planner } from '@af/contracts';
import { freePort } from '@af/testing';
import { describeSymbol, healthCheck, listServices } from '../../src/grpc/grpc-introspection.js';
import {
  AppError,
  call,
  createGrpcClient,
  createLogger,
  InternalRpc,
  Metrics,
  PublicRpc,
  ServiceAuth,
  startGrpcServer,
  staticPrincipalToken,
  type GrpcServer,
  type PrincipalSigner,
} from '../../src/index.js';

const SECRET = 'test-service-auth-secret-0123456789';
const serverAuth = new ServiceAuth({ secret: SECRET, service: 'planner' });
const gateway = new ServiceAuth({ secret: SECRET, service: 'gateway' });

@Controller()
@planner.PlannerServiceControllerMethods()
class FakePlanner {
  compilePlaybook(req: planner.CompilePlaybookRequest): planner.CompilePlaybookResponse {
    if (!req.yaml) throw new AppError('INVALID_ARGUMENT', 'yaml: is required', { violations: [{ field: 'yaml', reason: 'is required' }] });
    // The plan is a typed message now; its `metadata` is still a google.protobuf.Struct.
    return { plan: plan.PlanGraph.fromJSON({ metadata: { echoed: req.yaml, nested: { list: [1, 'two', null, true] } } }), results: [], valid: true, errors: [], warnings: [] };
  }
  createPlaybook(): never {
    throw new Error('boom with secret-ish detail');
  }
  getPlaybook(): never {
    throw AppError.notFound('playbook', 'p1');
  }
  listPlaybooks() {
    return { playbooks: [] };
  }
  @PublicRpc('test: callers authenticate some other way')
  listActions(req: planner.ListActionsRequest) {
    return { actions: [{ name: `principal=${req.principal?.userId ?? '(none)'}` }] };
  }
  getAction(req: planner.GetActionRequest): never {
    // Reports who the handler thinks is calling.
    throw new AppError('NOT_FOUND', `as ${req.principal?.userId} teams=${req.principal?.teamIds.join(',')}`);
  }
  // Every RPC of the service must exist for the controller decorator; these are not exercised here.
  @InternalRpc('orchestrator')
  planTask(): never {
    throw new AppError('UNIMPLEMENTED', 'planTask is not part of this fake');
  }
  compileMasterPlan(): never {
    throw new AppError('UNIMPLEMENTED', 'compileMasterPlan is not part of this fake');
  }
  compileWorkflow(): never {
    throw new AppError('UNIMPLEMENTED', 'compileWorkflow is not part of this fake');
  }
  validatePlan(): never {
    throw new AppError('UNIMPLEMENTED', 'validatePlan is not part of this fake');
  }
  updatePlaybook(): never {
    throw new AppError('UNIMPLEMENTED', 'updatePlaybook is not part of this fake');
  }
  deletePlaybook(): never {
    throw new AppError('UNIMPLEMENTED', 'deletePlaybook is not part of this fake');
  }
  listPlaybookVersions(): never {
    throw new AppError('UNIMPLEMENTED', 'listPlaybookVersions is not part of this fake');
  }
  compileStoredPlaybook(): never {
    throw new AppError('UNIMPLEMENTED', 'compileStoredPlaybook is not part of this fake');
  }
  getPlaybookGraph(): never {
    throw new AppError('UNIMPLEMENTED', 'getPlaybookGraph is not part of this fake');
  }
}

@Module({ controllers: [FakePlanner] })
class FakeModule {}

let server: GrpcServer;
let port: number;
const metrics = new Metrics('fake-planner');
let metricsPort: number;

beforeAll(async () => {
  port = await freePort();
  server = await startGrpcServer({ module: { module: FakeModule }, packages: ['planner'], host: '127.0.0.1', port, log: createLogger('t', 'silent'), metrics, auth: serverAuth });
  metricsPort = await metrics.listen('127.0.0.1', 0);
});

afterAll(async () => {
  await server?.close();
  await metrics.close();
});

it('answers grpc.health.v1 Check with SERVING for the server, each implemented service and its package', async () => {
  const address = `127.0.0.1:${port}`;
  expect(await healthCheck(address, '')).toBe('SERVING');
  expect(await healthCheck(address, 'agentfactory.planner.v1.PlannerService')).toBe('SERVING');
  expect(await healthCheck(address, 'agentfactory.planner.v1')).toBe('SERVING');
  // In the planner package but implemented by nothing on this server: unknown to health (NOT_FOUND = 5).
  expect(await healthCheck(address, 'agentfactory.planner.v1.CapabilityRegistryService')).toBe('error 5');
  expect(await healthCheck(address, 'agentfactory.planner.v1.NoSuchService')).toBe('error 5');
  expect(server.services).toEqual(['agentfactory.planner.v1.PlannerService']);
});

it('lists exactly the implemented services and health through reflection, each describable and SERVING', async () => {
  const address = `127.0.0.1:${port}`;
  const names = await listServices(address);
  expect(names).toEqual(['agentfactory.planner.v1.PlannerService', 'grpc.health.v1.Health']);
  for (const name of names) {
    // grpcurl resolves a method from these descriptors; health's must be served too (no local proto needed).
    expect(await describeSymbol(address, name)).toEqual({ files: expect.any(Number) });
    expect(await healthCheck(address, name === 'grpc.health.v1.Health' ? '' : name)).toBe('SERVING');
  }
  expect(await describeSymbol(address, 'agentfactory.planner.v1.PlannerService.CompilePlaybook')).toEqual({ files: expect.any(Number) });
  expect(await describeSymbol(address, 'no.such.Service')).toEqual({ error: expect.stringMatching(/not found/i) });
});

it('carries Struct payloads as plain JSON and errors as AppError with field paths', async () => {
  const client = createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, `127.0.0.1:${port}`, { auth: gateway });
  const ok = await call(client.compilePlaybook({ principal: undefined, yaml: 'x: 1' }));
  expect(ok.plan!.metadata).toEqual({ echoed: 'x: 1', nested: { list: [1, 'two', null, true] } });

  const invalid = await call(client.compilePlaybook({ principal: undefined, yaml: '' })).catch((e) => e);
  expect(invalid).toBeInstanceOf(AppError);
  expect(invalid.code).toBe('INVALID_ARGUMENT');
  expect(invalid.violations).toEqual([{ field: 'yaml', reason: 'is required' }]);

  const notFound = await call(client.getPlaybook({ principal: undefined, id: 'p1', revision: 0 })).catch((e) => e);
  expect(notFound.code).toBe('NOT_FOUND');

  const internal = await call(client.createPlaybook({ principal: undefined, yaml: '', idempotencyKey: '' })).catch((e) => e);
  expect(internal.code).toBe('INTERNAL');
  expect(internal.message).toBe('internal error');
});

it('exposes Prometheus metrics with per-method RPC durations and codes', async () => {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toMatch(/af_rpc_duration_seconds_count\{[^}]*method="FakePlanner.compilePlaybook"[^}]*code="OK"[^}]*\} 1/);
  expect(text).toMatch(/af_rpc_duration_seconds_count\{[^}]*method="FakePlanner.compilePlaybook"[^}]*code="INVALID_ARGUMENT"[^}]*\} 1/);
  expect(text).toMatch(/process_cpu_user_seconds_total\{service="fake-planner"\}/);
  expect((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status).toBe(404);
});

describe('service authentication', () => {
  const address = () => `127.0.0.1:${port}`;
  const client = (auth: PrincipalSigner | null) =>
    createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, address(), { auth, readyWaitMs: 5_000 });

  it('refuses a call without a token as UNAUTHENTICATED, whatever principal the message names', async () => {
    const err = await call(client(null).getAction({ principal: { userId: 'victim', teamIds: [] }, name: 'x' })).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('UNAUTHENTICATED');
    expect(err.message).toMatch(/missing af-principal-token metadata/);
  });

  it('refuses a token signed with another secret, a garbage token and an expired one, without echoing them', async () => {
    const forged = new ServiceAuth({ secret: 'x'.repeat(40), service: 'gateway' }).tokenFor({ userId: 'victim', teamIds: [] });
    const expired = new ServiceAuth({ secret: SECRET, service: 'gateway', ttlSeconds: 10, now: () => Date.now() - 60_000 }).tokenFor({ userId: 'victim', teamIds: [] });
    for (const [token, reason] of [
      [forged, 'the token signature is invalid'],
      ['not-a-token', 'the token is malformed'],
      [expired, 'the token has expired'],
    ] as const) {
      const err = await call(client(staticPrincipalToken(token)).getAction({ principal: undefined, name: 'x' })).catch((e) => e);
      expect([err.code, err.message]).toEqual(['UNAUTHENTICATED', `invalid principal token: ${reason}`]);
      expect(err.message).not.toContain(token);
    }
  });

  it("replaces the message's principal with the token's", async () => {
    const alice = gateway.tokenFor({ userId: 'alice', teamIds: ['t1', 't2'] });
    const err = await call(client(staticPrincipalToken(alice)).getAction({ principal: { userId: 'bob', teamIds: ['bobs-team'] }, name: 'x' })).catch((e) => e);
    expect([err.code, err.message]).toEqual(['NOT_FOUND', 'as alice teams=t1,t2']);
    // The signing client mints from the message's principal; none means the caller's own system identity.
    const own = await call(client(gateway).getAction({ principal: undefined, name: 'x' })).catch((e) => e);
    expect(own.message).toBe('as system:gateway teams=');
  });

  it('a principal the signer refuses fails the call before it is sent (the gateway never acts as system:*)', async () => {
    const gatewaySigner = new ServiceAuth({ secret: SECRET, service: 'gateway', refuseSystemPrincipals: true });
    const err = await call(client(gatewaySigner).getAction({ principal: { userId: 'system:operator', teamIds: [] }, name: 'x' })).catch((e) => e);
    expect([err.code, err.message]).toEqual(['PERMISSION_DENIED', 'gateway does not act for system:* principals']);
  });

  it('lets @PublicRpc handlers through without a token (they see only the message)', async () => {
    const res = await call(client(null).listActions({ principal: { userId: 'claimed', teamIds: [] }, category: '' }));
    expect(res.actions[0]!.name).toBe('principal=claimed');
  });

  it('lets only the named issuers call an @InternalRpc handler', async () => {
    const denied = await call(client(gateway).planTask({ principal: { userId: 'alice', teamIds: [] } } as unknown as planner.PlanTaskRequest)).catch((e) => e);
    expect([denied.code, denied.message]).toEqual(['PERMISSION_DENIED', 'FakePlanner.planTask is internal: only orchestrator may call it']);
    const orchestrator = new ServiceAuth({ secret: SECRET, service: 'orchestrator' });
    const allowed = await call(client(orchestrator).planTask({ principal: { userId: 'alice', teamIds: [] } } as unknown as planner.PlanTaskRequest)).catch((e) => e);
    expect(allowed.code).toBe('UNIMPLEMENTED');
  });
});
