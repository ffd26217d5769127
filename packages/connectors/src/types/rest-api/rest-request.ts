/**
 * Builds the HTTP request for one `rest_api` endpoint call from the
 * definition, the caller's inputs and the decrypted credentials. Pure: no I/O,
 * so every rule (defaults, required, coercion, parameter placement, body
 * encoding, auth placement) is unit-testable without a server.
 *
 * Two steps, so a paginated call validates its inputs once and then renders
 * one request per page: `planRestRequest` resolves and places the inputs;
 * `renderRestRequest` adds the page's paging parameters and the auth and
 * produces the URL, headers and body. `buildRestRequest` does both.
 */
import type {
  ConnectorAuth,
  HttpMethod,
  ParameterLocation,
  RestApiConnectorDefinition,
  RestEndpoint,
  RestParameter,
} from '../../connector-definition.schema.js';
import { authHeaderName, methodHasBody, restParameterLocation } from '../../connector-definition.rules.js';
import { ConnectorError, type ConnectorFieldViolation } from '../../connector-error.js';
import { coerceParameterValue, toHeaderValue, toQueryValues } from '../../parameter-values.js';

/** Decrypted credentials by name, e.g. `{ api_key: '…' }` or `{ token: '…' }`. */
export type ConnectorCredentials = Readonly<Record<string, string>>;

/** One page's request. Its headers and secrets may be the plan's own objects: read them, never change them. */
export interface RestRequest {
  method: string;
  /** Full URL including query string (and possibly an api key): never log it. */
  url: string;
  /** Origin and path only, safe for messages and logs. */
  displayUrl: string;
  headers: Record<string, string>;
  /** The encoded request body (JSON or form), when the request has one. */
  body?: string;
  /** Credential values (raw and encoded forms) to scrub from anything we report. */
  secrets: string[];
  endpoint: RestEndpoint;
}

/** A validated call, before paging parameters and auth are added. */
export interface RestRequestPlan {
  def: RestApiConnectorDefinition;
  endpointName: string;
  endpoint: RestEndpoint;
  method: HttpMethod;
  /** `base_url` (no trailing slash) + the path with its placeholders filled and encoded. */
  displayUrl: string;
  /** Declared query parameters in declaration order (arrays repeat the key). */
  query: Array<[string, string]>;
  /** `accept`, the static connection headers and the header parameters, lower-cased. */
  headers: Record<string, string>;
  /** Body parameters by name, when the request carries a body. */
  body?: { format: 'json' | 'form'; fields: Record<string, unknown> };
  /** Every credential value and encoding of one, for `redactSecrets`. */
  secrets: string[];
}

/** What one page adds to (or, for `url`, replaces in) the planned request. */
export interface PageOverrides {
  /** Extra query parameters (page, offset, cursor, page size). */
  query?: Array<[string, string]>;
  /** Extra body fields (paging parameters with `inject_into: body`). */
  body?: Record<string, unknown>;
  /** An absolute URL to fetch instead (a `Link: rel="next"` target, already checked to be on the connector's origin). */
  url?: string;
}

export interface RenderOptions {
  overrides?: PageOverrides;
  /** The OAuth2 access token (required for `oauth2` auth). */
  accessToken?: string;
}

/** The Authorization scheme of `bearer_token` auth unless `scheme` names another (e.g. `Token`). */
export const DEFAULT_BEARER_SCHEME = 'Bearer';

