import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { baseEnvSchema, grpcAddress } from '@af/service-kit';
import { z } from 'zod';
import { SIGNUP_MODES } from './domain/signup.js';

/** Express `trust proxy` value: false (socket address only), a hop count, or the proxies' addresses/subnets. */
export type TrustProxy = false | number | string[];

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY → which X-Forwarded-For hops are believed. Empty or `false`:
 * none (the client address is the socket's). A number n: the last n hops are
 * proxies. Otherwise a comma-separated list of proxy addresses, CIDR subnets
 * or the names loopback, linklocal, uniquelocal. `true` (trust any sender) is
 * refused: every client could then pick the address it is throttled by.
 */
export function parseTrustProxy(raw: string): TrustProxy | { error: string } {
  const v = raw.trim();
  if (v === '' || v === 'false') return false;
  if (v === 'true') return { error: 'true would let any client choose its address; list the proxies (addresses, CIDRs, loopback) or give a hop count' };
  if (/^\d+$/.test(v)) return Number(v);
  const entries = v.split(',').map((e) => e.trim());
  for (const e of entries) {
    const [addr, prefix, extra] = e.split('/');
    const family = isIP(addr ?? '');
    const okPrefix = prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!PROXY_NAMES.has(e) && (!family || !okPrefix || extra !== undefined)) {
      return { error: `"${e}" is not an IP address, a CIDR subnet, loopback, linklocal or uniquelocal` };
    }
  }
  return entries;
}

const trustProxy = z.string().default('').transform((raw, ctx) => {
  const parsed = parseTrustProxy(raw);
  if (typeof parsed === 'object' && !Array.isArray(parsed) && parsed !== null) {
    ctx.addIssue({ code: 'custom', message: parsed.error });
    return z.NEVER;
  }
  return parsed as TrustProxy;
});

/** Origins a browser app may call the API from: none (no CORS headers), `*` (any), or exact origins. */
export type CorsOrigins = '*' | string[];

/**
 * CORS_ORIGINS → the origins whose pages may call the API. Empty: none (no
 * CORS headers are sent). `*` alone: any origin (acceptable because the API
 * authenticates with bearer tokens or API keys, never cookies, so CORS
 * credentials are never allowed). Otherwise comma-separated exact origins:
 * http or https, host, optional port; no path, query, trailing slash or wildcard.
 */
