/**
 * What the resolution flow writes to the resolution log, the entry of a
 * review approved as a merge, and a stored entry read back for reversal: one
 * definition for the PostgreSQL and Neo4j stores, which differ only in how
 * they write and read it.
 */
import type { ReviewRow, StoredDecision } from './ports.js';

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

/** A stored log entry (the `resolution_log` columns, as both stores name them) for its reversal. */
export function storedDecision(r: {
  id: string;
  action: string;
  is_reversible?: unknown;
  reversed_at?: unknown;
  link_child?: string | null;
  link_parent?: string | null;
  link_owner?: string | null;
}): StoredDecision {
  return {
    id: r.id,
    action: r.action,
    reversible: Boolean(r.is_reversible),
    reversed: Boolean(r.reversed_at),
    linkChild: r.link_child ?? null,
    linkParent: r.link_parent ?? null,
    linkOwner: r.link_owner ?? null,
  };
}
