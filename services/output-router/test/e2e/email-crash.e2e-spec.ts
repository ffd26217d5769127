/**
 * Email and a crash between sending and recording: output-router is killed
 * with SIGKILL while a local SMTP server (`smtp-server`) has taken a message
 * but holds its answer, so the sender never learns it was sent. The replayed
 * node sends it again with the same Message-ID (the delivery key) and says
 * so; a third attempt sends nothing. Counted at the SMTP server.
 * Real: the stack's processes, PostgreSQL, NATS, the SMTP server.
 *
 * Needs `pnpm build`.
 */
import { randomUUID } from 'node:crypto';
import { action } from '@af/contracts';
import { call, createGrpcClient, ServiceAuth, type AppError } from '@af/service-kit';
import { freePort, registerUser, startStack, type GatewayUser, type Stack } from '@af/testing';
import { SMTPServer } from 'smtp-server';

let stack: Stack;
let alice: GatewayUser;
let actions: action.ActionServiceClient;
let smtp: SMTPServer;
const mails: string[] = [];
/** Subjects whose first message the server takes but does not answer until released. */
const holdFirst = new Set<string>();
const held: Array<() => void> = [];

beforeAll(async () => {
  const port = await freePort();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, done) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString()));
      stream.on('end', () => {
        mails.push(text);
        const subject = /^Subject: (.*)$/im.exec(text)?.[1]?.trim() ?? '';
        if (holdFirst.delete(subject)) held.push(() => done());
        else done();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', () => resolve()));
  // The SMTP timeout is longer than the time the test needs to see the message and kill the sender.
  stack = await startStack({ outputRouter: true, env: { 'output-router': { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_TIMEOUT_MS: '30000' } } });
  alice = await registerUser(stack.gatewayUrl, 'alice@example.com');
  actions = createGrpcClient<action.ActionServiceClient>('action', action.ACTION_SERVICE_NAME, `127.0.0.1:${stack.services['output-router']!.env.GRPC_PORT}`, {
    auth: new ServiceAuth({ secret: stack.serviceAuthSecret, service: 'e2e' }),
  });
}, 150_000);

afterAll(async () => {
  held.splice(0).forEach((release) => release());
  await stack?.stop();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

const routeOutput = (runId: string, destinations: unknown[], attempt: number) =>
  call(
    actions.execute({
      action: 'route_output',
      inputs: { data: [{ name: 'River Trust', amount: 1200 }] },
      params: { destinations },
      idempotencyKey: `${runId}:route:${attempt}`,
      principal: { userId: alice.id, teamIds: [] },
      timeoutMs: 40_000,
      runId,
      nodeId: 'route',
      attempt,
    }),
  ).then((r) => r.outputs as Record<string, any>);

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

it('after a kill -9 between sending and recording, sends again with the same Message-ID, then never again', async () => {
  const subject = `Crash ${randomUUID().slice(0, 8)}`;
  const dest = [{ type: 'notification', config: { title: subject, channels: ['email'], email_to: ['alice@example.com'] } }];
  const ofSubject = () => mails.filter((m) => m.includes(`Subject: ${subject}`));
  holdFirst.add(subject);
  const runId = randomUUID();
  const first = routeOutput(runId, dest, 1).catch((err: unknown) => err);
  // The server has the message; its answer is held, so the sender has not recorded it: kill it now.
  await until('the first message', () => ofSubject().length === 1);
  const router = stack.services['output-router']!;
  await router.kill();
  expect((await first) as AppError).toMatchObject({ code: 'UNAVAILABLE' });
  held.splice(0).forEach((release) => release());
  await router.start();

  const again = await routeOutput(runId, dest, 2);
  expect(again.routing_report[0]).toMatchObject({ status: 'success', details: { email: { accepted: 1, resent_after_interruption: true } } });
  const third = await routeOutput(runId, dest, 3);
  expect(third.routing_report[0]).toMatchObject({ status: 'success', replayed: true });
  // Two messages reached the server, one Message-ID (the delivery key): a receiver keeping one message per Message-ID has exactly one.
  // Headers may be folded onto the next line (RFC 5322): unfold before reading.
  const ids = ofSubject().map((m) => /^Message-ID:\s*(.*)$/im.exec(m.replace(/\r?\n[ \t]+/g, ' '))?.[1]?.trim());
  const key = `<${runId}:route:0-notification:email@agent-factory>`;
  expect(ids).toEqual([key, key]);
}, 120_000);

it('sends once when nothing crashes, however often the node is replayed', async () => {
  const subject = `Calm ${randomUUID().slice(0, 8)}`;
  const dest = [{ type: 'notification', config: { title: subject, channels: ['email'], email_to: ['alice@example.com'] } }];
  const runId = randomUUID();
  const first = await routeOutput(runId, dest, 1);
  expect(first.routing_report[0].details.email).not.toHaveProperty('resent_after_interruption');
  await routeOutput(runId, dest, 2);
  await routeOutput(runId, dest, 3);
  expect(mails.filter((m) => m.includes(`Subject: ${subject}`))).toHaveLength(1);
}, 60_000);
