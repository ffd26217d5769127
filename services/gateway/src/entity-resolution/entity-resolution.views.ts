/** Wire messages → the snake_case JSON of the HTTP API (the resolution log's and review queue's field names). */
import type { z } from 'zod';
import type { entity } from '@af/contracts';
import type * as R from '../http/responses/index.js';

const orNull = (s: string) => s || null;

export const entityView = (e: entity.Entity): z.infer<typeof R.GraphEntity> => ({
  id: e.id,
  name: e.name,
  canonical_name: e.canonicalName,
  type: e.type,
  subtype: orNull(e.subtype),
  aliases: e.aliases,
  external_ids: e.externalIds,
  confidence: e.confidence,
  merge_count: e.mergeCount,
  source_count: e.sourceCount,
  first_seen: e.firstSeen,
  last_seen: e.lastSeen,
  members: e.members.map((m) => ({ id: m.id, name: m.name, source: m.source || null })),
});

export const relationshipView = (r: entity.Relationship): z.infer<typeof R.GraphRelationship> => ({
  source_id: r.sourceId,
  target_id: r.targetId,
  type: r.type,
  properties: r.properties ?? {},
  confidence: r.confidence,
});

export const reviewView = (r: entity.ReviewItem): z.infer<typeof R.EntityReview> => ({
  id: r.id,
  execution_id: orNull(r.executionId),
  source_entity_id: r.sourceEntityId,
  source_entity_name: r.sourceEntityName,
  source_entity_type: r.sourceEntityType,
  candidate_entity_id: r.candidateEntityId,
  candidate_entity_name: r.candidateEntityName,
  confidence: r.confidence,
  match_details: r.matchDetails ?? {},
  context: r.context ?? {},
  status: r.status,
  reviewed_at: orNull(r.reviewedAt),
  created_at: r.createdAt,
});

export const logView = (l: entity.LogEntry): z.infer<typeof R.ResolutionLogEntry> => ({
  id: l.id,
  execution_id: orNull(l.executionId),
  action: l.action,
  source_entity_id: orNull(l.sourceEntityId),
  source_entity_name: l.sourceEntityName,
  source_entity_type: l.sourceEntityType,
  target_entity_id: orNull(l.targetEntityId),
  target_entity_name: orNull(l.targetEntityName),
  confidence: l.confidence,
  match_method: l.matchMethod,
  match_details: l.matchDetails ?? {},
  is_reversible: l.isReversible,
  reversed_at: orNull(l.reversedAt),
  created_at: l.createdAt,
});

export const discoveryView = (d: entity.Discovery): z.infer<typeof R.Discovery> => ({
  id: d.id,
  execution_id: orNull(d.executionId),
  discovery_type: d.discoveryType,
  entity_name: d.entityName,
  entity_type: d.entityType,
  entity_id: orNull(d.entityId),
  relationship_type: orNull(d.relationshipType),
  related_entity_name: orNull(d.relatedEntityName),
  source_connector: orNull(d.sourceConnector),
  source_endpoint: orNull(d.sourceEndpoint),
  confidence: d.confidence,
  details: d.details ?? {},
  discovered_at: d.discoveredAt,
});
