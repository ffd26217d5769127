/** Composition root of entity-resolution: config, graph store, the six actions (ActionService) and EntityService. */
import 'reflect-metadata';
import {
  ActionDispatcher,
  ActionServiceModule,
  PgActionRecords,
  serviceAuthFromConfig,
  ServiceKit,
  startGrpcServer,
} from '@af/service-kit';
import { ConfigError } from '@af/service-kit';
import { createChatModel, describeLlmConfig, LlmConfigError, llmConfigFromEnv } from '@af/llm';
import { entityActions } from './app/actions.js';
import { Knowledge } from './app/knowledge.js';
import { entityResolutionEnvSchema } from './config.js';
import { startDocuments } from './documents/documents.module.js';
import { EntityModule } from './grpc/entity.controller.js';
import { ENTITY_RESOLUTION_MIGRATIONS } from './infra/migrations/index.js';
import { graphStore } from './infra/graph-store.factory.js';
import { LlmEntityExtractor } from './infra/llm-extractor.js';
import { rekeyStaleEntities } from './app/rekey-entities.js';

export async function bootstrapEntityResolution(env: NodeJS.ProcessEnv = process.env) {
  const kit = await ServiceKit.start({
    name: 'entity-resolution',
    envSchema: entityResolutionEnvSchema,
    env,
    migrations: ENTITY_RESOLUTION_MIGRATIONS,
  });
  const { config, log } = kit;
  const store = await graphStore(kit, config);
  const llm = llmConfig(env);
  const chat = await createChatModel(llm);
  const handlers = entityActions(store, {
    maxAnalyzeNodes: config.ER_MAX_ANALYZE_NODES,
    autoThreshold: config.ER_AUTO_THRESHOLD,
    reviewThreshold: config.ER_REVIEW_THRESHOLD,
    ...(chat ? { extractor: new LlmEntityExtractor(chat, describeLlmConfig(llm)) } : {}),
  });
  log.info({ extraction: chat ? describeLlmConfig(llm) : 'rules', graphStore: store.kind }, 'knowledge graph');
  const auth = serviceAuthFromConfig(config, 'entity-resolution');
  const documents = await startDocuments(kit, auth, env);
  kit.onClose(() => documents.close());
  handlers.push(...documents.handlers);
  const actions = new ActionDispatcher('entity-resolution', handlers, new PgActionRecords(kit.db));
  const grpc = await startGrpcServer({
    module: {
      ...EntityModule.forRoot(new Knowledge(store, config.ER_MAX_ANALYZE_NODES), documents.queries),
      imports: [ActionServiceModule.forRoot(actions, { auth, log })],
    },
    packages: ['entity', 'action'],
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    log,
    metrics: kit.metrics,
    auth,
  });
  kit.onClose(() => grpc.close());
  // Entities keyed by an older version of the blocking keys get the current ones, off the request path.
  const rekeyStop = new AbortController();
  const rekey = rekeyStaleEntities(store, log, rekeyStop.signal).catch((err) =>
    log.error({ reason: (err as Error)?.message ?? String(err) }, 'keying stored entities again stopped'),
  );
  kit.onClose(async () => {
    rekeyStop.abort();
    await rekey;
  });
  log.info({ grpcPort: config.GRPC_PORT, actions: handlers.map((h) => h.name) }, 'entity-resolution ready');
  return { kit, close: () => kit.close() };
}

function llmConfig(env: NodeJS.ProcessEnv) {
  try {
    return llmConfigFromEnv(env);
  } catch (err) {
    if (err instanceof LlmConfigError) throw new ConfigError(err.problems.map((p) => ({ variable: p.field, reason: p.reason })));
    throw err;
  }
}
