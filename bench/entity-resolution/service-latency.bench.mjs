// bench/entity-resolution/service-latency.bench.mjs: one new record through the service's
// resolution use case and its PostgreSQL store, against a graph of N stored records.
//
//   node bench/entity-resolution/service-latency.bench.mjs [records=1000000] [probes=1000] [seed=7]
//
// 1. Generates N + probes records (the seeded generator, medium corruption) and bulk-loads the first N
//    into a fresh database, in the service's schema made by its migrations: every record a mention
//    with its normalised record, block keys (the current version) and external ids, grouped into
//    entities by the generator's truth (a perfectly resolved graph: each entity's first record is
//    its root). The block and trigram indexes are built after the load, as a bulk loader would.
// 2. Resolves the remaining `probes` records one at a time, exactly as the service's ResolveEntities /
//    enrichment does (GraphResolution over PgGraphStore: candidates and their term statistics read
//    through the block keys, the decision, then the mention with its keys, provenance, link or review
//    item, log entry and discovery written in one statement): p50 / p95 / p99 / max.
// 3. Then `probes / 5` PERSON records each with a relationship to an ORG record (two resolutions,
//    the relationship and the neighbours of each candidate entity read from the stored relationships).
// 4. The service itself: its process (services/entity-resolution/dist/main.js) started on the same
//    database and NATS (NATS_URL, default nats://127.0.0.1:4222), and `probes` further records sent
//    one at a time through gRPC as `resolve_entities` calls of its ActionService, signed as another
//    service signs them: the whole path a caller sees (auth, the action's validation, resolution, the
//    answer). Then `probes` more from ER_BENCH_WRITERS concurrent callers (default 4), each with its
//    own channel, one record a call: latency per call and records per second.
// Phases 2 and 3 run in-process (the use case alone); phase 4 adds everything in front of it.
// The database is dropped at the end (ER_BENCH_KEEP=1 keeps it). DATABASE_URL: the server to use
// (default postgres://postgres@127.0.0.1:5432/postgres).
// Needs `pnpm build`. Writes bench/results/entity-resolution-service.json (ER_BENCH_OUT to override).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const er = (p) => import(join(here, '../../services/entity-resolution/dist', p));
const { generateRecords, normaliseRecord, blockKeys, tfKey, BLOCK_KEYS_VERSION, DEFAULT_THRESHOLDS } = await er('domain/index.js');
const { ENTITY_RESOLUTION_MIGRATIONS } = await er('infra/migrations/index.js');
const { PgGraphStore } = await er('infra/pg-graph-store.js');
const { GraphResolution } = await er('app/graph-resolution.js');
const kit = await import(join(here, '../../packages/service-kit/dist/index.js'));
const { openDatabase } = kit;
const { action } = await import(join(here, '../../packages/contracts/dist/index.js'));
const { ServiceProcess, freePort } = await import(join(here, '../../packages/testing/dist/index.js'));

