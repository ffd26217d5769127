import 'reflect-metadata';
import { request } from 'undici';
import { parseKeyring, ServiceKit, startGrpcServer } from '@af/service-kit';
import { Bindings } from './app/bindings.js';
import { Connectors } from './app/connectors.js';
import { Templates } from './app/templates.js';
import { TestConnector } from './app/test-connector.js';
import { connectorRuntimeEnvSchema } from './config.js';
import { ConnectorModule } from './grpc/connector.controller.js';
import { BindingRepository } from './infra/binding.repository.js';
import { ConnectorRepository } from './infra/connector.repository.js';
import { ExecutionRepository } from './infra/execution.repository.js';
import { CONNECTOR_RUNTIME_MIGRATIONS } from './infra/migrations/index.js';
import { loadTemplates } from './infra/template-catalog.js';

export async function bootstrapConnectorRuntime(env: NodeJS.ProcessEnv = process.env) {
  // Templates are part of the release: a broken one stops start-up before anything else.
  const templateFiles = loadTemplates();
  const kit = await ServiceKit.start({
    name: 'connector-runtime',
    envSchema: connectorRuntimeEnvSchema,
    env,
    migrations: CONNECTOR_RUNTIME_MIGRATIONS,
  });
  const keyring = parseKeyring(kit.config.CREDENTIALS_KEYS);
  const connectorRepo = new ConnectorRepository(kit, keyring);
  const bindings = new Bindings(new BindingRepository(kit, keyring), connectorRepo);
  const connectors = new Connectors(
    connectorRepo,
    new ExecutionRepository(kit),
    bindings,
    kit.log,
    { idempotencyWindowMs: kit.config.IDEMPOTENCY_WINDOW_MS },
    {
      http: request,
      warn: (message, fields) => kit.log.warn(fields ?? {}, message),
    },
  );
  const templates = new Templates(templateFiles, connectors);
  const tester = new TestConnector(connectors, connectorRepo);
  const grpc = await startGrpcServer({
    module: ConnectorModule.forRoot({ connectors, bindings, templates, tester }),
    packages: ['connector'],
    host: kit.config.GRPC_HOST,
    port: kit.config.GRPC_PORT,
    log: kit.log,
    metrics: kit.metrics,
  });
  kit.onClose(() => grpc.close());
  kit.log.info({ grpcPort: kit.config.GRPC_PORT, keyIds: keyring.kids, templates: templateFiles.length }, 'connector-runtime ready');
  return { kit, close: () => kit.close() };
}
