import { baseEnvSchema } from '@af/service-kit';
import { parseEgressAllowList } from '@af/egress';
import { WEBHOOK_EGRESS } from './infra/webhook-sender.js';
import { z } from 'zod';

/** Output-router configuration (env names are the keys). */
export const outputRouterEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(0).max(65535).default(50051),
  /** Largest document, upload or export (bytes). */
  OUTPUT_MAX_FILE_BYTES: z.coerce.number().int().min(1024).max(256 * 1024 * 1024).default(10 * 1024 * 1024),
  /** Most rows one call may write to a workspace table. */
  OUTPUT_MAX_TABLE_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(50_000),
  /** How long an export's download link works. */
  OUTPUT_EXPORT_TTL_SECONDS: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(24 * 3600),
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
  /** Attempts of one webhook delivery (the first included) before it is reported failed. */
  OUTPUT_WEBHOOK_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** First retry delay of a webhook delivery; doubles with each attempt. */
  OUTPUT_WEBHOOK_BACKOFF_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  /** Timeout of one webhook request. */
  OUTPUT_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
});
export type OutputRouterConfig = z.infer<typeof outputRouterEnvSchema>;
