import { gatewayEnvSchema, parseTrustProxy } from './config.js';

const base = {
  DATABASE_URL: 'postgres://x@127.0.0.1/db',
  NATS_URL: 'nats://127.0.0.1:4222',
  JWT_SECRET: 's'.repeat(32),
  PLANNER_URL: '127.0.0.1:1',
  ORCHESTRATOR_URL: '127.0.0.1:2',
  CONNECTOR_RUNTIME_URL: '127.0.0.1:3',
  APPROVAL_URL: '127.0.0.1:4',
  SERVICE_AUTH_SECRET: 'a'.repeat(32),
};

describe('TRUST_PROXY', () => {
  it.each([
    ['', false],
    ['false', false],
    ['2', 2],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.7 ,::1,fd00::/8,uniquelocal', ['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8', 'uniquelocal']],
  ])('%p → %p', (raw, value) => expect(parseTrustProxy(raw)).toEqual(value));

  it.each(['true', 'proxy.internal', '10.0.0.0/33', '::1/129', '1.2.3.4/8/1', '10.0.0.1,'])('refuses %p', (raw) => {
    expect(parseTrustProxy(raw)).toEqual({ error: expect.any(String) });
  });

  it('defaults to no proxy, and a bad value fails the config naming the variable', () => {
    expect(gatewayEnvSchema.parse(base).TRUST_PROXY).toBe(false);
    const r = gatewayEnvSchema.safeParse({ ...base, TRUST_PROXY: 'true' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['TRUST_PROXY']);
  });

  it('has throttling and hashing defaults', () => {
    const c = gatewayEnvSchema.parse(base);
    expect(c).toMatchObject({ LOGIN_ACCOUNT_FREE_FAILURES: 5, LOGIN_ADDRESS_FREE_FAILURES: 20, LOGIN_BACKOFF_BASE_MS: 1000, LOGIN_BACKOFF_MAX_SECONDS: 900, LOGIN_FAILURES_RESET_SECONDS: 3600, PASSWORD_HASH_QUEUE: 64, PASSWORD_HASH_PER_ADDRESS: 4, PASSWORD_BCRYPT_ROUNDS: 10 });
    expect(c.PASSWORD_HASH_WORKERS).toBeGreaterThanOrEqual(1);
  });
});
