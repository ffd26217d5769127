/**
 * The whole system for an end-to-end test: a fresh database, a private NATS
 * subject prefix, free loopback ports, and the four services as separate
 * processes talking real gRPC (gateway, planner, orchestrator,
 * connector-runtime, approval). Crash tests may start several orchestrator
 * replicas; runs reach them through the JetStream work queue whichever one
 * received StartRun.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './database.js';
import { TEST_NATS_URL } from './env.js';
import { freePort } from './ports.js';
import { IN_PROCESS_READY } from './in-process-ready.js';
import { REPO_ROOT, ServiceProcess, type ServiceName } from './service-process.js';

export interface Stack {
  db: TestDatabase;
  natsPrefix: string;
  gatewayUrl: string;
  jwtSecret: string;
  credentialsKeys: string;
  /**
   * SERVICE_AUTH_SECRET of every service: tests that call a service's gRPC
   * port directly sign their calls with it (`new ServiceAuth({ secret, service })`).
   */
  serviceAuthSecret: string;
  /** One process per service; `orchestrator` is `orchestrators[0]`; `output-router` and `entity-resolution` only when asked. */
  services: Record<CoreServiceName, ServiceProcess> & Partial<Record<OptInServiceName, ServiceProcess>>;
  /**
   * Every orchestrator replica, `[0]` first. The gateway's ORCHESTRATOR_URL
   * points at `[0]` only, so while `[0]` is down the gateway's calls wait for
   * it (up to its client's ready timeout).
   */
  orchestrators: ServiceProcess[];
  /** All processes' output so far. */
  logs(): string;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Extra env per service (e.g. a short RUN_LEASE_MS for crash tests); applies to every orchestrator replica. */
  env?: Partial<Record<ServiceName, Record<string, string>>>;
  /**
   * Orchestrator processes to start (default 1). With more than one, replica
   * `i` gets its own gRPC port and `SERVICE_INSTANCE_ID=orchestrator-<i>` (the
   * lease owner), kept across restarts like a StatefulSet pod name; its log
   * label is `orchestrator` for `i = 0`, `orchestrator-<i>` otherwise. A
   * single replica keeps the service's default instance id (host-pid, new on
   * every restart), as before.
   */
  orchestratorReplicas?: number;
  /**
   * SERVICE_AUTH_SECRET for the stack (default: a random one), for tests
   * that start a service of their own (e.g. an action service) before the
   * stack and must verify its calls.
   */
  serviceAuthSecret?: string;
  /**
   * The event bus: `jetstream` (default; the test NATS server, a private
   * subject prefix) or `memory` — the in-process bus of `pnpm start`, with
   * every service in one process as `pnpm start` runs them (one orchestrator).
   */
  bus?: 'jetstream' | 'memory';
  /**
   * Also start output-router (the workspace: documents, tables,
   * notifications, todos, team posts) and wire it into the orchestrator's
   * and planner's ACTION_SERVICES and the gateway's OUTPUT_ROUTER_URL.
   * Off by default so suites that do not need it start no extra process.
   */
  outputRouter?: boolean;
  /**
   * Start entity-resolution too (default off, so suites that do not need it
   * start no extra process): added to the orchestrator's and planner's
   * ACTION_SERVICES and to the gateway as ENTITY_RESOLUTION_URL.
   */
  entityResolution?: boolean;
}

/** Services a stack starts only when asked. */
type OptInServiceName = 'output-router' | 'entity-resolution';
type CoreServiceName = Exclude<ServiceName, OptInServiceName>;

