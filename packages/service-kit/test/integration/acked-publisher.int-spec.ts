/**
 * AckedPublisher against the real NATS JetStream: stored and duplicate
 * publishes resolve, every way a publish can fail rejects with the subject and
 * the reason, and nothing stays pending.
 */
import { randomBytes } from 'node:crypto';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { TEST_NATS_URL } from '@af/testing';
import { AckedPublisher, createLogger, JetStreamBus, Subjects } from '../../src/index.js';

const log = createLogger('test', 'silent');
const enc = new TextEncoder();
let subjects: Subjects;
let bus: JetStreamBus;
let nc: NatsConnection;
let jsm: JetStreamManager;
let publisher: AckedPublisher;
const responders: Subscription[] = [];

beforeAll(async () => {
  subjects = new Subjects(`p${randomBytes(4).toString('hex')}`);
  bus = await JetStreamBus.connect(TEST_NATS_URL, subjects, log); // creates the streams
  nc = await connect({ servers: TEST_NATS_URL });
  jsm = await jetstreamManager(nc);
});

beforeEach(() => {
  publisher = new AckedPublisher(nc, 300);
});

afterEach(() => {
  publisher.close();
  for (const s of responders.splice(0)) s.unsubscribe();
});

afterAll(async () => {
  await nc?.close();
  await bus?.close();
  for (const spec of subjects.streams()) await jsm?.streams.delete(spec.name).catch(() => undefined);
});

/** A core-NATS responder on `subject` answering every request with `reply` after `delayMs` (or never, when undefined). */
function responder(subject: string, reply: Uint8Array | undefined, delayMs = 0): void {
  responders.push(
    nc.subscribe(subject, {
      callback: (_err, m) => {
        if (reply) setTimeout(() => m.respond(reply), delayMs);
      },
    }),
  );
}

async function stored(subject: string): Promise<Array<{ seq: number; data: string; msgId: string | undefined }>> {
  const stream = subjects.streamFor(subject).name;
  const info = await jsm.streams.info(stream);
  const out = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m && m.subject === subject) out.push({ seq, data: new TextDecoder().decode(m.data), msgId: m.header.get('Nats-Msg-Id') || undefined });
  }
  return out;
}

it('resolves once the stream stored the message, with its Nats-Msg-Id', async () => {
  const subject = subjects.run('r-1', 'node_start');
  await publisher.publish(subject, enc.encode('{"a":1}'), 'run:r-1:1');
  expect(await stored(subject)).toEqual([{ seq: expect.any(Number), data: '{"a":1}', msgId: 'run:r-1:1' }]);
  expect(publisher.inFlight).toBe(0);
});

it('resolves a publish of a msg id the stream already has, without storing it twice', async () => {
  const subject = subjects.run('r-2', 'node_start');
  await publisher.publish(subject, enc.encode('first'), 'run:r-2:1');
  await publisher.publish(subject, enc.encode('again'), 'run:r-2:1');
  expect((await stored(subject)).map((m) => m.data)).toEqual(['first']);
});

it('settles many publishes in flight together, each with its own ack, in order', async () => {
  const subject = subjects.run('r-3', 'node_complete');
  await Promise.all(Array.from({ length: 500 }, (_, i) => publisher.publish(subject, enc.encode(String(i)), `run:r-3:${i}`)));
  const got = await stored(subject);
  expect(got.map((m) => m.data)).toEqual(Array.from({ length: 500 }, (_, i) => String(i)));
  expect(publisher.inFlight).toBe(0);
});

it('rejects, naming the subject, when no stream takes the subject', async () => {
  const subject = `nostream.${randomBytes(4).toString('hex')}`;
  await expect(publisher.publish(subject, enc.encode('x'), 'm-1')).rejects.toThrow(`publish to ${subject}: no JetStream stream takes this subject (no responders)`);
  expect(publisher.inFlight).toBe(0);
});

it("rejects with JetStream's error description and code", async () => {
  const subject = `fake.${randomBytes(4).toString('hex')}`;
  responder(subject, enc.encode(JSON.stringify({ type: 'io.nats.jetstream.api.v1.pub_ack_response', error: { code: 503, err_code: 10077, description: 'maximum messages exceeded' } })));
  await expect(publisher.publish(subject, enc.encode('x'), 'm-2')).rejects.toThrow(`publish to ${subject}: JetStream refused it: maximum messages exceeded (code 10077)`);
});

it('rejects an answer that is not JSON, or that names no stream', async () => {
  const a = `fake.${randomBytes(4).toString('hex')}`;
  const b = `fake.${randomBytes(4).toString('hex')}`;
  responder(a, enc.encode('+OK'));
  responder(b, enc.encode('{"seq":3}'));
  await expect(publisher.publish(a, enc.encode('x'), 'm-3')).rejects.toThrow(`publish to ${a}: JetStream's answer is not JSON`);
  await expect(publisher.publish(b, enc.encode('x'), 'm-4')).rejects.toThrow(`publish to ${b}: JetStream's answer names no stream`);
});

it('rejects when no acknowledgement comes within the timeout, and ignores one that comes later', async () => {
  const subject = `slow.${randomBytes(4).toString('hex')}`;
  responder(subject, enc.encode('{"stream":"S","seq":1}'), 700);
  const t0 = Date.now();
  await expect(publisher.publish(subject, enc.encode('x'), 'm-5')).rejects.toThrow(`publish to ${subject}: no JetStream acknowledgement within 300 ms`);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
  expect(publisher.inFlight).toBe(0);
  // A stored publish settles normally while the late ack of the expired one is on its way, and after it came.
  const ok = subjects.run('r-5', 'node_start');
  await publisher.publish(ok, enc.encode('y'), 'run:r-5:1');
  await new Promise((r) => setTimeout(r, 800 - (Date.now() - t0)));
  await publisher.publish(ok, enc.encode('z'), 'run:r-5:2');
  expect((await stored(ok)).map((m) => m.data)).toEqual(['y', 'z']);
  expect(publisher.inFlight).toBe(0);
});

it('fails what is pending on close, and refuses publishes after it', async () => {
  const subject = `silent.${randomBytes(4).toString('hex')}`;
  responder(subject, undefined);
  const pending = publisher.publish(subject, enc.encode('x'), 'm-6');
  publisher.close();
  await expect(pending).rejects.toThrow('the publisher closed before JetStream acknowledged');
  await expect(publisher.publish(subject, enc.encode('x'), 'm-7')).rejects.toThrow(`publish to ${subject}: the publisher is closed`);
});

it('rejects a timeout that is not a positive number, naming it', () => {
  expect(() => new AckedPublisher(nc, 0)).toThrow('timeoutMs: must be a positive number of milliseconds, got 0');
  expect(() => new AckedPublisher(nc, Number.NaN)).toThrow('timeoutMs: must be a positive number of milliseconds, got NaN');
});

it('is what JetStreamBus publishes through', async () => {
  const subject = subjects.run('r-6', 'complete');
  await bus.publish(subject, enc.encode('z'), 'run:r-6:9');
  await bus.publish(subject, enc.encode('dup'), 'run:r-6:9');
  expect(await stored(subject)).toEqual([{ seq: expect.any(Number), data: 'z', msgId: 'run:r-6:9' }]);
  await expect(bus.publish(`nostream.${randomBytes(4).toString('hex')}`, enc.encode('x'), 'm-8')).rejects.toThrow('no JetStream stream takes this subject');
});
