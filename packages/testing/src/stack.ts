/**
 * The whole system for an end-to-end test: a fresh database, a private NATS
 * subject prefix, free loopback ports, and the four services as separate
 * processes talking real gRPC.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from './database.js';
import { TEST_NATS_URL } from './env.js';
import { freePort } from './ports.js';
import { REPO_ROOT, ServiceProcess, type ServiceName } from './service-process.js';

export interface Stack {
  db: TestDatabase;
  natsPrefix: string;
  gatewayUrl: string;
  jwtSecret: string;
  credentialsKeys: string;
  services: Record<ServiceName, ServiceProcess>;
  /** All processes' output so far. */
  logs(): string;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** Extra env per service (e.g. a short RUN_LEASE_MS for crash tests). */
  env?: Partial<Record<ServiceName, Record<string, string>>>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const db = await createTestDatabase();
  const natsPrefix = `t${randomBytes(4).toString('hex')}`;
  const jwtSecret = randomBytes(32).toString('hex');
  const credentialsKeys = `k1:${randomBytes(32).toString('base64')}`;
  const ports = {
    planner: await freePort(),
    orchestrator: await freePort(),
    connector: await freePort(),
    http: await freePort(),
    gatewayGrpc: await freePort(),
  };
  const common = (name: ServiceName): Record<string, string> => ({
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: natsPrefix,
    GRPC_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    LOG_LEVEL: 'debug',
    ...(options.env?.[name] ?? {}),
  });
  const services: Record<ServiceName, ServiceProcess> = {
    'connector-runtime': new ServiceProcess('connector-runtime', {
      ...common('connector-runtime'),
      GRPC_PORT: String(ports.connector),
      CREDENTIALS_KEYS: credentialsKeys,
    }),
    planner: new ServiceProcess('planner', { ...common('planner'), GRPC_PORT: String(ports.planner) }),
    orchestrator: new ServiceProcess('orchestrator', {
      ...common('orchestrator'),
      GRPC_PORT: String(ports.orchestrator),
      CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
    }),
    gateway: new ServiceProcess('gateway', {
      ...common('gateway'),
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(ports.http),
      GRPC_PORT: String(ports.gatewayGrpc),
      JWT_SECRET: jwtSecret,
      PLANNER_URL: `127.0.0.1:${ports.planner}`,
      ORCHESTRATOR_URL: `127.0.0.1:${ports.orchestrator}`,
      CONNECTOR_RUNTIME_URL: `127.0.0.1:${ports.connector}`,
    }),
  };
  const stop = async () => {
    await Promise.all(Object.values(services).map((s) => s.stop()));
    // Keep every process's output for post-mortems (gitignored).
    const dir = join(REPO_ROOT, '.af-test-logs', natsPrefix);
    mkdirSync(dir, { recursive: true });
    for (const s of Object.values(services)) writeFileSync(join(dir, `${s.label}.log`), s.output);
    await db.drop();
  };
  try {
    // Migrations of different schemas do not conflict, so services start together.
    await Promise.all(Object.values(services).map((s) => s.start()));
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
    services,
    logs: () => Object.values(services).map((s) => s.output).join('\n'),
    stop,
  };
}
