/**
 * Request shapes of the `/api/v1/flex/*` routes this file's controller serves
 * (flex spec §10). Payloads the planner owns (registrations, envelopes, facet
 * definitions) are only checked for being JSON objects here: the planner
 * validates them field by field and its violations come back as 400s.
 */
import { z } from 'zod';

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

export const FlexJsonObjectSchema = z.record(z.string(), z.unknown());

export const HeartbeatBodySchema = z.strictObject({
  /** The instance beating (default `default`). */
  instanceId: z.string().min(1).max(200).optional(),
});

export const ListCapabilitiesQuery = z.strictObject({
  include_inactive: flag.optional(),
  catalog_tag: z.string().min(1).max(100).optional(),
  produces: z.string().min(1).max(100).optional(),
});

export const DeregisterQuery = z.strictObject({
  instance_id: z.string().min(1).max(200).optional(),
});

export const ListFacetsQuery = z.strictObject({
  catalog_tag: z.string().min(1).max(100).optional(),
});

export const UpsertFacetsSchema = z.strictObject({
  facets: z.array(FlexJsonObjectSchema).min(1).max(500),
  collection: z.string().min(1).max(200).optional(),
  /** Whose facets: `private` (the caller's, default), `team` (with `teamId`), `shared` (operator only). */
  visibility: z.enum(['private', 'team', 'shared']).optional(),
  teamId: z.string().min(1).max(200).optional(),
});

export const PlanQuery = z.strictObject({
  planner: z.enum(['deterministic', 'llm']).optional(),
  max_attempts: z.coerce.number().int().min(1).max(10).optional(),
});
