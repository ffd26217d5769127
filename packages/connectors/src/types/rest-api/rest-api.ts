/** `rest_api` connectors (seed §4, "Dynamic Tool Binding" `_create_rest_api_tool`). */
import { checkDefinitionRules } from '../../connector-definition.rules.js';
import { restApiConnectorSchema, type RestApiConnectorDefinition } from '../../connector-definition.schema.js';
import type { ConnectorTypeModule } from '../../connector-type.js';
import { DEFAULT_TIMEOUT_SECONDS, executeRestEndpoint } from './rest-api-executor.js';
import { requiredCredentialNames } from './rest-request.js';

export const restApiType: ConnectorTypeModule = {
  type: 'rest_api',
  schema: restApiConnectorSchema,
  checkRules: checkDefinitionRules,
  requiredCredentials: (def) => requiredCredentialNames((def as RestApiConnectorDefinition).connection.auth),
  timeoutMs: (def) =>
    ((def as RestApiConnectorDefinition).connection.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
  execute: (def, endpoint, inputs, credentials, ctx) =>
    executeRestEndpoint(def, endpoint, inputs, credentials, {
      fetch: ctx.http,
      ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.oauth ? { oauth: ctx.oauth } : {}),
      ...(ctx.ownerUserId !== undefined ? { ownerUserId: ctx.ownerUserId } : {}),
      ...(ctx.onPage ? { onPage: ctx.onPage } : {}),
    }),
};
