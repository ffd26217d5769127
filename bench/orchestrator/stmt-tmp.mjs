// TEMPORARY: time the store's per-node statement in isolation.
import { createRequire } from 'node:module';
const require = createRequire(import.meta.resolve('@af/service-kit'));
require('reflect-metadata');
const { ServiceKit } = await import('@af/service-kit');
const { createTestDatabase } = await import('@af/testing');
const root = '/work/main/services/orchestrator/dist';
const { orchestratorEnvSchema } = await import(`${root}/config.js`);
const { ORCHESTRATOR_MIGRATIONS } = await import(`${root}/infra/migrations/index.js`);
const { RunExecutionStore } = await import(`${root}/infra/run-execution.store.js`);
const { RunRepository } = await import(`${root}/infra/run.repository.js`);
const { PlanGraphSchema } = await import('/work/main/packages/plan/dist/index.js');
const db = await createTestDatabase();
const kit = await ServiceKit.start({ name: 'orchestrator', envSchema: orchestratorEnvSchema, env: { DATABASE_URL: db.url, NATS_URL: 'memory://x', CONNECTOR_RUNTIME_URL: '127.0.0.1:1', METRICS_PORT: '0', LOG_LEVEL: 'silent' }, migrations: ORCHESTRATOR_MIGRATIONS });
const N = Number(process.argv[2] ?? 100);
const plan = PlanGraphSchema.parse({ nodes: Array.from({ length: N }, (_, i) => ({ id: `s${i}`, kind: 'tool', action: 'transform_data', dependsOn: i ? [`s${i - 1}`] : [] })) });
const repo = new RunRepository(kit);
const store = new RunExecutionStore(kit);
const out = { data: [{ id: 1, name: 'a', score: 0.9 }, { id: 2, name: 'b', score: 0.4 }, { id: 3, name: 'c', score: 0.7 }], count: 3 };
const res = [];
let captured;
const pool = kit.db.driver.master;
const q0 = pool.query.bind(pool);
pool.query = (cfg, params) => { if (typeof cfg === 'object' && cfg.text.includes('WITH r AS')) captured = { sql: cfg.text, params: cfg.values }; return q0(cfg, params); };
if (process.env.DRIVERS) {
  const { run } = await repo.create({ userId: 'u', plan, inputs: {}, runContext: 'interactive', idempotencyKey: null });
  await store.acquireLease(run.id, 'A', 60000);
  await store.nodeCompleted(run.id, 'A', 's0', out, { attempt: 1 }, undefined, { attempt: 1 });
  const pgm = await import('pg');
  const c = new pgm.default.Client({ connectionString: db.url, options: '-c search_path=orchestrator,public' });
  await c.connect();
  const variants = {
    typeorm: (sql, params) => kit.db.query(sql, params),
    pgUnnamed: (sql, params) => c.query(sql, params),
    pgNamed: (sql, params) => c.query({ name: 'tr1', text: sql, values: params }),
    pgNamedNoOutbox: (sql, params) => c.query({ name: 'tr2', text: sql.replace(/FROM f ORDER BY seq/, 'FROM f WHERE false ORDER BY seq'), values: params }),
    pgNamedOneOutbox: (sql, params) => c.query({ name: 'tr3', text: sql.replace(/FROM f ORDER BY seq/, 'FROM f ORDER BY seq LIMIT 1'), values: params }),
    floor: async () => { await c.query('BEGIN'); await c.query('INSERT INTO zz_floor (v) VALUES ($1)', ['{"a":1}']); await c.query('COMMIT'); },
    select1: () => c.query('SELECT 1'),
  };
  await c.query('CREATE TABLE zz_floor (id bigserial primary key, v jsonb)');
  for (let round = 0; round < 3; round++) for (const [name, fn] of Object.entries(variants)) {
    const t0 = performance.now();
    for (let i = 0; i < 300; i++) { const params = [...captured.params]; params[3] = `s${i % 100}`; await fn(captured.sql, params); }
    console.log(round, name.padEnd(10), ((performance.now() - t0) / 300).toFixed(3), 'ms');
  }
  await c.end();
}
if (process.env.EXPLAIN) {
  const { run } = await repo.create({ userId: 'u', plan, inputs: {}, runContext: 'interactive', idempotencyKey: null });
  await store.acquireLease(run.id, 'A', 60000);
  for (let i = 0; i < 20; i++) {
    await store.nodeCompleted(run.id, 'A', `s${i}`, out, { attempt: 1 }, undefined, { attempt: 1 });
  }
  const pgm = await import('pg');
  const c = new pgm.default.Client({ connectionString: db.url, options: '-c search_path=orchestrator,public' });
  await c.connect();
  for (let i = 20; i < 26; i++) {
    await store.nodeCompleted(run.id, 'A', `s${i}`, out, { attempt: 1 }, undefined, { attempt: 1 });
    const params = [...captured.params]; params[3] = `s${i + 10}`;
    const r = await c.query('EXPLAIN (ANALYZE, BUFFERS, WAL, SUMMARY ON) ' + captured.sql, params);
    if (i === 25) console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
    else console.log(r.rows.slice(-3).map((x) => x['QUERY PLAN']).join(' | '));
  }
  await c.end();
}
for (let r = 0; r < 8; r++) {
  const t0 = performance.now();
  const { run } = await repo.create({ userId: 'u', plan, inputs: {}, runContext: 'interactive', idempotencyKey: null });
  const t1 = performance.now();
  await store.acquireLease(run.id, 'A', 60000);
  const t2 = performance.now();
  for (let i = 0; i < N; i++) await store.nodeCompleted(run.id, 'A', `s${i}`, out, { attempt: 1, durationMs: 0, outputKey: `s${i}`, summary: { type: 'object', keys: ['data', 'count'], count: 3 } }, undefined, { attempt: 1, kind: 'tool', action: 'transform_data' });
  const t3 = performance.now();
  await store.finish(run.id, 'A', 'completed', null, {});
  const t4 = performance.now();
  res.push([t1 - t0, t2 - t1, (t3 - t2) / N, t4 - t3]);
}
const med = (k) => { const xs = res.slice(2).map((r) => r[k]).sort((a, b) => a - b); return xs[xs.length >> 1].toFixed(3); };
console.log(`create ${med(0)} ms, lease ${med(1)} ms, per node statement ${med(2)} ms, finish ${med(3)} ms`);
await kit.close(); await db.drop();
process.exit(0);
