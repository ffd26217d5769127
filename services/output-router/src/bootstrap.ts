/** Composition root of output-router: config, persistence, the workspace, ActionService and OutputService over gRPC. */
import 'reflect-metadata';
import {
  ActionDispatcher,
  ActionServiceModule,
  ConfigError,
  PgActionRecords,
  serviceAuthFromConfig,
  ServiceKit,
  startGrpcServer,
} from '@af/service-kit';
import { Documents } from './app/documents.js';
import type { ActionDeps } from './app/actions/context.js';
import { fileActions } from './app/actions/file-actions.js';
import { inboxActions } from './app/actions/inbox-actions.js';
import { monitorActions } from './app/actions/monitor-actions.js';
import { routeOutputAction } from './app/actions/route-output.js';
import { tableActions } from './app/actions/table-actions.js';
import { outputRouterEnvSchema } from './config.js';
import { OutputModule } from './grpc/output.controller.js';
import { ApprovalRequestsConsumer } from './infra/approval-requests.consumer.js';
import { PgBlobStore, type BlobStore } from './infra/blob-store.js';
import { PgFolderListings } from './infra/folder-listings.js';
import { DeliveryLog } from './infra/delivery-log.js';
import { DocumentsRepository } from './infra/documents.repository.js';
import { InboxRepository } from './infra/inbox.repository.js';
import { OUTPUT_ROUTER_MIGRATIONS } from './infra/migrations/index.js';
import { WebhookSender } from './infra/webhook-sender.js';
import { WorkspaceTables } from './infra/workspace-tables.js';
import { EmailSender } from './infra/email-sender.js';
import { ChannelSender, parseChannelPlugins } from './infra/channel-sender.js';
import { GraphWriter } from './infra/graph-writer.js';
import { RunFinishedConsumer } from './infra/run-finished.consumer.js';
import { channelActions } from './app/actions/channel-actions.js';
import { teamActions } from './app/actions/team-actions.js';

export async function bootstrapOutputRouter(env: NodeJS.ProcessEnv = process.env) {
  // Checked before anything starts (the env schema holds each variable on its own).
  if (env.OUTPUT_BLOB_STORE === 's3' && !env.S3_BUCKET)
    throw new ConfigError([{ variable: 'S3_BUCKET', reason: 'is required when OUTPUT_BLOB_STORE is s3' }]);
  const kit = await ServiceKit.start({
    name: 'output-router',
    envSchema: outputRouterEnvSchema,
    env,
    migrations: OUTPUT_ROUTER_MIGRATIONS,
  });
  const { config, log } = kit;
  const db = kit.db as unknown as ConstructorParameters<typeof DocumentsRepository>[0];
  let blobs: BlobStore = new PgBlobStore(kit.db);
  if (config.OUTPUT_BLOB_STORE === 's3') {
    // Loaded only when chosen: the AWS SDK is large and most deployments keep bytes in PostgreSQL.
    const { S3BlobStore } = await import('./infra/s3-blob-store.js');
    const s3 = new S3BlobStore({
      region: config.S3_REGION,
      bucket: config.S3_BUCKET!,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      prefix: config.S3_PREFIX,
      ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
      ...(config.S3_ACCESS_KEY_ID ? { accessKeyId: config.S3_ACCESS_KEY_ID } : {}),
      ...(config.S3_SECRET_ACCESS_KEY ? { secretAccessKey: config.S3_SECRET_ACCESS_KEY } : {}),
    });
    kit.onClose(() => s3.close());
    blobs = s3;
  }
  const documents = new Documents(new DocumentsRepository(db, blobs, kit), config.OUTPUT_MAX_FILE_BYTES);
  const inbox = new InboxRepository(kit.db);
  const tables = new WorkspaceTables(db);
  const deps: ActionDeps = {
    documents,
    tables,
    inbox,
    deliveries: new DeliveryLog(db),
    listings: new PgFolderListings(db),
    limits: {
      maxTableRows: config.OUTPUT_MAX_TABLE_ROWS,
      exportTtlSeconds: config.OUTPUT_EXPORT_TTL_SECONDS,
    },
  };
  const webhooks = new WebhookSender({
    allow: config.OUTPUT_EGRESS_ALLOW,
    attempts: config.OUTPUT_WEBHOOK_ATTEMPTS,
    backoffMs: config.OUTPUT_WEBHOOK_BACKOFF_MS,
    timeoutMs: config.OUTPUT_WEBHOOK_TIMEOUT_MS,
  });
  const auth = serviceAuthFromConfig(config, 'output-router');
  const email = new EmailSender({ url: config.SMTP_URL, from: config.SMTP_FROM, timeoutMs: config.SMTP_TIMEOUT_MS });
  kit.onClose(() => email.close());
  const channelPlugins = parseChannelPlugins(config.OUTPUT_CHANNEL_PLUGINS);
  const channels = new ChannelSender(config.CONNECTOR_RUNTIME_URL, auth, channelPlugins.ok ? channelPlugins.map : {});
  const graph = new GraphWriter(
    kit.db,
    deps.deliveries,
    {
      url: config.ENTITY_RESOLUTION_URL,
      auth,
      timeoutMs: 30_000,
      retryBaseMs: config.OUTPUT_GRAPH_RETRY_MS,
      maxAttempts: config.OUTPUT_GRAPH_RETRY_ATTEMPTS,
    },
    log,
  );
  graph.start(config.OUTPUT_GRAPH_RETRY_MS);
  kit.onClose(() => graph.stop());
  const handlers = [
    ...tableActions(deps),
    routeOutputAction({ ...deps, webhooks, email, channels, graph }),
    ...channelActions({ ...deps, channels }),
    ...teamActions(deps),
    ...fileActions(deps),
    ...inboxActions(deps),
    ...monitorActions(deps),
  ];
  const actions = new ActionDispatcher('output-router', handlers, new PgActionRecords(kit.db));
  const grpc = await startGrpcServer({
    module: {
      ...OutputModule.forRoot({
        documents,
        inbox,
        tables,
        exportLimits: { maxRows: config.OUTPUT_MAX_TABLE_ROWS, ttlSeconds: config.OUTPUT_EXPORT_TTL_SECONDS },
      }),
      imports: [ActionServiceModule.forRoot(actions, { auth, log })],
    },
    packages: ['output', 'action'],
    host: config.GRPC_HOST,
    port: config.GRPC_PORT,
    log,
    metrics: kit.metrics,
    auth,
  });
  kit.onClose(() => grpc.close());
  const approvals = new ApprovalRequestsConsumer(kit, inbox, deps.deliveries);
  kit.onClose(() => approvals.stop());
  await approvals.start();
  const runEnds = new RunFinishedConsumer(kit, inbox, deps.deliveries, config.OUTPUT_RUN_LINK_BASE);
  kit.onClose(() => runEnds.stop());
  await runEnds.start();
  log.info(
    {
      grpcPort: config.GRPC_PORT,
      blobStore: config.OUTPUT_BLOB_STORE,
      // What is off, said once at start (a destination asking for it is an error saying the same).
      email: email.enabled ? 'on' : 'off (SMTP_URL is not set)',
      channelMessages: channels.enabled ? 'on' : 'off (CONNECTOR_RUNTIME_URL is not set)',
      knowledgeGraph: graph.enabled ? 'on' : 'off (ENTITY_RESOLUTION_URL is not set)',
      actions: actions.list().map((a) => a.name),
    },
    'output-router ready',
  );
  return { kit, close: () => kit.close() };
}