/** The credential names each auth scheme reads (all required). */
export function requiredCredentialNames(auth: ConnectorAuth): string[] {
  switch (auth.type) {
    case 'api_key':
      return ['api_key'];
    case 'bearer_token':
      return ['token'];
    case 'basic':
      return ['username', 'password'];
    case 'oauth2':
      // authorization_code: the app's client; each user's tokens come from their connection.
      return auth.grant_type === 'refresh_token'
        ? ['client_id', 'client_secret', 'refresh_token']
        : ['client_id', 'client_secret'];
    case 'none':
      return [];
  }
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
 * The request for `endpointName` with `inputs` (one page; no paging
 * parameters). Throws ConnectorError: NOT_FOUND (endpoint), INVALID_ARGUMENT
 * (inputs, every violation listed), FAILED_PRECONDITION (missing or unusable
 * credential, or an `oauth2` connector without `options.accessToken`).
 */
export function buildRestRequest(
  def: RestApiConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>> | undefined,
  credentials: ConnectorCredentials,
  options: RenderOptions = {},
): RestRequest {
  return renderRestRequest(planRestRequest(def, endpointName, inputs, credentials), credentials, options);
}

/**
 * What does not change from call to call of one endpoint, worked out once per
 * definition object (definitions from `parseConnectorDefinition` are not
 * changed afterwards): where each parameter goes, the path split around its
 * placeholders, the static headers, whether the request has a body.
 */
interface CompiledEndpoint {
  endpoint: RestEndpoint;
  params: ReadonlyArray<{ param: RestParameter; where: ParameterLocation }>;
  declared: ReadonlySet<string>;
  /** `a, b, c` (or `none`), for the unknown-input message. */
  declaredList: string;
  /** Literal text at even indexes, placeholder names at odd ones. */
  pathParts: readonly string[];
  /** `accept` and the static connection headers, lower-cased. */
  headers: Readonly<Record<string, string>>;
  /** `base_url` without trailing slashes. */
  base: string;
  body: { format: 'json' | 'form' } | undefined;
}

const COMPILED_ENDPOINTS = new WeakMap<RestApiConnectorDefinition, Map<string, CompiledEndpoint>>();

function compiledEndpoint(def: RestApiConnectorDefinition, endpointName: string): CompiledEndpoint {
  const endpoint = findRestEndpoint(def, endpointName);
  let byName = COMPILED_ENDPOINTS.get(def);
  if (!byName) {
    byName = new Map();
    COMPILED_ENDPOINTS.set(def, byName);
  }
  let compiled = byName.get(endpointName);
  if (compiled && compiled.endpoint === endpoint) return compiled;
  const params = endpoint.parameters.map((param) => ({
    param,
    where: restParameterLocation(param, endpoint),
  }));
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, value] of Object.entries(def.connection.headers ?? {}))
    headers[name.toLowerCase()] = value;
  const hasBodyParams = params.some((p) => p.where === 'body');
  const injectsBody = endpoint.pagination?.type !== undefined && endpoint.pagination.inject_into === 'body';
  const declared = new Set(endpoint.parameters.map((p) => p.name));
  compiled = {
    endpoint,
    params,
    declared,
    declaredList: [...declared].join(', ') || 'none',
    pathParts: endpoint.path.split(/\{([^{}]+)\}/),
    headers,
    base: def.connection.base_url.replace(/\/+$/, ''),
    body:
      (hasBodyParams || injectsBody) && methodHasBody(endpoint.method)
        ? { format: endpoint.body_format ?? 'json' }
        : undefined,
  };
  byName.set(endpointName, compiled);
  return compiled;
}

/** Validates the inputs and credentials and places every parameter (see `restParameterLocation`). */
export function planRestRequest(
  def: RestApiConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>> | undefined,
  credentials: ConnectorCredentials,
): RestRequestPlan {
  const compiled = compiledEndpoint(def, endpointName);
  const { endpoint } = compiled;
  const values = resolveInputs(compiled, endpointName, inputs ?? {});
  checkCredentials(def, credentials);

  let path = '';
  const parts = compiled.pathParts;
  for (let i = 0; i < parts.length; i++) {
    path += i % 2 === 0 ? parts[i] : encodeURIComponent(String(values.get(parts[i] as string)));
  }
  // A copy that gets keys added: Object.assign, as V8 adds keys to a spread copy slowly.
  const headers: Record<string, string> = Object.assign({}, compiled.headers);

  // This runs on every call: nothing is allocated that the request does not need.
  const query: Array<[string, string]> = [];
  const bodyFields: Record<string, unknown> | undefined = compiled.body ? {} : undefined;
  let violations: ConnectorFieldViolation[] | undefined;
  for (const { param, where } of compiled.params) {
    if (where === 'path' || !values.has(param.name)) continue;
    const value = values.get(param.name);
    if (where === 'query') {
      if (typeof value === 'string') query.push([param.name, value]);
      else for (const v of toQueryValues(value)) query.push([param.name, v]);
    } else if (where === 'body') {
      if (bodyFields) bodyFields[param.name] = value;
    } else {
      const header = toHeaderValue(value);
      if (header === undefined) {
        (violations ??= []).push({
          field: `inputs.${param.name}`,
          reason: 'must be single-line Latin-1 text (it is sent in a header)',
        });
      } else {
        headers[param.name.toLowerCase()] = header;
      }
    }
  }
  if (violations) throw invalidInputs(endpointName, violations);

  const plan: RestRequestPlan = {
    def,
    endpointName,
    endpoint,
    method: endpoint.method,
    displayUrl: `${compiled.base}${path}`,
    query,
    headers,
    secrets: credentialSecrets(credentials),
  };
  if (compiled.body && bodyFields) plan.body = { format: compiled.body.format, fields: bodyFields };
  return plan;
}

