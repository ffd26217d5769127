/**
 * The contract every connector type implements (seed §4: rest_api, graphql,
 * web_scraper, file_parser, database, rss_feed, existing_tool). One module per
 * type under `types/`, collected in `types/index.ts`; the parser, the
 * executor dispatch and the schema endpoint look a type up there instead of
 * switching on `type` all over the code.
 *
 * Modules are pure apart from the I/O handed to them in `ExecutionContext`
 * (the SSRF-guarded HTTP client, a Postgres pool factory, the plugin invoker),
 * so each is unit-testable with fakes and integration-tested for real.
 */
import type { request as undiciRequest } from 'undici';
import type { z } from 'zod';
import type { ConnectorDefinition, ConnectorType } from './connector-definition.schema.js';
import type { DefinitionIssue } from './connector-definition.rules.js';
import type { EndpointResult } from './response-mapping.js';
import type { ConnectorCredentials } from './types/rest-api/rest-request.js';
import type { SqlRunner } from './types/database/database-sql-runner.js';

/**
 * undici's `request` signature: production passes the SSRF-guarded client
 * (`infra/guarded-http.ts`). A client may also offer `text`, the same request
 * with its answer read whole into a string by the client: no body stream per
 * response, which is most of what a streamed read costs on small JSON answers.
 * Callers that read the whole body use it when it is there.
 */
export type HttpRequestFn = typeof undiciRequest & { readonly text?: HttpTextFn };

/** `HttpRequestFn.text`: one request (redirects followed as by the client itself), its answer as text. */
export type HttpTextFn = (
  url: string | URL,
  options: NonNullable<Parameters<typeof undiciRequest>[1]>,
  limits: HttpTextLimits,
) => Promise<HttpTextResponse>;

export interface HttpTextLimits {
  /**
   * Most bytes of a 2xx body: a declared Content-Length over it, or a body
   * that grows past it, fails the request with UPSTREAM_ERROR naming `label`.
   */
  maxBytes: number;
  /** Most bytes kept of any other answer's body; the rest is dropped with the connection. */
  errorBytes: number;
  /** Names the call in errors (never the URL: its query may hold a key). */
  label: string;
}

export interface HttpTextResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8 (a byte order mark is kept); cut at `errorBytes` for answers other than 2xx. */
  text: string;
}

/** A plugin tool call for `existing_tool` connectors (resolved by the app layer). */
export type PluginInvoker = (
  plugin: string,
  tool: string,
  inputs: Record<string, unknown>,
  options: { timeoutMs: number; signal?: AbortSignal; idempotencyKey?: string },
) => Promise<Record<string, unknown>>;

/** Where a paginated call stands after a page. */
export interface PageProgress {
  /** Pages fetched so far (1 after the first). */
  page: number;
  /** Records on this page. */
  records: number;
  /** Records of all pages so far. */
  totalRecords: number;
}

export interface ExecutionContext {
  /** Every outbound HTTP request goes through this (redirects are followed and re-checked by it). */
  http: HttpRequestFn;
  /** Overrides the definition's own timeout (e.g. the node's remaining deadline). */
  timeoutMs?: number;
  /** Cancels the call; the error is then CANCELLED. */
  signal?: AbortSignal;
  /** Where non-fatal problems go (malformed upstream bodies, skipped items); never pass secrets. */
  warn?: (message: string, fields?: Record<string, unknown>) => void;
  /** Told after each page of a paginated call (progress for long listings, e.g. `af connector test`). */
  onPage?: (progress: PageProgress) => void;
  /** For `existing_tool` connectors. */
  invokePlugin?: PluginInvoker;
  /** Idempotency key of the call (`runId:nodeId:attempt`), forwarded where the upstream supports one. */
  idempotencyKey?: string;
  /**
   * Additional type-specific services (OAuth token store, file roots, …) are
   * added here as optional fields by the module that needs them.
   */
  oauth?: OAuthTokenCache;
  /** Whose connector is being called; scopes per-owner state such as `oauth` cache keys. */
  ownerUserId?: string;
  /** Root directory `file_parser` `source: directory` connectors may read below (operator setting). */
  fileRoot?: string;
  /** Runs `database` connectors' SQL read-only (`infra/pg-readonly.ts` in the service). */
  sql?: SqlRunner;
}

/**
 * Where OAuth2 access tokens (and rotated refresh tokens) live between calls,
 * shared by every replica. Keyed by owner + connector id.
 */
export interface OAuthTokenCache {
  /**
   * Runs `refresh` at most once at a time per key across replicas when the
   * stored token expires within `bufferMs` (or `force`), and returns the
   * usable token.
   */
  getOrRefresh(
    key: string,
    bufferMs: number,
    refresh: (current: StoredOAuthToken | undefined) => Promise<StoredOAuthToken>,
    options?: { force?: boolean },
  ): Promise<StoredOAuthToken>;
}

export interface StoredOAuthToken {
  accessToken: string;
  /** Epoch ms; undefined when the server gave no expires_in. */
  expiresAt?: number;
  /** The latest refresh token when the server rotates them. */
  refreshToken?: string;
  tokenType?: string;
}

export interface ConnectorTypeModule {
  readonly type: ConnectorType;
  /** Validates a whole definition of this type (strict: unknown keys are errors). */
  readonly schema: z.ZodType;
  /** Keys this type adds, for "did you mean" suggestions on unknown keys. */
  readonly knownKeys?: readonly string[];
  /** Cross-field rules the schema cannot express. */
  checkRules?(def: ConnectorDefinition): { errors: DefinitionIssue[]; warnings: DefinitionIssue[] };
  /** Credential names a definition needs stored before it can run. */
  requiredCredentials(def: ConnectorDefinition): string[];
  /** The timeout one call may take, in ms (for idempotency claims and the orchestrator). */
  timeoutMs(def: ConnectorDefinition): number;
  /** Calls one endpoint. Throws ConnectorError (with secrets redacted) for every failure. */
  execute(
    def: ConnectorDefinition,
    endpointName: string,
    inputs: Readonly<Record<string, unknown>>,
    credentials: ConnectorCredentials,
    ctx: ExecutionContext,
  ): Promise<EndpointResult>;
}
