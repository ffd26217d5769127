import { ConfigError, loadConfig } from '@af/service-kit';
import { approvalEnvSchema } from './config.js';

const base = { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: 'postgres://x@h/db', NATS_URL: 'nats://h:4222' };

describe('approval config', () => {
  it('has defaults for everything but the database and NATS', () => {
    const c = loadConfig(approvalEnvSchema, base);
    expect(c).toMatchObject({ GRPC_PORT: 50054, APPROVAL_SWEEP_INTERVAL_MS: 1000, HITL_TIMEOUT_SECONDS: 120, FLEX_HUMAN_ASSIGNMENT_TIMEOUT_SECONDS: 900, LLM_PROVIDER: 'none' });
    expect(c.ORCHESTRATOR_URL).toBeUndefined();
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig(approvalEnvSchema, { ...base, ORCHESTRATOR_URL: 'http://x', APPROVAL_SWEEP_INTERVAL_MS: '5' })).toThrow(ConfigError);
    try {
      loadConfig(approvalEnvSchema, { ...base, ORCHESTRATOR_URL: 'http://x', APPROVAL_SWEEP_INTERVAL_MS: '5' });
    } catch (e) {
      expect((e as ConfigError).problems.map((p) => p.variable)).toEqual(['ORCHESTRATOR_URL', 'APPROVAL_SWEEP_INTERVAL_MS']);
    }
  });
});
