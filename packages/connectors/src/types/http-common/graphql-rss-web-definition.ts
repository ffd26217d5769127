/**
 * Definition pieces shared by the `graphql`, `rss_feed` and `web_scraper`
 * types: schema building blocks (taken from the `rest_api` schemas so the
 * common fields behave identically), the cross-field rules they share, and
 * input resolution (defaults, required, coercion, every violation listed).
 */
import { z } from 'zod';
import {
  parameterSchema,
  restApiConnectorSchema,
  restConnectionSchema,
  restEndpointSchema,
  type ConnectorAuth,
  type EndpointParameter,
  type OutputSchema,
  type ResponseMapping,
} from '../../connector-definition.schema.js';
import type { DefinitionIssue } from '../../connector-definition.rules.js';
import { ConnectorError, type ConnectorFieldViolation } from '../../connector-error.js';
import { parseDotPath } from '../../dot-path.js';
import { coerceParameterValue } from '../../parameter-values.js';
import {
  basicCredentials,
  DEFAULT_BEARER_SCHEME,
  requiredCredentialNames,
  type ConnectorCredentials,
} from '../rest-api/rest-request.js';

const ENDPOINT_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

export const text = z.string().min(1, 'must not be empty');
export const dotPath = z
  .string()
  .refine((p) => parseDotPath(p) !== undefined, 'must be a dot path such as data.items or node.owner.login');
/** The shared parameter shape (no rest_api `in`): these types place inputs themselves. */
export const parametersSchema = z
  .array(parameterSchema)
  .max(100, 'must declare at most 100 parameters')
  .default([]);
export const headersSchema = restConnectionSchema.shape.headers;
export const timeoutSecondsSchema = restConnectionSchema.shape.timeout_seconds;
export const rateLimitSchema = restConnectionSchema.shape.rate_limit;
export const authWithDefaultSchema = restConnectionSchema.shape.auth;
export const outputSchemaField = restEndpointSchema.shape.output_schema;

/** A whole-number setting within bounds, with a readable message. */
export const boundedInt = (min: number, max: number) =>
  z
    .number({ error: (iss) => (iss.input === undefined ? undefined : 'must be a number') })
    .int('must be a whole number')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

/** An absolute http(s) URL without credentials or fragment; a query string only when allowed. */
export const httpUrl = (opts: { allowQuery: boolean }) =>
  z.string().superRefine((value, ctx) => {
    const reason = httpUrlProblem(value, opts.allowQuery);
    if (reason) ctx.addIssue({ code: 'custom', message: reason });
  });

export function httpUrlProblem(value: string, allowQuery: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `must use http or https, not "${url.protocol.slice(0, -1).slice(0, 20)}"`;
  }
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash || value.includes('#')) return 'must not contain a fragment';
  if (!allowQuery && (url.search || value.includes('?'))) {
    return 'must not contain a query string; declare query values as parameters';
  }
  return undefined;
}

/** `endpoints:` of one type: named, at least one, at most 200. */
export const endpointsOf = <T extends z.ZodType>(endpoint: T) =>
  z
    .record(
      z.string().regex(ENDPOINT_NAME, 'endpoint names start with a letter and use letters, digits, _ or -'),
      endpoint,
    )
    .refine((eps) => Object.keys(eps).length > 0, 'must declare at least one endpoint')
    .refine((eps) => Object.keys(eps).length <= 200, 'must declare at most 200 endpoints');

/** The whole definition of one type: the common fields plus its connection and endpoints. */
export function connectorSchemaOf<const T extends string, C extends z.ZodType, E extends z.ZodType>(
  type: T,
  connection: C,
  endpoint: E,
) {
  return restApiConnectorSchema.omit({ type: true, connection: true, endpoints: true }).extend({
    type: z.literal(type),
    connection,
    endpoints: endpointsOf(endpoint),
  });
}

/** A `response_mapping` key this type does not use, refused with why. */
export const unusedKey = (reason: string) => z.never({ error: reason }).optional();

// ---------------------------------------------------------------- rules

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);
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

export interface RuleSink {
  errors: DefinitionIssue[];
  warnings: DefinitionIssue[];
}

export function newRuleSink(): RuleSink {
  return { errors: [], warnings: [] };
}

