/**
 * The graph-store port as one use case over either storage adapter: a record
 * is normalised and blocked, its candidates and term statistics are read from
 * the stored graph, the domain decides (resolve-one.ts), and the decision is
 * applied — a merge link, a review item, or a new entity — with its log entry
 * and discoveries. Review decisions, reversals and splits are the same flow
 * for both stores too. The adapters (PostgreSQL, Neo4j) only store: each call
 * here is one of their write transactions, except one record without
 * relationships, which is a session: its reads, then its decision as one
 * write (a transaction only when it bridges entities). An action call's
 * receipt (ResolveReceipt) is written in that same write where the store
 * keeps the graph beside the action records (PostgreSQL).
 */
import { randomUUID } from 'node:crypto';
import { AppError, ReceiptSuperseded } from '@af/service-kit';
import { BLOCK_KEYS_VERSION, blockKeys, capPerCluster, DEFAULT_BLOCKING, rankCandidates, rankPool } from '../domain/blocking.js';
import type { Thresholds } from '../domain/decision.js';
import { NEIGHBOUR_HUB_DEGREE, withNeighbours, type Neighbour } from '../domain/neighbours.js';
import { normaliseRecord, type NormalisedRecord } from '../domain/normalise.js';
import type { ExternalIds } from '../domain/record.js';
import { resolveOne, type Candidate } from '../domain/resolve-one.js';
import { DEFAULT_MODEL, type ScoringModel } from '../domain/scoring.js';
import { statsPopulation, storedFrequency, termKeys, tfKey } from '../domain/term-stats.js';
import { userMergeEntry } from './log-entries.js';
import { planRecord, type Bridge, type Plan } from './resolution-plan.js';
import type {
  EntityView,
  GraphReads,
  GraphStorage,
  GraphStore,
  GraphWrites,
  InputEntity,
  LogRow,
  MentionDecision,
  Provenance,
  ResolvedOne,
  ResolveReads,
  ResolveReceipt,
  ReviewRow,
} from './ports.js';

/** The block keys plus the term-frequency key (counted by termStats, never searched as a block). */
const storedKeys = (record: NormalisedRecord, keys = blockKeys(record)) => [...keys, tfKey(record)];

/** Entities of a type per owner as last counted, and whether a recount is running. */
interface Population {
  n: number;
  at: number;
  recounting?: boolean;
}

/** How long a counted population is trusted before it is counted again (inserts by this process keep it current meanwhile). */
const POPULATION_TTL_MS = 60_000;

/**
 * Pending review items whose two entities a merge (`logId`: a bridge, an approved review) has just
 * put under one root: the question is answered, so they are closed as `auto_merged`, with the
 * decision that answered them in their context.
 */
async function closeJoinedReviews(tx: GraphWrites, owner: string, root: string, logId: string): Promise<void> {
  for (const r of await tx.lockPendingReviewsWithin(owner, root))
    await tx.setReviewStatus(owner, r.id, 'auto_merged', { ...r.context, merged_by: logId });
}

export class GraphResolution implements GraphStore {
  readonly kind: string;
  readonly receipts: boolean;
  /** Entities of a type per owner: counted once, then kept current by this process's inserts, recounted after a minute. */
  private readonly populations = new Map<string, Population>();

  constructor(
    private readonly storage: GraphStorage,
    /** The scoring model: the deployment's own (ER_MODEL_FILE, written by `er fit`) or the shipped one. */
    private readonly model: ScoringModel = DEFAULT_MODEL,
  ) {
    this.kind = storage.kind;
    this.receipts = storage.receipts;
  }

  /**
   * Up to `limit` entities keyed with older block keys keyed again, then (within the same `limit`)
   * entities stored before their term-frequency key was kept on their row given it: how many.
   */
  async rekeyStale(limit: number): Promise<number> {
    return this.storage.write(async (tx) => {
      const stale = await tx.staleKeyed(BLOCK_KEYS_VERSION, limit);
      for (const e of stale) await tx.rekey(e.owner, e.id, storedKeys(e.record), BLOCK_KEYS_VERSION, tfKey(e.record));
      const bare = stale.length < limit ? await tx.withoutTermKey(limit - stale.length) : [];
      if (bare.length > 0) await tx.setTermKeys(bare.map((e) => ({ owner: e.owner, id: e.id, termKey: tfKey(e.record) })));
      return stale.length + bare.length;
    });
  }

