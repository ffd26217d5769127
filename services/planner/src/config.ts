import { baseEnvSchema } from '@af/service-kit';
import { z } from 'zod';

export const plannerEnvSchema = baseEnvSchema.extend({
  GRPC_PORT: z.coerce.number().int().min(1).max(65535).default(50051),
});
export type PlannerConfig = z.infer<typeof plannerEnvSchema>;
