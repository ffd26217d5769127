/** A real connector-runtime serving as the plugin registry for the CLI's process tests. */
import { randomBytes } from 'node:crypto';
import { createTestDatabase, freePort, ServiceProcess, TEST_NATS_URL } from '@af/testing';

export interface Registry {
  /** host:port of its gRPC server. */
  address: string;
  /** Its PLUGIN_REGISTRATION_TOKEN. */
  token: string;
  serviceAuthSecret: string;
  stop(): Promise<void>;
}

export async function startRegistry(): Promise<Registry> {
  const db = await createTestDatabase();
  const port = await freePort();
  const token = randomBytes(24).toString('hex');
  const serviceAuthSecret = randomBytes(32).toString('hex');
  const runtime = new ServiceProcess('connector-runtime', {
    DATABASE_URL: db.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: `t${randomBytes(4).toString('hex')}`,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(port),
    METRICS_PORT: '0',
    CREDENTIALS_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    PLUGIN_REGISTRATION_TOKEN: token,
    PLUGIN_HEARTBEAT_SECONDS: '1',
    SERVICE_AUTH_SECRET: serviceAuthSecret,
  });
  try {
    await runtime.start();
  } catch (err) {
    await db.drop();
    throw err;
  }
  return {
    address: `127.0.0.1:${port}`,
    token,
    serviceAuthSecret,
    stop: async () => {
      await runtime.stop();
      await db.drop();
    },
  };
}