  async resolve(
    owner: string,
    prov: Provenance,
    inputs: readonly InputEntity[],
    thresholds: Thresholds,
    receipt?: ResolveReceipt,
  ): Promise<ResolvedOne[]> {
    // The call's receipt goes into this write when the store can commit it with the graph.
    const kept = this.storage.receipts ? receipt : undefined;
    const out = await this.resolveWith(owner, prov, inputs, thresholds, kept);
    if (kept?.final) kept.call.completed = true;
    return out;
  }

  private async resolveWith(
    owner: string,
    prov: Provenance,
    inputs: readonly InputEntity[],
    thresholds: Thresholds,
    receipt: ResolveReceipt | undefined,
  ): Promise<ResolvedOne[]> {
    const allowed = this.storage.relationshipType;
    if (allowed)
      for (const [i, input] of inputs.entries())
        for (const [k, rel] of (input.relationships ?? []).entries())
          if (!allowed.test(rel.type))
            throw AppError.invalid(`inputs.entities[${i}].relationships[${k}].type`, 'relationship types are UPPER_SNAKE_CASE');
    const [only] = inputs;
    if (inputs.length === 1 && only && !only.relationships?.length)
      // One record: its reads need no transaction (each reads what is committed, as it would inside one),
      // and its decision is one statement unless the record bridges entities.
      return this.storage.session(async (s) => {
        const plan = await this.decide(s, owner, prov, only, thresholds);
        if (!plan.bridge) {
          const view = await this.store(s, plan, receipt && { call: receipt.call, body: receipt.body([plan.result]), final: receipt.final }, true);
          return [view ? { ...plan.result, view } : plan.result];
        }
        return s.transaction(async (tx) => this.withReceipt(tx, receipt, [await this.apply(tx, plan)]));
      });
    return this.storage.write(async (tx) => {
      const out: ResolvedOne[] = [];
      for (const input of inputs) {
        // Each end of a relationship is the other's context (neighbours.ts): the targets by name, the
        // subject, resolved first, by its entity.
        const rels = input.relationships ?? [];
        const targets = rels.map((rel) => normaliseRecord(rel.target).record);
        const one = await this.apply(tx, await this.decide(tx, owner, prov, input, thresholds, targets.map((record) => ({ record }))));
        out.push(one);
        const subject = [{ entityId: one.entityId }];
        for (const [k, rel] of rels.entries()) {
          const target = await this.apply(tx, await this.decide(tx, owner, prov, rel.target, thresholds, subject, targets[k]));
          await tx.relate(owner, one.mentionId, target.mentionId, rel.type, rel.properties ?? {});
          await tx.discover(owner, prov, {
            type: 'new_relationship',
            name: input.name,
            entityType: input.entityType,
            entityId: one.entityId,
            relationshipType: rel.type,
            related: rel.target.name,
          });
        }
      }
      return this.withReceipt(tx, receipt, out);
    });
  }

  /** `results`, once the call's receipt is written in `tx` (none to write: as they are). */
  private async withReceipt(tx: GraphWrites, receipt: ResolveReceipt | undefined, results: ResolvedOne[]): Promise<ResolvedOne[]> {
    if (receipt && !(await tx.writeReceipt(receipt.call, receipt.body(results), receipt.final))) throw new ReceiptSuperseded(receipt.call.key);
    return results;
  }

  /** What storing `input` writes, decided from the stored graph (reads only). */
  private async decide(
    tx: ResolveReads,
    owner: string,
    prov: Provenance,
    input: InputEntity,
    thresholds: Thresholds,
    /** The records `input` is related to in this call: compared with the candidates' stored neighbours. */
    neighbours: readonly Neighbour[] = [],
    /** `input` normalised, when the caller has it already. */
    plain: NormalisedRecord = normaliseRecord(input).record,
  ): Promise<Plan> {
    const record = withNeighbours(plain, neighbours);
    const keys = blockKeys(plain);
    const { candidates, names, termCounts } = await this.candidates(tx, owner, record, keys, record !== plain);
    // The same term frequencies and population scaling as a batch load, from the stored graph.
    const stats = await this.termStats(tx, owner, record, candidates, termCounts);
    const outcome = resolveOne(record, candidates, {
      thresholds,
      model: this.model,
      freq: storedFrequency(record, stats.counts, stats.population),
      population: statsPopulation(stats.population),
    });
    const against = outcome.decision !== 'create_new' ? outcome.clusterId : undefined;
    return planRecord({
      owner,
      prov,
      input,
      plain,
      record,
      keys: storedKeys(record, keys),
      outcome,
      targetName: against ? (names.get(against) ?? (await tx.nameOf(owner, against))) : '',
    });
  }

