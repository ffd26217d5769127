import { z } from 'zod';
import { baseEnvSchema, ConfigError, loadConfig } from './config.js';

const valid = { DATABASE_URL: 'postgres://u@localhost:5432/db', NATS_URL: 'nats://127.0.0.1:4222', SERVICE_AUTH_SECRET: 's'.repeat(32) };

describe('loadConfig', () => {
  it('parses with defaults and coercion', () => {
    const cfg = loadConfig(baseEnvSchema, { ...valid, GRPC_PORT: '7000' });
    expect(cfg.GRPC_PORT).toBe(7000);
    expect(cfg.LOG_LEVEL).toBe('info');
    expect(cfg.NATS_PREFIX).toBe('');
  });

  it('names every missing variable', () => {
    const err = catchError(() => loadConfig(baseEnvSchema, {}));
    expect(err.problems.map((p) => p.variable).sort()).toEqual(['DATABASE_URL', 'NATS_URL', 'SERVICE_AUTH_SECRET']);
    expect(err.problems.every((p) => p.reason === 'is required')).toBe(true);
    expect(err.message).toContain('DATABASE_URL: is required');
  });

  it('names the bad variable and the reason, without echoing the value', () => {
    const err = catchError(() => loadConfig(baseEnvSchema, { ...valid, DATABASE_URL: 'mysql://secret-password@x/y', GRPC_PORT: '70000' }));
    expect(err.problems.map((p) => p.variable).sort()).toEqual(['DATABASE_URL', 'GRPC_PORT']);
    expect(err.message).toContain('DATABASE_URL: must be a URL with scheme postgres:// or postgresql://');
    expect(err.message).not.toContain('secret-password');
  });

  it('treats an empty variable as unset', () => {
    const cfg = loadConfig(baseEnvSchema, { ...valid, LOG_LEVEL: '' });
    expect(cfg.LOG_LEVEL).toBe('info');
  });

  it('rejects a bad enum and a bad NATS prefix', () => {
    const err = catchError(() => loadConfig(baseEnvSchema, { ...valid, LOG_LEVEL: 'loud', NATS_PREFIX: 'Bad.Prefix' }));
    expect(err.problems.map((p) => p.variable).sort()).toEqual(['LOG_LEVEL', 'NATS_PREFIX']);
  });

  it('requires SERVICE_AUTH_SECRET of at least 32 characters, without echoing it; the previous secret is optional', () => {
    const err = catchError(() => loadConfig(baseEnvSchema, { ...valid, SERVICE_AUTH_SECRET: 'too-short-secret-value', SERVICE_AUTH_SECRET_PREVIOUS: 'short' }));
    expect(err.problems).toEqual([
      { variable: 'SERVICE_AUTH_SECRET', reason: 'must be at least 32 characters' },
      { variable: 'SERVICE_AUTH_SECRET_PREVIOUS', reason: 'must be at least 32 characters' },
    ]);
    expect(err.message).not.toContain('too-short-secret-value');
    const cfg = loadConfig(baseEnvSchema, valid);
    expect([cfg.SERVICE_AUTH_SECRET_PREVIOUS, cfg.SERVICE_AUTH_TOKEN_TTL_SECONDS]).toEqual([undefined, 60]);
  });

  it('extends per service', () => {
    const schema = baseEnvSchema.extend({ JWT_SECRET: z.string().min(32, 'must be at least 32 characters') });
    const err = catchError(() => loadConfig(schema, { ...valid, JWT_SECRET: 'short' }));
    expect(err.problems).toEqual([{ variable: 'JWT_SECRET', reason: 'must be at least 32 characters' }]);
  });
});

function catchError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}
