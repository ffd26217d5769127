/**
 * Builds the HTTP request for one `rest_api` endpoint call from the
 * definition, the caller's inputs and the decrypted credentials. Pure: no I/O,
 * so every rule (defaults, required, coercion, encoding, auth placement) is
 * unit-testable without a server.
 */
import type {
  ConnectorAuth,
  RestApiConnectorDefinition,
  RestEndpoint,
} from './connector-definition.schema.js';
import { pathPlaceholders } from './connector-definition.rules.js';
import { ConnectorError, type ConnectorFieldViolation } from './connector-error.js';
import { coerceParameterValue, toQueryValues } from './parameter-values.js';

/** Decrypted credentials by name, e.g. `{ api_key: '…' }` or `{ token: '…' }`. */
export type ConnectorCredentials = Readonly<Record<string, string>>;

export interface RestRequest {
  method: string;
  /** Full URL including query string (and possibly an api key): never log it. */
  url: string;
  /** Origin and path only, safe for messages and logs. */
  displayUrl: string;
  headers: Record<string, string>;
  /** Credential values (raw and URL-encoded) to scrub from anything we report. */
  secrets: string[];
  endpoint: RestEndpoint;
}

/** The credential name each auth scheme reads. */
export function requiredCredentialNames(auth: ConnectorAuth): string[] {
  if (auth.type === 'api_key') return ['api_key'];
  if (auth.type === 'bearer_token') return ['token'];
  return [];
}

/** Looks up an endpoint by name; NOT_FOUND lists the names that exist. */
export function findRestEndpoint(def: RestApiConnectorDefinition, endpointName: string): RestEndpoint {
  if (!Object.hasOwn(def.endpoints, endpointName)) {
    throw new ConnectorError(
      'NOT_FOUND',
      `connector "${def.id}" has no endpoint "${endpointName}"; it has ${Object.keys(def.endpoints).join(', ')}`,
    );
  }
  return def.endpoints[endpointName] as RestEndpoint;
}

/**
 * The request for `endpointName` with `inputs`. Throws ConnectorError:
 * NOT_FOUND (endpoint), UNIMPLEMENTED (non-GET), INVALID_ARGUMENT (inputs,
 * every violation listed), FAILED_PRECONDITION (missing/unsafe credential).
 */
export function buildRestRequest(
  def: RestApiConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>> | undefined,
  credentials: ConnectorCredentials,
): RestRequest {
  const endpoint = findRestEndpoint(def, endpointName);
  if (endpoint.method !== 'GET') {
    throw new ConnectorError(
      'UNIMPLEMENTED',
      `endpoint "${endpointName}" uses ${endpoint.method}; only GET can be executed yet`,
    );
  }
  const values = resolveInputs(endpoint, endpointName, inputs ?? {});

  const placeholders = pathPlaceholders(endpoint.path);
  const pathNames = new Set('names' in placeholders ? placeholders.names : []);
  const path = endpoint.path.replace(/\{([^{}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(values.get(name))),
  );

  const query: Array<[string, string]> = [];
  for (const param of endpoint.parameters) {
    if (pathNames.has(param.name) || !values.has(param.name)) continue;
    for (const v of toQueryValues(values.get(param.name))) query.push([param.name, v]);
  }

  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries(def.connection.headers ?? {}))
    headers[name.toLowerCase()] = value;
  applyAuth(def, credentials, query, headers);

  const base = def.connection.base_url.replace(/\/+$/, '');
  const queryString = query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  const displayUrl = `${base}${path}`;
  return {
    method: endpoint.method,
    url: queryString ? `${displayUrl}?${queryString}` : displayUrl,
    displayUrl,
    headers,
    secrets: credentialSecrets(credentials),
    endpoint,
  };
}

/** Declared parameters → normalised values, with defaults applied and every violation collected. */
function resolveInputs(
  endpoint: RestEndpoint,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>>,
): Map<string, unknown> {
  const violations: ConnectorFieldViolation[] = [];
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw ConnectorError.invalid('inputs', 'must be an object of parameter values');
  }
  const declared = new Set(endpoint.parameters.map((p) => p.name));
  for (const key of Object.keys(inputs)) {
    if (!declared.has(key)) {
      const known = [...declared].join(', ') || 'none';
      violations.push({
        field: `inputs.${key}`,
        reason: `is not a parameter of endpoint "${endpointName}" (declared: ${known})`,
      });
    }
  }
  const placeholders = pathPlaceholders(endpoint.path);
  const pathNames = new Set('names' in placeholders ? placeholders.names : []);

  const values = new Map<string, unknown>();
  for (const param of endpoint.parameters) {
    const given = Object.hasOwn(inputs, param.name) ? inputs[param.name] : undefined;
    const raw = given === undefined || given === null ? param.default : given;
    if (raw === undefined || raw === null) {
      if (param.required || pathNames.has(param.name)) {
        violations.push({
          field: `inputs.${param.name}`,
          reason: `is required by endpoint "${endpointName}"`,
        });
      }
      continue;
    }
    const coerced = coerceParameterValue(param.type, raw);
    if (coerced.ok) values.set(param.name, coerced.value);
    else violations.push({ field: `inputs.${param.name}`, reason: coerced.reason });
  }
  if (violations.length > 0) {
    const summary = violations.map((v) => `${v.field} ${v.reason}`).join('; ');
    throw new ConnectorError(
      'INVALID_ARGUMENT',
      `invalid inputs for endpoint "${endpointName}": ${summary}`,
      { violations },
    );
  }
  return values;
}

function applyAuth(
  def: RestApiConnectorDefinition,
  credentials: ConnectorCredentials,
  query: Array<[string, string]>,
  headers: Record<string, string>,
): void {
  const auth = def.connection.auth;
  if (auth.type === 'none') return;
  const name = auth.type === 'api_key' ? 'api_key' : 'token';
  const secret = Object.hasOwn(credentials, name) ? credentials[name] : undefined;
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `connector "${def.id}" needs the credential "${name}" for ${auth.type} auth, and none is stored`,
    );
  }
  // A CR/LF would split headers, and some HTTP stacks echo a bad header value in their error text.
  if (/[\u0000-\u001f\u007f]/.test(secret)) {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `credential "${name}" of connector "${def.id}" contains control characters`,
    );
  }
  if (auth.type === 'bearer_token') {
    headers.authorization = `Bearer ${secret}`;
  } else if (auth.in === 'header') {
    headers[(auth.header_name ?? auth.key_param ?? 'x-api-key').toLowerCase()] = secret;
  } else {
    query.push([auth.key_param as string, secret]);
  }
}

/** Every credential value, raw and URL-encoded, for `redactSecrets`. */
export function credentialSecrets(credentials: ConnectorCredentials): string[] {
  const out = new Set<string>();
  for (const value of Object.values(credentials)) {
    if (typeof value !== 'string' || value.length === 0) continue;
    out.add(value);
    out.add(encodeURIComponent(value));
  }
  return [...out];
}
