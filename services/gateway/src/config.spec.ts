import { loadConfig } from '@af/service-kit';
import { gatewayEnvSchema, parseCorsOrigins, parseTrustProxy } from './config.js';

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

describe('CORS_ORIGINS', () => {
  it.each([
    ['', []],
    ['  ', []],
    ['*', '*'],
    ['https://app.example.com', ['https://app.example.com']],
    ['https://app.example.com, http://localhost:5173', ['https://app.example.com', 'http://localhost:5173']],
    ['https://App.Example.com:8443', ['https://app.example.com:8443']],
  ])('%p → %p', (raw, value) => expect(parseCorsOrigins(raw)).toEqual(value));

  it.each([
    ['https://app.example.com/', 'https://app.example.com/'],
    ['https://app.example.com/app', 'https://app.example.com/app'],
    ['ftp://files.example.com', 'ftp://files.example.com'],
    ['app.example.com', 'app.example.com'],
    ['https://*.example.com', 'https://*.example.com'],
    ['https://app.example.com?x=1', 'https://app.example.com?x=1'],
    ['https://user@app.example.com', 'https://user@app.example.com'],
  ])('refuses %p, naming the entry', (raw, entry) => {
    expect(parseCorsOrigins(raw)).toEqual({ error: expect.stringContaining(`"${entry}"`) });
  });

  it.each(['https://a.example.com,', ',https://a.example.com', 'https://a.example.com,,http://localhost:5173', '*,https://a.example.com'])('refuses %p (empty entry or * among origins)', (raw) => {
    expect(parseCorsOrigins(raw)).toEqual({ error: expect.any(String) });
  });

  it('defaults to no origin, and a bad value fails startup naming CORS_ORIGINS and the bad entry', () => {
    expect(gatewayEnvSchema.parse(base).CORS_ORIGINS).toEqual([]);
    expect(() => loadConfig(gatewayEnvSchema, { ...base, CORS_ORIGINS: 'https://ok.example.com,https://app.example.com/' })).toThrow(
      /CORS_ORIGINS: "https:\/\/app\.example\.com\/" is not an origin/,
    );
    expect(() => loadConfig(gatewayEnvSchema, { ...base, CORS_ORIGINS: 'https://ok.example.com,' })).toThrow(/CORS_ORIGINS: has an empty entry/);
    expect(() => loadConfig(gatewayEnvSchema, { ...base, CORS_ORIGINS: 'ftp://files.example.com' })).toThrow(/CORS_ORIGINS: "ftp:\/\/files\.example\.com"/);
  });
});

describe('UPSTREAM_WAIT_MS', () => {
  it('defaults to 15 s, and a value out of range or not a number fails the config naming the variable', () => {
    expect(gatewayEnvSchema.parse(base).UPSTREAM_WAIT_MS).toBe(15_000);
    expect(gatewayEnvSchema.parse({ ...base, UPSTREAM_WAIT_MS: '5000' }).UPSTREAM_WAIT_MS).toBe(5_000);
    for (const bad of ['100', '999999', 'soon']) {
      const r = gatewayEnvSchema.safeParse({ ...base, UPSTREAM_WAIT_MS: bad });
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]!.path).toEqual(['UPSTREAM_WAIT_MS']);
    }
  });
});
