/**
 * Request bodies of the schedule routes. The definition itself is parsed by
 * the orchestrator (one schema, where schedules live); here it must be a JSON
 * object, and the action bodies are parsed in full.
 */
import { z } from 'zod';

export const ScheduleDefinitionBodySchema = z.record(z.string(), z.unknown());

export const RunNowBodySchema = z.object({ overlap_policy: z.string().max(64).optional() }).strict();

export const BackfillBodySchema = z
  .object({
    start_time: z.string().min(1).max(64),
    end_time: z.string().min(1).max(64),
    overlap_policy: z.string().max(64).optional(),
  })
  .strict();
