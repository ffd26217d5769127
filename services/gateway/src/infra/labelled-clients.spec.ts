import { AppError, call } from '@af/service-kit';
import { Metadata, status } from '@grpc/grpc-js';
import { of, throwError } from 'rxjs';
import type { Clients } from './clients.js';
import { labelClients, serviceOf } from './labelled-clients.js';

describe('labelClients', () => {
  const failing = () => throwError(() => Object.assign(new Error('14 UNAVAILABLE: connect ECONNREFUSED 127.0.0.1:50051'), { code: status.UNAVAILABLE, details: 'connect ECONNREFUSED 127.0.0.1:50051', metadata: new Metadata() }));
  const clients = {
    planner: { compilePlaybook: failing, ok: () => of({ fine: true }) },
    orchestrator: { getRun: failing },
    connectors: { listConnectors: failing },
    plugins: { listPlugins: failing },
    approvals: { getRequest: failing },
  } as unknown as Clients;
  const labelled = labelClients(clients) as unknown as Record<string, Record<string, () => ReturnType<typeof failing>>>;

  it.each([
    ['planner', 'compilePlaybook', 'planner'],
    ['orchestrator', 'getRun', 'orchestrator'],
    ['connectors', 'listConnectors', 'connector-runtime'],
    ['plugins', 'listPlugins', 'connector-runtime'],
    ['approvals', 'getRequest', 'approval'],
  ])('tags errors of %s.%s with %s, through call()', async (client, method, service) => {
    const err = await call(labelled[client]![method]!()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).transport).toBe(true);
    expect(serviceOf(err)).toBe(service);
  });

  it('passes results through unchanged', async () => {
    expect(await call(labelled.planner!.ok!() as never)).toEqual({ fine: true });
  });

  it('knows no service for an untagged error', () => {
    expect(serviceOf(new Error('x'))).toBeUndefined();
    expect(serviceOf(undefined)).toBeUndefined();
  });
});