/** The order `pnpm start` starts the services in (the gateway last). */
const IN_PROCESS_ORDER: ServiceName[] = ['connector-runtime', 'output-router', 'planner', 'approval', 'entity-resolution', 'orchestrator', 'gateway'];

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const replicas = options.orchestratorReplicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw new Error(
      `orchestratorReplicas: must be a positive integer, got ${String(options.orchestratorReplicas)}`,
    );
  }
  const inProcess = options.bus === 'memory';
  if (inProcess && replicas > 1)
    throw new Error('orchestratorReplicas: the in-process bus (bus: memory) runs one orchestrator');
  const db = await createTestDatabase();
  const natsPrefix = `t${randomBytes(4).toString('hex')}`;
  const jwtSecret = randomBytes(32).toString('hex');
  const credentialsKeys = `k1:${randomBytes(32).toString('base64')}`;
  const serviceAuthSecret = options.serviceAuthSecret ?? randomBytes(32).toString('hex');
  const ports = {
    planner: await freePort(),
    orchestrators: [] as number[],
    connector: await freePort(),
    approval: await freePort(),
    http: await freePort(),
    gatewayGrpc: await freePort(),
    outputRouter: options.outputRouter ? await freePort() : 0,
    entityResolution: options.entityResolution ? await freePort() : 0,
  };
  // Action-serving services the orchestrator and the planner are told about (ACTION_SERVICES).
  const actionServices = [
    `connector-runtime=127.0.0.1:${ports.connector}`,
    ...(options.outputRouter ? [`output-router=127.0.0.1:${ports.outputRouter}`] : []),
    ...(options.entityResolution ? [`entity-resolution=127.0.0.1:${ports.entityResolution}`] : []),
    // The journal actions (write_journal_entry, query_journal) are the planner's.
    `planner=127.0.0.1:${ports.planner}`,
  ].join(',');
  for (let i = 0; i < replicas; i++) ports.orchestrators.push(await freePort());
  const common = (name: ServiceName): Record<string, string> => ({
    DATABASE_URL: db.url,
    NATS_URL: inProcess ? `memory://${natsPrefix}` : TEST_NATS_URL,
    NATS_PREFIX: natsPrefix,
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    LOG_LEVEL: 'debug',
    SERVICE_AUTH_SECRET: serviceAuthSecret,
    ...(options.env?.[name] ?? {}),
  });
  const orchestrators = ports.orchestrators.map(
    (port, i) =>
      new ServiceProcess(
        'orchestrator',
        {
          // Tests decide fast: reconcile waiting requests often (options.env may override it).
          APPROVAL_RECONCILE_MS: '1000',
          // Test agents listen on loopback (options.env may override it).
          CAPABILITY_EGRESS_ALLOW: '127.0.0.1',
          // Plugin tools run in connector-runtime, as `pnpm start` and the deployments wire it (options.env may override it).
          ACTION_SERVICES: actionServices,
          ...common('orchestrator'),
          ...(replicas > 1 ? { SERVICE_INSTANCE_ID: `orchestrator-${i}` } : {}),
          GRPC_PORT: String(port),
          CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
          PLANNER_URL: `127.0.0.1:${ports.planner}`,
          APPROVAL_URL: `127.0.0.1:${ports.approval}`,
        },
        i === 0 ? 'orchestrator' : `orchestrator-${i}`,
      ),
  );
  const services: Stack['services'] = {
    'connector-runtime': new ServiceProcess('connector-runtime', {
      // Tests allow-list the loopback fixture server (startFixtureServer); options.env may override it.
      CONNECTOR_EGRESS_ALLOW: '127.0.0.1',
      ...common('connector-runtime'),
      GRPC_PORT: String(ports.connector),
      CREDENTIALS_KEYS: credentialsKeys,
    }),
    planner: new ServiceProcess('planner', {
      CAPABILITY_EGRESS_ALLOW: '127.0.0.1',
      // The planner refuses what no service serves: the same services as the orchestrator's.
      ACTION_SERVICES: actionServices,
      ...common('planner'),
      GRPC_PORT: String(ports.planner),
      // Validation checks the connectors a playbook names against the caller's.
      CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
      // Agent runs are journaled when they end (read back from the orchestrator); a profile a schedule targets is not deleted.
      ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrators[0]}`,
    }),
    approval: new ServiceProcess('approval', {
      // Timeouts in tests are seconds: sweep often.
      APPROVAL_SWEEP_INTERVAL_MS: '200',
      ...common('approval'),
      GRPC_PORT: String(ports.approval),
      ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrators[0]}`,
    }),
    orchestrator: orchestrators[0]!,
    gateway: new ServiceProcess('gateway', {
      ...common('gateway'),
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(ports.http),
      GRPC_PORT: String(ports.gatewayGrpc),
      JWT_SECRET: jwtSecret,
      PLANNER_URL: `127.0.0.1:${ports.planner}`,
      ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrators[0]}`,
      CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
      APPROVAL_URL: `127.0.0.1:${ports.approval}`,
      ...(options.outputRouter ? { OUTPUT_ROUTER_URL: `127.0.0.1:${ports.outputRouter}` } : {}),
      ...(options.entityResolution ? { ENTITY_RESOLUTION_URL: `127.0.0.1:${ports.entityResolution}` } : {}),
      OPENAPI_CHECK_RESPONSES: '1', // every JSON answer is checked against the OpenAPI document (500 RESPONSE_SCHEMA_MISMATCH otherwise)
    }),
  };
  if (options.outputRouter) {
    services['output-router'] = new ServiceProcess('output-router', {
      // Test webhook receivers listen on loopback (options.env may override it).
      OUTPUT_EGRESS_ALLOW: '127.0.0.1',
      OUTPUT_WEBHOOK_BACKOFF_MS: '50',
      // Channel messages go through connector-runtime's plugin tools; knowledge-graph writes to entity-resolution.
      CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
      ...(options.entityResolution ? { ENTITY_RESOLUTION_URL: `127.0.0.1:${ports.entityResolution}` } : {}),
      ...common('output-router'),
      GRPC_PORT: String(ports.outputRouter),
    });
  }
  if (options.entityResolution) {
    services['entity-resolution'] = new ServiceProcess('entity-resolution', {
      ...common('entity-resolution'),
      GRPC_PORT: String(ports.entityResolution),
      // The document index reads uploaded files from output-router.
      ...(options.outputRouter ? { OUTPUT_ROUTER_URL: `127.0.0.1:${ports.outputRouter}` } : {}),
    });
  }
  if (inProcess) {
    // One process holding every service, as `pnpm start` runs them: the in-process bus is shared only within a process.
    const order = IN_PROCESS_ORDER.filter((name) => services[name]);
    const envs = Object.fromEntries(order.map((name) => [name, services[name]!.env]));
    const one = new ServiceProcess('gateway', { AF_IN_PROCESS_ENVS: JSON.stringify(envs), AF_IN_PROCESS_ORDER: order.join(',') }, 'in-process', {
      script: join(REPO_ROOT, 'packages', 'testing', 'dist', 'in-process-main.js'),
      readyLine: IN_PROCESS_READY,
    });
    for (const name of order) services[name] = one;
    orchestrators.splice(0, orchestrators.length, one);
  }
  const all = [...new Set([...Object.values(services).filter((s): s is ServiceProcess => !!s), ...orchestrators.slice(1)])];
  const stop = async () => {
    await Promise.all(all.map((s) => s.stop()));
    // Keep every process's output for post-mortems (gitignored).
    const dir = join(REPO_ROOT, '.af-test-logs', natsPrefix);
    mkdirSync(dir, { recursive: true });
    for (const s of all) writeFileSync(join(dir, `${s.label}.log`), s.output);
    await db.drop();
  };
  try {
    // Migrations of different schemas do not conflict, so services start together;
    // replicas of one service take the migration lock in turn.
    await Promise.all(all.map((s) => s.start()));
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
  return {
    db,
    natsPrefix,
    gatewayUrl: `http://127.0.0.1:${ports.http}`,
    jwtSecret,
    credentialsKeys,
    serviceAuthSecret,
    services,
    orchestrators,
    logs: () => all.map((s) => s.output).join('\n'),
    stop,
  };
}
