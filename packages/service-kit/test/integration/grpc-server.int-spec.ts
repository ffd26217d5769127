/**
 * Real gRPC over loopback: a Nest microservice started by startGrpcServer
 * serves grpc.health.v1, server reflection, and maps AppError to a status with
 * the field-path detail that createGrpcClient/call restore.
 */
import { Controller, Module } from '@nestjs/common';
import { credentials, loadPackageDefinition, Metadata, type ServiceClientConstructor } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { plan, planner } from '@af/contracts';
import { freePort } from '@af/testing';
import { join, dirname } from 'node:path';
import { AppError, call, createGrpcClient, createLogger, Metrics, startGrpcServer, type GrpcServer } from '../../src/index.js';

@Controller()
@planner.PlannerServiceControllerMethods()
class FakePlanner {
  compilePlaybook(req: planner.CompilePlaybookRequest): planner.CompilePlaybookResponse {
    if (!req.yaml) throw new AppError('INVALID_ARGUMENT', 'yaml: is required', { violations: [{ field: 'yaml', reason: 'is required' }] });
    // The plan is a typed message now; its `metadata` is still a google.protobuf.Struct.
    return { plan: plan.PlanGraph.fromJSON({ metadata: { echoed: req.yaml, nested: { list: [1, 'two', null, true] } } }), results: [] };
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
  listActions() {
    return { actions: [] };
  }
  getAction(): never {
    throw AppError.notFound('action', 'x');
  }
  // Every RPC of the service must exist for the controller decorator; these are not exercised here.
  planTask(): never {
    throw new AppError('UNIMPLEMENTED', 'planTask is not part of this fake');
  }
  compileMasterPlan(): never {
    throw new AppError('UNIMPLEMENTED', 'compileMasterPlan is not part of this fake');
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
  server = await startGrpcServer({ module: { module: FakeModule }, packages: ['planner'], host: '127.0.0.1', port, log: createLogger('t', 'silent'), metrics });
  metricsPort = await metrics.listen('127.0.0.1', 0);
});

afterAll(async () => {
  await server?.close();
  await metrics.close();
});

const healthProto = join(dirname(require.resolve('grpc-health-check/package.json')), 'proto/health/v1/health.proto');

it('answers grpc.health.v1 Check with SERVING', async () => {
  const def = loadSync(healthProto, { keepCase: true, enums: String });
  const pkg = loadPackageDefinition(def) as unknown as { grpc: { health: { v1: { Health: ServiceClientConstructor } } } };
  const client = new pkg.grpc.health.v1.Health(`127.0.0.1:${port}`, credentials.createInsecure());
  const check = (service: string) =>
    new Promise<{ status: string }>((resolve, reject) =>
      client.Check!({ service }, new Metadata(), (err: Error | null, res: { status: string }) => (err ? reject(err) : resolve(res))),
    );
  expect((await check('')).status).toBe('SERVING');
  expect((await check('agentfactory.planner.v1')).status).toBe('SERVING');
  client.close();
});

it('lists its services through server reflection', async () => {
  const reflectionProto = join(dirname(require.resolve('@grpc/reflection/package.json')), 'build/proto/grpc/reflection/v1alpha/reflection.proto');
  const def = loadSync(reflectionProto, { keepCase: true });
  const pkg = loadPackageDefinition(def) as any;
  const client = new pkg.grpc.reflection.v1alpha.ServerReflection(`127.0.0.1:${port}`, credentials.createInsecure());
  const names = await new Promise<string[]>((resolve, reject) => {
    const stream = client.ServerReflectionInfo();
    stream.on('data', (res: any) => {
      resolve(res.list_services_response.service.map((s: { name: string }) => s.name));
      stream.end();
    });
    stream.on('error', reject);
    stream.write({ list_services: '' });
  });
  expect(names).toContain('agentfactory.planner.v1.PlannerService');
  client.close();
});

it('carries Struct payloads as plain JSON and errors as AppError with field paths', async () => {
  const client = createGrpcClient<planner.PlannerServiceClient>('planner', planner.PLANNER_SERVICE_NAME, `127.0.0.1:${port}`);
  const ok = await call(client.compilePlaybook({ principal: undefined, yaml: 'x: 1' }));
  expect(ok.plan!.metadata).toEqual({ echoed: 'x: 1', nested: { list: [1, 'two', null, true] } });

  const invalid = await call(client.compilePlaybook({ principal: undefined, yaml: '' })).catch((e) => e);
  expect(invalid).toBeInstanceOf(AppError);
  expect(invalid.code).toBe('INVALID_ARGUMENT');
  expect(invalid.violations).toEqual([{ field: 'yaml', reason: 'is required' }]);

  const notFound = await call(client.getPlaybook({ principal: undefined, id: 'p1' })).catch((e) => e);
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
