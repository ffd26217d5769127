/**
 * In-memory resolver for batch loads, the CLI and the bench: records are
 * resolved one at a time against everything seen before (incremental by
 * construction), through the same `resolveOne` the service uses.
 */
import { BlockIndex, blockKeys, DEFAULT_BLOCKING, type BlockIndexOptions } from './blocking.js';
import { DEFAULT_THRESHOLDS, type Decision, type Thresholds } from './decision.js';
import type { NormalisedRecord } from './normalise.js';
import type { ExternalIds } from './record.js';
import { resolveOne, type Candidate, type Outcome } from './resolve-one.js';
import { DEFAULT_MODEL, tfValue, type ScoringModel } from './scoring.js';

export interface Resolution {
  recordId: string;
  /** The cluster the record belongs to after this step (its own id when new or under review). */
  clusterId: string;
  decision: Decision;
  probability: number;
  /** For `flag_review`: the cluster the record may belong to. */
  reviewClusterId?: string;
  outcome: Outcome;
}

export interface ResolverOptions {
  thresholds?: Thresholds;
  blocking?: BlockIndexOptions;
  model?: ScoringModel;
}

export class Resolver {
  private readonly records: NormalisedRecord[] = [];
  private readonly parent: number[] = [];
  private readonly clusterIds = new Map<number, ExternalIds>();
  private readonly index: BlockIndex;
  private readonly nameCounts = new Map<string, number>();
  private readonly typeCounts = new Map<string, number>();
  /** Name frequencies were counted over the whole input up front (batch), so `add` does not count again. */
  private primed = false;

  constructor(private readonly opts: ResolverOptions = {}) {
    this.index = new BlockIndex(opts.blocking ?? DEFAULT_BLOCKING);
  }

  /**
   * Batch mode: count name frequencies over the whole input before resolving,
   * as Splink computes its term-frequency tables, so the first records are
   * scored with the same frequencies as the last.
   */
  primeFrequencies(records: Iterable<NormalisedRecord>): void {
    for (const r of records) this.count(r);
    this.primed = true;
  }

  get size(): number {
    return this.records.length;
  }

  add(record: NormalisedRecord): Resolution {
    const pos = this.records.length;
    const keys = blockKeys(record);
    const candidates: Candidate[] = this.index.candidates(keys).map((p) => {
      const root = this.find(p);
      return {
        record: this.records[p]!,
        clusterId: this.records[root]!.recordId,
        clusterIds: this.clusterIds.get(root) ?? {},
      };
    });
    if (!this.primed) this.count(record);
    const outcome = resolveOne(record, candidates, {
      thresholds: this.opts.thresholds ?? DEFAULT_THRESHOLDS,
      freq: (type, canonical) => this.frequency(type, canonical),
      model: this.opts.model ?? DEFAULT_MODEL,
      population: this.population(record.entityType),
    });
    this.records.push(record);
    this.parent.push(pos);
    this.clusterPos.set(record.recordId, pos);
    this.clusterIds.set(pos, { ...record.ids });
    this.index.add(pos, keys);
    let clusterId = record.recordId;
    if (outcome.decision === 'auto_merge' && outcome.clusterId !== undefined) {
      const root = this.find(this.positionOfCluster(outcome.clusterId));
      this.parent[pos] = root;
      this.clusterIds.set(root, { ...record.ids, ...this.clusterIds.get(root) });
      this.clusterIds.delete(pos);
      clusterId = this.records[root]!.recordId;
    }
    return {
      recordId: record.recordId,
      clusterId,
      decision: outcome.decision,
      probability: outcome.probability,
      ...(outcome.decision === 'flag_review' && outcome.clusterId
        ? { reviewClusterId: outcome.clusterId }
        : {}),
      outcome,
    };
  }

  /** Current cluster of every record, in input order. */
  clusters(): Array<{ recordId: string; clusterId: string }> {
    return this.records.map((r, i) => ({
      recordId: r.recordId,
      clusterId: this.records[this.find(i)]!.recordId,
    }));
  }

  private readonly clusterPos = new Map<string, number>();

  private positionOfCluster(clusterId: string): number {
    const known = this.clusterPos.get(clusterId);
    if (known !== undefined) return known;
    throw new Error(`unknown cluster ${clusterId}`);
  }

  private find(p: number): number {
    const parent = this.parent;
    while (parent[p] !== p) {
      const up = parent[parent[p]!]!;
      parent[p] = up;
      p = up;
    }
    return p;
  }

  private count(r: NormalisedRecord): void {
    const key = `${r.entityType}|${tfValue(r)}`;
    this.nameCounts.set(key, (this.nameCounts.get(key) ?? 0) + 1);
    this.typeCounts.set(r.entityType, (this.typeCounts.get(r.entityType) ?? 0) + 1);
  }

  /** Records of the type in the population (all input when primed); undefined until the estimate is stable. */
  population(type: string): number | undefined {
    const total = this.typeCounts.get(type) ?? 0;
    return total < 1000 ? undefined : total;
  }

  /** Share of records of the type with this canonical name; undefined until enough records give a stable estimate. */
  frequency(type: string, value: string): number | undefined {
    const total = this.typeCounts.get(type) ?? 0;
    if (total < 1000) return undefined;
    // The other records carrying the value: a pair's own two occurrences are no evidence against it.
    return Math.max(0, (this.nameCounts.get(`${type}|${value}`) ?? 0) - 1) / total;
  }
}
