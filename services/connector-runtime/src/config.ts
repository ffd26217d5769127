import { isAbsolute } from 'node:path';
import { baseEnvSchema, parseKeyring } from '@af/service-kit';
import { z } from 'zod';
import { parseEgressAllowList } from '@af/connectors';

export const connectorRuntimeEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(1).max(65535).default(50053),
  /** `kid:base64(32 bytes)[,kid:…]`; the first key encrypts, all decrypt (rotation). */
  CREDENTIALS_KEYS: z.string().superRefine((value, ctx) => {
    try {
      parseKeyring(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/^CREDENTIALS_KEYS:?\s*/, '') });
    }
  }),
  /** How long an idempotency key's stored result is replayed. */
  IDEMPOTENCY_WINDOW_MS: z.coerce.number().int().min(1000).default(24 * 3600_000),
  /**
   * Non-public destinations connectors may reach (SSRF guard; public addresses
   * need no entry). Comma list of IPs, CIDR ranges or `host:port`; plain
   * entries open to every tenant. An entry scoped to one user's connector
   * names both, `<owner-user-id>/<connector-id>=entry`, e.g.
   * `10.0.0.0/8,8f14e45f-…/fec-mirror=api.internal:8443`; the old
   * `connector-id=entry` form is refused (it opened to anyone naming a
   * connector that id). Empty: public addresses only. See docs/security/egress.md.
   */
  CONNECTOR_EGRESS_ALLOW: z
    .string()
    .default('')
    .superRefine((value, ctx) => {
      const parsed = parseEgressAllowList(value);
      if (!parsed.ok) for (const message of parsed.errors) ctx.addIssue({ code: 'custom', message });
    }),
  /** Consecutive upstream failures (UNAVAILABLE, TIMEOUT) that open a connector's circuit breaker. */
  BREAKER_FAILURE_THRESHOLD: z.coerce.number().int().min(1).default(5),
  /** How long an open breaker refuses calls before it lets one trial call through. */
  BREAKER_RECOVERY_MS: z.coerce.number().int().min(1).default(60_000),
  /**
   * How long a replica trusts its cached view of a closed breaker before
   * reading the shared row again (it also refreshes on every failure it
   * records). 0 = read before every call.
   */
  BREAKER_SYNC_MS: z.coerce.number().int().min(0).default(1000),
  /**
   * For generous rate limits, how long tokens a replica takes in one go may
   * be handed out locally (see domain/token-bucket `leaseSize`); tight limits
   * never lease. 0 = one shared write per call.
   */
  RATE_LIMIT_LEASE_MS: z.coerce.number().int().min(0).max(10_000).default(100),
  /** The longest a call waits for a rate-limit token before failing RATE_LIMIT with retryAfterMs. */
  RATE_LIMIT_MAX_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
  /**
   * Folder `file_parser` connectors with `source: directory` may read below
   * (their `connection.directory` is relative to it). Unset: such connectors
   * fail with FAILED_PRECONDITION.
   */
  CONNECTOR_FILE_ROOT: z.string().refine(isAbsolute, 'must be an absolute path').optional(),
  /**
   * Shared secret plugin services present when they register (RegisterPlugin
   * `registration_token`). Unset: registrations are refused with
   * FAILED_PRECONDITION, unless PLUGIN_REGISTRATION_OPEN is true.
   */
  PLUGIN_REGISTRATION_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** `true` accepts plugin registrations without a token while PLUGIN_REGISTRATION_TOKEN is unset (local development only). */
  PLUGIN_REGISTRATION_OPEN: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  /** Seconds between plugin heartbeats (told to plugins when they register); a plugin that misses 3 is inactive. */
  PLUGIN_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).max(300).default(10),
});
export type ConnectorRuntimeConfig = z.infer<typeof connectorRuntimeEnvSchema>;
