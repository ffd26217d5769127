import { of, throwError } from 'rxjs';
import { AppError } from '@af/service-kit';
import type { connector } from '@af/contracts';
import { Skipped } from '../domain/node-executor.js';
import { nodeContext } from '../../test/unit/node-context.js';
import { callConnectorExecutor, connectorTools } from './connector.client.js';

/** A ConnectorService client that records ExecuteEndpoint requests and answers with `answer`. */
function fakeClient(answer: (req: connector.ExecuteEndpointRequest) => unknown) {
  const requests: connector.ExecuteEndpointRequest[] = [];
  const client = {
    executeEndpoint: (req: connector.ExecuteEndpointRequest) => {
      requests.push(req);
      const a = answer(req);
      return a instanceof Error ? throwError(() => a) : of(a);
    },
    getConnector: () => of({ connector: { definition: { endpoints: { create_org: { parameters: [{ name: 'name', type: 'string' }] } } } } }),
  } as unknown as connector.ConnectorServiceClient;
  return { client, requests };
}

const refusal = () =>
  new AppError('FAILED_PRECONDITION', 'a dry run does not call endpoint "create_org" of connector "crm": it sends POST requests, which may change data', {
    retryable: false,
    violations: [{ field: 'endpoint', code: 'dry_run_write', reason: 'it sends POST requests, which may change data' }],
  });

const node = { id: 'add', kind: 'tool', action: 'call_connector', inputs: { name: 'Globex' }, params: { connector: 'crm', endpoint: 'create_org' } };
const dry = { approvalPolicy: 'require' as const, runContext: 'interactive', depth: 0, dryRun: true };

describe('call_connector in a dry run', () => {
  it('asks connector-runtime for a read-only call and skips the node dry_run when the endpoint may write', async () => {
    const { client, requests } = fakeClient(() => refusal());
    const out = await callConnectorExecutor(client)(nodeContext(node, { run: dry }));
    expect(requests.map((r) => r.readOnly)).toEqual([true]);
    expect(out).toBeInstanceOf(Skipped);
    expect(out).toMatchObject({
      reason: 'dry_run',
      payload: { action: 'call_connector', connector: 'crm', endpoint: 'create_org', why: 'it sends POST requests, which may change data', would_be_inputs: { name: 'Globex' } },
    });
  });

  it('runs a read-only endpoint as usual, and a normal run never asks for read-only', async () => {
    const { client, requests } = fakeClient(() => ({ result: { results: [{ name: 'Acme' }], count: 1 } }));
    expect(await callConnectorExecutor(client)(nodeContext(node, { run: dry }))).toEqual({ results: [{ name: 'Acme' }], count: 1 });
    await callConnectorExecutor(client)(nodeContext(node));
    expect(requests.map((r) => r.readOnly)).toEqual([true, false]);
  });

  it('fails a normal run on the same refusal instead of skipping (it is not a dry run)', async () => {
    const { client } = fakeClient(() => refusal());
    await expect(callConnectorExecutor(client)(nodeContext(node))).rejects.toMatchObject({ code: 'FAILED_PRECONDITION' });
  });

  it("gives an llm node's connector tools the refusal as the tool call's error in a dry run", async () => {
    const { client, requests } = fakeClient(() => refusal());
    const tools = await connectorTools(client)(nodeContext({ id: 'research', kind: 'llm', params: { tools: ['crm__create_org'] } }, { run: dry }));
    expect(tools.map((t) => t.name)).toEqual(['crm__create_org']);
    await expect(tools[0]!.invoke({ name: 'Globex' }, {} as never)).rejects.toMatchObject({ code: 'FAILED_PRECONDITION', message: expect.stringContaining('dry run') });
    expect(requests.map((r) => r.readOnly)).toEqual([true]);
  });
});