  /** The plan's writes: the mention with its decision (one write), then any bridges. */
  private async apply(tx: GraphWrites, plan: Plan): Promise<ResolvedOne> {
    await this.store(tx, plan);
    if (plan.bridge) await this.bridge(tx, plan.mention.id, plan.bridge);
    return plan.result;
  }

  /**
   * The mention and its decision (link or review item, log entry, discovery), with the call's receipt
   * when given: one write. `withView`: the entity as the write left it, where the store reads it with the write.
   */
  private async store(
    tx: Pick<GraphWrites, 'insertMention'>,
    plan: Plan,
    receipt?: MentionDecision['receipt'],
    withView = false,
  ): Promise<EntityView | undefined> {
    const { written, view } = await tx.insertMention(plan.mention, receipt ? { ...plan.decision, receipt } : plan.decision, withView);
    if (!written) throw new ReceiptSuperseded(receipt!.call.key);
    this.bumpPopulation(plan.mention.owner, plan.mention.record.entityType);
    return view;
  }

  /** Entities the record shows to be the one it merged into too: each merged by its own reversible decision. */
  private async bridge(tx: GraphWrites, id: string, b: Bridge): Promise<void> {
    const { owner } = b.base;
    for (const e of b.entities) {
      const child = await tx.rootOf(owner, e.clusterId);
      const root = await tx.rootOf(owner, b.into);
      if (!child || !root || child === root) continue;
      const bridgeId = randomUUID();
      await tx.link(owner, child, root, root, bridgeId);
      const childName = await tx.nameOf(owner, child);
      await tx.log(
        {
          ...b.base,
          id: bridgeId,
          action: 'auto_merge',
          sourceId: child,
          sourceName: childName,
          targetId: root,
          targetName: b.targetName,
          confidence: e.probability,
          method: 'bridge',
          details: { probability: e.probability, bridged_by: id, bridged_by_name: b.name },
          link: { child, parent: root },
          reversible: true,
        },
        {
          prov: b.prov,
          discovery: { type: 'entity_merge', name: childName, entityType: b.entityType, entityId: root, related: b.targetName, confidence: e.probability },
        },
      );
      await closeJoinedReviews(tx, owner, root, bridgeId);
    }
  }

  /**
   * Candidates through the block keys, ranked and bounded exactly as the in-memory BlockIndex does;
   * `withContext`: each with the neighbours of its entity (its members' relationships), hubs left out.
   * With the names of their entities (a merge or a review names the entity it joins).
   */
  private async candidates(
    tx: ResolveReads,
    owner: string,
    record: NormalisedRecord,
    keys: string[],
    withContext: boolean,
  ): Promise<{ candidates: Candidate[]; names: Map<string, string>; termCounts: Map<string, number> }> {
    const none = { candidates: [], names: new Map<string, string>(), termCounts: new Map<string, number>() };
    if (keys.length === 0) return none;
    const byKey = new Map<string, string[]>();
    // One past the block size limit shows a block too big to search, as the in-memory index sees it.
    for (const r of await tx.blockHits(owner, keys, DEFAULT_BLOCKING.maxBlockSize + 1))
      (byKey.get(r.key) ?? byKey.set(r.key, []).get(r.key)!).push(r.entityId);
    // The best ranked pool, then at most `perCluster` per entity, in rank order (as the in-memory Resolver does).
    const pool = rankCandidates(byKey, DEFAULT_BLOCKING, (a, b) => a.localeCompare(b), rankPool(DEFAULT_BLOCKING));
    if (pool.length === 0) return none;
    const rank = new Map(pool.map((id, i) => [id, i]));
    const rows = await tx.candidateMentions(owner, pool, record.entityType, tfKey(record));
    const ents = capPerCluster(
      rows.mentions.sort((a, b) => rank.get(a.id)! - rank.get(b.id)!),
      (e) => e.rootId,
      DEFAULT_BLOCKING,
    );
    const clusterIds = new Map<string, ExternalIds>();
    const rootIds = [...new Set(ents.map((e) => e.rootId))];
    for (const r of rows.clusterIds) {
      const ids = clusterIds.get(r.rootId) ?? {};
      for (const [kind, value] of Object.entries(r.ids)) if (value) ids[kind as keyof ExternalIds] ??= value;
      clusterIds.set(r.rootId, ids);
    }
    const near = new Map<string, Neighbour[]>();
    if (withContext)
      for (const n of await tx.neighbours(owner, rootIds, NEIGHBOUR_HUB_DEGREE + 1))
        if (n.degree <= NEIGHBOUR_HUB_DEGREE)
          (near.get(n.rootId) ?? near.set(n.rootId, []).get(n.rootId)!).push({ record: n.record, entityId: n.entityId });
    const candidates = ents.map((e) => ({
      record: withNeighbours(e.record, near.get(e.rootId) ?? []),
      clusterId: e.rootId,
      clusterIds: clusterIds.get(e.rootId) ?? {},
    }));
    return { candidates, names: rows.rootNames, termCounts: rows.termCounts };
  }

