/** Composition root of the planner: playbooks, the flex planner, the capability registry and facet catalog. */
import 'reflect-metadata';
import { CAPABILITY_EGRESS, egressPolicyFrom } from '@af/egress';
import { configureConditionLimits } from '@af/expr';
import { configurePlanLimits } from '@af/plan';
import { createChatModel, describeLlmConfig, llmConfigFromEnv } from '@af/llm';
import { ActionDispatcher, ActionServiceModule, ActionServices, PgActionRecords, serviceAuthFromConfig, ServiceKit, startGrpcServer } from '@af/service-kit';
import { AgentRuns } from './app/agent-runs.js';
import { Conversations } from './app/conversations.js';
import { Journal } from './app/journal.js';
import { JournalRepository } from './infra/journal.repository.js';
import { AgentRunEndConsumer } from './infra/agent-run-end.consumer.js';
import { orchestratorRuns } from './infra/orchestrator-runs.js';
import { llmInputReader } from './infra/llm-input-reader.js';
import { ActionAvailability } from './app/action-availability.js';
import { CapabilityRegistry } from './app/capability-registry.service.js';
import { FacetCatalogStore } from './app/facet-catalog.store.js';
import { PlanTaskUseCase } from './app/plan-task.use-case.js';
import { Playbooks, type PlaybookUsers } from './app/playbooks.js';
import { playbookSchedules, profileSchedules } from './infra/profile-schedules.client.js';
import { plannerEnvSchema } from './config.js';
import { DeterministicPlanner } from './domain/planning/planner.js';
import { PlannerModule } from './grpc/planner.controller.js';
import { followCapabilityEvents } from './infra/capability-event.follower.js';
import { CapabilityRepository } from './infra/capability.repository.js';
import { FacetRepository } from './infra/facet.repository.js';
import { FlexMetrics } from './infra/flex-metrics.js';
import { connectorCatalog, noConnectorCatalog } from './infra/connector-catalog.js';
import { LlmPlanner } from './infra/llm-planner.js';
import { plannerMigrations } from './infra/migrations/index.js';
import { ProfileMessages } from './app/profile-messages.js';
import { triggerModelFromConfig } from './infra/semantic-triggers.js';
import { ProfilesService } from './app/profiles.service.js';
import { ProfilesModule } from './grpc/profiles.controller.js';
import { QueryPipeline } from './app/query-pipeline.js';
import { QueryModule } from './grpc/query.controller.js';
import { QueryRepository } from './infra/query.repository.js';
import { connectorToolSource, noConnectorTools } from './infra/query-tools.js';
import { noProfileBindings, profileBindings } from './infra/profile-bindings.js';
import { ProfileRepository } from './infra/profile.repository.js';

