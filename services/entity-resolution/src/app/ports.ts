/**
 * What the use cases need from storage: the graph-store port. PostgreSQL
 * implements it (infra/pg-graph-store.ts); a Neo4j adapter would implement
 * the same interface.
 */
import type { Thresholds } from '../domain/decision.js';
import type { ErRecord } from '../domain/record.js';

export interface Provenance {
  executionId: string;
  nodeId: string;
  connector?: string;
  endpoint?: string;
}

/** One entity to resolve, with optional relationships to others (resolved the same way). */
export interface InputEntity extends ErRecord {
  confidence?: number;
  subtype?: string;
  recordIndex?: number;
  relationships?: Array<{ type: string; target: InputEntity; properties?: Record<string, unknown> }>;
}

export interface EntityView {
  id: string;
  name: string;
  canonicalName: string;
  type: string;
  subtype: string;
  aliases: string[];
  externalIds: Record<string, string>;
  confidence: number;
  mergeCount: number;
  sourceCount: number;
  firstSeen: string;
  lastSeen: string;
  source: string;
  /** The entity rows merged into this one (the root first): what a split can take out. */
  members: Array<{ id: string; name: string; source: string }>;
}

export interface RelationshipView {
  sourceId: string;
  targetId: string;
  type: string;
  properties: Record<string, unknown>;
  confidence: number;
}

export interface ResolvedOne {
  /** The entity (root) the record belongs to now. */
  entityId: string;
  /** The record's own entity row. */
  mentionId: string;
  decision: 'auto_merge' | 'flag_review' | 'create_new';
  probability: number;
  reviewId?: string;
  candidateEntityId?: string;
}

export interface ReviewRow {
  id: string;
  executionId: string;
  sourceEntityId: string;
  sourceEntityName: string;
  sourceEntityType: string;
  candidateEntityId: string;
  candidateEntityName: string;
  confidence: number;
  matchDetails: Record<string, unknown>;
  context: Record<string, unknown>;
  status: string;
  reviewedAt: string;
  createdAt: string;
}

export interface LogRow {
  id: string;
  executionId: string;
  action: string;
  sourceEntityId: string;
  sourceEntityName: string;
  sourceEntityType: string;
  targetEntityId: string;
  targetEntityName: string;
  confidence: number;
  matchMethod: string;
  matchDetails: Record<string, unknown>;
  isReversible: boolean;
  reversedAt: string;
  createdAt: string;
}

export interface DiscoveryRow {
  id: string;
  executionId: string;
  discoveryType: string;
  entityName: string;
  entityType: string;
  entityId: string;
  relationshipType: string;
  relatedEntityName: string;
  sourceConnector: string;
  sourceEndpoint: string;
  confidence: number;
  details: Record<string, unknown>;
  discoveredAt: string;
}

/** Named entities in free text, found by a language model (infra/llm-extractor.ts). */
export interface TextEntityExtractor {
  /** The model's name, reported with what it found. */
  readonly model: string;
  extract(
    texts: ReadonlyArray<{ index: number; field: string; text: string }>,
    entityTypes: readonly string[],
  ): Promise<Array<{ index: number; field: string; name: string; type: string; confidence: number }>>;
}

export interface GraphStore {
  /** Which adapter: `postgres` or `neo4j`. */
  readonly kind: string;
  resolve(
    owner: string,
    prov: Provenance,
    entities: readonly InputEntity[],
    thresholds: Thresholds,
  ): Promise<ResolvedOne[]>;
  entities(owner: string, ids: readonly string[]): Promise<EntityView[]>;
  listReviews(owner: string, status: string, limit: number): Promise<ReviewRow[]>;
  decideReview(
    owner: string,
    id: string,
    decision: 'approve' | 'reject' | 'not_a_match',
  ): Promise<{ review: ReviewRow; log?: LogRow }>;
  listLog(owner: string, action: string, limit: number): Promise<LogRow[]>;
  reverse(owner: string, logId: string): Promise<LogRow>;
  /** Take `memberId` (and what was merged under it) out of its entity: a user_split, reversible. */
  split(owner: string, memberId: string): Promise<LogRow>;
  listDiscoveries(owner: string, executionId: string, type: string, limit: number): Promise<DiscoveryRow[]>;
  discoveryStats(owner: string): Promise<{
    total: number;
    byType: Record<string, number>;
    byEntityType: Record<string, number>;
    entities: number;
    relationships: number;
    pendingReviews: number;
  }>;
  search(
    owner: string,
    queries: readonly string[],
    types: readonly string[],
    limit: number,
  ): Promise<EntityView[]>;
  /** Root entities and root-level edges around `seeds` (or of the whole namespace), at most `maxNodes` nodes. */
  subgraph(
    owner: string,
    seeds: readonly string[] | undefined,
    maxHops: number,
    maxNodes: number,
  ): Promise<{ nodes: EntityView[]; edges: RelationshipView[]; truncated: boolean }>;
  newEntitiesSince(
    owner: string,
    types: readonly string[],
    since: string,
    minConfidence: number,
    source: string,
    limit: number,
  ): Promise<Array<EntityView & { createdAt: string }>>;
  saveCommunities(owner: string, algorithm: string, communities: string[][]): Promise<void>;
}
