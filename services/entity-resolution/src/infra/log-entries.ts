/**
 * What both graph stores write to the resolution log, and the entry of a
 * review approved as a merge: one definition for the PostgreSQL and Neo4j
 * stores, which differ only in how they write it.
 */
import type { ReviewRow } from '../app/ports.js';

export interface LogEntry {
  owner: string;
  executionId: string;
  action: string;
  sourceId: string;
  sourceName: string;
  sourceType: string;
  targetId: string | null;
  targetName: string;
  confidence: number;
  method: string;
  details: Record<string, unknown>;
  link?: { child: string; parent: string };
  reversible: boolean;
  /** Set when the caller linked with this id first. */
  id?: string;
  /** A split: the merge decision whose link it removed. */
  linkOwner?: string | null;
}

/** The `user_merge` entry of review `reviewId`, approved: `child`'s root linked under `parent`'s with `logId`. */
export function userMergeEntry(owner: string, reviewId: string, review: ReviewRow, link: { child: string; parent: string }, logId: string): LogEntry {
  return {
    id: logId,
    owner,
    executionId: review.executionId,
    action: 'user_merge',
    sourceId: link.child,
    sourceName: review.sourceEntityName,
    sourceType: review.sourceEntityType,
    targetId: link.parent,
    targetName: review.candidateEntityName,
    confidence: review.confidence,
    method: 'user',
    details: { review_id: reviewId, ...review.matchDetails },
    link,
    reversible: true,
  };
}
