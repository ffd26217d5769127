// Decomposition aid: replays, with raw `pg` on one connection, the SQL our
// orchestrator issues per node, against copies of the orchestrator's tables
// in a private schema of the stack's database (the services never see it):
//
//   current  what the engine does today for a node committed on its own
//            (PURE_NODE_BATCH=0): ONE statement — copied from
//            services/orchestrator/src/infra/run-execution.store.ts
//            `transition` as built for nodeCompleted with its node_start
//            frame — run as a named (prepared) statement like
//            src/infra/prepared.ts does.
//   first    the first version: node_start and node_complete as two
//            transactions of 6–7 statements each (appendEvent, state,
//            outbox rows), optionally followed by the old relay's batch
//            transaction after every commit.
//
// The difference between this and our measured per-node time is what the
// engine adds on top of its SQL (driver, event loop, NATS publishing,
// process scheduling).
import { randomUUID } from 'node:crypto';
import pg from 'pg';

const SCHEMA = 'bench_replay';

/** Statements per node in the replay (for the report). */
export const REPLAY_SHAPE = {
  current: ['one named statement: WITH r AS (UPDATE runs … last_seq + 2, fenced by the lease), f (the 2 frames), e (INSERT run_events × 2), ob (INSERT outbox: 1 batch row holding both frames), c0 (UPDATE node_states → completed), c1 (INSERT node_outputs … ON CONFLICT) SELECT …'],
  nodeStarted: ['BEGIN', 'UPDATE runs … last_seq + 1 … RETURNING last_seq', 'INSERT run_events', 'UPDATE node_states → running', 'INSERT outbox', 'COMMIT'],
  nodeCompleted: ['BEGIN', 'UPDATE runs … last_seq + 1 … RETURNING last_seq', 'INSERT run_events', 'UPDATE node_states → completed', 'INSERT node_outputs … ON CONFLICT', 'INSERT outbox', 'COMMIT'],
  relayBatchPerCommit: ['BEGIN', 'SELECT pg_try_advisory_xact_lock', 'SELECT … FROM outbox WHERE published_at IS NULL … LIMIT 256', 'UPDATE outbox SET published_at', 'COMMIT'],
};

