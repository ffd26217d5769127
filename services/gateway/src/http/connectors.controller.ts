/**
 * Connector and plugin routes (seed §3 "Connector Endpoints", §12 "Plugin
 * Management"), plus agent-profile bindings. Static paths are declared before
 * `:id` so `templates` is never taken for a connector id.
 */
import { randomUUID } from 'node:crypto';
import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { AppError, call } from '@af/service-kit';
import type { common } from '@af/contracts';
import { AuthGuard, CurrentUser } from './auth.guard.js';
import { GATEWAY_DEPS, type GatewayDeps } from './deps.js';
import {
  BindConnectorSchema,
  CreateConnectorSchema,
  EnablePluginSchema,
  FromTemplateSchema,
  TestConnectorSchema,
  TestInlineConnectorSchema,
  UpdateConnectorSchema,
  ValidateConnectorSchema,
} from './schemas.js';
import { parseBody } from './validation.js';
import { bindingView, connectorView, issueView, pluginView, templateView, toolContractView } from './views.js';

@Controller('api/agent-factory/connectors')
@UseGuards(AuthGuard)
export class ConnectorsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Post()
  async create(@CurrentUser() principal: common.Principal, @Body() body: unknown, @Headers('idempotency-key') key?: string) {
    const input = parseBody(CreateConnectorSchema, body);
    const { connector } = await call(
      this.deps.clients.connectors.createConnector({
        principal,
        yaml: input.yaml ?? '',
        definition: input.definition,
        credentials: input.credentials,
        idempotencyKey: key?.slice(0, 200) || randomUUID(),
      }),
    );
    return { connector: connectorView(connector!) };
  }

  /** The user's connectors; `?include=templates` adds the system templates (seed: "templates + user's"). */
  @Get()
  async list(@CurrentUser() principal: common.Principal, @Query('include') include?: string) {
    const { connectors } = await call(this.deps.clients.connectors.listConnectors({ principal }));
    const out: Record<string, unknown> = { connectors: connectors.map(connectorView) };
    if (include === 'templates') {
      const { templates } = await call(this.deps.clients.connectors.listTemplates({ principal, category: '' }));
      out.templates = templates.map(templateView);
    }
    return out;
  }

  @Get('templates')
  async templates(@CurrentUser() principal: common.Principal, @Query('category') category?: string) {
    const { templates } = await call(this.deps.clients.connectors.listTemplates({ principal, category: category ?? '' }));
    return { templates: templates.map(templateView) };
  }

  @Post('from-template/:templateId')
  async fromTemplate(@CurrentUser() principal: common.Principal, @Param('templateId') templateId: string, @Body() body: unknown) {
    const input = parseBody(FromTemplateSchema, body);
    const { connector } = await call(
      this.deps.clients.connectors.createFromTemplate({ principal, templateId, credentials: input.credentials, connectorId: input.connector_id ?? '', overwrite: input.overwrite ?? false }),
    );
    return { connector: connectorView(connector!) };
  }

  /** Validate YAML or a definition that is not saved. */
  @Post('validate')
  @HttpCode(200)
  async validateUnsaved(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const input = parseBody(ValidateConnectorSchema, body);
    if (!input.yaml && !input.definition) throw AppError.invalid('yaml', 'give yaml or definition');
    return this.validate(principal, { yaml: input.yaml ?? '', definition: input.definition, connectorId: '' });
  }

  /** Call an endpoint of a connector that is not saved (authoring). */
  @Post('test')
  @HttpCode(200)
  async testUnsaved(@CurrentUser() principal: common.Principal, @Body() body: unknown) {
    const input = parseBody(TestInlineConnectorSchema, body);
    return this.test(principal, { connectorId: '', yaml: input.yaml ?? '', definition: input.definition, credentials: input.credentials, endpoint: input.endpoint, inputs: input.inputs });
  }

  @Get('bindings')
  async bindings(@CurrentUser() principal: common.Principal, @Query('agent_profile_id') profile?: string) {
    const { bindings } = await call(this.deps.clients.connectors.listBindings({ principal, agentProfileId: profile ?? '' }));
    return { bindings: bindings.map(bindingView) };
  }

  @Get(':id')
  async get(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const { connector } = await call(this.deps.clients.connectors.getConnector({ principal, id }));
    return { connector: connectorView(connector!) };
  }

  /** Replace a connector's definition; the path id wins over the body's. */
  @Put(':id')
  async update(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const input = parseBody(UpdateConnectorSchema, body);
    await call(this.deps.clients.connectors.getConnector({ principal, id }));
    const validated = await call(this.deps.clients.connectors.validateConnector({ principal, yaml: input.yaml ?? '', definition: input.definition, connectorId: '' }));
    if (!validated.valid) throw invalid(validated.errors.map(issueView));
    const definition = { ...(validated.definition ?? {}), id };
    const { connector } = await call(
      this.deps.clients.connectors.createConnector({ principal, yaml: '', definition, credentials: input.credentials, idempotencyKey: randomUUID() }),
    );
    return { connector: connectorView(connector!) };
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    await call(this.deps.clients.connectors.deleteConnector({ principal, id }));
  }

  @Post(':id/validate')
  @HttpCode(200)
  async validateSaved(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const input = parseBody(ValidateConnectorSchema, body);
    return this.validate(principal, { yaml: input.yaml ?? '', definition: input.definition, connectorId: input.yaml || input.definition ? '' : id });
  }

  @Post(':id/test')
  @HttpCode(200)
  async testSaved(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Body() body: unknown) {
    const input = parseBody(TestConnectorSchema, body);
    return this.test(principal, { connectorId: id, yaml: '', definition: undefined, credentials: input.credentials, endpoint: input.endpoint, inputs: input.inputs });
  }

  @Get(':id/schema')
  async schema(@CurrentUser() principal: common.Principal, @Param('id') id: string) {
    const res = await call(this.deps.clients.connectors.getConnectorSchema({ principal, id }));
    return {
      connector_id: res.connectorId,
      type: res.type,
      endpoints: res.endpoints.map((e) => ({ name: e.name, description: e.description, input_schema: e.inputSchema ?? {}, output_schema: e.outputSchema ?? {} })),
    };
  }

  @Put(':id/bindings/:profileId')
  async bind(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Param('profileId') profileId: string, @Body() body: unknown) {
    const input = parseBody(BindConnectorSchema, body);
    // The profile must be real and one the caller owns or may use (404 otherwise), asked of the planner that owns profiles.
    await call(this.deps.clients.profiles.authorizeProfile({ principal, profileId, action: 'bind' }));
    const { binding } = await call(
      this.deps.clients.connectors.bindConnector({
        principal,
        agentProfileId: profileId,
        connectorId: id,
        configOverrides: input.config_overrides,
        allowedEndpoints: input.allowed_endpoints,
        rateLimitPerMinute: input.rate_limit_per_minute,
        credentials: input.credentials,
        disabled: input.disabled,
        unbind: false,
      }),
    );
    return { binding: bindingView(binding!) };
  }

  @Delete(':id/bindings/:profileId')
  @HttpCode(204)
  async unbind(@CurrentUser() principal: common.Principal, @Param('id') id: string, @Param('profileId') profileId: string) {
    await call(
      this.deps.clients.connectors.bindConnector({
        principal, agentProfileId: profileId, connectorId: id, configOverrides: {}, allowedEndpoints: [], rateLimitPerMinute: 0, credentials: {}, disabled: false, unbind: true,
      }),
    );
  }

  private async validate(principal: common.Principal, req: { yaml: string; definition: Record<string, unknown> | undefined; connectorId: string }) {
    const res = await call(this.deps.clients.connectors.validateConnector({ principal, ...req }));
    return { valid: res.valid, errors: res.errors.map(issueView), warnings: res.warnings.map(issueView), ...(res.valid ? { definition: res.definition ?? {} } : {}) };
  }

  private async test(
    principal: common.Principal,
    req: { connectorId: string; yaml: string; definition: Record<string, unknown> | undefined; credentials: Record<string, string>; endpoint: string; inputs: Record<string, unknown> },
  ) {
    const res = await call(this.deps.clients.connectors.testConnector({ principal, ...req }));
    return { result: res.result ?? {}, inferred_output_schema: res.inferredOutputSchema ?? {}, duration_ms: res.durationMs, warnings: res.warnings };
  }
}