/** Duplicate names and defaults that do not fit their type. */
export function checkParameters(params: readonly EndpointParameter[], at: string, sink: RuleSink): void {
  const seen = new Set<string>();
  params.forEach((p, i) => {
    if (seen.has(p.name))
      sink.errors.push({ field: `${at}[${i}].name`, reason: `duplicate parameter "${p.name}"` });
    seen.add(p.name);
    if (p.default !== undefined && p.default !== null) {
      const result = coerceParameterValue(p.type, p.default);
      if (!result.ok) {
        sink.errors.push({
          field: `${at}[${i}].default`,
          reason: `does not fit type ${p.type}: ${result.reason}`,
        });
      }
    }
  });
}

/** Static headers must not carry credentials (the definition is plain text) nor framing headers. */
export function checkStaticHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  at: string,
  sink: RuleSink,
) {
  for (const [name, value] of Object.entries(headers ?? {})) {
    const field = `${at}.${name}`;
    const lower = name.toLowerCase();
    if (CREDENTIAL_HEADERS.has(lower)) {
      sink.errors.push({
        field,
        reason:
          'must not carry credentials in the definition (it is stored in plain text); use connection.auth',
      });
    } else if (CLIENT_HEADERS.has(lower)) {
      sink.errors.push({ field, reason: 'is set by the HTTP client and cannot be configured' });
    } else if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
      sink.errors.push({ field, reason: 'must not contain control characters' });
    }
  }
}

/**
 * Supported schemes only (`supported`, by default those `authPlacement` can
 * send); api_key needs somewhere to go; env_var is accepted for the seeds but
 * never read.
 */
export function checkAuth(
  auth: ConnectorAuth,
  at: string,
  sink: RuleSink,
  supported: ReadonlySet<string> = SUPPORTED_AUTH_TYPES,
): void {
  if (!supported.has(auth.type)) {
    sink.errors.push({
      field: `${at}.type`,
      reason: `${auth.type} is not supported by this connector type; use ${[...supported].join(', ')}`,
    });
  }
  if (auth.type === 'oauth2' && supported.has('oauth2')) {
    const url = new URL(auth.token_url);
    const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\./.test(url.hostname);
    if (url.protocol === 'http:' && !loopback) {
      sink.warnings.push({
        field: `${at}.token_url`,
        reason: 'uses plain http: the client secret and tokens travel unencrypted; use https',
      });
    }
  }
  if (auth.type === 'api_key') {
    if (auth.in === 'query' && !auth.key_param) {
      sink.errors.push({
        field: `${at}.key_param`,
        reason: 'is required when the api key is sent in the query',
      });
    }
    if (auth.in === 'header' && !auth.header_name && !auth.key_param) {
      sink.errors.push({
        field: `${at}.header_name`,
        reason: 'is required when the api key is sent in a header',
      });
    }
  }
  if (auth.type !== 'none' && auth.env_var !== undefined) {
    sink.warnings.push({
      field: `${at}.env_var`,
      reason:
        'is ignored: credentials are stored encrypted with the connector, not read from the environment',
    });
  }
}

/** entity_extraction and output_schema fields must name mapped fields (when `fields` is known). */
export function checkMappedFieldNames(
  fields: readonly string[] | undefined,
  mapping: Pick<ResponseMapping, 'entity_extraction'> | undefined,
  outputSchema: OutputSchema | undefined,
  at: string,
  fieldsAt: string,
  sink: RuleSink,
): void {
  if (!fields) return;
  const known = new Set(fields);
  mapping?.entity_extraction?.forEach((e, i) => {
    if (!known.has(e.field)) {
      sink.errors.push({
        field: `${at}.response_mapping.entity_extraction[${i}].field`,
        reason: `"${e.field}" is not a field of ${fieldsAt}`,
      });
    }
  });
  outputSchema?.fields?.forEach((f, i) => {
    if (!known.has(f.name)) {
      sink.errors.push({
        field: `${at}.output_schema.fields[${i}].name`,
        reason: `"${f.name}" is not a field of ${fieldsAt}`,
      });
    }
  });
}

// ---------------------------------------------------------------- execution

/** The endpoint by name; NOT_FOUND lists the names that exist. */
export function findEndpoint<E>(def: { id: string; endpoints: Record<string, E> }, endpointName: string): E {
  if (!Object.hasOwn(def.endpoints, endpointName)) {
    throw new ConnectorError(
      'NOT_FOUND',
      `connector "${def.id}" has no endpoint "${endpointName}"; it has ${Object.keys(def.endpoints).join(', ')}`,
    );
  }
  return def.endpoints[endpointName] as E;
}