export function parseCorsOrigins(raw: string): CorsOrigins | { error: string } {
  const v = raw.trim();
  if (v === '') return [];
  if (v === '*') return '*';
  const out: string[] = [];
  for (const e of v.split(',').map((x) => x.trim())) {
    if (e === '') return { error: 'has an empty entry (a stray comma?); list origins like https://app.example.com,http://localhost:5173' };
    if (e === '*') return { error: '* must be the only value (any origin) or absent' };
    let url: URL | undefined;
    try {
      url = new URL(e);
    } catch {
      url = undefined;
    }
    if (
      url === undefined ||
      !((url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && !e.endsWith('/') &&
      !url.search && !url.hash && !url.username && !url.password && !e.includes('*') && !e.includes('?') && !e.includes('#'))
    ) {
      return { error: `"${e}" is not an origin: scheme http or https, host and optional port, no path or trailing slash (e.g. https://app.example.com)` };
    }
    out.push(url.origin);
  }
  return out;
}

const corsOrigins = z.string().default('').transform((raw, ctx) => {
  const parsed = parseCorsOrigins(raw);
  if (typeof parsed === 'object' && !Array.isArray(parsed)) {
    ctx.addIssue({ code: 'custom', message: parsed.error });
    return z.NEVER;
  }
  return parsed;
});

/** Gateway configuration (env names are the keys). */
export const gatewayEnvSchema = baseEnvSchema.extend({
  HTTP_HOST: z.string().default('0.0.0.0'),
  /**
   * The gateway's address as users' browsers reach it (`https://af.example.com`,
   * no path): OAuth connection callbacks are built from it. Unset: from each
   * request (Host, and X-Forwarded-Proto/Host when TRUST_PROXY trusts the proxy).
   */
  PUBLIC_URL: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined || value === '') return;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL such as https://af.example.com' });
        return;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use http or https' });
      else if (url.pathname !== '/' || url.search || url.hash || url.username) ctx.addIssue({ code: 'custom', message: 'must be scheme, host and port only (no path, query or credentials)' });
    }),
  /** HTTP port of the REST/SSE API; 0 picks a free one. */
  HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** gRPC port serving only grpc.health.v1 (for Kubernetes probes). */
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50050),
  /** HS256 signing key for access tokens. */
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters'),
  JWT_TTL_SECONDS: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(3600),
  /** Who may create an account: open (anyone), invite (team invitations only), closed (nobody). */
  SIGNUP: z.enum(SIGNUP_MODES, { error: `must be one of ${SIGNUP_MODES.join(', ')}` }).default('open'),
  /** How long a team invitation can be used. */
  INVITE_TTL_HOURS: z.coerce.number().int().min(1).max(90 * 24).default(7 * 24),
  /** Lifetime of the stream tokens that let a browser's EventSource open an SSE route (POST /api/auth/stream-token). */
  STREAM_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(3600).default(60),
  PLANNER_URL: grpcAddress(),
  ORCHESTRATOR_URL: grpcAddress(),
  CONNECTOR_RUNTIME_URL: grpcAddress(),
  /** gRPC address of the approval service (approvals, human tasks, clarifications). */
  APPROVAL_URL: grpcAddress(),
  /** gRPC address of output-router (the workspace routes); unset: those routes answer 503. */
  OUTPUT_ROUTER_URL: grpcAddress().optional(),
  /** gRPC address of entity-resolution (knowledge graph, entity reviews, discoveries); unset: those routes answer 503. */
  ENTITY_RESOLUTION_URL: grpcAddress().optional(),
  /**
   * How long a call to a service may take, waiting for a service that is down
   * or restarting included; then the route answers 503 (unavailable) or 504.
   */
  UPSTREAM_WAIT_MS: z.coerce.number().int().min(500).max(300_000).default(15_000),
  /** Lifetime of the principal tokens POST /api/v1/auth/service-token issues for API keys. */
  SERVICE_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(300),
  /** Largest accepted request body. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(2 * 1024 * 1024),
  /** Proxies whose X-Forwarded-For is believed for the client address (see parseTrustProxy); default none. */
  TRUST_PROXY: trustProxy,
  /** Origins of browser apps allowed to call the API cross-origin (see parseCorsOrigins); default none. */
  CORS_ORIGINS: corsOrigins,
  /** Failed logins of one account before backoff starts. */
  LOGIN_ACCOUNT_FREE_FAILURES: z.coerce.number().int().min(1).max(1000).default(5),
  /** Failed logins from one client address (any accounts) before backoff starts. */
  LOGIN_ADDRESS_FREE_FAILURES: z.coerce.number().int().min(1).max(1_000_000).default(20),
  /** First lock after the free failures; doubles with each further failure. */
  LOGIN_BACKOFF_BASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(1000),
  /** Longest lock. */
  LOGIN_BACKOFF_MAX_SECONDS: z.coerce.number().int().min(1).max(7 * 24 * 3600).default(900),
  /** An account's or address's failures are forgotten this long after its last failure. */
  LOGIN_FAILURES_RESET_SECONDS: z.coerce.number().int().min(1).max(30 * 24 * 3600).default(3600),
  /** Longest pause before answering a throttled login 429 (slows clients guessing in a loop; 0 = answer at once). */
  LOGIN_REJECT_DELAY_MS: z.coerce.number().int().min(0).max(10_000).default(1000),
  /** Worker threads hashing and checking passwords (bcrypt). */
  PASSWORD_HASH_WORKERS: z.coerce.number().int().min(1).max(64).default(Math.max(1, Math.floor(availableParallelism() / 2))),
  /** CPU priority (nice, 0–19) of the hashing threads: above 0 they yield to the threads serving requests. */
  PASSWORD_HASH_NICE: z.coerce.number().int().min(0).max(19).default(10),
  /** Password jobs allowed to wait for a worker; beyond it 503 with Retry-After. */
  PASSWORD_HASH_QUEUE: z.coerce.number().int().min(1).max(100_000).default(64),
  /** Password jobs one client address may have running or waiting; beyond it 429 with Retry-After. */
  PASSWORD_HASH_PER_ADDRESS: z.coerce.number().int().min(1).max(10_000).default(4),
  /** bcrypt cost of new password hashes. */
  PASSWORD_BCRYPT_ROUNDS: z.coerce.number().int().min(10).max(15).default(10),
  /** File of refused common passwords (one per line, # comments); empty = the list shipped in data/common-passwords.txt. */
  COMMON_PASSWORDS_FILE: z.string().default(''),
  /** Largest run `inputs` accepted (bytes of JSON); larger is 413 naming `inputs`. Keep equal to the orchestrator's. */
  RUN_INPUT_MAX_BYTES: z.coerce.number().int().min(1024).default(256 * 1024),
  /** Deepest nesting of objects/arrays accepted in a JSON request body; deeper is 400. */
  JSON_MAX_DEPTH: z.coerce.number().int().min(8).max(1_000).default(64),
  /**
   * A run's SSE stream that has been silent this long re-reads the run's event
   * log (then backs off), so a frame missed on the bus still arrives.
   */
  SSE_IDLE_RECHECK_MS: z.coerce.number().int().min(100).default(5_000),
  /** Directory of the built console served at `/` (default: packages/console/dist of this checkout). */
  CONSOLE_DIR: z.string().default(''),
  /** 1: every JSON answer is checked against the OpenAPI document; a mismatch is a 500 RESPONSE_SCHEMA_MISMATCH (tests; off by default). */
  OPENAPI_CHECK_RESPONSES: z.enum(['', '0', '1']).default('').transform((v) => v === '1'),
});
export type GatewayConfig = z.infer<typeof gatewayEnvSchema>;