/** Create bench_replay.{runs,node_states,node_outputs,run_events,outbox} LIKE the orchestrator's tables. */
export async function prepareReplaySchema(databaseUrl) {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA}`);
    for (const t of ['runs', 'node_states', 'node_outputs', 'run_events', 'outbox']) {
      await c.query(`CREATE TABLE ${SCHEMA}.${t} (LIKE orchestrator.${t} INCLUDING ALL)`);
    }
    // LIKE copies neither foreign keys (whose checks lock the run row) nor a sequence of our own.
    for (const t of ['node_states', 'node_outputs', 'run_events']) {
      await c.query(`ALTER TABLE ${SCHEMA}.${t} ADD FOREIGN KEY (run_id) REFERENCES ${SCHEMA}.runs(id) ON DELETE CASCADE`);
    }
    await c.query(`CREATE SEQUENCE ${SCHEMA}.outbox_id_seq OWNED BY ${SCHEMA}.outbox.id`);
    await c.query(`ALTER TABLE ${SCHEMA}.outbox ALTER COLUMN id SET DEFAULT nextval('${SCHEMA}.outbox_id_seq')`);
  } finally {
    await c.end();
  }
}

/** The replayed runs' lease owner, and every node's output. */
const OWNER = 'bench-replay';
const OUTPUT = JSON.stringify({ data: [{ id: 1, name: 'a', score: 0.9 }, { id: 2, name: 'b', score: 0.4 }, { id: 3, name: 'c', score: 0.7 }], count: 3 });

/** A running run leased to OWNER (plan copied from orchestrator.runs `templateRunId`) with `nodes` pending node states `s0…`. */
async function leasedRun(c, templateRunId, nodes) {
  const runId = randomUUID();
  await c.query(
    `INSERT INTO runs (id, user_id, status, run_context, plan, inputs, idempotency_key, lease_owner, lease_until)
     SELECT $1, user_id, 'running', run_context, plan, inputs, $4, $2, now() + interval '1 minute'
       FROM orchestrator.runs WHERE id = $3`,
    [runId, OWNER, templateRunId, `bench-replay-${runId}`],
  );
  const ids = Array.from({ length: nodes }, (_, i) => `s${i}`);
  await c.query(`INSERT INTO node_states (run_id, node_id, status) SELECT $1, unnest($2::text[]), 'pending'`, [runId, ids]);
  return { runId, ids };
}

/**
 * Replay one run of `templateRunId`'s plan (copied from orchestrator.runs):
 * `nodes` nodes, each nodeStarted + nodeCompleted, optionally followed by the
 * relay's batch after every commit (sequentially; in the service it runs
 * concurrently). Returns per-node ms.
 *
 * With `oneStatement`, a what-if that is NOT how the orchestrator works:
 * each transition's same writes (fenced seq bump, event, node state, output,
 * outbox) as one data-modifying CTE in an implicit transaction — one round
 * trip and one commit per transition instead of six or seven round trips.
 */
export async function replayRun(databaseUrl, templateRunId, nodes, { mode = 'first', withRelay = false, oneStatement = false, statementMs } = {}) {
  const client = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${SCHEMA}` });
  await client.connect();
  // With `statementMs` (an object), each statement's round-trip time is collected under a short label.
  const c = {
    query: async (text, params) => {
      if (!statementMs) return client.query(text, params);
      const t = performance.now();
      const r = await client.query(text, params);
      (statementMs[statementLabel(text)] ??= []).push(performance.now() - t);
      return r;
    },
  };
  try {
    const owner = OWNER;
    const { runId, ids } = await leasedRun(c, templateRunId, nodes);
    const output = OUTPUT;
    const perNode = [];
    const event = async (type, nodeId, payload) => {
      const { rows } = await c.query(
        `UPDATE runs SET last_seq = last_seq + 1, updated_at = now()
          WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING last_seq`,
        [runId, owner],
      );
      const seq = Number(rows[0].last_seq);
      const ts = new Date().toISOString();
      await c.query('INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, $6)', [
        runId,
        seq,
        type,
        nodeId,
        JSON.stringify(payload),
        ts,
      ]);
      return { frame: { runId, seq, type, timestamp: ts, nodeId, payload }, msgId: `run:${runId}:${seq}` };
    };
    const outbox = (m, type) =>
      c.query('INSERT INTO outbox (subject, payload, msg_id) VALUES ($1, $2::jsonb, $3)', [`bench.run.${runId}.${type}`, JSON.stringify(m.frame), m.msgId]);
    const relay = async () => {
      await c.query('BEGIN');
      await c.query('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS ok', [`outbox:${SCHEMA}`]);
      const { rows } = await c.query('SELECT id, subject, payload, msg_id FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $1', [256]);
      if (rows.length) await c.query('UPDATE outbox SET published_at = now() WHERE id = ANY($1::bigint[])', [rows.map((r) => r.id)]);
      await c.query('COMMIT');
    };
    if (mode === 'current') {
      for (const nodeId of ids) {
        const t = performance.now();
        await currentTransition(client, runId, owner, nodeId, output);
        perNode.push(performance.now() - t);
      }
      return perNode;
    }
    if (oneStatement) {
      for (const nodeId of ids) {
        const t = performance.now();
        await transitionInOneStatement(c, runId, owner, nodeId, 'node_start', { attempt: 1, kind: 'tool', action: 'transform_data' }, null);
        const done = { attempt: 1, durationMs: 0, outputKey: nodeId, summary: { type: 'object', keys: ['data', 'count'], count: 3 } };
        await transitionInOneStatement(c, runId, owner, nodeId, 'node_complete', done, output);
        perNode.push(performance.now() - t);
      }
      return perNode;
    }
    for (const nodeId of ids) {
      const t = performance.now();
      await c.query('BEGIN');
      const started = await event('node_start', nodeId, { attempt: 1, kind: 'tool', action: 'transform_data' });
      await c.query(`UPDATE node_states SET status = 'running', attempt = $3, error = NULL, started_at = now() WHERE run_id = $1 AND node_id = $2`, [
        runId,
        nodeId,
        1,
      ]);
      await outbox(started, 'node_start');
      await c.query('COMMIT');
      if (withRelay) await relay();
      await c.query('BEGIN');
      const done = await event('node_complete', nodeId, { attempt: 1, durationMs: 0, outputKey: nodeId, summary: { type: 'object', keys: ['data', 'count'], count: 3 } });
      await c.query(`UPDATE node_states SET status = 'completed', finished_at = now() WHERE run_id = $1 AND node_id = $2`, [runId, nodeId]);
      await c.query(
        `INSERT INTO node_outputs (run_id, node_id, output) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (run_id, node_id) DO UPDATE SET output = EXCLUDED.output, created_at = now()`,
        [runId, nodeId, output],
      );
      await outbox(done, 'node_complete');
      await c.query('COMMIT');
      if (withRelay) await relay();
      perNode.push(performance.now() - t);
    }
    return perNode;
  } finally {
    await client.end();
  }
}

