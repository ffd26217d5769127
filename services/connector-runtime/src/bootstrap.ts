import { request } from 'undici';
import 'reflect-metadata';
import { parseKeyring, ServiceKit, startGrpcServer } from '@af/service-kit';
import { Connectors } from './app/connectors.js';
import { connectorRuntimeEnvSchema } from './config.js';
import { ConnectorModule } from './grpc/connector.controller.js';
import { ConnectorRepository } from './infra/connector.repository.js';
import { ExecutionRepository } from './infra/execution.repository.js';
import { Init1763800000000 } from './infra/migrations/1763800000000-init.js';

export async function bootstrapConnectorRuntime(env: NodeJS.ProcessEnv = process.env) {
  const kit = await ServiceKit.start({ name: 'connector-runtime', envSchema: connectorRuntimeEnvSchema, env, migrations: [Init1763800000000] });
  const keyring = parseKeyring(kit.config.CREDENTIALS_KEYS);
  const connectors = new Connectors(new ConnectorRepository(kit, keyring), new ExecutionRepository(kit), kit.log, {
    idempotencyWindowMs: kit.config.IDEMPOTENCY_WINDOW_MS,
  }, {
    http: request,
    warn: (message, fields) => kit.log.warn(fields ?? {}, message),
  });
  const grpc = await startGrpcServer({
    module: ConnectorModule.forRoot(connectors),
    packages: ['connector'],
    host: kit.config.GRPC_HOST,
    port: kit.config.GRPC_PORT,
    log: kit.log,
    metrics: kit.metrics,
  });
  kit.onClose(() => grpc.close());
  kit.log.info({ grpcPort: kit.config.GRPC_PORT, keyIds: keyring.kids }, 'connector-runtime ready');
  return { kit, close: () => kit.close() };
}