/**
 * Declared parameters → normalised values with defaults applied. Unknown,
 * missing required and ill-typed inputs are all reported at once
 * (INVALID_ARGUMENT, violations `inputs.<name>`). Values are described by
 * kind only: inputs may be sensitive.
 */
export function resolveInputs(
  params: readonly EndpointParameter[],
  endpointName: string,
  inputs: unknown,
  alwaysRequired: ReadonlySet<string> = new Set(),
): Map<string, unknown> {
  if (typeof inputs !== 'object' || inputs === null || Array.isArray(inputs)) {
    throw ConnectorError.invalid('inputs', 'must be an object of parameter values');
  }
  const given = inputs as Record<string, unknown>;
  const violations: ConnectorFieldViolation[] = [];
  const declared = new Set(params.map((p) => p.name));
  for (const key of Object.keys(given)) {
    if (!declared.has(key)) {
      violations.push({
        field: `inputs.${key}`,
        reason: `is not a parameter of endpoint "${endpointName}" (declared: ${[...declared].join(', ') || 'none'})`,
      });
    }
  }
  const values = new Map<string, unknown>();
  for (const param of params) {
    const value = Object.hasOwn(given, param.name) ? given[param.name] : undefined;
    const raw = value === undefined || value === null ? param.default : value;
    if (raw === undefined || raw === null) {
      if (param.required || alwaysRequired.has(param.name)) {
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
      {
        violations,
      },
    );
  }
  return values;
}

/** The auth schemes these types can send (the others are refused by `checkAuth`). */
export const SUPPORTED_AUTH_TYPES: ReadonlySet<string> = new Set([
  'api_key',
  'bearer_token',
  'basic',
  'none',
]);

/**
 * Where the stored credentials go for `auth`: headers or query pairs.
 * FAILED_PRECONDITION when one is missing or would break the request.
 */
export function authPlacement(
  auth: ConnectorAuth,
  credentials: ConnectorCredentials,
  connectorId: string,
): { headers: Record<string, string>; query: Array<[string, string]> } {
  const out = { headers: {} as Record<string, string>, query: [] as Array<[string, string]> };
  checkStoredCredentials(auth, credentials, connectorId);
  const cred = (name: string) => credentials[name] as string;
  switch (auth.type) {
    case 'none':
      return out;
    case 'bearer_token':
      out.headers.authorization = `${auth.scheme ?? DEFAULT_BEARER_SCHEME} ${cred('token')}`;
      return out;
    case 'basic':
      if (cred('username').includes(':')) {
        throw new ConnectorError(
          'FAILED_PRECONDITION',
          `credential "username" of connector "${connectorId}" contains ":", which basic auth cannot carry`,
        );
      }
      out.headers.authorization = `Basic ${basicCredentials(cred('username'), cred('password'))}`;
      return out;
    case 'api_key':
      if (auth.in === 'header')
        out.headers[(auth.header_name ?? auth.key_param ?? 'x-api-key').toLowerCase()] = cred('api_key');
      else out.query.push([auth.key_param as string, cred('api_key')]);
      return out;
    default:
      throw new ConnectorError(
        'UNIMPLEMENTED',
        `connector "${connectorId}" uses ${auth.type} auth, which this type cannot send`,
      );
  }
}

/**
 * Every credential `auth` reads is stored, non-empty and free of control
 * characters; FAILED_PRECONDITION naming the first that is not.
 */
export function checkStoredCredentials(
  auth: ConnectorAuth,
  credentials: ConnectorCredentials,
  connectorId: string,
): void {
  for (const name of requiredCredentialNames(auth)) {
    const secret = Object.hasOwn(credentials, name) ? credentials[name] : undefined;
    if (typeof secret !== 'string' || secret.length === 0) {
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `connector "${connectorId}" needs the credential "${name}" for ${auth.type} auth, and none is stored`,
      );
    }
    if (/[\u0000-\u001f\u007f]/.test(secret)) {
      throw new ConnectorError(
        'FAILED_PRECONDITION',
        `credential "${name}" of connector "${connectorId}" contains control characters`,
      );
    }
  }
}

/** Static headers with lower-case names (so later `user-agent`/auth settings replace them). */
export function lowerCaseHeaders(
  headers: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) out[name.toLowerCase()] = value;
  return out;
}

/** Passes each warning to `ctx.warn` as well as returning it. */
export function reportWarnings(
  warnings: readonly string[],
  warn: ((message: string, fields?: Record<string, unknown>) => void) | undefined,
  fields: Record<string, unknown>,
): void {
  for (const w of warnings) warn?.(w, fields);
}