/** The concrete request for one page: paging parameters, auth, URL and encoded body. */
export function renderRestRequest(
  plan: RestRequestPlan,
  credentials: ConnectorCredentials,
  options: RenderOptions = {},
): RestRequest {
  const overrides = options.overrides ?? NO_OVERRIDES;
  // Runs for every page of every call: the plan's headers, query and secrets are used as they
  // are (they are never changed) unless this page or its auth adds to them.
  const auth = plan.def.connection.auth;
  const addsHeaders = plan.body !== undefined || (auth.type === 'api_key' ? auth.in === 'header' : auth.type !== 'none');
  const headers: Record<string, string> = addsHeaders ? Object.assign({}, plan.headers) : plan.headers;
  let secrets = plan.secrets;
  let displayUrl = plan.displayUrl;
  let query: ReadonlyArray<[string, string]>;
  let base = plan.displayUrl;
  if (overrides.url !== undefined) {
    const next = new URL(overrides.url);
    next.hash = '';
    base = `${next.origin}${next.pathname}`;
    displayUrl = base;
    query = [...next.searchParams];
  } else {
    query = overrides.query?.length ? [...plan.query, ...overrides.query] : plan.query;
  }

  switch (auth.type) {
    case 'api_key': {
      const key = credentials.api_key as string;
      if (auth.in === 'header') headers[authHeaderName(auth) as string] = key;
      else {
        // A next-page URL from the server may echo the key; ours replaces it.
        query = [...query.filter(([k]) => k !== auth.key_param), [auth.key_param as string, key]];
      }
      break;
    }
    case 'bearer_token':
      headers.authorization = `${auth.scheme ?? DEFAULT_BEARER_SCHEME} ${credentials.token as string}`;
      break;
    case 'basic': {
      const encoded = basicCredentials(credentials.username as string, credentials.password as string);
      headers.authorization = `Basic ${encoded}`;
      secrets = [...secrets, encoded];
      break;
    }
    case 'oauth2': {
      const token = options.accessToken;
      if (token === undefined || token === '') {
        throw new ConnectorError(
          'FAILED_PRECONDITION',
          `connector "${plan.def.id}" uses oauth2 auth and no access token was obtained`,
        );
      }
      if (/[\u0000-\u001f\u007f]/.test(token)) {
        throw new ConnectorError(
          'UPSTREAM_ERROR',
          `the token endpoint of connector "${plan.def.id}" issued an access token with control characters`,
        );
      }
      headers.authorization = `Bearer ${token}`;
      secrets = [...secrets, token, encodeURIComponent(token)];
      break;
    }
    case 'none':
      break;
  }

  let body: string | undefined;
  if (plan.body) {
    const fields = { ...plan.body.fields, ...(overrides.body ?? {}) };
    if (plan.body.format === 'form') {
      const form: string[] = [];
      for (const [k, v] of Object.entries(fields))
        for (const item of toQueryValues(v)) form.push(`${formEncode(k)}=${formEncode(item)}`);
      body = form.join('&');
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else {
      body = JSON.stringify(fields);
      headers['content-type'] = 'application/json';
    }
  }

  let queryString = '';
  for (let i = 0; i < query.length; i++) {
    const [k, v] = query[i] as [string, string];
    queryString += `${i === 0 ? '' : '&'}${encodeURIComponent(k)}=${encodeURIComponent(v)}`;
  }
  const req: RestRequest = {
    method: plan.method,
    url: queryString ? `${base}?${queryString}` : base,
    displayUrl,
    headers,
    secrets,
    endpoint: plan.endpoint,
  };
  if (body !== undefined) req.body = body;
  return req;
}

const NO_OVERRIDES: PageOverrides = Object.freeze({});

/** RFC 7617 `user-pass` in base64. The user id must not contain ":" (it would shift into the password). */
export function basicCredentials(username: string, password: string): string {
  return Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
}

/** application/x-www-form-urlencoded (spaces as "+"). */
export function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

/**
 * Every credential the auth scheme reads must be stored, non-empty and free
 * of control characters (a CR/LF would split headers, and some HTTP stacks
 * echo a bad header value in their error text).
 */
function checkCredentials(def: RestApiConnectorDefinition, credentials: ConnectorCredentials): void {
  const auth = def.connection.auth;
  if (auth.type === 'none') return;
  for (const name of requiredCredentialNames(auth)) {
    const secret = Object.hasOwn(credentials, name) ? credentials[name] : undefined;
    if (typeof secret !== 'string' || secret.length === 0) {
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `connector "${def.id}" needs the credential "${name}" for ${auth.type} auth, and none is stored`,
      );
    }
    if (/[\u0000-\u001f\u007f]/.test(secret)) {
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `credential "${name}" of connector "${def.id}" contains control characters`,
      );
    }
  }
  if (auth.type === 'basic' && (credentials.username as string).includes(':')) {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `credential "username" of connector "${def.id}" contains ":", which basic auth cannot carry`,
    );
  }
}

