import { z } from 'zod';

/** `{monitor_config, …}`: the rest of the body is a schedule definition without `spec` (the orchestrator parses it, naming each field). */
export const MonitorBodySchema = z.object({ monitor_config: z.record(z.string(), z.unknown()) }).catchall(z.unknown());

export const SetWatermarkBodySchema = z
  .object({
    watermark_type: z.string().min(1).max(32),
    watermark_value: z.string().max(4096),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();
