/**
 * One record against its candidates: the step both the in-memory batch
 * resolver and the service (candidates read from PostgreSQL) run, so
 * incremental and bulk resolution decide identically.
 */
import { bridgeThreshold, decide, effectiveThresholds, type Decision, type Thresholds } from './decision.js';
import type { NormalisedRecord } from './normalise.js';
import type { ExternalIds } from './record.js';
import { clusterLevels, compareLevels, idLevel, type Levels } from './levels.js';
import { weigh, type Comparison, type NameFrequency, type ScoringModel, tfValue } from './scoring.js';

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
  /**
   * For `auto_merge`: other clusters the record shows to be the same entity as the one it joins,
   * to merge into it too (each matched at or above `bridgeThreshold`, compatible with the chosen
   * cluster, and not ambiguous). Two partial records of one entity that could not match each other
   * become one when a fuller record matches both, as connected components of links do in Splink.
   */
  bridge?: Array<{ clusterId: string; probability: number }>;
}

/**
 * Log2 likelihood ratio by which the best cluster must beat another matching, incompatible cluster
 * for the record to choose between them itself (2^4 = 16 : 1, about what a shared city adds).
 */
export const AMBIGUITY_MARGIN = 4;

/** A record's comparison with one candidate cluster (through the cluster's best-matching member). */
export type ClusterObserver = (record: NormalisedRecord, best: Candidate, comparison: Comparison) => void;

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
    /** Sees the record's comparison with every candidate cluster (for fitting a calibration). */
    observe?: ClusterObserver;
  },
): Outcome {
  // Every candidate compared, grouped by cluster.
  const groups = new Map<string, Array<{ c: Candidate; lv: Levels; cmp: Comparison }>>();
  for (const c of candidates) {
    if (c.record.entityType !== record.entityType || c.record.recordId === record.recordId) continue;
    const lv = compareLevels(record, c.record);
    const cmp = weigh(record, c.record, lv, opts.freq, opts.model, opts.population);
    const g = groups.get(c.clusterId);
    if (g) g.push({ c, lv, cmp });
    else groups.set(c.clusterId, [{ c, lv, cmp }]);
  }
  let best: { c: Candidate; cmp: Comparison; p: number } | undefined;
  // The best cluster whose ids differ from the record's by one keyed character only (`nearIds`),
  // with the probability its other attributes give.
  let keyingError: { c: Candidate; cmp: Comparison; p: number } | undefined;
  // The best candidate of each other cluster, for the ambiguity check.
  const byCluster = new Map<string, { c: Candidate; p: number; weight: number }>();
  for (const [clusterId, members] of groups) {
    let top = members[0]!;
    for (const m of members) if (m.cmp.probability > top.cmp.probability) top = m;
    // Members carrying the record's exact name value: the entity's own duplicates of the name.
    const name = tfValue(record);
    let own = 0;
    for (const m of members) if (tfValue(m.c.record) === name) own++;
    // The record against the cluster: the best pair's names, the best of every other attribute.
    let cmp =
      members.length === 1 || top.cmp.conflict
        ? top.cmp
        : weigh(
            record,
            top.c.record,
            clusterLevels(
              top.lv,
              members.filter((m) => m !== top && !m.lv.conflict).map((m) => m.lv),
              record.entityType,
            ),
            opts.freq,
            opts.model,
            opts.population,
            own,
          );
    // The ids of the whole cluster, not only of its best record, decide the id level.
    if (!cmp.sharedId && !cmp.conflict && cmp.levels.external_id) {
      const level = idLevel(record.ids, top.c.clusterIds);
      if (level !== cmp.levels.external_id)
        cmp = weigh(
          record,
          top.c.record,
          { levels: { ...cmp.levels, external_id: level } },
          opts.freq,
          opts.model,
          opts.population,
          own,
        );
    }
    opts.observe?.(record, top.c, cmp);
    // A cluster whose ids conflict with the record's is no candidate at all, however alike the names.
    const conflicting = idsConflict(record.ids, top.c.clusterIds) !== undefined;
    const p = conflicting ? 0 : cmp.probability;
    if (!best || p > best.p) best = { c: top.c, cmp, p };
    byCluster.set(clusterId, { c: top.c, p, weight: cmp.weight });
    // Unless the ids are one keyed digit apart and everything else matches: a person decides.
    if (conflicting && nearIds(record.ids, top.c.clusterIds)) {
      const q = 1 / (1 + Math.pow(2, -cmp.weight));
      if (!keyingError || q > keyingError.p) keyingError = { c: top.c, cmp, p: q };
    }
  }
  if (!best) return { decision: 'create_new', probability: 0 };
  let decision = decide(best.p, best.p === 0 && best.cmp.conflict !== undefined, opts.thresholds);
  const t = effectiveThresholds(opts.thresholds);
  // A keying error is a better question for a person than a weaker match, so it is the item whichever
  // the review threshold: the queue at a lower threshold holds every item of a higher one.
  if (decision !== 'auto_merge' && keyingError && keyingError.p >= t.auto)
    return {
      decision: 'flag_review',
      probability: keyingError.p,
      clusterId: keyingError.c.clusterId,
      candidate: keyingError.c.record,
      comparison: keyingError.cmp,
    };
  // Two clusters that cannot be one entity (conflicting ids, other legal form, other state) both match
  // above the auto threshold and the record's evidence for the best is not `AMBIGUITY_MARGIN` bits
  // stronger: the record says too little to choose (a sibling foundation without its legal form, a
  // namesake without a state), so a person decides.
  if (decision === 'auto_merge') {
    const floor = t.auto;
    const bestWeight = byCluster.get(best.c.clusterId)!.weight;
    for (const [clusterId, other] of byCluster) {
      if (clusterId === best.c.clusterId || other.p < floor) continue;
      if (bestWeight - other.weight >= AMBIGUITY_MARGIN) continue;
      if (incompatible(best.c, other.c)) {
        decision = 'flag_review';
        break;
      }
    }
  }
  const bridge: Array<{ clusterId: string; probability: number }> = [];
  if (decision === 'auto_merge') {
    const floor = bridgeThreshold(t, record.entityType);
    for (const [clusterId, other] of byCluster) {
      if (clusterId === best.c.clusterId || other.p < floor) continue;
      if (incompatible(best.c, other.c)) continue;
      bridge.push({ clusterId, probability: other.p });
    }
  }
  return {
    decision,
    probability: best.p,
    clusterId: best.c.clusterId,
    candidate: best.c.record,
    comparison: best.cmp,
    ...(bridge.length > 0 ? { bridge } : {}),
  };
}

/**
 * Whether two id sets conflict only by keying errors: every kind both carry is equal or one
 * substituted character apart (`16-3066986` against `16-4066986`), and at least one kind is carried
 * by both. Such a conflict still forbids an automatic merge; it no longer forbids a review.
 */
export function nearIds(a: ExternalIds, b: ExternalIds): boolean {
  let compared = 0;
  for (const [kind, x] of Object.entries(a)) {
    const y = b[kind as keyof ExternalIds];
    if (!x || !y) continue;
    compared++;
    if (x === y) continue;
    if (x.length !== y.length) return false;
    let diff = 0;
    for (let i = 0; i < x.length && diff < 2; i++) if (x[i] !== y[i]) diff++;
    if (diff !== 1) return false;
  }
  return compared > 0;
}

/** Whether two candidates' clusters are certainly distinct entities. */
function incompatible(a: Candidate, b: Candidate): boolean {
  if (idsConflict(a.clusterIds, b.clusterIds)) return true;
  const fa = a.record.org?.legalForm;
  const fb = b.record.org?.legalForm;
  if (fa && fb && fa !== fb) return true;
  return Boolean(a.record.state && b.record.state && a.record.state !== b.record.state);
}
