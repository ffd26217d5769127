/** Composition root: wires config, persistence, executors, the work consumer and gRPC. */
import 'reflect-metadata';
import { configureConditionLimits } from '@af/expr';
import { configurePlanLimits } from '@af/plan';
import { ActionServices, servedActionName, serviceAuthFromConfig, ServiceKit, startGrpcServer } from '@af/service-kit';
import { ExecuteRun } from './app/execute-run.use-case.js';
import { flexPlanSource, PolicyCommands, playbookPlanSource } from './app/policy-commands.js';
import { RunCommands } from './app/run-commands.js';
import { RunPolicies } from './app/run-policies.js';
import { orchestratorEnvSchema } from './config.js';
import { NodeExecutors, type NodeContext } from './domain/node-executor.js';
import { actionTools } from './infra/action-tools.js';
import { transformDataExecutor } from './app/executors/transform-data.executor.js';
import { approvalExecutor, delayExecutor } from './app/executors/waiting.executors.js';
import { humanExecutor } from './app/executors/human.executor.js';
import { capabilityExecutor } from './app/executors/capability.executor.js';
import { CapabilityAgentClients } from './infra/capability-agent.client.js';
import { capabilityDirectory, capabilityRegistryClient } from './infra/capability-directory.client.js';
import { capabilityHolders } from './infra/capability-holders.client.js';
import { clarifying, hitlGated } from './app/executors/hitl-wrappers.js';
import { ApprovalDecisions } from './app/approval-decisions.js';
import { approvalClient, noApprovalService } from './infra/approval.client.js';
import { ApprovalEventsConsumer } from './infra/approval-events.consumer.js';
import { ApprovalWaitsStore } from './infra/approval-waits.store.js';
import { routeExecutor } from './app/executors/route.executor.js';
import { subflowExecutor } from './app/executors/subflow.executor.js';
import { evaluateConditionExecutor, workflowTransformExecutor, WORKFLOW_TRANSFORM_ACTIONS } from './app/executors/workflow-transform.executor.js';
import { OrchestratorModule } from './grpc/orchestrator.module.js';
import { callConnectorExecutor, connectorClient, ConnectorLimits, connectorTools } from './infra/connector.client.js';
import { flexReplanner, noFlexReplanner, noPlanner, plannerClient, playbookPlanLoader } from './infra/planner.client.js';
import { createLlmExecutor } from './app/executors/llm.executor.js';
import { ConfigError } from '@af/service-kit';
import { createChatModel, describeLlmConfig, LlmConfigError, llmConfigFromEnv } from '@af/llm';
import { ORCHESTRATOR_MIGRATIONS } from './infra/migrations/index.js';
import { actionExecutor } from './app/executors/action.executor.js';
import { actionCheck } from './app/action-availability.js';
import { PolicyStore } from './infra/policy.store.js';
import { RunExecutionStore } from './infra/run-execution.store.js';
import { RunMaintenance } from './infra/run-maintenance.js';
import { RunRepository } from './infra/run.repository.js';
import { RunWorkConsumer } from './infra/run-work.consumer.js';
import { startSchedules } from './app/schedule-bootstrap.js';
import { agentProfilesClient, noAgentProfiles } from './infra/agent-profiles.client.js';
import { registerMonitorActions } from './app/executors/monitor-detection.executor.js';
import { MonitorWatermarkStore } from './infra/monitor-watermark.store.js';

