import { orchestratorEnvSchema } from './config.js';

const base = { SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', DATABASE_URL: 'postgres://x@127.0.0.1/db', NATS_URL: 'nats://127.0.0.1:4222', CONNECTOR_RUNTIME_URL: '127.0.0.1:1' };

describe('orchestrator config', () => {
  it('defaults: 4 calls per connector, no overrides, no planner, maps of up to 1000 items, subflows 5 deep', () => {
    const c = orchestratorEnvSchema.parse(base);
    expect([c.CONNECTOR_CONCURRENCY, [...c.CONNECTOR_CONCURRENCY_OVERRIDES], c.PLANNER_URL, c.MAP_MAX_ITERATIONS, c.SUBFLOW_MAX_DEPTH]).toEqual([4, [], undefined, 1000, 5]);
  });

  it('CAPABILITY_EGRESS_ALLOW: empty by default (public agents only); every bad entry is an issue naming the variable', () => {
    expect(orchestratorEnvSchema.parse(base).CAPABILITY_EGRESS_ALLOW).toBe('');
    expect(orchestratorEnvSchema.parse({ ...base, CAPABILITY_EGRESS_ALLOW: '10.0.0.0/8,u-1/writer.en=agent.internal:50070' }).CAPABILITY_EGRESS_ALLOW).toContain('writer.en');
    const r = orchestratorEnvSchema.safeParse({ ...base, CAPABILITY_EGRESS_ALLOW: 'writer.en=10.0.0.7:50070,agent.internal' });
    expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['CAPABILITY_EGRESS_ALLOW', 'entry 1 ("writer.en=10.0.0.7:50070"): "writer.en=…" would open to every user who names a capability "writer.en": name the owner too, as <owner-user-id>/writer.en=10.0.0.7:50070'],
      ['CAPABILITY_EGRESS_ALLOW', 'entry 2 ("agent.internal"): a hostname needs a port, e.g. "agent.internal:443" (or allow its address or CIDR range)'],
    ]);
  });

  it('reads per-connector overrides', () => {
    const c = orchestratorEnvSchema.parse({ ...base, CONNECTOR_CONCURRENCY: '8', CONNECTOR_CONCURRENCY_OVERRIDES: 'fec-api=2, slow-api = 1,', PLANNER_URL: 'planner:50051' });
    expect(c.CONNECTOR_CONCURRENCY).toBe(8);
    expect([...c.CONNECTOR_CONCURRENCY_OVERRIDES]).toEqual([
      ['fec-api', 2],
      ['slow-api', 1],
    ]);
    expect(c.PLANNER_URL).toBe('planner:50051');
  });

  it('refuses bad overrides naming the entry', () => {
    const r = orchestratorEnvSchema.safeParse({ ...base, CONNECTOR_CONCURRENCY_OVERRIDES: 'fec-api=2,Bad_Id=3,x=0,fec-api=1' });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['CONNECTOR_CONCURRENCY_OVERRIDES', "entry 2 'Bad_Id=3' must be <connector-id>=<1..1000>, e.g. fec-api=2"],
      ['CONNECTOR_CONCURRENCY_OVERRIDES', "entry 3 'x=0' must be <connector-id>=<1..1000>, e.g. fec-api=2"],
      ['CONNECTOR_CONCURRENCY_OVERRIDES', "connector 'fec-api' is listed twice"],
    ]);
    expect(orchestratorEnvSchema.safeParse({ ...base, CONNECTOR_CONCURRENCY: '0' }).success).toBe(false);
    expect(orchestratorEnvSchema.safeParse({ ...base, PLANNER_URL: 'http://planner' }).success).toBe(false);
  });

  it('holds up to 256 pure settlements per run by default; 0 turns that off; negatives and non-integers are refused', () => {
    expect(orchestratorEnvSchema.parse(base).PURE_NODE_BATCH).toBe(256);
    expect(orchestratorEnvSchema.parse({ ...base, PURE_NODE_BATCH: '0' }).PURE_NODE_BATCH).toBe(0);
    for (const bad of ['-1', '1.5', 'lots']) {
      const r = orchestratorEnvSchema.safeParse({ ...base, PURE_NODE_BATCH: bad });
      expect(r.success).toBe(false);
      expect(r.error!.issues[0]!.path).toEqual(['PURE_NODE_BATCH']);
    }
  });

  it('reads the action services (none by default) and refuses a bad entry naming it', () => {
    expect(orchestratorEnvSchema.parse(base).ACTION_SERVICES).toEqual([]);
    expect(orchestratorEnvSchema.parse({ ...base, ACTION_SERVICES: 'output-router=router:50056' }).ACTION_SERVICES).toEqual([{ name: 'output-router', address: 'router:50056' }]);
    const r = orchestratorEnvSchema.safeParse({ ...base, ACTION_SERVICES: 'router:50056' });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['ACTION_SERVICES', "entry 1 'router:50056' must be <service-name>=<host>:<port>, e.g. output-router=127.0.0.1:50056"],
    ]);
  });
});