/**
 * The statement the store sends for a pure node committed on its own: its
 * node_start and node_complete frames, state, output and outbox rows, fenced
 * by the lease (copied from RunExecutionStore.transition / nodeCompleted),
 * as its named parts so that replayParts() can leave each out.
 */
const CURRENT_PARTS = {
  /** The fence and the sequence: the run row, only while this owner holds the lease. */
  r: `r AS (
         UPDATE runs SET  last_seq = last_seq + $9::int, updated_at = now()
          WHERE id = $1::uuid AND lease_owner = $2::text AND status = 'running' RETURNING last_seq, $4::text AS node_id
       )`,
  f: `f AS (
         SELECT r.last_seq - $9::int + x.i AS seq, x.type, x.payload, x.node_id, x.ts
           FROM r, unnest($6::text[], $7::jsonb[], $8::text[], $3::text[]) WITH ORDINALITY AS x(type, payload, node_id, ts, i)
       )`,
  /** The event log: the node's two frames. */
  e: `e AS (
         INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at)
         SELECT $1::uuid, seq, type, node_id, payload, ts::timestamptz FROM f
       )`,
  /** The outbox: one batch row holding both frames. */
  ob: `ob AS (
         INSERT INTO outbox (subject, payload, msg_id)
         SELECT $13::text,
                jsonb_agg(jsonb_build_object(
                  'subject', $5::text || type,
                  'payload', jsonb_build_object('runId', $1::text, 'seq', seq, 'type', type, 'timestamp', ts, 'payload', payload)
                               || CASE WHEN node_id IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('nodeId', node_id) END,
                  'msgId', 'run:' || $1::text || ':' || seq) ORDER BY seq),
                'batch:run:' || $1::text || ':' || min(seq)
           FROM f HAVING count(*) > 0
         RETURNING id
       )`,
  /** The node's state. */
  c0: `c0 AS (
UPDATE node_states SET status = 'completed', finished_at = now(), wait_until = NULL,
                started_at = COALESCE(started_at, now()), attempt = COALESCE($10::int, attempt)
          WHERE run_id = $1::uuid AND node_id = $4::text AND EXISTS (SELECT 1 FROM r)
)`,
  /** The node's output (kept for resume). */
  c1: `c1 AS (
INSERT INTO node_outputs (run_id, node_id, output)
         SELECT $1::uuid, n, $11::jsonb FROM r, unnest($12::text[]) AS n
         ON CONFLICT (run_id, node_id) DO UPDATE SET output = EXCLUDED.output, created_at = now()
)`,
};

const CURRENT_SQL = `WITH ${Object.values(CURRENT_PARTS).join(', ')}
       SELECT last_seq, (SELECT id FROM ob) AS ob_id,
              NULL AS more,
              NULL AS extra
         FROM r`;

/** The parts each variant of replayParts() leaves out; `fenceOnly` keeps only the run-row update. */
export const STATEMENT_VARIANTS = {
  full: [],
  withoutOutbox: ['ob'],
  withoutEvents: ['e'],
  withoutNodeState: ['c0'],
  withoutOutput: ['c1'],
  fenceOnly: ['e', 'ob', 'c0', 'c1'],
};

/** A variant's text: the kept parts; the final SELECT names every parameter so that each variant binds the same values. */
function variantSql(leftOut) {
  const kept = Object.entries(CURRENT_PARTS).filter(([name]) => !leftOut.includes(name));
  return `WITH ${kept.map(([, text]) => text).join(', ')}
       SELECT last_seq, $3::text[] AS ts, $5::text AS subject, $6::text[] AS types, $7::jsonb[] AS payloads, $8::text[] AS nodes,
              $10::int AS attempt, $11::jsonb AS output, $12::text[] AS outs, $13::text AS batch
         FROM r`;
}

async function currentTransition(client, runId, owner, nodeId, output, statement = { name: 'bench_replay_current', text: CURRENT_SQL }) {
  const ts = new Date().toISOString();
  const start = { attempt: 1, kind: 'tool', action: 'transform_data' };
  const done = { attempt: 1, durationMs: 0, outputKey: nodeId, summary: { type: 'object', keys: ['data', 'count'], count: 3 } };
  const { rows } = await client.query({
    ...statement,
    values: [runId, owner, [ts, ts], nodeId, `bench.run.${runId}.`, ['node_start', 'node_complete'], [JSON.stringify(start), JSON.stringify(done)], [nodeId, nodeId], 2, 1, output, [nodeId], '$outbox.batch'],
  });
  if (rows.length !== 1) throw new Error('lease lost in replay');
}

