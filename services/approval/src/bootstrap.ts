/** Composition root of the approval service: config, persistence, sweeper, run-end consumer, classifier and gRPC. */
import 'reflect-metadata';
import { ConfigError, serviceAuthFromConfig, ServiceKit, startGrpcServer } from '@af/service-kit';
import { createChatModel, describeLlmConfig, LlmConfigError, llmConfigFromEnv } from '@af/llm';
import { RequestCommands } from './app/request-commands.js';
import { RequestQueries } from './app/request-queries.js';
import { approvalEnvSchema } from './config.js';
import { ApprovalModule } from './grpc/approval.controller.js';
import { LeaderLock } from './infra/leader-lock.js';
import { LlmIntentClassifier } from './infra/llm-intent-classifier.js';
import { APPROVAL_MIGRATIONS } from './infra/migrations/index.js';
import { RequestRepository } from './infra/request.repository.js';
import { RequestSweeper } from './infra/request-sweeper.js';
import { RunEndConsumer } from './infra/run-end.consumer.js';
import { orchestratorRunStatus } from './infra/run-status.client.js';

export async function bootstrapApproval(env: NodeJS.ProcessEnv = process.env) {
  const llm = llmConfig(env);
  const kit = await ServiceKit.start({ name: 'approval', envSchema: approvalEnvSchema, env, migrations: APPROVAL_MIGRATIONS });
  const { config, log } = kit;
  const repo = new RequestRepository(kit);
  const classifier = new LlmIntentClassifier(await createChatModel(llm), log, config.HITL_CLASSIFIER_TIMEOUT_MS);
  log.info({ classifier: describeLlmConfig(llm) }, 'instruction classifier');
  const commands = new RequestCommands(repo, classifier, {
    toolHitlSeconds: config.HITL_TIMEOUT_SECONDS,
    humanTaskSeconds: config.FLEX_HUMAN_ASSIGNMENT_TIMEOUT_SECONDS,
  });
  const auth = serviceAuthFromConfig(config, 'approval');
  const grpc = await startGrpcServer({
    module: ApprovalModule.forRoot({ commands, queries: new RequestQueries(repo) }),
    packages: ['approval'],
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    log,
    metrics: kit.metrics,
    auth,
  });
  const sweeper = new RequestSweeper(
    repo,
    new LeaderLock(kit.db, `approval-sweeper:${kit.subjects.prefix}`, log),
    log,
    config.ORCHESTRATOR_URL ? orchestratorRunStatus(config.ORCHESTRATOR_URL, auth) : undefined,
    { intervalMs: config.APPROVAL_SWEEP_INTERVAL_MS, staleCheckMs: config.APPROVAL_STALE_CHECK_MS },
  );
  const runEnds = new RunEndConsumer(kit, repo);
  kit.onClose(() => grpc.close());
  kit.onClose(() => sweeper.stop());
  kit.onClose(() => runEnds.stop());
  await runEnds.start();
  sweeper.start();
  log.info({ grpcPort: config.GRPC_PORT, orchestrator: config.ORCHESTRATOR_URL ?? null }, 'approval ready');
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
