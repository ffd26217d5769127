/**
 * `graphql` connectors (seed §4 "Type: graphql", `_create_graphql_tool`):
 * POST `{query, variables, operationName}` as JSON to `connection.endpoint`,
 * auth like rest_api (OAuth2 included, through the same session code), records by `response_mapping`, and optional cursor
 * pagination through the connection's `pageInfo` (`hasNextPage`/`endCursor`).
 * See `graphql-response.ts` for how `errors` are surfaced.
 */
import { ConnectorError } from '../../connector-error.js';
import type { ConnectorTypeModule, ExecutionContext, OAuthTokenCache } from '../../connector-type.js';
import { OAuthSession, oauthTokenKey } from '../../oauth.js';
import { redactSecrets } from '../../redaction.js';
import { redactResult, resultSecrets } from '../../result-redaction.js';
import type { EndpointResult } from '../../response-mapping.js';
import { credentialSecrets, requiredCredentialNames, type ConnectorCredentials } from '../rest-api/rest-request.js';
import {
  authPlacement,
  checkStoredCredentials,
  findEndpoint,
  lowerCaseHeaders,
  resolveInputs,
} from '../http-common/graphql-rss-web-definition.js';
import { fetchText, scrubError, withCallScope, type CallScope } from '../http-common/graphql-rss-web-http.js';
import { describeGraphqlErrorBody, interpretGraphqlBody } from './graphql-response.js';
import {
  checkGraphqlRules,
  GRAPHQL_KNOWN_KEYS,
  graphqlConnectorSchema,
  graphqlVariables,
  type GraphqlConnectorDefinition,
  type GraphqlEndpoint,
} from './graphql-schema.js';

export const GRAPHQL_DEFAULT_TIMEOUT_SECONDS = 30;
/** Some GraphQL APIs (GitHub's) refuse requests without a User-Agent; `connection.headers` may replace it. */
export const DEFAULT_GRAPHQL_USER_AGENT = 'AgentFactory/1.0 (+connector-runtime; graphql)';

export const graphqlType: ConnectorTypeModule = {
  type: 'graphql',
  schema: graphqlConnectorSchema,
  knownKeys: GRAPHQL_KNOWN_KEYS,
  checkRules: (def) => checkGraphqlRules(def as GraphqlConnectorDefinition),
  requiredCredentials: (def) => requiredCredentialNames((def as GraphqlConnectorDefinition).connection.auth),
  timeoutMs: (def) =>
    ((def as GraphqlConnectorDefinition).connection.timeout_seconds ?? GRAPHQL_DEFAULT_TIMEOUT_SECONDS) *
    1000,
  execute: (def, endpoint, inputs, credentials, ctx) =>
    executeGraphql(def as GraphqlConnectorDefinition, endpoint, inputs, credentials, ctx),
};

interface GraphqlRequest {
  url: string;
  displayUrl: string;
  headers: Record<string, string>;
  endpoint: GraphqlEndpoint;
  variables: Record<string, unknown>;
}

async function executeGraphql(
  def: GraphqlConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>>,
  credentials: ConnectorCredentials,
  ctx: ExecutionContext,
): Promise<EndpointResult> {
  // Grows with the OAuth tokens the call handles; the scope scrubs messages with it.
  const secrets = credentialSecrets(credentials);
  const label = `${def.id}/${endpointName}`;
  let req: GraphqlRequest;
  try {
    req = buildGraphqlRequest(def, endpointName, inputs, credentials);
  } catch (err) {
    throw err instanceof ConnectorError ? scrubError(err, secrets) : err;
  }
  const auth = def.connection.auth;
  if (auth.type === 'oauth2' && !ctx.oauth) {
    throw new ConnectorError(
      'FAILED_PRECONDITION',
      `${label}: connector uses oauth2 auth, but no OAuth token store is configured for this runtime`,
    );
  }
  const timeoutMs = (def.connection.timeout_seconds ?? GRAPHQL_DEFAULT_TIMEOUT_SECONDS) * 1000;
  const result = await withCallScope(ctx, { label, timeoutMs, secrets }, (scope) => {
    const session =
      auth.type === 'oauth2'
        ? new OAuthSession(
            def.id,
            auth,
            credentials,
            ctx.oauth as OAuthTokenCache,
            oauthTokenKey(ctx.ownerUserId, def.id, auth, credentials),
            { http: scope.http, signal: scope.signal, now: Date.now },
          )
        : undefined;
    const pages = fetchPages(scope, req, session, secrets, ctx.onPage);
    // The OAuth tokens of the call are known only here; the stored credentials are redacted
    // from every result by the call pipeline.
    return session ? pages.then((r) => redactResult(r, resultSecrets({}, session.secrets))) : pages;
  });
  if (result.warnings) {
    result.warnings = [...new Set(result.warnings.map((w) => redactSecrets(w, secrets)))];
    for (const w of result.warnings) ctx.warn?.(w, { connector: def.id, endpoint: endpointName });
  }
  return result;
}

