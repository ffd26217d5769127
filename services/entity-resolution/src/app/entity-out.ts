/** What the actions answer about an entity, and the settings they share. */
import type { EntityView, TextEntityExtractor } from './ports.js';

export interface ActionSettings {
  /** Largest `max_nodes` analyze_graph accepts. */
  maxAnalyzeNodes: number;
  autoThreshold: number;
  reviewThreshold: number;
  /** When set, `extract_entities` on free text asks this model (else rule-based). */
  extractor?: TextEntityExtractor;
}

export const entityOut = (v: EntityView) => ({
  entity_id: v.id,
  name: v.name,
  canonical_name: v.canonicalName,
  type: v.type,
  subtype: v.subtype,
  aliases: v.aliases,
  external_ids: v.externalIds,
  confidence: v.confidence,
  merge_count: v.mergeCount,
});
