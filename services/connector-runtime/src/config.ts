import { baseEnvSchema, parseKeyring } from '@af/service-kit';
import { z } from 'zod';

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
});
export type ConnectorRuntimeConfig = z.infer<typeof connectorRuntimeEnvSchema>;
