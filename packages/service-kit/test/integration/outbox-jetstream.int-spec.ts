/**
 * Real adapters: PostgreSQL (PgOutboxStore, openDatabase migrations) and NATS
 * JetStream (JetStreamBus). Proves state + outbox commit together, the relay
 * publishes in order, and a re-publish of the same msgId is dropped.
 */
import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createTestDatabase, TEST_NATS_URL, type TestDatabase } from '@af/testing';
import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import {
  appendOutbox,
  createLogger,
  decodeJson,
  JetStreamBus,
  OUTBOX_DDL,
  OutboxRelay,
  openDatabase,
  PgOutboxStore,
  sqlRows,
  Subjects,
  type BusMessage,
} from '../../src/index.js';

class Init1700000000000 implements MigrationInterface {
  name = 'Init1700000000000';
  async up(q: QueryRunner) {
    await q.query(`CREATE TABLE things (id int PRIMARY KEY, name text NOT NULL); ${OUTBOX_DDL}`);
  }
  async down() {}
}

const log = createLogger('test', 'silent');
let db: TestDatabase;
let ds: DataSource;
let bus: JetStreamBus;
let subjects: Subjects;

beforeAll(async () => {
  db = await createTestDatabase('af_kit');
  ds = await openDatabase({ url: db.url, schema: 'kit_test', migrations: [Init1700000000000] });
  subjects = new Subjects(`k${randomBytes(4).toString('hex')}`);
  bus = await JetStreamBus.connect(TEST_NATS_URL, subjects, log);
});

afterAll(async () => {
  await bus?.close();
  await ds?.destroy();
  await db?.drop();
});

it('runs migrations once even when two replicas open the schema together', async () => {
  const [a, b] = await Promise.all([
    openDatabase({ url: db.url, schema: 'kit_race', migrations: [Init1700000000000] }),
    openDatabase({ url: db.url, schema: 'kit_race', migrations: [Init1700000000000] }),
  ]);
  const rows = await sqlRows(a, 'SELECT name FROM migrations');
  expect(rows.map((r) => r.name)).toEqual(['Init1700000000000']);
  await Promise.all([a.destroy(), b.destroy()]);
});

it('commits state and outbox together; a rollback publishes nothing', async () => {
  await ds.transaction(async (m) => {
    await m.query('INSERT INTO things VALUES (1, $1)', ['one']);
    await appendOutbox(m, [{ subject: subjects.run('r1', 'start'), payload: { seq: 1 }, msgId: 'run:r1:1' }]);
  });
  await expect(
    ds.transaction(async (m) => {
      await appendOutbox(m, [{ subject: subjects.run('r1', 'node_start'), payload: { seq: 99 }, msgId: 'run:r1:99' }]);
      await m.query('INSERT INTO things VALUES (1, $1)', ['duplicate key']);
    }),
  ).rejects.toThrow();
  const rows = await sqlRows(ds, 'SELECT msg_id FROM outbox ORDER BY id');
  expect(rows.map((r) => r.msg_id)).toEqual(['run:r1:1']);
});

it('relays in order to JetStream, and a duplicate msgId is dropped by the stream', async () => {
  await ds.transaction(async (m) => {
    await appendOutbox(
      m,
      [2, 3, 4].map((seq) => ({ subject: subjects.run('r1', `e${seq}`), payload: { seq }, msgId: `run:r1:${seq}` })),
    );
  });
  const relay = new OutboxRelay(new PgOutboxStore(ds, 'kit_test'), bus, log);
  await relay.drain();
  const unpublished = await sqlRows(ds, 'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL');
  expect(unpublished[0].n).toBe(0);

  // A relay that crashed before marking re-publishes the same ids.
  await sqlRows(ds, 'UPDATE outbox SET published_at = NULL');
  await relay.drain();

  const received: BusMessage[] = [];
  const sub = await bus.subscribe(subjects.runAll('r1'), (m) => received.push(m));
  for (let i = 0; i < 50 && received.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 200));
  await sub.close();
  expect(received.map((m) => decodeJson<{ seq: number }>(m.data).seq)).toEqual([1, 2, 3, 4]);

  const nc = await connect({ servers: TEST_NATS_URL });
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(subjects.streams()[0]!.name);
  expect(info.state.messages).toBe(4);
  await nc.close();
});

it('hands each work item to one of two competing consumers and redelivers an unacked one', async () => {
  const seen: string[] = [];
  let dropFirst = true;
  const handler = (who: string) => async (item: { data: Uint8Array; ack(): void; redeliveries: number }) => {
    const { id } = decodeJson<{ id: string }>(item.data);
    if (id === 'w1' && dropFirst) {
      dropFirst = false;
      return; // neither ack nor nak: a crashed worker
    }
    seen.push(`${id}:${item.redeliveries}`);
    item.ack();
    void who;
  };
  const a = await bus.consume(subjects.runWorkAll(), { durable: 'kit-test', ackWaitMs: 1000, maxInFlight: 4 }, handler('a'));
  const b = await bus.consume(subjects.runWorkAll(), { durable: 'kit-test', ackWaitMs: 1000, maxInFlight: 4 }, handler('b'));
  for (const id of ['w1', 'w2', 'w3']) await bus.publish(subjects.runWork(id), new TextEncoder().encode(JSON.stringify({ id })), `work:${id}`);
  await bus.publish(subjects.runWork('w2'), new TextEncoder().encode(JSON.stringify({ id: 'w2' })), 'work:w2');
  for (let i = 0; i < 100 && seen.length < 3; i++) await new Promise((r) => setTimeout(r, 50));
  await a.close();
  await b.close();
  expect(seen.sort()).toEqual(['w1:1', 'w2:0', 'w3:0']);
});

it('publishes committed rows directly with their ids, marks them in one statement, and the relay leaves young rows alone', async () => {
  await sqlRows(ds, 'DELETE FROM outbox');
  const rows = await ds.transaction((m) =>
    appendOutbox(
      m,
      [10, 11].map((seq) => ({ subject: subjects.run('r2', `e${seq}`), payload: { seq }, msgId: `run:r2:${seq}` })),
    ),
  );
  const stored = await sqlRows(ds, 'SELECT id::text AS id, msg_id FROM outbox ORDER BY id');
  expect(rows.map((r) => [r.id, r.msgId])).toEqual(stored.map((r) => [r.id, r.msg_id]));

  const store = new PgOutboxStore(ds, 'kit_test');
  // Young rows are the committer's: a relay batch with a grace period does not take them; one without does.
  expect(await store.withBatch(10, async (batch) => batch.map((r) => r.id), 60_000)).toBe(0);
  const relay = new OutboxRelay(store, bus, log, { intervalMs: 60_000 });
  relay.publishCommitted(rows);
  await relay.flushDirect();
  const marked = await sqlRows(ds, 'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NOT NULL');
  expect(marked[0].n).toBe(2);
  expect(await store.withBatch(10, async (batch) => batch.map((r) => r.id))).toBe(0);

  const received: BusMessage[] = [];
  const sub = await bus.subscribe(subjects.runAll('r2'), (m) => received.push(m));
  for (let i = 0; i < 50 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  await sub.close();
  expect(received.map((m) => decodeJson<{ seq: number }>(m.data).seq)).toEqual([10, 11]);
});