/** Declared parameters → normalised values, with defaults applied and every violation collected. */
function resolveInputs(
  compiled: CompiledEndpoint,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>>,
): Map<string, unknown> {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw ConnectorError.invalid('inputs', 'must be an object of parameter values');
  }
  let violations: ConnectorFieldViolation[] | undefined;
  for (const key in inputs) {
    if (!Object.hasOwn(inputs, key) || compiled.declared.has(key)) continue;
    (violations ??= []).push({
      field: `inputs.${key}`,
      reason: `is not a parameter of endpoint "${endpointName}" (declared: ${compiled.declaredList})`,
    });
  }

  const values = new Map<string, unknown>();
  for (const { param, where } of compiled.params) {
    const given = Object.hasOwn(inputs, param.name) ? inputs[param.name] : undefined;
    const raw = given === undefined || given === null ? param.default : given;
    if (raw === undefined || raw === null) {
      if (param.required || where === 'path') {
        (violations ??= []).push({
          field: `inputs.${param.name}`,
          reason: `is required by endpoint "${endpointName}"`,
        });
      }
      continue;
    }
    // The common cases, already normalised (as coerceParameterValue would answer), without its result object.
    if (
      typeof raw === 'string'
        ? param.type === 'string'
        : typeof raw === 'number' &&
          (param.type === 'integer' ? Number.isSafeInteger(raw) : param.type === 'number' && Number.isFinite(raw))
    ) {
      values.set(param.name, raw);
      continue;
    }
    const coerced = coerceParameterValue(param.type, raw);
    if (coerced.ok) values.set(param.name, coerced.value);
    else (violations ??= []).push({ field: `inputs.${param.name}`, reason: coerced.reason });
  }
  if (violations) throw invalidInputs(endpointName, violations);
  return values;
}

function invalidInputs(endpointName: string, violations: ConnectorFieldViolation[]): ConnectorError {
  const summary = violations.map((v) => `${v.field} ${v.reason}`).join('; ');
  return new ConnectorError('INVALID_ARGUMENT', `invalid inputs for endpoint "${endpointName}": ${summary}`, {
    violations,
  });
}

/** Every credential value, raw, URL-encoded and form-encoded, for `redactSecrets`. */
export function credentialSecrets(credentials: ConnectorCredentials): string[] {
  const out = new Set<string>();
  for (const value of Object.values(credentials)) {
    if (typeof value !== 'string' || value.length === 0) continue;
    out.add(value);
    out.add(encodeURIComponent(value));
    out.add(formEncode(value));
  }
  return [...out];
}
