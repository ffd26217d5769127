// The reference side of the orchestrator benchmarks: LangGraph JS chains
// (PostgresSaver and MemorySaver) and the raw-commit floor with `pg`, all on
// the same PostgreSQL as our services.
import { randomUUID } from 'node:crypto';
import { Annotation, MemorySaver, StateGraph, START, END } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { createTestDatabase } from '@af/testing';
import pg from 'pg';
import { INPUT_ROWS } from './ours.mjs';

const State = Annotation.Root({
  data: Annotation({ reducer: (_prev, next) => next, default: () => [] }),
  count: Annotation({ reducer: (_prev, next) => next, default: () => 0 }),
});

/**
 * A StateGraph of `n` sequential nodes doing what our transform steps do
 * (`limit` 10 over the previous node's rows). `stamps` receives
 * performance.now() at the start of each node, for per-step intervals.
 */
export function chainGraph(n, checkpointer, stamps) {
  const g = new StateGraph(State);
  for (let i = 0; i < n; i++) {
    g.addNode(`s${i}`, (state) => {
      stamps?.push(performance.now());
      const data = state.data.slice(0, 10);
      return { data, count: data.length };
    });
  }
  g.addEdge(START, 's0');
  for (let i = 1; i < n; i++) g.addEdge(`s${i - 1}`, `s${i}`);
  g.addEdge(`s${n - 1}`, END);
  return g.compile({ checkpointer });
}

/** Invoke once on a fresh thread; returns total ms and the per-step intervals. */
export async function invokeChain(graph, stamps, durability) {
  stamps.length = 0;
  const t0 = performance.now();
  const out = await graph.invoke(
    { data: INPUT_ROWS },
    { configurable: { thread_id: randomUUID() }, recursionLimit: 10_000, ...(durability ? { durability } : {}) },
  );
  const totalMs = performance.now() - t0;
  if (out.count !== INPUT_ROWS.length) throw new Error(`unexpected LangGraph output ${JSON.stringify(out)}`);
  return { totalMs, intervals: stamps.slice(1).map((s, i) => s - stamps[i]) };
}

/** A PostgresSaver on a fresh database (created, set up, and dropped by close()). */
export async function freshPostgresSaver() {
  const db = await createTestDatabase('af_bench_lg');
  const pool = new pg.Pool({ connectionString: db.url });
  // DROP DATABASE … WITH (FORCE) ends idle pooled connections; that is expected here.
  pool.on('error', () => undefined);
  const saver = new PostgresSaver(pool);
  await saver.setup();
  return {
    saver,
    db,
    close: async () => {
      await pool.end();
      await db.drop();
    },
  };
}

export const memorySaver = () => new MemorySaver();

/**
 * The floor: `n` sequential single-row INSERT … COMMIT transactions on one
 * connection of a fresh database. Returns each commit's ms.
 */
export async function rawCommitLoop(n) {
  const db = await createTestDatabase('af_bench_floor');
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await client.query('CREATE TABLE steps (run_id uuid NOT NULL, step int NOT NULL, state jsonb NOT NULL, PRIMARY KEY (run_id, step))');
    const runId = randomUUID();
    const state = JSON.stringify({ data: INPUT_ROWS, count: INPUT_ROWS.length });
    const perCommit = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await client.query('BEGIN');
      await client.query('INSERT INTO steps (run_id, step, state) VALUES ($1, $2, $3::jsonb)', [runId, i, state]);
      await client.query('COMMIT');
      perCommit.push(performance.now() - t);
    }
    return perCommit;
  } finally {
    await client.end();
    await db.drop();
  }
}

/**
 * `total` invokes of `graph`, at most `concurrency` at a time (fresh thread
 * each). Returns invokes per second and each invoke's latency.
 */
export async function invokeConcurrently(graph, { total, concurrency, durability }) {
  let next = 0;
  const latencies = [];
  const t0 = performance.now();
  const worker = async () => {
    while (next < total) {
      next++;
      const t = performance.now();
      const out = await graph.invoke(
        { data: INPUT_ROWS },
        { configurable: { thread_id: randomUUID() }, recursionLimit: 10_000, ...(durability ? { durability } : {}) },
      );
      if (out.count !== INPUT_ROWS.length) throw new Error(`unexpected LangGraph output ${JSON.stringify(out)}`);
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: total / seconds, seconds, latencies };
}
