/**
 * One record against its candidates: the step both the in-memory batch
 * resolver and the service (candidates read from PostgreSQL) run, so
 * incremental and bulk resolution decide identically.
 */
import { decide, type Decision, type Thresholds } from './decision.js';
import type { NormalisedRecord } from './normalise.js';
import type { ExternalIds } from './record.js';
import { comparePair, type Comparison, type NameFrequency, type ScoringModel } from './scoring.js';

export interface Candidate {
  record: NormalisedRecord;
  /** The entity (cluster) the candidate belongs to now. */
  clusterId: string;
  /** Every id the candidate's cluster holds: a record conflicting with any of them cannot join it. */
  clusterIds: ExternalIds;
}

export interface Outcome {
  decision: Decision;
  probability: number;
  /** The best candidate's cluster, when any candidate was scored. */
  clusterId?: string;
  candidate?: NormalisedRecord;
  comparison?: Comparison;
}

export function idsConflict(a: ExternalIds, b: ExternalIds): string | undefined {
  for (const [kind, v] of Object.entries(a)) {
    const other = b[kind as keyof ExternalIds];
    if (v && other && v !== other) return kind;
  }
  return undefined;
}

export function resolveOne(
  record: NormalisedRecord,
  candidates: readonly Candidate[],
  opts: { thresholds: Thresholds; freq?: NameFrequency; model?: ScoringModel },
): Outcome {
  let best: { c: Candidate; cmp: Comparison; p: number } | undefined;
  for (const c of candidates) {
    if (c.record.entityType !== record.entityType || c.record.recordId === record.recordId) continue;
    const cmp = comparePair(record, c.record, opts.freq, opts.model);
    // A cluster whose ids conflict with the record's is no candidate at all, however alike the names.
    const p = idsConflict(record.ids, c.clusterIds) ? 0 : cmp.probability;
    if (!best || p > best.p) best = { c, cmp, p };
  }
  if (!best) return { decision: 'create_new', probability: 0 };
  const decision = decide(best.p, best.p === 0 && best.cmp.conflict !== undefined, opts.thresholds);
  return {
    decision,
    probability: best.p,
    clusterId: best.c.clusterId,
    candidate: best.c.record,
    comparison: best.cmp,
  };
}
