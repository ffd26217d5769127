/**
 * One record against its candidates: the step both the in-memory batch
 * resolver and the service (candidates read from PostgreSQL) run, so
 * incremental and bulk resolution decide identically.
 */
import { decide, effectiveThresholds, type Decision, type Thresholds } from './decision.js';
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
  opts: {
    thresholds: Thresholds;
    freq?: NameFrequency;
    model?: ScoringModel;
    /** Records of the record's type resolved against (scales the prior); unknown: the model's own. */
    population?: number;
  },
): Outcome {
  let best: { c: Candidate; cmp: Comparison; p: number } | undefined;
  // The best candidate of each other cluster, for the ambiguity check.
  const byCluster = new Map<string, { c: Candidate; p: number }>();
  for (const c of candidates) {
    if (c.record.entityType !== record.entityType || c.record.recordId === record.recordId) continue;
    const cmp = comparePair(record, c.record, opts.freq, opts.model, opts.population);
    // A cluster whose ids conflict with the record's is no candidate at all, however alike the names.
    const p = idsConflict(record.ids, c.clusterIds) ? 0 : cmp.probability;
    if (!best || p > best.p) best = { c, cmp, p };
    const seen = byCluster.get(c.clusterId);
    if (!seen || p > seen.p) byCluster.set(c.clusterId, { c, p });
  }
  if (!best) return { decision: 'create_new', probability: 0 };
  let decision = decide(best.p, best.p === 0 && best.cmp.conflict !== undefined, opts.thresholds);
  // Two clusters that cannot be one entity (conflicting ids, other legal form, other state) both match
  // above the auto threshold: the record says too little to choose (a sibling foundation without its
  // legal form, a namesake without a state), so a person decides.
  if (decision === 'auto_merge') {
    const floor = effectiveThresholds(opts.thresholds).auto;
    for (const [clusterId, other] of byCluster) {
      if (clusterId === best.c.clusterId || other.p < floor) continue;
      if (incompatible(best.c, other.c)) {
        decision = 'flag_review';
        break;
      }
    }
  }
  return {
    decision,
    probability: best.p,
    clusterId: best.c.clusterId,
    candidate: best.c.record,
    comparison: best.cmp,
  };
}

/** Whether two candidates' clusters are certainly distinct entities. */
function incompatible(a: Candidate, b: Candidate): boolean {
  if (idsConflict(a.clusterIds, b.clusterIds)) return true;
  const fa = a.record.org?.legalForm;
  const fb = b.record.org?.legalForm;
  if (fa && fb && fa !== fb) return true;
  return Boolean(a.record.state && b.record.state && a.record.state !== b.record.state);
}
