/**
 * A NestJS gRPC microservice with the standard grpc.health.v1 service and
 * server reflection, loader options matching the generated code.
 *
 * Health answers SERVING for '' (the server as a whole, what the Kubernetes
 * probes ask), for the fully-qualified name of every gRPC service the server
 * implements (`agentfactory.planner.v1.PlannerService`, what grpcurl and mesh
 * health checks ask) and for each proto package name (kept for older callers).
 * Reflection lists exactly the implemented services plus grpc.health.v1.Health,
 * so `grpcurl list` shows what the port serves and `grpcurl ... Health/Check`
 * works without a local copy of the protos.
 */
import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { grpcLoaderOptions, protoFiles, type ProtoPackage } from '@af/contracts';
import { ReflectionService } from '@grpc/reflection';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import type { Server, ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import type { Logger } from '../logger.js';
import { GrpcExceptionFilter } from './grpc-exception.filter.js';
import { PinoNestLogger } from './nest-logger.js';
import type { Metrics } from '../metrics.js';
import { RpcMetricsInterceptor } from './rpc-metrics.interceptor.js';
import { ServiceAuthGuard } from './service-auth.guard.js';
import type { PrincipalVerifier } from '../auth/service-auth.js';

const PACKAGE_NAMES: Record<ProtoPackage, string> = {
  common: 'agentfactory.common.v1',
  planner: 'agentfactory.planner.v1',
  orchestrator: 'agentfactory.orchestrator.v1',
  connector: 'agentfactory.connector.v1',
  approval: 'agentfactory.approval.v1',
  agent: 'agentfactory.agent.v1',
  action: 'agentfactory.action.v1',
  output: 'agentfactory.output.v1',
  entity: 'agentfactory.entity.v1',
};

/** Largest message between our services (grpc-js refuses more than 4 MiB received by default). */
export const GRPC_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/** The health service's fully-qualified name, as reflection lists it. */
export const HEALTH_SERVICE_NAME = 'grpc.health.v1.Health';

export interface GrpcServer {
  app: INestMicroservice;
  health: HealthImplementation;
  /** Fully-qualified names of the gRPC services this server implements (each has a health status). */
  services: string[];
  close(): Promise<void>;
}

/** The grpc.health.v1 descriptor, loaded once: reflection serves it so clients need no local proto. */
let healthDefinition: PackageDefinition | undefined;
function healthPackageDefinition(): PackageDefinition {
  healthDefinition ??= loadSync(healthProtoPath, { keepCase: true });
  return healthDefinition;
}

/**
 * Adds server reflection (v1 and v1alpha) to `server`, describing `definition`
 * plus grpc.health.v1 and listing only `services` and the health service.
 * The gateway uses it for its health-only port; startGrpcServer for the rest.
 */
export function addReflection(server: Pick<Server, 'addService'>, definition: PackageDefinition, services: string[]): void {
  const merged = { ...definition, ...healthPackageDefinition() };
  new ReflectionService(merged, { services: [...services, HEALTH_SERVICE_NAME] }).addToServer(server);
}

/** "agentfactory.planner.v1.PlannerService" from a service definition's method paths ("/pkg.Service/Method"). */
function serviceNameOf(definition: ServiceDefinition): string | undefined {
  const first = Object.values(definition)[0];
  return first?.path.split('/')[1];
}

export async function startGrpcServer(options: {
  module: DynamicModule;
  packages: ProtoPackage[];
  host: string;
  port: number;
  log: Logger;
  /** When given, every handler's duration is recorded as af_rpc_duration_seconds. */
  metrics?: Metrics;
  /**
   * Verifies the principal token of every call (ServiceAuthGuard). `null`
   * only for servers that are not ours to protect this way: test stand-ins
   * for capability agents and plugins, which the system calls.
   */
  auth: PrincipalVerifier | null;
}): Promise<GrpcServer> {
  const health = new HealthImplementation({ '': 'NOT_SERVING' });
  // Nest adds every service of the loaded packages, with no handlers for the
  // ones this server does not implement (e.g. ConnectorPluginService, which
  // plugins serve). Only those with at least one handler are recorded.
  const services: string[] = [];
  let server: Pick<Server, 'addService'> | undefined;
  let definition: PackageDefinition | undefined;
  let restoreAddService = () => {};
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(options.module, {
    transport: Transport.GRPC,
    logger: new PinoNestLogger(options.log),
    options: {
      package: options.packages.map((p) => PACKAGE_NAMES[p]),
      protoPath: options.packages.flatMap((p) => protoFiles(p)),
      url: `${options.host}:${options.port}`,
      // A run's view may carry several node outputs of up to NODE_OUTPUT_MAX_BYTES (1 MiB) each.
      maxReceiveMessageLength: GRPC_MAX_MESSAGE_BYTES,
      maxSendMessageLength: GRPC_MAX_MESSAGE_BYTES,
      loader: { ...grpcLoaderOptions, includeDirs: [...grpcLoaderOptions.includeDirs] },
      onLoadPackageDefinition: (pkg: PackageDefinition, grpcServer: Pick<Server, 'addService'>) => {
        health.addToServer(grpcServer as Server);
        [server, definition] = [grpcServer, pkg];
        const original = grpcServer.addService;
        const addService = original.bind(grpcServer);
        restoreAddService = () => (grpcServer.addService = original);
        grpcServer.addService = (service: ServiceDefinition, implementation: UntypedServiceImplementation) => {
          const name = serviceNameOf(service);
          if (name && Object.keys(implementation).length > 0 && !services.includes(name)) services.push(name);
          addService(service, implementation);
        };
      },
    },
  });
  app.useGlobalFilters(new GrpcExceptionFilter(options.log));
  if (options.auth) app.useGlobalGuards(new ServiceAuthGuard(options.auth));
  if (options.metrics) app.useGlobalInterceptors(new RpcMetricsInterceptor(options.metrics));
  await app.listen();
  // Nest has added its services by now; reflection is added after them so it can list exactly those.
  if (!server || !definition) throw new Error('gRPC server started without loading its package definition');
  restoreAddService();
  const served = [...services];
  addReflection(server, definition, served);
  const names = ['', ...served, ...options.packages.map((p) => PACKAGE_NAMES[p])];
  for (const name of names) health.setStatus(name, 'SERVING');
  return {
    app,
    health,
    services: served,
    close: async () => {
      for (const name of names) health.setStatus(name, 'NOT_SERVING');
      await app.close();
    },
  };
}

export { PACKAGE_NAMES };