const positive = (raw, name, fallback) => {
  const v = Number(raw ?? fallback);
  if (!Number.isInteger(v) || v <= 0) {
    console.error(`${name} must be a positive whole number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return v;
};
const N = positive(process.argv[2], 'records', 1_000_000);
const PROBES = positive(process.argv[3], 'probes', 1_000);
const SEED = positive(process.argv[4], 'seed', 7);
const WRITERS = positive(process.env.ER_BENCH_WRITERS, 'ER_BENCH_WRITERS', 4);
const NATS = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const OUT = process.env.ER_BENCH_OUT ?? join(here, '../results/entity-resolution-service.json');
const OWNER = 'bench';
const BATCH = 5_000;
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const summary = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, p50: round(pct(s, 0.5)), p95: round(pct(s, 0.95)), p99: round(pct(s, 0.99)), max: round(s[s.length - 1]) };
};
const progress = (label, done, total, t0) =>
  process.stderr.write(`\r${label}: ${done.toLocaleString()} / ${total.toLocaleString()} (${Math.round(done / ((ms(t0) || 1) / 1000))} /s)   `);

// A fresh database on the server.
const dbName = `er_latency_${Date.now()}`;
const admin = await openDatabase({ url: SERVER, schema: 'public', migrations: [] });
await admin.query(`CREATE DATABASE ${dbName}`);
const url = new URL(SERVER);
url.pathname = `/${dbName}`;
const db = await openDatabase({ url: url.toString(), schema: 'entity_resolution', migrations: ENTITY_RESOLUTION_MIGRATIONS, poolSize: 4 });
const result = {
  bench: 'entity-resolution-service',
  when: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30), node: process.version },
  note: 'One record through GraphResolution over PgGraphStore (the service use case and its PostgreSQL adapter: the reads, then one write statement), in-process, against a graph bulk-loaded from the generator (entities grouped by the truth). Target: p95 < 20 ms against 1M records.',
  records: N,
  seed: SEED,
  corruption: 'medium',
};

// The entity-resolution service process on the bench database; stopped in `finally`.
let service;
const SECRET = 'er-latency-bench-secret-0123456789abcdef';
// A generated record as a `resolve_entities` input entity.
const entity = (r) => ({
  name: r.name,
  type: r.entityType,
  source: r.source,
  ...(Object.keys(r.externalIds ?? {}).length ? { external_ids: r.externalIds } : {}),
  ...(r.city ? { city: r.city } : {}),
  ...(r.state ? { state: r.state } : {}),
  ...(r.employer ? { employer: r.employer } : {}),
  ...(r.title ? { title: r.title } : {}),
});

// 4. Records through the service's gRPC ActionService: one caller, then WRITERS callers at once.
async function throughService(databaseUrl, serial, parallel) {
  const port = await freePort();
  service = new ServiceProcess('entity-resolution', {
    DATABASE_URL: databaseUrl,
    NATS_URL: NATS,
    NATS_PREFIX: `erbench${Date.now()}`,
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(port),
    METRICS_PORT: '0',
    LOG_LEVEL: 'info', // the ready line is logged at info
    SERVICE_AUTH_SECRET: SECRET,
    // e.g. `--cpu-prof --cpu-prof-dir=/tmp/er-prof` to see where the service spends its time.
    ...(process.env.ER_BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: process.env.ER_BENCH_SERVICE_NODE_OPTIONS } : {}),
  });
  process.stderr.write('starting the entity-resolution service…\n');
  await service.start(120_000);
  const signer = (await kit.cliAuth({ secret: SECRET, tool: 'er-latency-bench' })).signer;
  const client = () => kit.createGrpcClient('action', action.ACTION_SERVICE_NAME, `127.0.0.1:${port}`, { auth: signer, readyWaitMs: 10_000 });
  const runId = `er-latency-${Date.now()}`;
  let calls = 0;
  const send = async (c, r) => {
    const nodeId = `n${calls++}`;
    const t = process.hrtime.bigint();
    const res = await kit.call(
      c.execute({
        action: 'resolve_entities',
        inputs: { entities: [entity(r)] },
        params: {},
        principal: { userId: OWNER, teamIds: [] },
        idempotencyKey: `${runId}:${nodeId}:1`,
        runId,
        nodeId,
        attempt: 1,
        timeoutMs: 30_000,
      }),
      30_000,
    );
    if (!res.outputs) throw new Error(`resolve_entities answered without outputs: ${JSON.stringify(res)}`);
    return ms(t);
  };
  const one = client();
  await send(one, serial[0]); // the channel connected and the service's caches warm, as for phase 2's first record
  const alone = [];
  const t0 = process.hrtime.bigint();
  for (const [i, r] of serial.slice(1).entries()) {
    alone.push(await send(one, r));
    if (i % 50 === 0) progress('through gRPC', i + 1, serial.length - 1, t0);
  }
  process.stderr.write('\n');
  const callers = Array.from({ length: WRITERS }, client);
  await Promise.all(callers.map((c, k) => send(c, parallel[k])));
  const together = [];
  let next = WRITERS;
  const t1 = process.hrtime.bigint();
  await Promise.all(
    callers.map(async (c) => {
      while (next < parallel.length) {
        const r = parallel[next++];
        together.push(await send(c, r));
        if (together.length % 50 === 0) progress(`${WRITERS} callers`, together.length, parallel.length - WRITERS, t1);
      }
    }),
  );
  const seconds = ms(t1) / 1000;
  process.stderr.write('\n');
  return {
    note: 'resolve_entities through the service process over gRPC (ActionService.Execute, signed), one record a call',
    one_caller_ms: summary(alone),
    concurrent: { callers: WRITERS, per_call_ms: summary(together), records_per_s: round(together.length / seconds, 1) },
  };
}

try {
  // 1. Load. The two indexes a bulk load would otherwise maintain row by row are built after it.
  await db.query('DROP INDEX entity_blocks_lookup; DROP INDEX entities_canonical_trgm');
  const rootOf = new Map();
  const probes = [];
  let loaded = 0;
  let blocks = 0;
  const t0 = process.hrtime.bigint();
  let rows = [];
  const flush = async () => {
    if (rows.length === 0) return;
    const col = (f) => rows.map(f);
    await db.query(
      `INSERT INTO entities (id, owner, type, subtype, name, canonical_name, normalised, root_id, parent_id, block_keys_version, tf_key)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::uuid[], $9::uuid[], $10::int[], $11::text[])`,
      [
        col((r) => r.id),
        col(() => OWNER),
        col((r) => r.record.entityType),
        col((r) => r.record.org?.legalForm ?? ''),
        col((r) => r.name),
        col((r) => r.record.canonical),
        col((r) => JSON.stringify(r.record)),
        col((r) => r.root),
        col((r) => (r.root === r.id ? null : r.root)),
        col(() => BLOCK_KEYS_VERSION),
        col((r) => tfKey(r.record)),
      ],
    );
    const keyIds = [];
    const keys = [];
    const idIds = [];
    const kinds = [];
    const values = [];
    for (const r of rows) {
      for (const k of [...blockKeys(r.record), tfKey(r.record)]) {
        keyIds.push(r.id);
        keys.push(k);
      }
      for (const [kind, value] of Object.entries(r.record.ids)) {
        idIds.push(r.id);
        kinds.push(kind);
        values.push(value);
      }
    }
    await db.query(`INSERT INTO entity_blocks (owner, key, entity_id) SELECT $1, k, e FROM unnest($2::text[], $3::uuid[]) AS t(k, e)`, [OWNER, keys, keyIds]);
    if (idIds.length > 0)
      await db.query(`INSERT INTO entity_external_ids (entity_id, owner, kind, value) SELECT e, $1, k, v FROM unnest($2::uuid[], $3::text[], $4::text[]) AS t(e, k, v)`, [
        OWNER,
        idIds,
        kinds,
        values,
      ]);
    blocks += keys.length;
    loaded += rows.length;
    rows = [];
    progress('load', loaded, N, t0);
  };
  for (const raw of generateRecords({ records: N + PROBES, seed: SEED, corruption: 'medium' })) {
    const { entityId, ...input } = raw;
    if (loaded + rows.length >= N) {
      probes.push(input);
      continue;
    }
    const id = randomUUID();
    const record = { ...normaliseRecord(input).record, recordId: id };
    const root = rootOf.get(entityId) ?? (rootOf.set(entityId, id), id);
    rows.push({ id, name: input.name, record, root });
    if (rows.length >= BATCH) await flush();
  }
  await flush();
  const loadSeconds = ms(t0) / 1000;
  process.stderr.write('\nbuilding indexes and statistics…\n');
  const t1 = process.hrtime.bigint();
  await db.query('CREATE INDEX entity_blocks_lookup ON entity_blocks (owner, key)');
  await db.query('CREATE INDEX entities_canonical_trgm ON entities USING gin (canonical_name gin_trgm_ops)');
  // As autovacuum leaves a settled table: statistics, and the visibility map index-only counts read.
  await db.query('VACUUM ANALYZE');
  // The load's dirty pages written out now, not by the checkpointer while the records are timed.
  await db.query('CHECKPOINT').catch((err) => console.error(`no CHECKPOINT (${err.message}): the timings may include the load's writes`));
  const [{ size }] = await db.query(`SELECT pg_size_pretty(pg_database_size(current_database())) AS size`);
  result.load = {
    entities: loaded,
    true_entities: rootOf.size,
    block_rows: blocks,
    seconds: round(loadSeconds, 1),
    index_seconds: round(ms(t1) / 1000, 1),
    database_size: size,
  };
  rootOf.clear();
  console.error(JSON.stringify(result.load));

  // 2. One record at a time, as the service resolves it.
  const store = new GraphResolution(new PgGraphStore(db));
  const prov = (i) => ({ executionId: 'bench', nodeId: 'probe', connector: 'generator', endpoint: 'records', recordIndex: i });
  const one = [];
  const decisions = {};
  const t2 = process.hrtime.bigint();
  for (const [i, input] of probes.entries()) {
    const t = process.hrtime.bigint();
    const [out] = await store.resolve(OWNER, prov(i), [input], DEFAULT_THRESHOLDS);
    one.push(ms(t));
    decisions[out.decision] = (decisions[out.decision] ?? 0) + 1;
    if (i % 50 === 0) progress('one record', i + 1, probes.length, t2);
  }
  process.stderr.write('\n');
  result.one_record_ms = { ...summary(one), decisions };

  // 3. A person with a relationship to an organisation: both resolved, related, neighbours compared.
  const people = probes.filter((r) => r.entityType === 'PERSON');
  const orgs = probes.filter((r) => r.entityType === 'ORG');
  const pairs = Math.min(Math.floor(PROBES / 5), people.length, orgs.length);
  const related = [];
  const t3 = process.hrtime.bigint();
  for (let i = 0; i < pairs; i++) {
    const input = { ...people[i], recordId: `${people[i].recordId}-rel`, relationships: [{ type: 'OFFICER_OF', target: { ...orgs[i], recordId: `${orgs[i].recordId}-rel` } }] };
    const t = process.hrtime.bigint();
    await store.resolve(OWNER, prov(i), [input], DEFAULT_THRESHOLDS);
    related.push(ms(t));
    if (i % 20 === 0) progress('with a relationship', i + 1, pairs, t3);
  }
  process.stderr.write('\n');
  result.person_with_relationship_ms = summary(related);
  // Phase 4's records: the generator run on for 2 × probes more. Records are numbered as they are made, so
  // those numbered above N + probes are new to the graph (more records of the same kinds of entities).
  const more = [];
  for (const raw of generateRecords({ records: N + 3 * PROBES, seed: SEED, corruption: 'medium' })) {
    if (Number(raw.recordId.slice(1)) <= N + PROBES) continue;
    const { entityId, ...input } = raw;
    more.push(input);
  }
  result.service = await throughService(url.toString(), more.slice(0, PROBES), more.slice(PROBES));
  result.load_during = loadavg().map((x) => round(x));
} finally {
  await service?.stop();
  await db.destroy();
  if (process.env.ER_BENCH_KEEP !== '1') await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
  else console.error(`kept database ${dbName}`);
  await admin.destroy();
}
writeFileSync(OUT, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
