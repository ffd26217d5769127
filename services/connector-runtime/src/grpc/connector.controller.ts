import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { connector } from '@af/contracts';
import { AppError } from '@af/service-kit';
import type { Connectors } from '../app/connectors.js';
import type { StoredConnector } from '../infra/connector.repository.js';

const CONNECTORS = Symbol('Connectors');

/** Definition → wire; credentials are never part of it, only their names. */
function toWire(c: StoredConnector): connector.Connector {
  const d = c.definition;
  return {
    id: d.id,
    name: d.name,
    type: d.type,
    version: d.version,
    description: d.description ?? '',
    definition: d as unknown as Record<string, unknown>,
    credentialNames: c.credentialNames,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

@Controller()
@connector.ConnectorServiceControllerMethods()
export class ConnectorController implements connector.ConnectorServiceController {
  constructor(@Inject(CONNECTORS) private readonly connectors: Connectors) {}

  async createConnector(req: connector.CreateConnectorRequest): Promise<connector.CreateConnectorResponse> {
    const stored = await this.connectors.create(
      req.principal?.userId ?? '',
      { yaml: req.yaml, ...(req.definition ? { definition: req.definition } : {}) },
      req.credentials ?? {},
    );
    return { connector: toWire(stored) };
  }

  async getConnector(req: connector.GetConnectorRequest): Promise<connector.GetConnectorResponse> {
    return { connector: toWire(await this.connectors.get(req.principal?.userId ?? '', req.id)) };
  }

  async listConnectors(req: connector.ListConnectorsRequest): Promise<connector.ListConnectorsResponse> {
    return { connectors: (await this.connectors.list(req.principal?.userId ?? '')).map(toWire) };
  }

  async deleteConnector(req: connector.DeleteConnectorRequest): Promise<connector.DeleteConnectorResponse> {
    await this.connectors.delete(req.principal?.userId ?? '', req.id);
    return {};
  }

  async executeEndpoint(req: connector.ExecuteEndpointRequest): Promise<connector.ExecuteEndpointResponse> {
    return this.connectors.execute({
      userId: req.principal?.userId ?? '',
      connectorId: req.connectorId,
      endpoint: req.endpoint,
      inputs: req.inputs ?? {},
      idempotencyKey: req.idempotencyKey,
    });
  }

  // The RPCs below are being built (issue 5); until then they answer UNIMPLEMENTED.
  validateConnector(): Promise<connector.ValidateConnectorResponse> {
    return notYet('ValidateConnector');
  }

  testConnector(): Promise<connector.TestConnectorResponse> {
    return notYet('TestConnector');
  }

  getConnectorSchema(): Promise<connector.GetConnectorSchemaResponse> {
    return notYet('GetConnectorSchema');
  }

  bindConnector(): Promise<connector.BindConnectorResponse> {
    return notYet('BindConnector');
  }

  listBindings(): Promise<connector.ListBindingsResponse> {
    return notYet('ListBindings');
  }

  listTemplates(): Promise<connector.ListTemplatesResponse> {
    return notYet('ListTemplates');
  }

  createFromTemplate(): Promise<connector.CreateFromTemplateResponse> {
    return notYet('CreateFromTemplate');
  }
}

function notYet<T>(rpc: string): Promise<T> {
  return Promise.reject(new AppError('UNIMPLEMENTED', `${rpc} is not available yet`));
}

@Module({})
export class ConnectorModule {
  static forRoot(connectors: Connectors): DynamicModule {
    return { module: ConnectorModule, controllers: [ConnectorController], providers: [{ provide: CONNECTORS, useValue: connectors }] };
  }
}