  /**
   * The record's term-frequency statistics in the owner's graph: entities carrying its surname
   * (PERSON) or core name (ORG) and each candidate's, in one count, and the entities of its type.
   */
  private async termStats(
    tx: ResolveReads,
    owner: string,
    record: NormalisedRecord,
    candidates: readonly Candidate[],
    /** Counts the candidate read gave already. */
    counted: ReadonlyMap<string, number>,
  ): Promise<{ counts: Map<string, number>; population: number }> {
    const key = `${owner}\u0000${record.entityType}`;
    let pop = this.populations.get(key);
    if (!pop) {
      pop = { n: await tx.countEntities(owner, record.entityType), at: Date.now() };
      this.populations.set(key, pop);
    } else if (Date.now() - pop.at > POPULATION_TTL_MS && !pop.recounting) {
      // Counted again off the request path (a count of a million-entity namespace takes a few hundred
      // ms); until then the last count, kept current by this process's inserts, serves.
      this.recount(key, owner, record.entityType, pop);
    }
    const keys = termKeys(record, candidates.map((c) => c.record));
    const missing = keys.filter((k) => !counted.has(k));
    const counts = new Map(keys.flatMap((k) => (counted.has(k) ? [[k, counted.get(k)!] as const] : [])));
    if (missing.length > 0) for (const [k, n] of await tx.countBlockKeys(owner, missing)) counts.set(k, n);
    return { counts, population: pop.n };
  }

  private recount(key: string, owner: string, type: string, pop: Population): void {
    pop.recounting = true;
    this.storage
      .write((tx) => tx.countEntities(owner, type))
      .then((n) => void this.populations.set(key, { n, at: Date.now() }))
      // A failed recount keeps the last count; the next resolve tries again.
      .catch(() => (pop.recounting = false));
  }

  private bumpPopulation(owner: string, type: string): void {
    const pop = this.populations.get(`${owner}\u0000${type}`);
    if (pop) pop.n++;
  }

  decideReview(owner: string, id: string, decision: 'approve' | 'reject' | 'not_a_match'): Promise<{ review: ReviewRow; log?: LogRow }> {
    return this.storage.write(async (tx) => {
      const review = await tx.lockReview(owner, id);
      if (!review) throw AppError.notFound('review', id);
      if (review.status !== 'pending') throw new AppError('FAILED_PRECONDITION', `review ${id} is already ${review.status}`);
      let log: LogRow | undefined;
      if (decision === 'approve') {
        const child = await tx.rootOf(owner, review.sourceEntityId);
        const parent = await tx.rootOf(owner, review.candidateEntityId);
        if (!child || !parent) throw new AppError('FAILED_PRECONDITION', `an entity of review ${id} no longer exists`);
        if (child !== parent) {
          const logId = randomUUID();
          await tx.link(owner, child, parent, parent, logId);
          log = await tx.log(userMergeEntry(owner, id, review, { child, parent }, logId));
        }
      }
      const status = decision === 'approve' ? 'approved_merge' : 'rejected';
      const context = decision === 'not_a_match' ? { ...review.context, not_a_match: true } : review.context;
      const updated = await tx.setReviewStatus(owner, id, status, context);
      // Other questions this merge answered (a record queued against either side of it).
      if (log) await closeJoinedReviews(tx, owner, (await tx.rootOf(owner, review.candidateEntityId))!, log.id);
      return { review: updated, ...(log ? { log } : {}) };
    });
  }

