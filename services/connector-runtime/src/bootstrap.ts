import 'reflect-metadata';
import { ActionDispatcher, ActionServiceModule, parseKeyring, PgActionRecords, serviceAuthFromConfig, ServiceKit, startGrpcServer } from '@af/service-kit';
import { Bindings } from './app/bindings.js';
import { CallPipeline } from './app/call-pipeline.js';
import { Connectors } from './app/connectors.js';
import { pluginActionSource } from './app/plugin-actions.js';
import { Plugins } from './app/plugins.js';
import { Templates } from './app/templates.js';
import { TestConnector } from './app/test-connector.js';
import { UserConnections } from './app/user-connections.js';
import { webActionHandlers } from './app/web-actions.js';
import { stateSecretFrom } from './domain/oauth-state.js';
import { connectorRuntimeEnvSchema } from './config.js';
import { ConnectorModule } from './grpc/connector.controller.js';
import { PluginRegistryModule } from './grpc/plugin-registry.controller.js';
import { BindingRepository } from './infra/binding.repository.js';
import { CircuitBreaker, CircuitBreakerStore } from './infra/circuit-breaker.store.js';
import { ConnectorRepository } from './infra/connector.repository.js';
import { ExecutionRepository } from './infra/execution.repository.js';
import { createEgressGuard, egressHostCheck } from './infra/guarded-http.js';
import { CONNECTOR_RUNTIME_MIGRATIONS } from './infra/migrations/index.js';
import { PgOAuthTokenStore } from './infra/oauth-token.store.js';
import { GrpcPluginTransport } from './infra/plugin.client.js';
import { PluginRepository } from './infra/plugin.repository.js';
import { UserConnectionRepository } from './infra/user-connection.repository.js';
import { closeDatabasePools, PgReadOnlyRunner } from './infra/pg-readonly.js';
import { RateLimiter } from './infra/rate-limiter.js';
import { ResponseCache } from './infra/response-cache.js';
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
  const { config } = kit;
  const keyring = parseKeyring(config.CREDENTIALS_KEYS);

  // Outbound I/O: every HTTP request and database connection passes the SSRF guard.
  const egress = createEgressGuard({ allow: config.CONNECTOR_EGRESS_ALLOW });
  kit.onClose(() => egress.close());
  const sql = new PgReadOnlyRunner({ log: kit.log, checkHost: egressHostCheck(config.CONNECTOR_EGRESS_ALLOW) });
  kit.onClose(() => closeDatabasePools());

  const cache = new ResponseCache(kit.db);
  const purge = setInterval(() => void cache.purgeExpired().catch((err: unknown) => kit.log.warn({ err }, 'response cache purge failed')), 600_000);
  purge.unref();
  kit.onClose(async () => clearInterval(purge));

  const plugins = new Plugins(new PluginRepository(kit, keyring), new GrpcPluginTransport(), kit.log, {
    ...(config.PLUGIN_REGISTRATION_TOKEN ? { registrationToken: config.PLUGIN_REGISTRATION_TOKEN } : {}),
    registrationOpen: config.PLUGIN_REGISTRATION_OPEN,
    heartbeatSeconds: config.PLUGIN_HEARTBEAT_SECONDS,
  });

  const tokens = new PgOAuthTokenStore(kit.db, keyring, { log: kit.log });
  const pipeline = new CallPipeline({
    egress,
    limiter: new RateLimiter(kit.db, { leaseMs: config.RATE_LIMIT_LEASE_MS }),
    breaker: new CircuitBreaker(new CircuitBreakerStore(kit.db), {
      failureThreshold: config.BREAKER_FAILURE_THRESHOLD,
      recoveryMs: config.BREAKER_RECOVERY_MS,
      syncMs: config.BREAKER_SYNC_MS,
    }),
    cache,
    log: kit.log,
    maxWaitMs: config.RATE_LIMIT_MAX_WAIT_MS,
    context: {
      warn: (message, fields) => kit.log.warn(fields ?? {}, message),
      oauth: tokens,
      sql,
      invokePlugin: plugins.invokePlugin,
      ...(config.CONNECTOR_FILE_ROOT ? { fileRoot: config.CONNECTOR_FILE_ROOT } : {}),
    },
  });

  const connectorRepo = new ConnectorRepository(kit, keyring);
  const bindings = new Bindings(new BindingRepository(kit, keyring), connectorRepo);
  const connectionRepo = new UserConnectionRepository(kit, keyring);
  // The in-process bus means one process (`pnpm start`): a claim left by an earlier, dead one is taken over at once.
  const executions = new ExecutionRepository(kit, { singleProcess: config.NATS_URL.startsWith('memory:') });
  const connectors = new Connectors(connectorRepo, executions, bindings, pipeline, kit.log, {
    idempotencyWindowMs: config.IDEMPOTENCY_WINDOW_MS,
    onConnectionAuthFailed: (userId, connectorId) => connectionRepo.markStatus(userId, connectorId, 'expired'),
  });
  const templates = new Templates(templateFiles, connectors);
  const tester = new TestConnector(connectors, connectorRepo);
  const connections = new UserConnections({
    kit,
    repo: connectionRepo,
    tokens,
    connector: (userId, id) => connectors.get(userId, id),
    credentials: (userId, id) => connectorRepo.credentials(userId, id),
    http: (userId, id) => egress.forConnector(userId, id),
    stateSecret: stateSecretFrom(keyring.keyFor(keyring.activeKid) as Buffer),
    log: kit.log,
  });
  // Built-in `search_web` and `crawl_url`, and plugin tools as actions (`plugin:<plugin>.<tool>`), through ActionService.
  const actions = new ActionDispatcher('connector-runtime', webActionHandlers(connectors), new PgActionRecords(kit.db), { source: pluginActionSource(plugins) });
  const auth = serviceAuthFromConfig(config, 'connector-runtime');
  const grpc = await startGrpcServer({
    module: {
      ...ConnectorModule.forRoot({ connectors, bindings, templates, tester, connections }),
      imports: [PluginRegistryModule.forRoot(plugins), ActionServiceModule.forRoot(actions, { auth, log: kit.log })],
    },
    packages: ['connector', 'action'],
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    log: kit.log,
    metrics: kit.metrics,
    auth,
  });
  kit.onClose(() => grpc.close());
  kit.log.info({ grpcPort: config.GRPC_PORT, keyIds: keyring.kids, templates: templateFiles.length }, 'connector-runtime ready');
  return { kit, close: () => kit.close() };
}
