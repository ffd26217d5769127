/**
 * Cross-field rules for connector definitions that a shape schema cannot
 * express. Each rule reports the field path of the offending value.
 */
import type {
  ConnectorDefinition,
  EndpointParameter,
  GenericConnectorDefinition,
  RestApiConnectorDefinition,
  RestEndpoint,
} from './connector-definition.schema.js';
import { coerceParameterValue, SCALAR_PARAMETER_TYPES } from './parameter-values.js';

export interface DefinitionIssue {
  field: string;
  reason: string;
}

/** Header names that carry credentials and so must never sit in a (plain-text) definition. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);
/** Headers the HTTP client manages; a static value would break framing or routing. */
const CLIENT_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

/** Errors (refuse the definition) and warnings (accept it, but tell the author). */
export function checkDefinitionRules(def: ConnectorDefinition): {
  errors: DefinitionIssue[];
  warnings: DefinitionIssue[];
} {
  const errors: DefinitionIssue[] = [];
  const warnings: DefinitionIssue[] = [];
  if (def.type === 'rest_api') checkRestApi(def, errors, warnings);
  else checkGeneric(def, errors, warnings);
  return { errors, warnings };
}

function checkRestApi(
  def: RestApiConnectorDefinition,
  errors: DefinitionIssue[],
  warnings: DefinitionIssue[],
): void {
  const auth = def.connection.auth;
  if (auth.type === 'api_key') {
    if (auth.in === 'query' && !auth.key_param) {
      errors.push({
        field: 'connection.auth.key_param',
        reason: 'is required when the api key is sent in the query',
      });
    }
    if (auth.in === 'header' && !auth.header_name && !auth.key_param) {
      errors.push({
        field: 'connection.auth.header_name',
        reason: 'is required when the api key is sent in a header',
      });
    }
  }
  if (auth.type !== 'none' && auth.env_var !== undefined) {
    warnings.push({
      field: 'connection.auth.env_var',
      reason:
        'is ignored: credentials are stored encrypted with the connector, not read from the environment',
    });
  }
  for (const [name, value] of Object.entries(def.connection.headers ?? {})) {
    const field = `connection.headers.${name}`;
    if (CREDENTIAL_HEADERS.has(name.toLowerCase())) {
      errors.push({
        field,
        reason:
          'must not carry credentials in the definition (it is stored in plain text); use connection.auth',
      });
    } else if (CLIENT_HEADERS.has(name.toLowerCase())) {
      errors.push({ field, reason: 'is set by the HTTP client and cannot be configured' });
    } else if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
      errors.push({ field, reason: 'must not contain control characters' });
    }
  }
  const queryKey = auth.type === 'api_key' && auth.in === 'query' ? auth.key_param : undefined;

  for (const [name, endpoint] of Object.entries(def.endpoints)) {
    const at = `endpoints.${name}`;
    checkParameters(endpoint.parameters, `${at}.parameters`, errors);
    checkPath(endpoint, at, errors);
    endpoint.parameters.forEach((p, i) => {
      if (queryKey !== undefined && p.name === queryKey) {
        errors.push({
          field: `${at}.parameters[${i}].name`,
          reason: `collides with connection.auth.key_param "${queryKey}"`,
        });
      }
    });
    checkMappingAgainstSchema(endpoint, at, errors);
    checkPagination(endpoint, at, errors);
    if (endpoint.method !== 'GET') {
      warnings.push({
        field: `${at}.method`,
        reason: `only GET endpoints can be executed yet; ${endpoint.method} is stored as given`,
      });
    }
  }
}

function checkGeneric(
  def: GenericConnectorDefinition,
  errors: DefinitionIssue[],
  warnings: DefinitionIssue[],
): void {
  warnings.push({ field: 'type', reason: `${def.type} connectors are stored but cannot be executed yet` });
  for (const [name, endpoint] of Object.entries(def.endpoints)) {
    if (endpoint.parameters) checkParameters(endpoint.parameters, `endpoints.${name}.parameters`, errors);
    if (endpoint.variables) checkParameters(endpoint.variables, `endpoints.${name}.variables`, errors);
  }
}

function checkParameters(params: readonly EndpointParameter[], at: string, errors: DefinitionIssue[]): void {
  const seen = new Set<string>();
  params.forEach((p, i) => {
    if (seen.has(p.name))
      errors.push({ field: `${at}[${i}].name`, reason: `duplicate parameter "${p.name}"` });
    seen.add(p.name);
    if (p.default !== undefined && p.default !== null) {
      const result = coerceParameterValue(p.type, p.default);
      if (!result.ok)
        errors.push({
          field: `${at}[${i}].default`,
          reason: `does not fit type ${p.type}: ${result.reason}`,
        });
    }
  });
}

/** `{name}` placeholders in a path, or a reason the braces are malformed. */
export function pathPlaceholders(path: string): { names: string[] } | { problem: string } {
  const names: string[] = [];
  const re = /\{([^{}]*)\}/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) {
    const name = m[1] ?? '';
    if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name))
      return { problem: `placeholder "{${name}}" is not a valid parameter name` };
    names.push(name);
  }
  if (/[{}]/.test(path.replace(re, ''))) return { problem: 'has an unbalanced "{" or "}"' };
  return { names };
}

function checkPath(endpoint: RestEndpoint, at: string, errors: DefinitionIssue[]): void {
  const placeholders = pathPlaceholders(endpoint.path);
  if ('problem' in placeholders) {
    errors.push({ field: `${at}.path`, reason: placeholders.problem });
    return;
  }
  for (const name of placeholders.names) {
    const index = endpoint.parameters.findIndex((p) => p.name === name);
    const param = endpoint.parameters[index];
    if (!param) {
      errors.push({ field: `${at}.path`, reason: `placeholder {${name}} is not a declared parameter` });
    } else if (!SCALAR_PARAMETER_TYPES.has(param.type)) {
      errors.push({
        field: `${at}.parameters[${index}].type`,
        reason: `"${name}" is used in the path, so it must be string, number, integer, date or boolean`,
      });
    }
  }
}

function checkMappingAgainstSchema(endpoint: RestEndpoint, at: string, errors: DefinitionIssue[]): void {
  const fields = endpoint.response_mapping?.fields;
  if (!fields) return;
  endpoint.response_mapping?.entity_extraction?.forEach((e, i) => {
    if (!Object.hasOwn(fields, e.field)) {
      errors.push({
        field: `${at}.response_mapping.entity_extraction[${i}].field`,
        reason: `"${e.field}" is not a field of response_mapping.fields`,
      });
    }
  });
  endpoint.output_schema?.fields?.forEach((f, i) => {
    if (!Object.hasOwn(fields, f.name)) {
      errors.push({
        field: `${at}.output_schema.fields[${i}].name`,
        reason: `"${f.name}" is not a field of response_mapping.fields`,
      });
    }
  });
}

function checkPagination(endpoint: RestEndpoint, at: string, errors: DefinitionIssue[]): void {
  const p = endpoint.pagination;
  if (!p) return;
  if (!p.next_cursor_path && !p.has_more_path) {
    errors.push({ field: `${at}.pagination`, reason: 'needs next_cursor_path or has_more_path' });
  }
  if (p.cursor_param !== undefined && !endpoint.parameters.some((q) => q.name === p.cursor_param)) {
    errors.push({
      field: `${at}.pagination.cursor_param`,
      reason: `"${p.cursor_param}" is not a declared parameter`,
    });
  }
}