/**
 * What each part of today's per-node statement costs: the nodes of a fresh
 * run per variant of STATEMENT_VARIANTS (each a named statement, as the store
 * sends it), plus `oneInsert`: a single-row INSERT in its own implicit
 * transaction, the cheapest durable write there is (one round trip, one WAL
 * flush). Returns per-node ms by variant.
 */
export async function replayParts(databaseUrl, templateRunId, nodes) {
  const client = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${SCHEMA}` });
  await client.connect();
  try {
    const out = {};
    for (const [variant, leftOut] of Object.entries(STATEMENT_VARIANTS)) {
      const { runId, ids } = await leasedRun(client, templateRunId, nodes);
      const statement = { name: `bench_replay_${variant}`, text: variantSql(leftOut) };
      out[variant] = [];
      for (const nodeId of ids) {
        const t = performance.now();
        await currentTransition(client, runId, OWNER, nodeId, OUTPUT, statement);
        out[variant].push(performance.now() - t);
      }
    }
    await client.query('CREATE TABLE IF NOT EXISTS one_insert (run_id uuid NOT NULL, step int NOT NULL, state jsonb NOT NULL, PRIMARY KEY (run_id, step))');
    const runId = randomUUID();
    out.oneInsert = [];
    for (let i = 0; i < nodes; i++) {
      const t = performance.now();
      await client.query({ name: 'bench_replay_one_insert', text: 'INSERT INTO one_insert (run_id, step, state) VALUES ($1, $2, $3::jsonb)', values: [runId, i, OUTPUT] });
      out.oneInsert.push(performance.now() - t);
    }
    return out;
  } finally {
    await client.end();
  }
}

/** The what-if: one statement per transition, fenced by the lease like appendEvent (no row → lease lost). */
async function transitionInOneStatement(c, runId, owner, nodeId, type, payload, output) {
  const ts = new Date().toISOString();
  const frame = JSON.stringify({ runId, seq: 0, type, timestamp: ts, nodeId, payload });
  const state =
    type === 'node_start'
      ? `UPDATE node_states SET status = 'running', attempt = 1, error = NULL, started_at = now()
          WHERE run_id = $1 AND node_id = $4 AND EXISTS (SELECT 1 FROM seq)`
      : `UPDATE node_states SET status = 'completed', finished_at = now()
          WHERE run_id = $1 AND node_id = $4 AND EXISTS (SELECT 1 FROM seq)`;
  const out =
    output === null
      ? ''
      : `, out AS (INSERT INTO node_outputs (run_id, node_id, output) SELECT $1, $4, $10::jsonb FROM seq
                   ON CONFLICT (run_id, node_id) DO UPDATE SET output = EXCLUDED.output, created_at = now())`;
  const { rows } = await c.query(
    `WITH seq AS (UPDATE runs SET last_seq = last_seq + 1, updated_at = now()
                   WHERE id = $1 AND lease_owner = $2 AND status = 'running' RETURNING last_seq),
          ev AS (INSERT INTO run_events (run_id, seq, type, node_id, payload, created_at)
                 SELECT $1, last_seq, $3, $4, $5::jsonb, $6 FROM seq),
          st AS (${state}),
          ob AS (INSERT INTO outbox (subject, payload, msg_id)
                 SELECT $7, jsonb_set($8::jsonb, '{seq}', to_jsonb(last_seq)), $9 || last_seq FROM seq)${out}
     SELECT last_seq FROM seq`,
    [
      runId, owner, type, nodeId, JSON.stringify(payload), ts, `bench.run.${runId}.${type}`, frame, `run:${runId}:`,
      ...(output === null ? [] : [output]),
    ],
  );
  if (rows.length !== 1) throw new Error('lease lost in replay');
}

/** `UPDATE node_states`, `INSERT run_events`, `COMMIT`, … */
function statementLabel(text) {
  const words = text.trim().replace(/\s+/g, ' ').split(' ');
  const verb = words[0].toUpperCase();
  if (verb === 'BEGIN' || verb === 'COMMIT') return verb;
  if (verb === 'SELECT') return text.includes('advisory') ? 'SELECT advisory lock' : 'SELECT outbox batch';
  const table = verb === 'UPDATE' ? words[1] : words[2];
  return `${verb} ${table}`;
}