export async function bootstrapOrchestrator(env: NodeJS.ProcessEnv = process.env) {
  const llm = llmConfig(env);
  const kit = await ServiceKit.start({ name: 'orchestrator', envSchema: orchestratorEnvSchema, env, migrations: ORCHESTRATOR_MIGRATIONS });
  // Bounded work (docs/security/limits.md): plan size and condition cost, process-wide.
  configurePlanLimits({ maxNodes: kit.config.PLAN_MAX_NODES });
  configureConditionLimits({ maxSteps: kit.config.CONDITION_MAX_STEPS, maxQuantifierDepth: kit.config.CONDITION_MAX_QUANTIFIER_DEPTH });
  const { config } = kit;
  const repo = new RunRepository(kit);
  // Signs every call to our services: the run owner's principal, or system:orchestrator.
  const auth = serviceAuthFromConfig(config, 'orchestrator');
  const connectors = connectorClient(config.CONNECTOR_RUNTIME_URL, auth);
  const model = await createChatModel(llm);
  kit.log.info({ llm: describeLlmConfig(llm) }, 'llm');
  const loadPlaybook = config.PLANNER_URL ? playbookPlanLoader(plannerClient(config.PLANNER_URL, auth)) : noPlanner;
  const policyStore = new PolicyStore(kit);
  // Replans without a given plan: a planner-made run is planned again from its task envelope (PlanTask), a playbook run's stored playbook compiled again.
  const planSource = flexPlanSource(config.PLANNER_URL ? flexReplanner(plannerClient(config.PLANNER_URL, auth)) : noFlexReplanner, playbookPlanSource(loadPlaybook));
  const limits = new ConnectorLimits(config.CONNECTOR_CONCURRENCY, config.CONNECTOR_CONCURRENCY_OVERRIDES);
  // People: approvals, human tasks and clarifications wait on the approval service.
  // The planner's capability registry: AI agents' endpoints and human capabilities' holders.
  const registry = config.PLANNER_URL ? capabilityRegistryClient(config.PLANNER_URL, auth) : undefined;
  const hitl = { approvals: config.APPROVAL_URL ? approvalClient(config.APPROVAL_URL, auth) : noApprovalService, waits: new ApprovalWaitsStore(kit) };
  // Research tools: the run owner's connector endpoints and the built-in actions the planner offered (served where they live).
  const actionPort: { current?: ActionServices } = {};
  const byConnector = connectorTools(connectors, limits);
  const byAction = actionTools(() => actionPort.current);
  const researchTools = async (ctx: NodeContext) => [...(await byConnector(ctx)), ...(await byAction(ctx))];
  const executors = new NodeExecutors()
    .register('tool:call_connector', callConnectorExecutor(connectors, limits))
    .register('llm', hitlGated(clarifying(createLlmExecutor({ model, tools: researchTools, onReport: (r) => kit.log.info(r, 'llm node') }), hitl), hitl))
    .register('tool:transform_data', transformDataExecutor, { pure: true })
    .register('transform:evaluate_condition', evaluateConditionExecutor, { pure: true, raw: true })
    .register('approval', approvalExecutor(hitl))
    .register('human', humanExecutor({ ...hitl, holders: registry ? capabilityHolders(registry) : undefined }))
    .register('delay', delayExecutor)
    .register('route', routeExecutor, { pure: true })
    .register(
      'subflow',
      subflowExecutor({
        createChild: async (input) => (await repo.create(input)).run,
        loadPlaybook,
        maxDepth: config.SUBFLOW_MAX_DEPTH,
      }),
      { rawParams: ['plan'] },
    );
  // Built-in actions run in the service that owns their data; this is the fallback for every `tool` action not registered above.
  const actions = new ActionServices(config.ACTION_SERVICES, kit.log, auth, { refreshMs: config.ACTION_REFRESH_MS });
  await actions.start();
  actionPort.current = actions;
  kit.onClose(() => actions.stop());
  // A read-only served action's completion rides on the run's next statement (a replay after a crash does nothing twice).
  executors.register('tool', actionExecutor(actions), { readOnly: (node) => actions.servedNow(servedActionName(node))?.sideEffects === false });
  // Monitors: the orchestrator keeps the watermarks, runs detect_new_data and the watermark actions, and hands detection actions served elsewhere their stored watermark.
  registerMonitorActions(executors, { connectors, limits, watermarks: new MonitorWatermarkStore(kit), served: actionExecutor(actions), readOnly: (node) => actions.servedNow(servedActionName(node))?.sideEffects === false });
  // AI capability nodes run on the agents registered (with an endpoint) in the planner's capability registry.
  const agents = new CapabilityAgentClients({ allow: config.CAPABILITY_EGRESS_ALLOW });
  const nodeDuration = kit.metrics.histogram('flex_node_duration_ms', 'flex.node.duration_ms: capability node duration in milliseconds', ['capability', 'outcome'], [5, 20, 100, 500, 2000, 10_000, 60_000, 300_000]);
  kit.onClose(() => agents.close());
  const capabilities = capabilityExecutor({
    directory: registry ? capabilityDirectory(registry) : undefined,
    agents,
    frame: (ctx, frame) => store.frames(ctx.runId, config.SERVICE_INSTANCE_ID, [frame], ctx.instanceId),
    observe: (capabilityId, outcome, ms) => nodeDuration.observe({ capability: capabilityId, outcome }, ms),
  });
  executors.register('capability', hitlGated(clarifying(capabilities, hitl), hitl));
  for (const action of WORKFLOW_TRANSFORM_ACTIONS) {
    if (action !== 'evaluate_condition') executors.register(`transform:${action}`, workflowTransformExecutor, { pure: true, raw: true });
  }
  const store = new RunExecutionStore(kit, { batchMax: config.PURE_NODE_BATCH });
  // StartRun's plan checks; a replan's new plan (ReplanRun, a policy's replan) gets them too.
  const runCapabilities = { hasModel: Boolean(model) };
  const checkActions = actionCheck(actions);
  const executor = new ExecuteRun(
    repo,
    store,
    executors,
    {
      owner: config.SERVICE_INSTANCE_ID,
      leaseMs: config.RUN_LEASE_MS,
      concurrency: config.RUN_CONCURRENCY,
      nodeTimeoutMs: config.NODE_TIMEOUT_MS,
      mapMaxIterations: config.MAP_MAX_ITERATIONS,
      nodeOutputMaxBytes: config.NODE_OUTPUT_MAX_BYTES,
      readOnlyStartGraceMs: config.READ_ONLY_START_GRACE_MS,
    },
    kit.log,
    // Policy hitl gates are policy_hitl requests in the approval service when there is one.
    new RunPolicies(store, policyStore, repo, planSource, config.SERVICE_INSTANCE_ID, kit.log, config.APPROVAL_URL ? hitl : undefined, { checkActions, capabilities: runCapabilities }),
  );
  const consumer = new RunWorkConsumer(kit, repo, new RunMaintenance(kit, repo), executor);
  // Runs created here start here at once, leased from their first statement (no work item; the sweeper covers a
  // crash); runs whose work items this process commits (resumed, woken, …) start here at once too — when there is
  // room; those work items still go out.
  repo.claimLocally(() => consumer.claim());
  // A parked run whose wait a resolution ends is leased here by the statement that records it, and goes on here.
  hitl.waits.claimLocally(() => consumer.claim());
  consumer.dispatchCommitted();
  const decisions = new ApprovalEventsConsumer(kit, hitl.waits, hitl.approvals, config.APPROVAL_RECONCILE_MS);
  const runCommands = new RunCommands(repo, new ApprovalDecisions(hitl.approvals, hitl.waits), { runInputMaxBytes: config.RUN_INPUT_MAX_BYTES }, checkActions, runCapabilities);
  // Schedules that target an agent profile: checked and prepared by the planner, which owns profiles.
  const agentProfiles = config.PLANNER_URL ? agentProfilesClient(config.PLANNER_URL, auth) : noAgentProfiles;
  const schedules = await startSchedules(kit, runCommands, loadPlaybook, agentProfiles);
  const grpc = await startGrpcServer({
    module: OrchestratorModule.forRoot(runCommands, { repo, kit }, new PolicyCommands(repo, policyStore, planSource, kit.log, config.APPROVAL_URL ? hitl : undefined, { checkActions, capabilities: runCapabilities }), schedules),
    packages: ['orchestrator'],
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    log: kit.log,
    metrics: kit.metrics,
    auth,
  });
  kit.onClose(() => grpc.close());
  kit.onClose(() => consumer.stop());
  kit.onClose(() => decisions.stop());
  await consumer.start();
  if (config.APPROVAL_URL) await decisions.start();
  kit.log.info({ grpcPort: config.GRPC_PORT, instance: config.SERVICE_INSTANCE_ID, planner: config.PLANNER_URL ?? null, approval: config.APPROVAL_URL ?? null }, 'orchestrator ready');
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
