/**
 * The schemas of the six actions' inputs and params (their Action I/O
 * contracts), parsed before anything runs.
 */
import { z } from 'zod';
import { canonicalId } from '../domain/external-ids.js';
import { ALGORITHMS } from '../domain/graph-analytics.js';
import { ID_KINDS, type IdKind } from '../domain/record.js';

const text = (max: number) => z.string().trim().min(1).max(max);

/** External ids: known kinds only, each in a form its canonicaliser accepts. */
export const externalIdsSchema = z
  .record(z.string(), z.union([z.string(), z.number()]).transform(String))
  .superRefine((ids, ctx) => {
    for (const [kind, value] of Object.entries(ids)) {
      if (!(ID_KINDS as readonly string[]).includes(kind)) {
        ctx.addIssue({
          code: 'custom',
          path: [kind],
          message: `unknown id kind (known: ${ID_KINDS.join(', ')})`,
        });
        continue;
      }
      const parsed = canonicalId(kind as IdKind, value);
      if (!parsed.ok) ctx.addIssue({ code: 'custom', path: [kind], message: parsed.reason });
    }
  });

const entityType = z.preprocess(
  (v) => (typeof v === 'string' ? v.toUpperCase() : v),
  z.enum(['PERSON', 'ORG'], { message: 'unknown entity type: resolvable types are PERSON and ORG' }),
);

const baseEntity = z.object({
  name: text(500),
  type: entityType,
  subtype: z.string().max(100).optional(),
  aliases: z.array(text(500)).max(100).optional(),
  external_ids: externalIdsSchema.optional(),
  city: z.string().max(200).optional(),
  state: z.string().max(100).optional(),
  employer: z.string().max(500).optional(),
  title: z.string().max(200).optional(),
  source: z.string().max(200).optional(),
  confidence: z.number().min(0).max(1).optional(),
  source_record_index: z.number().int().min(0).optional(),
});

export const entityInputSchema = z.preprocess(
  // `entity_type` is the extraction output's name for the same field.
  (v) =>
    v && typeof v === 'object' && !('type' in v) && 'entity_type' in v
      ? { ...v, type: (v as { entity_type: unknown }).entity_type }
      : v,
  baseEntity.extend({
    relationships: z
      .array(
        z.object({
          type: z.string().regex(/^[A-Z][A-Z_]{0,63}$/, 'relationship types are UPPER_SNAKE_CASE'),
          target: baseEntity,
          properties: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .max(100)
      .optional(),
  }),
);
export type EntityInput = z.infer<typeof entityInputSchema>;

export const resolveInputs = z.object({ entities: z.array(entityInputSchema).min(1).max(10_000) });
export const resolveParams = z.object({
  strategy: z.enum(['exact', 'fuzzy', 'ml']).default('fuzzy'),
  threshold: z.number().min(0).max(1).optional(),
  connector: z.string().max(200).optional(),
  endpoint: z.string().max(200).optional(),
});

/** Entity types a hint may name (the connectors' list): PERSON and ORG are resolved, `auto` finds names in text. */
export const HINT_ENTITY_TYPES = ['PERSON', 'ORG', 'LOCATION', 'EVENT', 'PRODUCT', 'ENTITY', 'auto'] as const;

/** A connector endpoint's `response_mapping.entity_extraction` hint. */
export const hintSchema = z.object({
  field: text(200),
  entity_type: z.enum(HINT_ENTITY_TYPES, {
    message: `unknown entity type (known: ${HINT_ENTITY_TYPES.join(', ')})`,
  }),
  relationship_type: z
    .string()
    .regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'relationship types are UPPER_SNAKE_CASE (e.g. OFFICER_OF)')
    .optional(),
});

export const enrichInputs = z.object({ data: z.array(z.unknown()).max(100_000) });
export const enrichParams = z.object({
  connector: z.string().max(200).optional(),
  endpoint: z.string().max(200).optional(),
  source_node: z.string().max(200).optional(),
  entity_extraction: z.array(hintSchema).max(100).optional(),
});

export const extractInputs = z.object({ data: z.array(z.unknown()).max(100_000) });
export const extractParams = z.object({
  entity_types: z.array(z.string()).optional(),
  relationship_type: z.string().optional(),
  entity_extraction: z.array(hintSchema).max(100).optional(),
});

export const crossInputs = z.object({
  dataset_a: z.array(z.record(z.string(), z.unknown())).max(50_000),
  dataset_b: z.array(z.record(z.string(), z.unknown())).max(50_000),
});
export const crossParams = z.object({
  match_strategy: z.enum(['exact', 'fuzzy_name', 'external_id']).default('fuzzy_name'),
  match_threshold: z.number().min(0).max(1).default(0.8),
});

export const searchInputs = z
  .object({
    entity_name: z.string().max(500).optional(),
    entity_names: z.array(z.string().max(500)).max(100).optional(),
  })
  .refine((v) => Boolean(v.entity_name?.trim()) || (v.entity_names ?? []).some((n) => n.trim()), {
    message: 'entity_name or entity_names is required',
    path: ['entity_name'],
  });
export const searchParams = z.object({
  entity_types: z.array(z.string()).optional(),
  relationship_types: z.array(z.string()).optional(),
  include_related: z.boolean().default(false),
  max_hops: z.number().int().min(1).max(5).default(2),
});

const entityRef = z.union([
  text(500),
  z.object({
    entity_id: z.string().optional(),
    id: z.string().optional(),
    name: z.string().optional(),
    canonical_name: z.string().optional(),
  }),
]);
export const analyzeInputs = z.object({ entities: z.array(entityRef).max(1000).optional() });
export const analyzeParams = (maxNodes: number) =>
  z.object({
    algorithm: z.enum(ALGORITHMS),
    scope: z.enum(['full_graph', 'subgraph_from_entities']).optional(),
    max_nodes: z
      .number()
      .int()
      .min(1)
      .max(maxNodes, `max_nodes may be at most ${maxNodes}`)
      .default(Math.min(1000, maxNodes)),
    max_hops: z.number().int().min(1).max(5).default(2),
  });

export const detectInputs = z.object({
  entity_types: z.array(text(50)).min(1),
  watermark: z.string().optional(),
});
export const detectParams = z.object({
  min_confidence: z.number().min(0).max(1).default(0.5),
  source_filter: z.string().max(200).optional(),
  watermark: z.string().optional(),
});
