/** What the actions answer about an entity, and the settings they share. */
import { AppError } from '@af/service-kit';
import type { EntityView, GraphStore, ResolvedOne, TextEntityExtractor } from './ports.js';

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

/** The records of a call queued for review (`entities[i]` the record of `results[i]`). */
const ambiguousOut = (
  entities: ReadonlyArray<{ name: string; type: string }>,
  results: readonly ResolvedOne[],
) =>
  results.flatMap((r, i) =>
    r.decision === 'flag_review'
      ? [
          {
            name: entities[i]?.name ?? '',
            type: entities[i]?.type ?? '',
            entity_id: r.entityId,
            candidate_entity_id: r.candidateEntityId,
            review_id: r.reviewId,
            confidence: r.probability,
          },
        ]
      : [],
  );

/**
 * The results a resolve recorded in its call's receipt (`{results}`, ResolveReceipt): what a replay
 * answers from. A receipt of another shape is this service's fault, never the caller's.
 */
export function receiptResults(receipt: unknown): ResolvedOne[] {
  const results = (receipt as { results?: unknown } | null)?.results;
  if (
    !Array.isArray(results) ||
    results.some(
      (r) =>
        typeof r?.entityId !== 'string' ||
        typeof r?.mentionId !== 'string' ||
        typeof r?.decision !== 'string',
    )
  )
    throw new AppError('INTERNAL', 'the receipt of this call holds no resolve results');
  return results as ResolvedOne[];
}

/**
 * What a resolve answers: the entities the records belong to now, and the records queued for review.
 * `settled`: each result still names its record's root (one record, just resolved); otherwise (a
 * later record of the call may have bridged an earlier one's entity into another, a replay answers
 * after later merges) each record's root is read again.
 */
export async function resolvedOut(
  store: Pick<GraphStore, 'entities' | 'rootsOf'>,
  owner: string,
  entities: ReadonlyArray<{ name: string; type: string }>,
  given: readonly ResolvedOne[],
  settled = given.length <= 1,
) {
  let results = given;
  if (!settled) {
    const roots = await store.rootsOf(
      owner,
      given.map((r) => r.mentionId),
    );
    results = given.map((r) => ({ ...r, entityId: roots.get(r.mentionId) ?? r.entityId }));
  }
  // One record: its write gave the entity as it left it (PostgreSQL), nothing to read.
  const [only] = results;
  const views =
    settled && only?.view
      ? [only.view]
      : await store.entities(
          owner,
          results.map((r) => r.entityId),
        );
  return {
    resolved: views.map(entityOut),
    merge_count: results.filter((r) => r.decision === 'auto_merge').length,
    ambiguous: ambiguousOut(entities, results),
    count: views.length,
  };
}