/** The request without I/O: variables resolved, auth placed (an OAuth2 token is added per request). */
export function buildGraphqlRequest(
  def: GraphqlConnectorDefinition,
  endpointName: string,
  inputs: Readonly<Record<string, unknown>>,
  credentials: ConnectorCredentials,
): GraphqlRequest {
  const endpoint = findEndpoint(def, endpointName);
  const values = resolveInputs(graphqlVariables(endpoint), endpointName, inputs);
  const connectionAuth = def.connection.auth;
  let auth: { headers: Record<string, string>; query: Array<[string, string]> };
  if (connectionAuth.type === 'oauth2') {
    checkStoredCredentials(connectionAuth, credentials, def.id);
    auth = { headers: {}, query: [] };
  } else {
    auth = authPlacement(connectionAuth, credentials, def.id);
  }
  const url = new URL(def.connection.endpoint);
  for (const [k, v] of auth.query) url.searchParams.append(k, v);
  return {
    url: url.toString(),
    displayUrl: `${url.origin}${url.pathname}`,
    headers: {
      'user-agent': DEFAULT_GRAPHQL_USER_AGENT,
      ...lowerCaseHeaders(def.connection.headers),
      accept: 'application/graphql-response+json, application/json;q=0.9',
      'content-type': 'application/json',
      ...auth.headers,
    },
    endpoint,
    variables: Object.fromEntries(values),
  };
}

/**
 * POSTs one page. With OAuth2 the session's access token goes in
 * `Authorization: Bearer`, and a 401 gets one new token and one retry (as
 * for rest_api).
 */
async function postPage(
  scope: CallScope,
  req: GraphqlRequest,
  body: string,
  session: OAuthSession | undefined,
  secrets: string[],
): Promise<string> {
  let token = session ? await sessionToken(scope, session, undefined, secrets) : undefined;
  for (let attempt = 0; ; attempt++) {
    const headers = token === undefined ? req.headers : { ...req.headers, authorization: `Bearer ${token}` };
    try {
      return (
        await fetchText(
          scope,
          { url: req.url, displayUrl: req.displayUrl, method: 'POST', headers, body },
          describeGraphqlErrorBody,
        )
      ).text;
    } catch (err) {
      if (
        session &&
        token !== undefined &&
        attempt === 0 &&
        err instanceof ConnectorError &&
        err.status === 401
      ) {
        token = await sessionToken(scope, session, token, secrets);
        continue;
      }
      throw err;
    }
  }
}

/** A usable access token (a new one when `rejected` was refused), its values added to `secrets`. */
async function sessionToken(
  scope: CallScope,
  session: OAuthSession,
  rejected: string | undefined,
  secrets: string[],
): Promise<string> {
  let token: string;
  try {
    token = rejected === undefined ? await session.accessToken() : await session.replaceRejected(rejected);
  } finally {
    for (const s of session.secrets) if (!secrets.includes(s)) secrets.push(s);
  }
  if (/[\u0000-\u001f\u007f]/.test(token)) {
    throw new ConnectorError(
      'UPSTREAM_ERROR',
      `${scope.label}: the token endpoint issued an access token with control characters`,
    );
  }
  return token;
}

/**
 * Page 1, then (with pagination) the next pages while `hasNextPage` and
 * fewer than `max_pages`. A later page that fails ends the call with the
 * pages so far, `has_more` and the cursor to resume from, plus a warning;
 * cancellation always throws.
 */
async function fetchPages(
  scope: CallScope,
  req: GraphqlRequest,
  session: OAuthSession | undefined,
  secrets: string[],
  onPage: ExecutionContext['onPage'],
): Promise<EndpointResult> {
  const { endpoint } = req;
  const pagination = endpoint.pagination;
  const maxPages = pagination?.max_pages ?? 1;
  const variables = { ...req.variables };
  const results: Record<string, unknown>[] = [];
  const warnings: string[] = [];
  let hasNext = false;
  let cursor: string | undefined;
  const seen = new Set<string>();

  for (let page = 1; page <= maxPages; page++) {
    let text: string;
    try {
      const payload = {
        query: endpoint.query,
        variables,
        ...(endpoint.operation_name ? { operationName: endpoint.operation_name } : {}),
      };
      text = await postPage(scope, req, JSON.stringify(payload), session, secrets);
    } catch (err) {
      if (page === 1 || !(err instanceof ConnectorError) || err.code === 'CANCELLED') throw err;
      warnings.push(
        `page ${page} failed, returning the first ${page - 1}: ${scrubError(err, scope.secrets).message}`,
      );
      hasNext = true;
      break;
    }
    const parsed = interpretGraphqlBody(text, endpoint, { label: scope.label, displayUrl: req.displayUrl });
    results.push(...parsed.result.results);
    warnings.push(...(parsed.result.warnings ?? []));
    onPage?.({ page, records: parsed.result.results.length, totalRecords: results.length });
    hasNext = parsed.hasNext;
    cursor = parsed.cursor;
    if (!pagination || !hasNext || cursor === undefined || page === maxPages) break;
    if (seen.has(cursor)) {
      warnings.push(`the endpoint returned cursor "${cursor}" twice; stopped paging to avoid a loop`);
      hasNext = false;
      break;
    }
    seen.add(cursor);
    variables[pagination.cursor_variable] = cursor;
  }

  const out: EndpointResult = { results, count: results.length };
  if (pagination) {
    out.has_more = hasNext && cursor !== undefined;
    if (out.has_more && cursor !== undefined) out.next_cursor = cursor;
  }
  if (warnings.length > 0) out.warnings = warnings;
  return out;
}
