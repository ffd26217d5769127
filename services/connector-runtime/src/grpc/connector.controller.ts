import { Controller, Inject, Module, type DynamicModule } from '@nestjs/common';
import { connector } from '@af/contracts';
import { AppError, PublicRpc } from '@af/service-kit';
import type { Bindings } from '../app/bindings.js';
import type { Connectors } from '../app/connectors.js';
import type { Templates } from '../app/templates.js';
import type { TestConnector } from '../app/test-connector.js';
import type { UserConnections } from '../app/user-connections.js';
import { bindingToWire, connectorToWire, issueToWire, templateToWire, userConnectionToWire } from './connector.mapper.js';

const DEPS = Symbol('ConnectorDeps');

export interface ConnectorControllerDeps {
  connectors: Connectors;
  bindings: Bindings;
  templates: Templates;
  tester: TestConnector;
  connections: UserConnections;
}

const user = (req: { principal?: { userId: string } | undefined }) => req.principal?.userId ?? '';

@Controller()
@connector.ConnectorServiceControllerMethods()
export class ConnectorController implements connector.ConnectorServiceController {
  constructor(@Inject(DEPS) private readonly deps: ConnectorControllerDeps) {}

  async createConnector(req: connector.CreateConnectorRequest): Promise<connector.CreateConnectorResponse> {
    const stored = await this.deps.connectors.create(user(req), { yaml: req.yaml, definition: req.definition }, req.credentials ?? {});
    return { connector: connectorToWire(stored) };
  }

  async getConnector(req: connector.GetConnectorRequest): Promise<connector.GetConnectorResponse> {
    return { connector: connectorToWire(await this.deps.connectors.get(user(req), req.id)) };
  }

  async listConnectors(req: connector.ListConnectorsRequest): Promise<connector.ListConnectorsResponse> {
    return { connectors: (await this.deps.connectors.list(user(req))).map(connectorToWire) };
  }

  async deleteConnector(req: connector.DeleteConnectorRequest): Promise<connector.DeleteConnectorResponse> {
    await this.deps.connectors.delete(user(req), req.id);
    return {};
  }

  async executeEndpoint(req: connector.ExecuteEndpointRequest): Promise<connector.ExecuteEndpointResponse> {
    return this.deps.connectors.execute({
      userId: user(req),
      connectorId: req.connectorId,
      endpoint: req.endpoint,
      inputs: req.inputs ?? {},
      idempotencyKey: req.idempotencyKey,
      ...(req.agentProfileId ? { agentProfileId: req.agentProfileId } : {}),
      ...(req.readOnly ? { readOnly: true } : {}),
    });
  }

  async validateConnector(req: connector.ValidateConnectorRequest): Promise<connector.ValidateConnectorResponse> {
    const result = await this.deps.connectors.validate(user(req), { yaml: req.yaml, definition: req.definition, connectorId: req.connectorId });
    return result.ok
      ? { valid: true, errors: [], warnings: result.warnings.map(issueToWire), definition: result.definition as unknown as Record<string, unknown> }
      : { valid: false, errors: result.errors.map(issueToWire), warnings: [], definition: undefined };
  }

  async testConnector(req: connector.TestConnectorRequest): Promise<connector.TestConnectorResponse> {
    const out = await this.deps.tester.execute({
      userId: user(req),
      connectorId: req.connectorId,
      yaml: req.yaml,
      definition: req.definition,
      credentials: req.credentials ?? {},
      endpoint: req.endpoint,
      inputs: req.inputs ?? {},
    });
    return { result: out.result, inferredOutputSchema: out.inferredOutputSchema, durationMs: out.durationMs, warnings: out.warnings };
  }

  async getConnectorSchema(req: connector.GetConnectorSchemaRequest): Promise<connector.GetConnectorSchemaResponse> {
    const { definition, endpoints } = await this.deps.connectors.schema(user(req), req.id);
    return { connectorId: definition.id, type: definition.type, endpoints };
  }

  async bindConnector(req: connector.BindConnectorRequest): Promise<connector.BindConnectorResponse> {
    const binding = await this.deps.bindings.bind({
      userId: user(req),
      agentProfileId: req.agentProfileId,
      connectorId: req.connectorId,
      configOverrides: req.configOverrides ?? {},
      allowedEndpoints: req.allowedEndpoints ?? [],
      rateLimitPerMinute: req.rateLimitPerMinute ?? 0,
      credentials: req.credentials ?? {},
      disabled: req.disabled ?? false,
      unbind: req.unbind ?? false,
    });
    return { binding: binding ? bindingToWire(binding) : undefined };
  }

  async listBindings(req: connector.ListBindingsRequest): Promise<connector.ListBindingsResponse> {
    return { bindings: (await this.deps.bindings.list(user(req), req.agentProfileId)).map(bindingToWire) };
  }

  async listTemplates(req: connector.ListTemplatesRequest): Promise<connector.ListTemplatesResponse> {
    return { templates: this.deps.templates.list(user(req), req.category).map(templateToWire) };
  }

  async createFromTemplate(req: connector.CreateFromTemplateRequest): Promise<connector.CreateFromTemplateResponse> {
    if (!req.templateId) throw AppError.invalid('template_id', 'is required');
    const stored = await this.deps.templates.createFrom(user(req), req.templateId, req.credentials ?? {}, req.connectorId, req.overwrite ?? false);
    return { connector: connectorToWire(stored) };
  }

  async beginAuthorization(req: connector.BeginAuthorizationRequest): Promise<connector.BeginAuthorizationResponse> {
    const { authUrl, expiresAt } = await this.deps.connections.begin(user(req), req.connectorId, req.redirectUri);
    return { authUrl, expiresAt: expiresAt.toISOString() };
  }

  @PublicRpc('the signed, single-use OAuth state names the user; the provider redirects the browser here without a principal')
  async completeAuthorization(req: connector.CompleteAuthorizationRequest): Promise<connector.CompleteAuthorizationResponse> {
    const connection = await this.deps.connections.complete({ state: req.state, code: req.code, ...(req.error ? { error: req.error } : {}) });
    return { connection: userConnectionToWire(connection) };
  }

  async listConnections(req: connector.ListConnectionsRequest): Promise<connector.ListConnectionsResponse> {
    return { connections: (await this.deps.connections.list(user(req))).map(userConnectionToWire) };
  }

  async deleteConnection(req: connector.DeleteConnectionRequest): Promise<connector.DeleteConnectionResponse> {
    await this.deps.connections.delete(user(req), req.connectionId);
    return {};
  }
}

@Module({})
export class ConnectorModule {
  static forRoot(deps: ConnectorControllerDeps): DynamicModule {
    return { module: ConnectorModule, controllers: [ConnectorController], providers: [{ provide: DEPS, useValue: deps }] };
  }
}
