import { baseEnvSchema } from '@af/service-kit';
import { parseEgressAllowList } from '@af/egress';
import { WEBHOOK_EGRESS } from './domain/webhook-egress.js';
import { z } from 'zod';
import { parseChannelPlugins } from './infra/channel-sender.js';

/** Output-router configuration (env names are the keys). */
export const outputRouterEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50051),
  /** Largest document, upload or export (bytes). */
  OUTPUT_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(10 * 1024 * 1024),
  /** Most rows one call may write to a workspace table. */
  OUTPUT_MAX_TABLE_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(50_000),
  /** How long an export's download link works. */
  OUTPUT_EXPORT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(30 * 24 * 3600)
    .default(24 * 3600),
  /**
   * Non-public webhook destinations allowed (SSRF guard; public addresses need
   * no entry): comma list of IPs, CIDR ranges or `host:port`. Empty: public
   * addresses only.
   */
  OUTPUT_EGRESS_ALLOW: z
    .string()
    .default('')
    .superRefine((value, ctx) => {
      const parsed = parseEgressAllowList(value, WEBHOOK_EGRESS);
      if (!parsed.ok) for (const message of parsed.errors) ctx.addIssue({ code: 'custom', message });
    }),
  /** Where file bytes live: `postgres` (default; a document and its bytes commit together) or `s3`. */
  OUTPUT_BLOB_STORE: z.enum(['postgres', 's3']).default('postgres'),
  /** S3-compatible endpoint URL (unset: AWS S3 of S3_REGION). */
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  /** The bucket of OUTPUT_BLOB_STORE=s3 (required then). */
  S3_BUCKET: z.string().min(3).max(63).optional(),
  /** Key prefix of the objects (e.g. `workspace/`). */
  S3_PREFIX: z.string().max(200).default(''),
  /** Static credentials; unset: the SDK's default chain (environment, instance role, …). */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('true')
    .transform((v) => v === 'true'),
  /** Attempts of one webhook delivery (the first included) before it is reported failed. */
  OUTPUT_WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** First retry delay of a webhook delivery; doubles with each attempt. */
  OUTPUT_WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /** Timeout of one webhook request. */
  OUTPUT_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** SMTP server for email notifications (`smtp://user:pass@host:587`, `smtps://…`); unset: email is off (said at start and per delivery). */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, 'must be smtp://[user:pass@]host[:port] or smtps://…')
    .optional(),
  /** Sender of notification emails. */
  SMTP_FROM: z.string().min(3).max(200).default('Agent Factory <no-reply@agent-factory.local>'),
  /** Connection, greeting and socket timeout of the SMTP client. */
  SMTP_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** connector-runtime (its ActionService serves plugin tools): channel messages go through it; unset: they are off. */
  CONNECTOR_RUNTIME_URL: z.string().min(1).optional(),
  /** Channel names to plugin tools for channel messages: `<channel>=<plugin>.<tool>,…`. */
  OUTPUT_CHANNEL_PLUGINS: z
    .string()
    .default('slack=slack-webhook.post_message,default=slack-webhook.post_message')
    .superRefine((v, ctx) => {
      const parsed = parseChannelPlugins(v);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.error });
    }),
  /** entity-resolution (its ActionService serves resolve_entities): the knowledge-graph destination; unset: that destination is action_unavailable. */
  ENTITY_RESOLUTION_URL: z.string().min(1).optional(),
  /** First retry delay of a queued knowledge-graph write (doubling), and how often due writes are looked for. */
  OUTPUT_GRAPH_RETRY_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Attempts of a knowledge-graph write before it is given up (kept in graph_write_queue as failed). */
  OUTPUT_GRAPH_RETRY_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(10),
  /** Link base of run-finished notifications (the run's page); the link is `<base>/<runId>`. */
  OUTPUT_RUN_LINK_BASE: z.string().min(1).max(500).default('/api/v1/runs'),
});
export type OutputRouterConfig = z.infer<typeof outputRouterEnvSchema>;