@Controller('api/agent-factory/plugins')
@UseGuards(AuthGuard)
export class PluginsController {
  constructor(@Inject(GATEWAY_DEPS) private readonly deps: GatewayDeps) {}

  @Get()
  async list(@CurrentUser() principal: common.Principal) {
    const { plugins } = await call(this.deps.clients.plugins.listPlugins({ principal }));
    return { plugins: plugins.map(pluginView) };
  }

  @Get(':name')
  async get(@CurrentUser() principal: common.Principal, @Param('name') name: string) {
    const { plugin } = await call(this.deps.clients.plugins.getPlugin({ principal, name }));
    return { plugin: pluginView(plugin!) };
  }

  @Get(':name/tools')
  async tools(@CurrentUser() principal: common.Principal, @Param('name') name: string) {
    const { plugin } = await call(this.deps.clients.plugins.getPlugin({ principal, name }));
    return { tools: plugin!.tools.map(toolContractView) };
  }

  @Post(':name/enable')
  @HttpCode(200)
  async enable(@CurrentUser() principal: common.Principal, @Param('name') name: string, @Body() body: unknown) {
    const input = parseBody(EnablePluginSchema, body);
    const { plugin } = await call(this.deps.clients.plugins.setPluginEnabled({ principal, name, enabled: true, config: input.config }));
    return { plugin: pluginView(plugin!) };
  }

  @Delete(':name/enable')
  @HttpCode(200)
  async disable(@CurrentUser() principal: common.Principal, @Param('name') name: string) {
    const { plugin } = await call(this.deps.clients.plugins.setPluginEnabled({ principal, name, enabled: false, config: {} }));
    return { plugin: pluginView(plugin!) };
  }

  /**
   * Test the plugin connection: the plugin is registered, alive and enabled
   * for this user (seed `POST /plugins/:name/test`). Tools are not invoked,
   * since a test must not have side effects.
   */
  @Post(':name/test')
  @HttpCode(200)
  async test(@CurrentUser() principal: common.Principal, @Param('name') name: string) {
    const { plugin } = await call(this.deps.clients.plugins.getPlugin({ principal, name }));
    const p = plugin!;
    const problems = [
      ...(p.status !== 'active' ? [`plugin is ${p.status}`] : []),
      ...(!p.enabledForUser ? ['plugin is not enabled for you; POST /plugins/:name/enable with its config'] : []),
    ];
    return { ok: problems.length === 0, status: p.status, enabled: p.enabledForUser, problems };
  }
}

function invalid(errors: Array<{ field: string; reason: string }>): AppError {
  return new AppError('INVALID_ARGUMENT', `invalid connector: ${errors.map((e) => `${e.field}: ${e.reason}`).join('; ')}`, {
    violations: errors.map((e) => ({ field: e.field, reason: e.reason })),
  });
}
