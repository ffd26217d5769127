/** Composition root: wires config, persistence, executors, the work consumer and gRPC. */
import 'reflect-metadata';
import { ServiceKit, startGrpcServer } from '@af/service-kit';
import { ExecuteRun } from './app/execute-run.use-case.js';
import { RunCommands } from './app/run-commands.js';
import { orchestratorEnvSchema } from './config.js';
import { NodeExecutors } from './domain/node-executor.js';
import { transformDataExecutor } from './app/executors/transform-data.executor.js';
import { approvalExecutor, delayExecutor } from './app/executors/waiting.executors.js';
import { routeExecutor } from './app/executors/route.executor.js';
import { OrchestratorModule } from './grpc/orchestrator.module.js';
import { callConnectorExecutor, connectorClient, connectorTools } from './infra/connector.client.js';
import { createLlmExecutor } from './app/executors/llm.executor.js';
import { ConfigError } from '@af/service-kit';
import { createChatModel, describeLlmConfig, LlmConfigError, llmConfigFromEnv } from '@af/llm';
import { Init1763800000000 } from './infra/migrations/1763800000000-init.js';
import { Waiting1763900000000 } from './infra/migrations/1763900000000-waiting.js';
import { NodeCache1764000000000 } from './infra/migrations/1764000000000-node-cache.js';
import { RunExecutionStore } from './infra/run-execution.store.js';
import { RunMaintenance } from './infra/run-maintenance.js';
import { RunRepository } from './infra/run.repository.js';
import { RunWorkConsumer } from './infra/run-work.consumer.js';

export async function bootstrapOrchestrator(env: NodeJS.ProcessEnv = process.env) {
  const llm = llmConfig(env);
  const kit = await ServiceKit.start({ name: 'orchestrator', envSchema: orchestratorEnvSchema, env, migrations: [Init1763800000000, Waiting1763900000000, NodeCache1764000000000] });
  const { config } = kit;
  const repo = new RunRepository(kit);
  const connectors = connectorClient(config.CONNECTOR_RUNTIME_URL);
  const model = await createChatModel(llm);
  kit.log.info({ llm: describeLlmConfig(llm) }, 'llm');
  const executors = new NodeExecutors()
    .register('tool:call_connector', callConnectorExecutor(connectors))
    .register('llm', createLlmExecutor({ model, tools: connectorTools(connectors), onReport: (r) => kit.log.info(r, 'llm node') }))
    .register('tool:transform_data', transformDataExecutor, { pure: true })
    .register('approval', approvalExecutor)
    .register('delay', delayExecutor)
    .register('route', routeExecutor, { pure: true });
  const executor = new ExecuteRun(
    repo,
    new RunExecutionStore(kit),
    executors,
    { owner: config.SERVICE_INSTANCE_ID, leaseMs: config.RUN_LEASE_MS, concurrency: config.RUN_CONCURRENCY, nodeTimeoutMs: config.NODE_TIMEOUT_MS },
    kit.log,
  );
  const consumer = new RunWorkConsumer(kit, repo, new RunMaintenance(kit, repo), executor);
  const grpc = await startGrpcServer({
    module: OrchestratorModule.forRoot(new RunCommands(repo), { repo, kit }),
    packages: ['orchestrator'],
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    log: kit.log,
    metrics: kit.metrics,
  });
  kit.onClose(() => grpc.close());
  kit.onClose(() => consumer.stop());
  await consumer.start();
  kit.log.info({ grpcPort: config.GRPC_PORT, instance: config.SERVICE_INSTANCE_ID }, 'orchestrator ready');
  return { kit, close: () => kit.close() };
}

/** LLM settings, checked before anything starts; errors name the variable. */
function llmConfig(env: NodeJS.ProcessEnv) {
  try {
    return llmConfigFromEnv(env);
  } catch (err) {
    if (err instanceof LlmConfigError) throw new ConfigError(err.problems.map((p) => ({ variable: p.field, reason: p.reason })));
    throw err;
  }
}