  reverse(owner: string, logId: string): Promise<LogRow> {
    return this.storage.write(async (tx) => {
      const entry = await tx.lockDecision(owner, logId);
      if (!entry) throw AppError.notFound('resolution log entry', logId);
      if (entry.reversed) throw new AppError('FAILED_PRECONDITION', `decision ${logId} was already reversed`);
      if (!entry.reversible || !entry.linkChild || !entry.linkParent)
        throw new AppError('FAILED_PRECONDITION', `a ${entry.action} decision changes no link and cannot be reversed`);
      const current = await tx.lockEntity(owner, entry.linkChild);
      if (entry.action === 'user_split') {
        if (current?.parentId) throw new AppError('FAILED_PRECONDITION', 'the split-off entity has been merged elsewhere since');
        const parentRoot = await tx.rootOf(owner, entry.linkParent);
        if (!parentRoot || parentRoot === entry.linkChild)
          throw new AppError('FAILED_PRECONDITION', 'the entity it was split from no longer holds it');
        // The link the split removed comes back as the merge decision's it was.
        await tx.link(owner, entry.linkChild, entry.linkParent, parentRoot, entry.linkOwner);
      } else {
        if (current?.parentId !== entry.linkParent)
          throw new AppError('FAILED_PRECONDITION', `the merge of decision ${logId} is no longer in place`);
        // A split removed this merge's link and a later decision linked the same pair again: that one is to reverse.
        if (current?.linkLogId && current.linkLogId !== entry.id)
          throw new AppError(
            'FAILED_PRECONDITION',
            `the link of decision ${logId} was split off; the link in place now is decision ${current.linkLogId}'s`,
          );
        await tx.unlink(owner, entry.linkChild);
        // The questions this merge closed are open again.
        for (const r of await tx.lockReviewsClosedBy(owner, logId)) {
          const { merged_by: _answered, ...context } = r.context;
          await tx.setReviewStatus(owner, r.id, 'pending', context);
        }
      }
      return tx.markReversed(owner, logId);
    });
  }

  split(owner: string, memberId: string): Promise<LogRow> {
    return this.storage.write(async (tx) => {
      const row = await tx.lockEntity(owner, memberId);
      if (!row) throw AppError.notFound('entity', memberId);
      if (!row.parentId) throw new AppError('FAILED_PRECONDITION', `entity ${memberId} is not merged into another entity`);
      const parent = row.parentId;
      const root = await tx.rootOf(owner, parent);
      await tx.unlink(owner, memberId);
      return tx.log({
        owner,
        executionId: '',
        action: 'user_split',
        sourceId: memberId,
        sourceName: row.name,
        sourceType: row.type,
        targetId: root ?? parent,
        targetName: await tx.nameOf(owner, root ?? parent),
        confidence: 1,
        method: 'user',
        details: {},
        link: { child: memberId, parent },
        reversible: true,
        linkOwner: row.linkLogId,
      });
    });
  }

  // The reads are the adapter's own.
  entities(...a: Parameters<GraphReads['entities']>) {
    return this.storage.reads.entities(...a);
  }
  rootsOf(...a: Parameters<GraphReads['rootsOf']>) {
    return this.storage.reads.rootsOf(...a);
  }
  listReviews(...a: Parameters<GraphReads['listReviews']>) {
    return this.storage.reads.listReviews(...a);
  }
  listLog(...a: Parameters<GraphReads['listLog']>) {
    return this.storage.reads.listLog(...a);
  }
  listDiscoveries(...a: Parameters<GraphReads['listDiscoveries']>) {
    return this.storage.reads.listDiscoveries(...a);
  }
  discoveryStats(...a: Parameters<GraphReads['discoveryStats']>) {
    return this.storage.reads.discoveryStats(...a);
  }
  search(...a: Parameters<GraphReads['search']>) {
    return this.storage.reads.search(...a);
  }
  subgraph(...a: Parameters<GraphReads['subgraph']>) {
    return this.storage.reads.subgraph(...a);
  }
  newEntitiesSince(...a: Parameters<GraphReads['newEntitiesSince']>) {
    return this.storage.reads.newEntitiesSince(...a);
  }
  saveCommunities(...a: Parameters<GraphReads['saveCommunities']>) {
    return this.storage.reads.saveCommunities(...a);
  }
}
