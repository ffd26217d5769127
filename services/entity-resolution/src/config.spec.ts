import { entityResolutionEnvSchema } from './config.js';

describe('entityResolutionEnvSchema', () => {
  it('has defaults', () => {
    expect(entityResolutionEnvSchema.parse({})).toMatchObject({
      GRPC_PORT: 50056,
      ER_AUTO_THRESHOLD: 0.9,
      ER_REVIEW_THRESHOLD: 0.5,
      ER_MAX_ANALYZE_NODES: 10_000,
    });
  });
  it('refuses an auto threshold below 0.7, naming the variable', () => {
    const out = entityResolutionEnvSchema.safeParse({ ER_AUTO_THRESHOLD: '0.6' });
    expect(out.success).toBe(false);
    expect(out.error?.issues[0]?.path).toEqual(['ER_AUTO_THRESHOLD']);
  });
});
