/**
 * The records of one entity type resolved by their own `Resolver`: what a
 * worker thread of `ParallelResolver` runs (or the main thread, with one
 * thread). Records of different types are never merged and their term
 * statistics are per type, so each type can be resolved on its own.
 */
import type { Decision } from './decision.js';
import { normaliseRecord } from './normalise.js';
import type { ErRecord } from './record.js';
import { Resolver, type ResolverOptions } from './resolver.js';

/** Decisions as small numbers (one byte per record). */
export const DECISIONS: readonly Decision[] = ['create_new', 'auto_merge', 'flag_review'];
const DECISION_CODE: Record<Decision, number> = { create_new: 0, auto_merge: 1, flag_review: 2 };

export interface PartitionReview {
  /** Position of the record among the partition's records (input order). */
  position: number;
  recordId: string;
  /** The record the best match was found in (its cluster is `reviewClusterId`). */
  candidateId: string;
  reviewClusterId: string;
  /** Position of that cluster's root among the partition's records when the record was decided. */
  candidatePosition: number;
  probability: number;
  /**
   * False once a later record bridged the record's cluster and the candidate's (set by `finish`):
   * the question is answered (the service closes such items as `auto_merged`).
   */
  open: boolean;
}

export interface PartitionResult {
  type: string;
  records: number;
  /** Position of every record's cluster root among the partition's records. */
  roots: Int32Array;
  /** Index into `DECISIONS` per record. */
  decisions: Uint8Array;
  /** Milliseconds of each `Resolver.add` (normalisation not included). */
  latencyMs: Float64Array;
  reviews: PartitionReview[];
  normaliseMs: number;
  primeMs: number;
  resolveMs: number;
}

export class Partition {
  private readonly resolver: Resolver;
  private n = 0;
  private decisions = new Uint8Array(1024);
  private latency = new Float64Array(1024);
  private readonly reviews: PartitionReview[] = [];
  private normaliseMs = 0;
  private primeMs = 0;
  private resolveMs = 0;

  constructor(
    readonly type: string,
    opts: ResolverOptions = {},
  ) {
    this.resolver = new Resolver(opts);
  }

  get size(): number {
    return this.n;
  }

  /** Batch mode: count the record's name value before any record is resolved. */
  prime(raw: ErRecord): void {
    this.check(raw);
    const t0 = performance.now();
    this.resolver.primeFrequencies([normaliseRecord(raw).record]);
    this.primeMs += performance.now() - t0;
  }

  add(raw: ErRecord): void {
    this.check(raw);
    const t0 = performance.now();
    const record = normaliseRecord(raw).record;
    const t1 = performance.now();
    const res = this.resolver.add(record);
    const t2 = performance.now();
    this.normaliseMs += t1 - t0;
    this.resolveMs += t2 - t1;
    if (this.n === this.decisions.length) this.grow();
    this.decisions[this.n] = DECISION_CODE[res.decision];
    this.latency[this.n] = t2 - t1;
    if (res.decision === 'flag_review' && res.reviewClusterId !== undefined)
      this.reviews.push({
        position: this.n,
        recordId: res.recordId,
        candidateId: res.outcome.candidate?.recordId ?? res.reviewClusterId,
        reviewClusterId: res.reviewClusterId,
        candidatePosition: res.reviewClusterPosition!,
        probability: res.probability,
        open: true,
      });
    this.n++;
  }

  finish(): PartitionResult {
    return {
      type: this.type,
      records: this.n,
      roots: this.resolver.rootPositions(),
      decisions: this.decisions.slice(0, this.n),
      latencyMs: this.latency.slice(0, this.n),
      // A review item whose record a later bridge put in the candidate's cluster is answered.
      reviews: this.reviews.map((v) => ({ ...v, open: !this.resolver.together(v.position, v.candidatePosition) })),
      normaliseMs: this.normaliseMs,
      primeMs: this.primeMs,
      resolveMs: this.resolveMs,
    };
  }

  private check(raw: ErRecord): void {
    if (raw.entityType !== this.type)
      throw new Error(`record ${raw.recordId} is ${raw.entityType}, not ${this.type}`);
  }

  private grow(): void {
    const d = new Uint8Array(this.decisions.length * 2);
    d.set(this.decisions);
    this.decisions = d;
    const l = new Float64Array(this.latency.length * 2);
    l.set(this.latency);
    this.latency = l;
  }
}
