/**
 * The planner's connector catalog against a connector-runtime that is not
 * there (real gRPC client, a closed port): the answer says why, so
 * validation warns instead of failing. (Against a real connector-runtime:
 * services/gateway/test/e2e/playbook-validation.e2e-spec.ts.)
 */
import { createServer } from 'node:net';
import { serviceAuthFromConfig } from '@af/service-kit';
import { connectorCatalog } from '../../src/infra/connector-catalog.js';

const auth = serviceAuthFromConfig({ SERVICE_AUTH_SECRET: 'int-test-service-auth-secret-0123456789', SERVICE_AUTH_SECRET_PREVIOUS: undefined, SERVICE_AUTH_TOKEN_TTL_SECONDS: 60 }, 'planner');

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('connector-runtime not answering: unavailable with the reason, no internal address', async () => {
  const port = await closedPort();
  const answer = await connectorCatalog(`127.0.0.1:${port}`, auth, 2_000).forCaller({ userId: 'alice', teamIds: [] });
  if (!('unavailable' in answer)) throw new Error('expected no answer');
  expect(answer.unavailable).toMatch(/^connector-runtime did not answer \((UNAVAILABLE|DEADLINE_EXCEEDED)/);
  expect(answer.unavailable).not.toContain('127.0.0.1');
});
