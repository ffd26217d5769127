import { loadConfig } from '@af/service-kit';
import { outputRouterEnvSchema } from './config.js';

const base = {
  DATABASE_URL: 'postgres://localhost/x',
  NATS_URL: 'nats://localhost:4222',
  SERVICE_AUTH_SECRET: 'x'.repeat(32),
};

describe('outputRouterEnvSchema', () => {
  it('has defaults for everything of its own', () => {
    const c = loadConfig(outputRouterEnvSchema, base);
    expect(c).toMatchObject({
      GRPC_PORT: 50051,
      OUTPUT_MAX_FILE_BYTES: 10 * 1024 * 1024,
      OUTPUT_BLOB_STORE: 'postgres',
      OUTPUT_EGRESS_ALLOW: '',
      OUTPUT_WEBHOOK_ATTEMPTS: 3,
      S3_FORCE_PATH_STYLE: true,
    });
  });

  it('names the variable that is wrong', () => {
    expect(() =>
      loadConfig(outputRouterEnvSchema, { ...base, OUTPUT_EGRESS_ALLOW: 'not an address!' }),
    ).toThrow(/OUTPUT_EGRESS_ALLOW/);
    expect(() => loadConfig(outputRouterEnvSchema, { ...base, OUTPUT_BLOB_STORE: 'disk' })).toThrow(
      /OUTPUT_BLOB_STORE/,
    );
    expect(() => loadConfig(outputRouterEnvSchema, { ...base, OUTPUT_MAX_FILE_BYTES: '10' })).toThrow(
      /OUTPUT_MAX_FILE_BYTES/,
    );
    expect(() => loadConfig(outputRouterEnvSchema, { ...base, S3_FORCE_PATH_STYLE: 'yes' })).toThrow(
      /S3_FORCE_PATH_STYLE/,
    );
    expect(() => loadConfig(outputRouterEnvSchema, { ...base, SMTP_URL: 'mail.example.com' })).toThrow(/SMTP_URL/);
    expect(() => loadConfig(outputRouterEnvSchema, { ...base, OUTPUT_CHANNEL_PLUGINS: 'slack' })).toThrow(
      /OUTPUT_CHANNEL_PLUGINS/,
    );
  });

  it('leaves email, channel messages and the knowledge graph off unless configured', () => {
    const c = loadConfig(outputRouterEnvSchema, base);
    expect(c.SMTP_URL).toBeUndefined();
    expect(c.CONNECTOR_RUNTIME_URL).toBeUndefined();
    expect(c.ENTITY_RESOLUTION_URL).toBeUndefined();
    expect(loadConfig(outputRouterEnvSchema, { ...base, SMTP_URL: 'smtps://u:p@mail.example.com' }).SMTP_URL).toBe(
      'smtps://u:p@mail.example.com',
    );
  });
});