export async function bootstrapPlanner(env: NodeJS.ProcessEnv = process.env) {
  const kit = await ServiceKit.start({ name: 'planner', envSchema: plannerEnvSchema, env, migrations: plannerMigrations });
  // Bounded work (docs/security/limits.md): plan size and condition cost, process-wide.
  configurePlanLimits({ maxNodes: kit.config.PLAN_MAX_NODES });
  configureConditionLimits({ maxSteps: kit.config.CONDITION_MAX_STEPS, maxQuantifierDepth: kit.config.CONDITION_MAX_QUANTIFIER_DEPTH });
  const { config, log } = kit;
  const startedAt = Date.now();
  const metrics = new FlexMetrics(kit.metrics);
  const capabilityRepo = new CapabilityRepository(kit.db);
  const facets = new FacetCatalogStore(kit, new FacetRepository(kit.db), capabilityRepo, config.FLEX_CAPABILITY_CACHE_TTL_MS);
  const registry = new CapabilityRegistry(kit, capabilityRepo, facets, config.FLEX_CAPABILITY_CACHE_TTL_MS, Date.now, { onChange: (event) => metrics.registry.inc({ event }) }, egressPolicyFrom(config.CAPABILITY_EGRESS_ALLOW, CAPABILITY_EGRESS));

  const llmConfig = llmConfigFromEnv(config);
  const model = await createChatModel(llmConfig);
  const llm = model ? new LlmPlanner({ model, modelName: describeLlmConfig(llmConfig) }) : undefined;
  const planTask = new PlanTaskUseCase({ facets, registry, deterministic: new DeterministicPlanner(), ...(llm ? { llm } : {}), defaultRuntime: config.FLEX_PLANNER_RUNTIME, maxAttempts: config.FLEX_PLANNER_MAX_ATTEMPTS, log, metrics });

  // Events from before this replica started are in its first load already (5 s margin for clock skew).
  const follower = await followCapabilityEvents({ bus: kit.bus, subjects: kit.subjects, log, registry, facets, since: startedAt - 5_000 });
  kit.onClose(() => follower.close());
  const sweeper = setInterval(() => {
    registry.sweep().catch((err) => log.warn({ err }, 'capability sweep failed'));
  }, config.FLEX_CAPABILITY_SWEEP_MS);
  sweeper.unref();
  kit.onClose(() => clearInterval(sweeper));

  // What this deployment can run: the services the orchestrator runs actions on, asked what they serve.
  const auth = serviceAuthFromConfig(config, 'planner');
  // Listed once the gRPC server below is up: the planner serves actions of its own (the journal's) and lists itself too.
  const actionServices = new ActionServices(config.ACTION_SERVICES, log, auth, { refreshMs: config.ACTION_REFRESH_MS });
  kit.onClose(() => actionServices.stop());
  const actions = new ActionAvailability(actionServices, log);
  // Validation checks a playbook's connectors against the caller's, and warns about llm steps without a model.
  const connectors = config.CONNECTOR_RUNTIME_URL ? connectorCatalog(config.CONNECTOR_RUNTIME_URL, auth) : noConnectorCatalog;
  // A playbook attached to an agent profile, or run by a schedule or monitor, is not deleted from under it.
  const playbookSchedulesUsing = config.ORCHESTRATOR_URL ? playbookSchedules(config.ORCHESTRATOR_URL, auth) : undefined;
  const playbookUsers: PlaybookUsers = async (owner, id) => [
    ...(await profiles.playbookUsers(owner, id)),
    ...(playbookSchedulesUsing ? await playbookSchedulesUsing(owner, id) : []),
  ];
  const playbooks = new Playbooks(kit, playbookUsers, actions, { connectors, hasModel: Boolean(model) });
  const profileConnectors = config.CONNECTOR_RUNTIME_URL ? profileBindings(config.CONNECTOR_RUNTIME_URL, auth) : noProfileBindings;
  // Runs, schedules or monitors still using a profile refuse its deletion: open agent runs are known here.
  const journalRepo = new JournalRepository(kit.db);
  const profileRepo = new ProfileRepository(kit.db);
  const schedulesUsing = config.ORCHESTRATOR_URL ? profileSchedules(config.ORCHESTRATOR_URL, auth) : undefined;
  const profiles = new ProfilesService(profileRepo, playbooks, profileConnectors, async (owner, id) => [
    ...(await journalRepo.openRuns(id)).map((runId) => ({ kind: 'run', id: runId })),
    ...(schedulesUsing ? await schedulesUsing(owner, id) : []),
  ]);
  // With a chat model, playbook inputs are read from the message by the model (checked, never invented); otherwise by fixed patterns.
  // With TRIGGER_EMBEDDER, semantic triggers are decided by the embedding model; without, they match as keywords (said in the answer).
  const triggerModel = await triggerModelFromConfig(config);
  if (triggerModel) log.info({ model: triggerModel.name, threshold: triggerModel.threshold }, 'semantic playbook triggers use an embedding model');
  // What this deployment serves now (research tools; a profile's auto_enrich_graph needs enrich_knowledge).
  const servedAction = (action: string) => {
    const contract = actions.registry().get(action);
    return contract ? actions.status(contract).available : false;
  };
  const profileMessages = new ProfileMessages(profiles, playbooks, Boolean(model), model ? llmInputReader(model) : undefined, log, triggerModel, servedAction);
  const conversations = new Conversations(journalRepo);
  const journal = new Journal(journalRepo, profiles, profileRepo);
  // Every agent run is journaled when it ends, read back from the orchestrator, whoever started it.
  const endedRuns = config.ORCHESTRATOR_URL ? { runs: orchestratorRuns(config.ORCHESTRATOR_URL, auth), profiles: profileRepo } : undefined;
  // Research is offered the built-in actions this deployment serves (per the profile) besides its connectors.
  const researchContext = {
    served: servedAction,
    shares: (id: string) => profileRepo.shares(id),
  };
  const agentRuns = new AgentRuns(profileMessages, profiles, profileConnectors, conversations, journalRepo, model, log, endedRuns, researchContext);
  // write_journal_entry and query_journal are served here, where the journal is (ActionService).
  // POST /query: the master agent's plans over the agents this deployment runs (docs/query.md).
  const queryRepo = new QueryRepository(kit.db);
  // Expired Idempotency-Keys of POST /query: replaced on use anyway, dropped hourly so the table stays small.
  const keySweep = setInterval(() => {
    queryRepo.sweepKeys().catch((err: unknown) => log.warn({ err }, 'query: expired Idempotency-Key sweep failed'));
  }, 3_600_000);
  keySweep.unref();
  kit.onClose(() => clearInterval(keySweep));
  const queries = new QueryPipeline({
    ...(model ? { model } : {}),
    repo: queryRepo,
    conversations,
    tools: config.CONNECTOR_RUNTIME_URL ? connectorToolSource(config.CONNECTOR_RUNTIME_URL, auth, log) : noConnectorTools,
    served: (action) => actionServices.served().some((s) => s.action === action),
    checkActions: (plan) => actions.check(plan),
    log,
    idempotencyTtlSeconds: config.QUERY_IDEMPOTENCY_TTL_SECONDS,
  });
  const journalActions = new ActionDispatcher('planner', journal.actions(), new PgActionRecords(kit.db));

  const grpc = await startGrpcServer({
    module: PlannerModule.forRoot({
      playbooks,
      planTask,
      registry,
      facets,
      actions,
      modules: [ProfilesModule.forRoot(profiles, { runs: agentRuns, journal, conversations }), QueryModule.forRoot(queries), ActionServiceModule.forRoot(journalActions, { auth, log })],
    }),
    packages: ['planner', 'action'],
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    log,
    metrics: kit.metrics,
    auth,
  });
  kit.onClose(() => grpc.close());
  // Before `planner ready`: a playbook naming any served action (its own journal actions included) compiles from the start.
  await actionServices.start();
  if (endedRuns) {
    const runEnds = new AgentRunEndConsumer(kit, agentRuns);
    kit.onClose(() => runEnds.stop());
    await runEnds.start();
    const journalSweep = setInterval(() => {
      agentRuns.sweep(config.AGENT_JOURNAL_SWEEP_MS).catch((err) => log.warn({ err }, 'agent run sweep failed'));
    }, config.AGENT_JOURNAL_SWEEP_MS);
    journalSweep.unref();
    kit.onClose(() => clearInterval(journalSweep));
  } else {
    log.warn('ORCHESTRATOR_URL is not set: agent runs are journaled only when their starter hands them over (FinishAgentRun)');
  }
  log.info({ grpcPort: config.GRPC_PORT, connectorChecks: Boolean(config.CONNECTOR_RUNTIME_URL), plannerRuntime: config.FLEX_PLANNER_RUNTIME, llm: describeLlmConfig(llmConfig) }, 'planner ready');
  return { kit, registry, facets, close: () => kit.close() };
}
