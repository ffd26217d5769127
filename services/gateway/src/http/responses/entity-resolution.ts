/** Answers of the knowledge routes in front of entity-resolution (entity reviews, resolution log, discoveries, graph). */
import { z } from 'zod';
import { component, JsonObject, nullableTimestamp, timestamp } from './common.js';

export const GraphEntity = component(
  'GraphEntity',
  z.strictObject({
    id: z.string(),
    name: z.string(),
    canonical_name: z.string(),
    type: z.string().meta({ description: 'PERSON, ORG, LOCATION, …' }),
    subtype: z.string().nullable(),
    aliases: z.array(z.string()),
    external_ids: z.record(z.string(), z.string()).meta({ description: 'ein, fec_id, cik, … in canonical form' }),
    confidence: z.number(),
    merge_count: z.number().int().meta({ description: 'Entities merged into this one (itself included)' }),
    source_count: z.number().int(),
    first_seen: timestamp,
    last_seen: timestamp,
    members: z
      .array(z.strictObject({ id: z.string(), name: z.string(), source: z.string().nullable() }))
      .meta({ description: 'The records merged into this entity (itself first); each id can be split out' }),
  }),
  { description: 'An entity of your knowledge graph' },
);

export const GraphRelationship = component(
  'GraphRelationship',
  z.strictObject({ source_id: z.string(), target_id: z.string(), type: z.string(), properties: JsonObject, confidence: z.number() }),
  { description: 'A relationship between two entities of your knowledge graph' },
);

export const EntityReview = component(
  'EntityReview',
  z.strictObject({
    id: z.string(),
    execution_id: z.string().nullable(),
    source_entity_id: z.string(),
    source_entity_name: z.string(),
    source_entity_type: z.string(),
    candidate_entity_id: z.string(),
    candidate_entity_name: z.string(),
    confidence: z.number(),
    match_details: JsonObject,
    context: JsonObject,
    status: z.string().meta({ description: 'pending | approved_merge | rejected | skipped | auto_merged (closed by a later merge that joined its two entities)' }),
    reviewed_at: nullableTimestamp,
    created_at: timestamp,
  }),
  { description: 'An ambiguous match waiting for (or given) a decision' },
);

export const ResolutionLogEntry = component(
  'ResolutionLogEntry',
  z.strictObject({
    id: z.string(),
    execution_id: z.string().nullable(),
    action: z.string().meta({ description: 'auto_merge | user_merge | user_split | create_new | flag_review' }),
    source_entity_id: z.string().nullable(),
    source_entity_name: z.string(),
    source_entity_type: z.string(),
    target_entity_id: z.string().nullable(),
    target_entity_name: z.string().nullable(),
    confidence: z.number(),
    match_method: z.string().meta({ description: 'exact_name | fuzzy_name | external_id | context_overlap | user' }),
    match_details: JsonObject,
    is_reversible: z.boolean(),
    reversed_at: nullableTimestamp,
    created_at: timestamp,
  }),
  { description: 'A resolution decision in the audit log' },
);

export const Discovery = component(
  'Discovery',
  z.strictObject({
    id: z.string(),
    execution_id: z.string().nullable(),
    discovery_type: z.string().meta({ description: 'new_entity | new_relationship | entity_merge | new_external_id | pattern_detected' }),
    entity_name: z.string(),
    entity_type: z.string(),
    entity_id: z.string().nullable(),
    relationship_type: z.string().nullable(),
    related_entity_name: z.string().nullable(),
    source_connector: z.string().nullable(),
    source_endpoint: z.string().nullable(),
    confidence: z.number(),
    details: JsonObject,
    discovered_at: timestamp,
  }),
  { description: 'Something a run found: a new entity, relationship, merge, external id or pattern' },
);

const counts = z.record(z.string(), z.number().int());

export const EntityReviewList = z.strictObject({ reviews: z.array(EntityReview) });
export const EntityReviewDecision = z.strictObject({
  review: EntityReview,
  log_entry: ResolutionLogEntry.nullable().meta({ description: 'The user_merge entry when approved; null otherwise' }),
});
export const ResolutionLog = z.strictObject({ entries: z.array(ResolutionLogEntry) });
export const ResolutionLogAnswer = z.strictObject({ entry: ResolutionLogEntry });
export const DiscoveryList = z.strictObject({ discoveries: z.array(Discovery) });
export const DiscoveryStats = z.strictObject({
  total: z.number().int(),
  by_type: counts.meta({ description: 'Discoveries by discovery_type' }),
  by_entity_type: counts.meta({ description: 'Discoveries by entity_type' }),
  entities: z.number().int(),
  relationships: z.number().int(),
  pending_reviews: z.number().int(),
});
export const EntitySearch = z.strictObject({ entities: z.array(GraphEntity) });
export const Neighbourhood = z.strictObject({ entities: z.array(GraphEntity), relationships: z.array(GraphRelationship) });
export const GraphAnalysis = z.strictObject({
  results: z.array(JsonObject).meta({ description: 'One object per result; its fields depend on the algorithm (e.g. entity and score for pagerank)' }),
  node_count: z.number().int(),
  edge_count: z.number().int(),
});
