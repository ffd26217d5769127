/**
 * A NestJS gRPC microservice with the standard grpc.health.v1 service and
 * server reflection, loader options matching the generated code.
 */
import type { DynamicModule, INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { grpcLoaderOptions, protoFiles, type ProtoPackage } from '@af/contracts';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import type { Server } from '@grpc/grpc-js';
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
  entity: 'agentfactory.entity.v1',
};

/** Largest message between our services (grpc-js refuses more than 4 MiB received by default). */
export const GRPC_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

export interface GrpcServer {
  app: INestMicroservice;
  health: HealthImplementation;
  close(): Promise<void>;
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
      onLoadPackageDefinition: (pkg: object, server: Pick<Server, 'addService'>) => {
        health.addToServer(server as Server);
        new ReflectionService(pkg as never).addToServer(server);
      },
    },
  });
  app.useGlobalFilters(new GrpcExceptionFilter(options.log));
  if (options.auth) app.useGlobalGuards(new ServiceAuthGuard(options.auth));
  if (options.metrics) app.useGlobalInterceptors(new RpcMetricsInterceptor(options.metrics));
  await app.listen();
  for (const p of options.packages) health.setStatus(PACKAGE_NAMES[p], 'SERVING');
  health.setStatus('', 'SERVING');
  return {
    app,
    health,
    close: async () => {
      health.setStatus('', 'NOT_SERVING');
      await app.close();
    },
  };
}

export { PACKAGE_NAMES };
