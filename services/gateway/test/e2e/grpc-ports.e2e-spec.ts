/**
 * What an operator sees on every gRPC port of the real stack (the port table
 * and grpcurl examples in k8s/README.md): reflection lists the services the
 * port implements plus grpc.health.v1.Health, and health answers SERVING for
 * '' and for each listed service's fully-qualified name. Checked the way
 * grpcurl does it, through reflection only, without local protos; in both
 * process layouts (one process per service, and `pnpm start`'s single process).
 */
import { describeSymbol, healthCheck, listServices } from '@af/service-kit';
import { startStack, type Stack } from './skeleton.js';

const HEALTH = 'grpc.health.v1.Health';

/** Per service: what `grpcurl -plaintext <host>:<port> list` prints (k8s/README.md documents the same). */
const EXPECTED: Record<string, string[]> = {
  gateway: [HEALTH],
  planner: ['agentfactory.action.v1.ActionService', 'agentfactory.planner.v1.AgentProfileService', 'agentfactory.planner.v1.CapabilityRegistryService', 'agentfactory.planner.v1.PlannerService', 'agentfactory.planner.v1.QueryService', HEALTH],
  orchestrator: ['agentfactory.orchestrator.v1.OrchestratorService', 'agentfactory.orchestrator.v1.ScheduleService', HEALTH],
  'connector-runtime': [
    'agentfactory.action.v1.ActionService',
    'agentfactory.connector.v1.ConnectorService',
    'agentfactory.connector.v1.PluginRegistryService',
    HEALTH,
  ],
  approval: ['agentfactory.approval.v1.ApprovalService', HEALTH],
  'output-router': ['agentfactory.action.v1.ActionService', 'agentfactory.output.v1.OutputService', HEALTH],
  'entity-resolution': ['agentfactory.action.v1.ActionService', 'agentfactory.entity.v1.EntityService', HEALTH],
};

// Both ways the services run: one process each (as in Kubernetes), and all in one process (`pnpm start`).
describe.each(['jetstream', 'memory'] as const)('bus %s', (bus) => {
  let stack: Stack;

  beforeAll(async () => {
    // Every service a default deployment runs.
    stack = await startStack({ bus, outputRouter: true, entityResolution: true });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  // In one process, every service's env is carried in AF_IN_PROCESS_ENVS.
  const addressOf = (service: keyof Stack['services']) => {
    const env = stack.services[service]!.env;
    const own = env.AF_IN_PROCESS_ENVS ? (JSON.parse(env.AF_IN_PROCESS_ENVS) as Record<string, Record<string, string>>)[service]! : env;
    return `127.0.0.1:${own.GRPC_PORT}`;
  };

  it.each(Object.keys(EXPECTED))('%s: reflection lists its services and health says SERVING for each', async (service) => {
    const address = addressOf(service as keyof Stack['services']);
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
});
