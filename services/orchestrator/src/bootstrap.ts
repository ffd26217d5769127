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
import { subflowExecutor } from './app/executors/subflow.executor.js';
import { evaluateConditionExecutor, workflowTransformExecutor, WORKFLOW_TRANSFORM_ACTIONS } from './app/executors/workflow-transform.executor.js';
import { OrchestratorModule } from './grpc/orchestrator.module.js';
import { callConnectorExecutor, connectorClient, ConnectorLimits, connectorTools } from './infra/connector.client.js';
import { noPlanner, plannerClient, playbookPlanLoader } from './infra/planner.client.js';
import { createLlmExecutor } from './app/executors/llm.executor.js';
import { ConfigError } from '@af/service-kit';
import { createChatModel, describeLlmConfig, LlmConfigError, llmConfigFromEnv } from '@af/llm';
import { ORCHESTRATOR_MIGRATIONS } from './infra/migrations/index.js';
import { RunExecutionStore } from './infra/run-execution.store.js';
import { RunMaintenance } from './infra/run-maintenance.js';
import { RunRepository } from './infra/run.repository.js';
import { RunWorkConsumer } from './infra/run-work.consumer.js';

export async function bootstrapOrchestrator(env: NodeJS.ProcessEnv = process.env) {
  const llm = llmConfig(env);
  const kit = await ServiceKit.start({ name: 'orchestrator', envSchema: orchestratorEnvSchema, env, migrations: ORCHESTRATOR_MIGRATIONS });
  const { config } = kit;
  const repo = new RunRepository(kit);
  const connectors = connectorClient(config.CONNECTOR_RUNTIME_URL);
  const model = await createChatModel(llm);
  kit.log.info({ llm: describeLlmConfig(llm) }, 'llm');
  const limits = new ConnectorLimits(config.CONNECTOR_CONCURRENCY, config.CONNECTOR_CONCURRENCY_OVERRIDES);
  const executors = new NodeExecutors()
    .register('tool:call_connector', callConnectorExecutor(connectors, limits))
    .register('llm', createLlmExecutor({ model, tools: connectorTools(connectors, limits), onReport: (r) => kit.log.info(r, 'llm node') }))
    .register('tool:transform_data', transformDataExecutor, { pure: true })
    .register('transform:evaluate_condition', evaluateConditionExecutor, { pure: true, raw: true })
    .register('approval', approvalExecutor)
    .register('delay', delayExecutor)
    .register('route', routeExecutor, { pure: true })
    .register(
      'subflow',
      subflowExecutor({
        createChild: async (input) => (await repo.create(input)).run,
        loadPlaybook: config.PLANNER_URL ? playbookPlanLoader(plannerClient(config.PLANNER_URL)) : noPlanner,
        maxDepth: config.SUBFLOW_MAX_DEPTH,
      }),
      { rawParams: ['plan'] },
    );
  for (const action of WORKFLOW_TRANSFORM_ACTIONS) {
    if (action !== 'evaluate_condition') executors.register(`transform:${action}`, workflowTransformExecutor, { pure: true, raw: true });
  }
  const executor = new ExecuteRun(
    repo,
    new RunExecutionStore(kit),
    executors,
    {
      owner: config.SERVICE_INSTANCE_ID,
      leaseMs: config.RUN_LEASE_MS,
      concurrency: config.RUN_CONCURRENCY,
      nodeTimeoutMs: config.NODE_TIMEOUT_MS,
      mapMaxIterations: config.MAP_MAX_ITERATIONS,
    },
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
  kit.log.info({ grpcPort: config.GRPC_PORT, instance: config.SERVICE_INSTANCE_ID, planner: config.PLANNER_URL ?? null }, 'orchestrator ready');
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
