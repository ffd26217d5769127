/**
 * Connector runtime domain: connector definitions (seed §4), the `rest_api`
 * executor and its typed errors. No NestJS, TypeORM or wire types here.
 */
export {
  CONNECTOR_TYPES,
  GENERIC_CONNECTOR_TYPES,
  HTTP_METHODS,
  baseUrlProblem,
  type ConnectorAuth,
  type ConnectorDefinition,
  type ConnectorType,
  type EndpointParameter,
  type GenericConnectorDefinition,
  type GenericEndpoint,
  type HttpMethod,
  type OutputSchema,
  type Pagination,
  type ResponseMapping,
  type RestApiConnectorDefinition,
  type RestConnection,
  type RestEndpoint,
} from './connector-definition.schema.js';
export {
  MAX_CONNECTOR_YAML_BYTES,
  parseConnectorDefinition,
  parseConnectorYaml,
  type ConnectorDefinitionIssue,
  type ParseConnectorResult,
} from './connector-definition.js';
export {
  CONNECTOR_ERROR_CODES,
  CONNECTOR_ERROR_GRPC_STATUS,
  ConnectorError,
  type ConnectorErrorCode,
  type ConnectorErrorGrpcStatus,
  type ConnectorErrorOptions,
  type ConnectorFieldViolation,
} from './connector-error.js';
export { formatFieldPath, getByDotPath, parseDotPath, type PathSegment } from './dot-path.js';
export { codeForStatus, parseRetryAfter } from './http-failure.js';
export { PARAMETER_TYPES, coerceParameterValue, type ParameterType } from './parameter-values.js';
export { REDACTED, redactSecrets } from './redaction.js';
export { MIN_RESULT_SECRET_LENGTH, redactResult, resultSecrets } from './result-redaction.js';
export { applyResponseMapping, type EndpointResult } from './response-mapping.js';
export {
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_SECONDS,
  executeRestEndpoint,
  type RestExecutorDeps,
} from './types/rest-api/rest-api-executor.js';
export {
  buildRestRequest,
  credentialSecrets,
  findRestEndpoint,
  requiredCredentialNames,
  type ConnectorCredentials,
  type RestRequest,
} from './types/rest-api/rest-request.js';
export {
  type ConnectorTypeModule,
  type ExecutionContext,
  type HttpRequestFn,
  type HttpTextFn,
  type HttpTextLimits,
  type HttpTextResponse,
  type OAuthTokenCache,
  type PageProgress,
  type PluginInvoker,
  type StoredOAuthToken,
} from './connector-type.js';
export { connectorTimeoutMs, executeEndpoint, requiredCredentials } from './execute-endpoint.js';
export { CONNECTOR_TYPE_MODULES, connectorTypeModule } from './types/index.js';
export { endpointJsonSchemas, inputSchemaOf, typeSchema, type EndpointJsonSchemas } from './endpoint-json-schema.js';
export { inferOutputSchema, type InferredField, type InferredOutputSchema } from './infer-output-schema.js';
export * from './token-bucket.js';
export * from './circuit-breaker.js';
export * from './egress-policy.js';
export {
  classifyFailure,
  decideRetry,
  DEFAULT_RETRY_POLICY,
  failureOutcome,
  jitteredDelay,
  type FailureOutcome,
  type RetryDecision,
  type RetryKind,
  type RetryPolicyOptions,
} from './retry-policy.js';
export { endpointWriteReason, graphqlOperationKinds } from './endpoint-writes.js';
export * from './call-deadline.js';
export * from './oauth.js';
export * from './oauth-token-cache.js';
export * from './plugin-contract.js';
export * from './plugin-liveness.js';
export * from './types/database/database-role-policy.js';
export * from './types/database/database-sql-runner.js';
export { type PluginCallOptions } from './types/existing-tool/existing-tool.js';
