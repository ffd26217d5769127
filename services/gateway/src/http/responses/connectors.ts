/** Answers of the connector, binding and plugin routes (/api/agent-factory/connectors, /plugins). */
import { z } from 'zod';
import { component, JsonObject, timestamp } from './common.js';

export const Connector = component(
  'Connector',
  z.strictObject({
    id: z.string(),
    name: z.string(),
    type: z.string().meta({ description: 'rest_api, graphql, database, plugin, …' }),
    version: z.string(),
    description: z.string(),
    definition: JsonObject.meta({ description: 'The connector definition (credentials never included)' }),
    credential_names: z.array(z.string()).meta({ description: 'Names of the stored credentials (never their values)' }),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  {
    description: 'A connector of yours',
    examples: [{
      id: 'propublica', name: 'ProPublica Nonprofit Explorer', type: 'rest_api', version: '1.0', description: 'Nonprofit filings',
      definition: { id: 'propublica', type: 'rest_api', connection: { base_url: 'https://projects.propublica.org/nonprofits/api/v2' }, endpoints: [{ name: 'search', method: 'GET', path: '/search.json' }] },
      credential_names: [], created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
    }],
  },
);

export const ConnectorTemplate = component(
  'ConnectorTemplate',
  z.strictObject({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    description: z.string(),
    category: z.string(),
    tags: z.array(z.string()),
    auth_fields: z.array(z.string()),
    is_template: z.literal(true),
    definition: JsonObject,
  }),
  { description: 'A system connector template' },
);

export const Binding = component(
  'ConnectorBinding',
  z.strictObject({
    agent_profile_id: z.string(),
    connector_id: z.string(),
    config_overrides: JsonObject,
    allowed_endpoints: z.array(z.string()),
    rate_limit_per_minute: z.number(),
    status: z.string(),
    status_reason: z.string(),
    credential_names: z.array(z.string()),
    updated_at: timestamp,
  }),
  { description: 'A connector bound to an agent profile' },
);

export const ToolContract = component(
  'ToolContract',
  z.strictObject({
    name: z.string(),
    description: z.string(),
    input_schema: JsonObject,
    output_schema: JsonObject,
    requires: z.string(),
    side_effecting: z.boolean(),
  }),
  { description: 'A plugin tool with its input and output JSON Schemas' },
);

export const Plugin = component(
  'Plugin',
  z.strictObject({
    name: z.string(),
    version: z.string(),
    description: z.string(),
    connection_type: z.string(),
    required_config: z.array(z.string()),
    tool_pack_name: z.string(),
    status: z.string(),
    last_heartbeat_at: z.string(),
    enabled: z.boolean().meta({ description: 'Enabled for you' }),
    tools: z.array(ToolContract),
  }),
  { description: 'A registered connector plugin' },
);

export const DefinitionIssue = component(
  'DefinitionIssue',
  z.strictObject({ field: z.string(), reason: z.string(), line: z.number().int().optional(), column: z.number().int().optional() }),
  { description: 'A problem in a connector definition, with its position in the YAML when known' },
);

export const ConnectorAnswer = z.strictObject({ connector: Connector });
export const ConnectorList = z.strictObject({ connectors: z.array(Connector), templates: z.array(ConnectorTemplate).optional().meta({ description: 'With ?include=templates' }) });
export const TemplateList = z.strictObject({ templates: z.array(ConnectorTemplate) });
export const BindingAnswer = z.strictObject({ binding: Binding });
export const BindingList = z.strictObject({ bindings: z.array(Binding) });
export const ConnectorValidation = z.strictObject({
  valid: z.boolean(),
  errors: z.array(DefinitionIssue),
  warnings: z.array(DefinitionIssue),
  definition: JsonObject.optional().meta({ description: 'The normalised definition, when valid' }),
});
export const ConnectorTest = z.strictObject({
  result: JsonObject.meta({ description: 'What the endpoint answered (records, pages)' }),
  inferred_output_schema: JsonObject,
  duration_ms: z.number(),
  warnings: z.array(z.string()),
});
export const ConnectorSchema = z.strictObject({
  connector_id: z.string(),
  type: z.string(),
  endpoints: z.array(z.strictObject({ name: z.string(), description: z.string(), input_schema: JsonObject, output_schema: JsonObject })),
});

export const PluginAnswer = z.strictObject({ plugin: Plugin });
export const PluginList = z.strictObject({ plugins: z.array(Plugin) });
export const ToolList = z.strictObject({ tools: z.array(ToolContract) });
export const PluginTest = z.strictObject({ ok: z.boolean(), status: z.string(), enabled: z.boolean(), problems: z.array(z.string()) });

export const UserConnection = component(
  'UserConnection',
  z.strictObject({
    connection_id: z.string().meta({ description: 'Id for DELETE /api/agent-factory/connections/{id}' }),
    connector_id: z.string(),
    provider: z.string().meta({ description: "The token endpoint's host" }),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'expired', 'error', 'revoked']),
    expires_at: timestamp.nullable().meta({ description: "The access token's expiry as last stored (refreshed automatically while a refresh token is held)" }),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  { description: 'Your own OAuth connection to an oauth2 authorization_code connector (tokens are never returned)' },
);
export const UserConnectionList = z.strictObject({ connections: z.array(UserConnection) });
export const UserConnectionAnswer = z.strictObject({ connection: UserConnection });
export const AuthUrlAnswer = z.strictObject({
  auth_url: z.string().meta({ description: "The provider's consent page; open it in a popup or redirect the user to it" }),
  expires_at: timestamp.meta({ description: 'The state in auth_url is accepted until then, once' }),
  redirect_uri: z.string().meta({ description: 'Where the provider sends the user back; register this URL with the OAuth app' }),
});
