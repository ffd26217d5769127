/**
 * In-memory resolver for batch loads, the CLI and the bench: records are
 * resolved one at a time against everything seen before (incremental by
 * construction), through the same `resolveOne` the service uses.
 */
import {
  BlockIndex,
  blockKeys,
  capPerCluster,
  DEFAULT_BLOCKING,
  rankPool,
  type BlockIndexOptions,
} from './blocking.js';
import { DEFAULT_THRESHOLDS, type Decision, type Thresholds } from './decision.js';
import type { NormalisedRecord } from './normalise.js';
import type { ExternalIds } from './record.js';
import { resolveOne, type Candidate, type ClusterObserver, type Outcome } from './resolve-one.js';
import { DEFAULT_MODEL, tfValue, type ScoringModel } from './scoring.js';
import { statsPopulation, termFrequency } from './term-stats.js';

export interface Resolution {
  recordId: string;
  /** The cluster the record belongs to after this step (its own id when new or under review). */
  clusterId: string;
  decision: Decision;
  probability: number;
  /** For `flag_review`: the cluster the record may belong to. */
  reviewClusterId?: string;
  /** For `flag_review`: that cluster's root position (input order among the added records). */
  reviewClusterPosition?: number;
  outcome: Outcome;
}

export interface ResolverOptions {
  thresholds?: Thresholds;
  blocking?: BlockIndexOptions;
  model?: ScoringModel;
  /** Sees every record's comparison with each candidate cluster (the calibration fit reads it). */
  observe?: ClusterObserver;
}

const NO_IDS: ExternalIds = Object.freeze({});

export class Resolver {
  private readonly records: NormalisedRecord[] = [];
  private readonly parent: number[] = [];
  private readonly clusterIds = new Map<number, ExternalIds>();
  private readonly index: BlockIndex;
  private readonly blocking: BlockIndexOptions;
  private readonly nameCounts = new Map<string, number>();
  private readonly typeCounts = new Map<string, number>();
  /** Name frequencies were counted over the whole input up front (batch), so `add` does not count again. */
  private primed = false;

  constructor(private readonly opts: ResolverOptions = {}) {
    this.blocking = opts.blocking ?? DEFAULT_BLOCKING;
    this.index = new BlockIndex(this.blocking);
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

  add(input: NormalisedRecord): Resolution {
    const record = this.compact(input);
    const pos = this.records.length;
    const keys = blockKeys(record);
    // Cluster id → root position, for the candidates of this record only (no index over all clusters).
    const roots = new Map<string, number>();
    const ranked = this.index.candidates(keys, rankPool(this.blocking));
    const pool = ranked.filter((p) => this.records[p]!.entityType === record.entityType);
    const candidates: Candidate[] = capPerCluster(pool, (p) => this.find(p), this.blocking).map((p) => {
      const root = this.find(p);
      const clusterId = this.records[root]!.recordId;
      roots.set(clusterId, root);
      return { record: this.records[p]!, clusterId, clusterIds: this.clusterIds.get(root) ?? NO_IDS };
    });
    if (!this.primed) this.count(record);
    const outcome = resolveOne(record, candidates, {
      thresholds: this.opts.thresholds ?? DEFAULT_THRESHOLDS,
      freq: (type, canonical) => this.frequency(type, canonical),
      model: this.opts.model ?? DEFAULT_MODEL,
      population: this.population(record.entityType),
      ...(this.opts.observe ? { observe: this.opts.observe } : {}),
    });
    this.records.push(record);
    this.parent.push(pos);
    // Only clusters holding ids get an entry (most people carry none): memory stays flat at 1M records.
    const hasIds = Object.keys(record.ids).length > 0;
    if (hasIds) this.clusterIds.set(pos, { ...record.ids });
    this.index.add(pos, keys);
    let clusterId = record.recordId;
    if (outcome.decision === 'auto_merge' && outcome.clusterId !== undefined) {
      const root = roots.get(outcome.clusterId);
      if (root === undefined) throw new Error(`unknown cluster ${outcome.clusterId}`);
      this.join(pos, root);
      clusterId = this.records[root]!.recordId;
      // Clusters the record bridges join its cluster too.
      for (const { clusterId: other } of outcome.bridge ?? []) {
        const r = roots.get(other);
        if (r !== undefined && this.find(r) !== root) this.join(r, root);
      }
    }
    return {
      recordId: record.recordId,
      clusterId,
      decision: outcome.decision,
      probability: outcome.probability,
      ...(outcome.decision === 'flag_review' && outcome.clusterId
        ? { reviewClusterId: outcome.clusterId, reviewClusterPosition: roots.get(outcome.clusterId)! }
        : {}),
      outcome,
    };
  }

  /** Whether the records at two positions are in one cluster now. */
  together(a: number, b: number): boolean {
    return this.find(a) === this.find(b);
  }

  /** The position (input order) of every record's cluster root, compactly (no objects per record). */
  rootPositions(): Int32Array {
    const out = new Int32Array(this.records.length);
    for (let i = 0; i < out.length; i++) out[i] = this.find(i);
    return out;
  }

  /** Current cluster of every record, in input order. */
  clusters(): Array<{ recordId: string; clusterId: string }> {
    return this.records.map((r, i) => ({
      recordId: r.recordId,
      clusterId: this.records[this.find(i)]!.recordId,
    }));
  }

  /** One copy of every repeated string (places, titles, first names, tokens) and no empty id objects. */
  private readonly strings = new Map<string, string>();
  private intern(s: string): string {
    if (s.length === 0) return '';
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    if (this.strings.size < 4_000_000) this.strings.set(s, s);
    return s;
  }

  private compact(r: NormalisedRecord): NormalisedRecord {
    const i = (s: string) => this.intern(s);
    const person = r.person
      ? {
          first: i(r.person.first),
          middle: i(r.person.middle),
          last: i(r.person.last),
          canonical: r.person.canonical,
        }
      : undefined;
    const org = r.org
      ? { core: r.org.core, legalForm: i(r.org.legalForm), canonical: r.org.canonical }
      : undefined;
    return {
      recordId: r.recordId,
      entityType: r.entityType,
      name: r.name,
      canonical: person?.canonical ?? org?.canonical ?? r.canonical,
      tokens: r.tokens.map(i),
      ...(person ? { person } : {}),
      ...(org ? { org } : {}),
      ids: Object.keys(r.ids).length > 0 ? r.ids : NO_IDS,
      city: i(r.city),
      state: i(r.state),
      employer: i(r.employer),
      title: i(r.title),
      source: i(r.source),
      ...(r.context ? { context: r.context.map(i) } : {}),
    };
  }

  /** Puts the cluster rooted at `child` under `root`; the root keeps its ids and takes the child's others. */
  private join(child: number, root: number): void {
    const ids = this.clusterIds.get(child);
    if (ids) {
      this.clusterIds.set(root, { ...ids, ...this.clusterIds.get(root) });
      this.clusterIds.delete(child);
    }
    this.parent[child] = root;
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
    return statsPopulation(this.typeCounts.get(type) ?? 0);
  }

  /** Share of records of the type with this canonical name; undefined until enough records give a stable estimate. */
  frequency(type: string, value: string): number | undefined {
    // The other records carrying the value: a pair's own two occurrences are no evidence against it.
    return termFrequency((this.nameCounts.get(`${type}|${value}`) ?? 0) - 1, this.typeCounts.get(type) ?? 0);
  }
}
