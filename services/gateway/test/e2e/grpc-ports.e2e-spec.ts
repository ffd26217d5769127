/**
 * What an operator sees on every gRPC port of the real stack (the port table
 * and grpcurl examples in k8s/README.md): reflection lists the services the
 * port implements plus grpc.health.v1.Health, and health answers SERVING for
 * '' and for each listed service's fully-qualified name. Checked the way
 * grpcurl does it, through reflection only, without local protos.
 */
import { describeSymbol, healthCheck, listServices } from '@af/service-kit';
import { startStack, type Stack } from './skeleton.js';

const HEALTH = 'grpc.health.v1.Health';

/** Per service: what `grpcurl -plaintext <host>:<port> list` prints (k8s/README.md documents the same). */
const EXPECTED: Record<string, string[]> = {
  gateway: [HEALTH],
  planner: ['agentfactory.planner.v1.CapabilityRegistryService', 'agentfactory.planner.v1.PlannerService', HEALTH],
  orchestrator: ['agentfactory.orchestrator.v1.OrchestratorService', HEALTH],
  'connector-runtime': [
    'agentfactory.action.v1.ActionService',
    'agentfactory.connector.v1.ConnectorService',
    'agentfactory.connector.v1.PluginRegistryService',
    HEALTH,
  ],
  approval: ['agentfactory.approval.v1.ApprovalService', HEALTH],
};

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});

afterAll(async () => {
  await stack?.stop();
});

const addressOf = (service: string) => `127.0.0.1:${stack.services[service as keyof Stack['services']].env.GRPC_PORT}`;

it.each(Object.keys(EXPECTED))('%s: reflection lists its services and health says SERVING for each', async (service) => {
  const address = addressOf(service);
  const names = await listServices(address);
  expect(names).toEqual(EXPECTED[service]);
  expect(await healthCheck(address, '')).toBe('SERVING');
  for (const name of names) {
    expect(await describeSymbol(address, name)).toEqual({ files: expect.any(Number) });
    if (name !== HEALTH) expect(await healthCheck(address, name)).toBe('SERVING');
  }
  // A name the port does not serve is NOT_FOUND (5), not SERVING.
  expect(await healthCheck(address, 'agentfactory.nothing.v1.NoService')).toBe('error 5');
});
