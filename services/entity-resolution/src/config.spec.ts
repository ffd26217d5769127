import { ConfigError, loadConfig } from '@af/service-kit';
import { entityResolutionEnvSchema } from './config.js';

const base = {
  SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789',
  DATABASE_URL: 'postgres://x@h/db',
  NATS_URL: 'nats://h:4222',
};

describe('entity-resolution config', () => {
  it('has defaults for everything but the database and NATS', () => {
    expect(loadConfig(entityResolutionEnvSchema, base)).toMatchObject({
      GRPC_PORT: 50056,
      ER_AUTO_THRESHOLD: 0.9,
      ER_REVIEW_THRESHOLD: 0.4,
      ER_MAX_ANALYZE_NODES: 10_000,
    });
  });
  it('refuses an auto threshold below 0.7, naming the variable', () => {
    try {
      loadConfig(entityResolutionEnvSchema, { ...base, ER_AUTO_THRESHOLD: '0.6', ER_MAX_ANALYZE_NODES: '5' });
      throw new Error('expected a ConfigError');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems.map((p) => p.variable)).toEqual([
        'ER_AUTO_THRESHOLD',
        'ER_MAX_ANALYZE_NODES',
      ]);
    }
  });
  it('refuses a review threshold above the auto threshold, naming both', () => {
    try {
      loadConfig(entityResolutionEnvSchema, {
        ...base,
        ER_AUTO_THRESHOLD: '0.8',
        ER_REVIEW_THRESHOLD: '0.85',
      });
      throw new Error('expected a ConfigError');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toEqual([
        { variable: 'ER_REVIEW_THRESHOLD', reason: 'must not exceed ER_AUTO_THRESHOLD (0.8)' },
      ]);
    }
    expect(
      loadConfig(entityResolutionEnvSchema, {
        ...base,
        ER_AUTO_THRESHOLD: '0.8',
        ER_REVIEW_THRESHOLD: '0.8',
      }),
    ).toMatchObject({
      ER_REVIEW_THRESHOLD: 0.8,
    });
  });
});
