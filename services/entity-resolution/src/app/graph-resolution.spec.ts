/**
 * The resolution use case over a scripted storage port: what it reads
 * (candidates, term statistics) reaches the domain's decision exactly as the
 * domain alone would score it, whatever the adapter; the decision becomes the
 * writes of a merge, a review or a new entity; relationship types a storage
 * cannot hold are refused before any write.
 */
import { BLOCK_KEYS_VERSION, blockKeys } from '../domain/blocking.js';
import { DEFAULT_THRESHOLDS } from '../domain/decision.js';
import { NEIGHBOUR_HUB_DEGREE, withNeighbours } from '../domain/neighbours.js';
import { normaliseRecord, type NormalisedRecord } from '../domain/normalise.js';
import { resolveOne } from '../domain/resolve-one.js';
import { DEFAULT_MODEL, type ScoringModel } from '../domain/scoring.js';
import { statsPopulation, termFrequency, tfKey } from '../domain/term-stats.js';
import { GraphResolution } from './graph-resolution.js';
import { ReceiptSuperseded } from '@af/service-kit';
import type { GraphSession, GraphStorage, GraphWrites, InputEntity, LogRow, MentionDecision, ResolvedOne } from './ports.js';

const prov = { executionId: 'run-1', nodeId: 'n1', connector: 'fixture', endpoint: 'people' };
const existing = normaliseRecord({ recordId: 'm-1', entityType: 'PERSON', name: 'Ezekiel Okonkwo', state: 'CA', city: 'Fresno' }).record;
const other = normaliseRecord({ recordId: 'm-9', entityType: 'ORG', name: 'Friends of Fresno Parks Inc' }).record;

/**
 * A storage holding one mention `m-1` (its own root, `existing` unless `opts.existing`); records every
 * write. Every term-frequency key counts `stats.others` unless `opts.keyCounts` says otherwise.
 */
function scripted(
  stats: { population: number; others: number },
  opts: {
    relationshipType?: RegExp;
    existing?: NormalisedRecord;
    keyCounts?: Record<string, number>;
    /** The candidate read counts the record's and the stored mention's term-frequency keys too (as PostgreSQL does). */
    countsWithCandidates?: boolean;
    /** Entity rows without their term-frequency key (as stored before it was kept there); none by default. */
    bare?: boolean;
    /** Stale-keyed entities; `m-1` by default. */
    stale?: number;
    /** What the stored mention is related to, with the degree of each neighbour's entity. */
    neighbours?: Array<{ record: NormalisedRecord; degree: number }>;
    /** The storage cannot commit an action receipt with the graph (Neo4j). */
    noReceipts?: boolean;
    /** Another holder of the call's claim finished it: a write carrying the receipt writes nothing. */
    superseded?: boolean;
  } = {},
) {
  const stored = opts.existing ?? existing;
  const counted: string[][] = [];
  const calls: Array<[string, ...unknown[]]> = [];
  const counts = { countEntities: 0 };
  const rec =
    <T>(name: string, out: T) =>
    async (...args: unknown[]) => {
      calls.push([name, ...args]);
      return out;
    };
  const tx: GraphWrites = {
    blockHits: async (_o, keys) => keys.map((key) => ({ key, entityId: 'm-1' })),
    candidateMentions: async (_o, _ids, _type, termKey) => ({
      mentions: [{ id: 'm-1', rootId: 'm-1', record: stored }],
      rootNames: new Map([['m-1', 'Ezekiel Okonkwo']]),
      clusterIds: [],
      termCounts: new Map(opts.countsWithCandidates ? [termKey, tfKey(stored)].map((k) => [k, opts.keyCounts?.[k] ?? stats.others]) : []),
    }),
    neighbours: async (...args) => {
      calls.push(['neighbours', ...args]);
      return (opts.neighbours ?? []).map((n) => ({ rootId: 'm-1', entityId: n.record.recordId, ...n }));
    },
    countEntities: async () => {
      counts.countEntities++;
      return stats.population;
    },
    countBlockKeys: async (_o, keys) => {
      counted.push([...keys]);
      return new Map(keys.map((k) => [k, opts.keyCounts?.[k] ?? stats.others]));
    },
    insertMention: async (...args) => {
      calls.push(['insertMention', ...args]);
      return { written: !(args[1]?.receipt && opts.superseded) };
    },
    writeReceipt: async (...args) => {
      calls.push(['writeReceipt', ...args]);
      return !opts.superseded;
    },
    relate: rec('relate', undefined),
    link: rec('link', undefined),
    lockPendingReviewsWithin: rec('lockPendingReviewsWithin', []),
    lockReviewsClosedBy: rec('lockReviewsClosedBy', []),
    unlink: rec('unlink', undefined),
    rootOf: async (_o, id) => id,
    nameOf: async () => 'Ezekiel Okonkwo',
    lockEntity: async () => undefined,
    lockReview: async () => undefined,
    setReviewStatus: rec('setReviewStatus', undefined as never),
    log: async (e, found) => {
      calls.push(['log', e, ...(found ? [found] : [])]);
      return { id: e.id ?? 'log', action: e.action, confidence: e.confidence } as LogRow;
    },
    lockDecision: async () => undefined,
    markReversed: rec('markReversed', undefined as never),
    discover: rec('discover', undefined),
    staleKeyed: rec('staleKeyed', Array.from({ length: opts.stale ?? 1 }, (_, i) => ({ owner: 'u7', id: `m-${i + 1}`, record: existing }))),
    withoutTermKey: rec('withoutTermKey', opts.bare ? [{ owner: 'u8', id: 'm-9', record: stored }] : []),
    setTermKeys: rec('setTermKeys', undefined),
    rekey: rec('rekey', undefined),
  };
  let writes = 0;
  let sessions = 0;
  const transaction = async <T>(work: (t: GraphWrites) => Promise<T>) => {
    writes++;
    return work(tx);
  };
  const storage = {
    kind: 'scripted',
    receipts: !opts.noReceipts,
    ...(opts.relationshipType ? { relationshipType: opts.relationshipType } : {}),
    write: transaction,
    session: async <T>(work: (s: GraphSession) => Promise<T>) => {
      sessions++;
      return work({ ...tx, transaction });
    },
  } as unknown as GraphStorage;
  return { storage, calls, counts, counted, writes: () => writes, sessions: () => sessions };
}

const input = (name: string, extra: Partial<InputEntity> = {}): InputEntity => ({ recordId: 'r', entityType: 'PERSON', name, ...extra });

describe('GraphResolution', () => {
  it('keys stale entities again, in one write: the current block keys plus the term-frequency key, at the current version', async () => {
    const { storage, calls, writes } = scripted({ population: 10, others: 0 });
    expect(await new GraphResolution(storage).rekeyStale(250)).toBe(1);
    expect(writes()).toBe(1);
    expect(calls).toEqual([
      ['staleKeyed', BLOCK_KEYS_VERSION, 250],
      ['rekey', 'u7', 'm-1', [...blockKeys(existing), tfKey(existing)], BLOCK_KEYS_VERSION, tfKey(existing)],
      // The rest of the batch: entities without their term-frequency key on their row (none here).
      ['withoutTermKey', 249],
    ]);
    expect(blockKeys(existing).length).toBeGreaterThan(2);
  });

  it('gives entities stored before their term-frequency key was kept on their row that key, in the same batch', async () => {
    const bare = scripted({ population: 10, others: 0 }, { stale: 0, bare: true, existing: other });
    expect(await new GraphResolution(bare.storage).rekeyStale(250)).toBe(1);
    expect(bare.calls).toEqual([
      ['staleKeyed', BLOCK_KEYS_VERSION, 250],
      ['withoutTermKey', 250],
      ['setTermKeys', [{ owner: 'u8', id: 'm-9', termKey: tfKey(other) }]],
    ]);
    // A batch filled by stale keys leaves the rest for the next one.
    const full = scripted({ population: 10, others: 0 }, { stale: 2, bare: true });
    expect(await new GraphResolution(full.storage).rekeyStale(2)).toBe(2);
    expect(full.calls.map((c) => c[0])).toEqual(['staleKeyed', 'rekey', 'rekey']);
  });

  it('scores a record with the stored term statistics, exactly as the domain does with them', async () => {
    const probe = input('Ezekiel Okonkwo', { state: 'CA', city: 'Oakland' });
    const record = normaliseRecord(probe).record;
    const probability = async (stats: { population: number; others: number }) => {
      const { storage } = scripted(stats);
      const [out] = await new GraphResolution(storage).resolve('u1', prov, [probe], DEFAULT_THRESHOLDS);
      const expected = resolveOne(record, [{ record: existing, clusterId: 'm-1', clusterIds: {} }], {
        thresholds: DEFAULT_THRESHOLDS,
        freq: () => termFrequency(stats.others, stats.population),
        population: statsPopulation(stats.population),
      });
      expect(out!.probability).toBe(expected.probability);
      expect(out!.decision).toBe(expected.decision);
      return out!.probability;
    };
    // A surname most of a large namespace carries says less than a rare one.
    const rare = await probability({ population: 50_000, others: 1 });
    const common = await probability({ population: 50_000, others: 20_000 });
    expect(common).toBeLessThan(rare);
    // Below the population floor the model's own prior and no term frequency, as a small batch.
    const small = await probability({ population: 10, others: 9 });
    expect(small).toBe(resolveOne(record, [{ record: existing, clusterId: 'm-1', clusterIds: {} }], { thresholds: DEFAULT_THRESHOLDS }).probability);
  });

  it("weighs a near name by the more common spelling's stored count, its own record taken off, as a batch load does", async () => {
    // The stored record carries the usual spelling; the new one a typo no entity carries yet.
    const usual = normaliseRecord({ recordId: 'm-1', entityType: 'PERSON', name: 'Ezekiel Okonkwo', state: 'CA' }).record;
    const probe = input('Ezekiel Okonkow', { state: 'CA' });
    const record = normaliseRecord(probe).record;
    const population = 200_000;
    const scored = async (usualCount: number) => {
      const s = scripted({ population, others: 0 }, { existing: usual, keyCounts: { [tfKey(usual)]: usualCount } });
      const [out] = await new GraphResolution(s.storage).resolve('u1', prov, [probe], DEFAULT_THRESHOLDS);
      // One count for both keys: the record's own and the candidate's.
      expect(s.counted).toEqual([[tfKey(record), tfKey(usual)]]);
      const batch = resolveOne(record, [{ record: usual, clusterId: 'm-1', clusterIds: {} }], {
        thresholds: DEFAULT_THRESHOLDS,
        // As the in-memory resolver counts: every record carrying the value, less the one being compared.
        freq: (_type, value) => (value === 'okonkwo' ? (usualCount - 1) / population : 0),
        population,
      });
      expect(batch.comparison!.levels.last_name).toBe('one_edit');
      expect(out!.probability).toBe(batch.probability);
      return out!.probability;
    };
    // A typo of a name only its own entity carries is stronger evidence than a typo of a common one.
    expect(await scored(1)).toBeGreaterThan(await scored(5_000));
  });

  it('takes the term-frequency counts the candidate read gave, counting only the rest apart, to the same probability', async () => {
    const usual = normaliseRecord({ recordId: 'm-1', entityType: 'PERSON', name: 'Ezekiel Okonkwo', state: 'CA' }).record;
    const probe = input('Ezekiel Okonkow', { state: 'CA' });
    const keyCounts = { [tfKey(usual)]: 40 };
    const apart = scripted({ population: 200_000, others: 0 }, { existing: usual, keyCounts });
    const together = scripted({ population: 200_000, others: 0 }, { existing: usual, keyCounts, countsWithCandidates: true });
    const [a] = await new GraphResolution(apart.storage).resolve('u1', prov, [probe], DEFAULT_THRESHOLDS);
    const [b] = await new GraphResolution(together.storage).resolve('u1', prov, [probe], DEFAULT_THRESHOLDS);
    expect(apart.counted).toEqual([[tfKey(normaliseRecord(probe).record), tfKey(usual)]]);
    expect(together.counted).toEqual([]);
    expect(b!.probability).toBe(a!.probability);
    // The common spelling's count is what moves the probability: with it ignored the answer differs.
    const [c] = await new GraphResolution(scripted({ population: 200_000, others: 0 }, { existing: usual }).storage).resolve('u1', prov, [probe], DEFAULT_THRESHOLDS);
    expect(c!.probability).not.toBe(a!.probability);
  });

  it('counts the population once, then keeps it current with its own inserts', async () => {
    const s = scripted({ population: 5_000, others: 3 });
    const g = new GraphResolution(s.storage);
    await g.resolve('u1', prov, [input('Ada Quillfeather'), input('Grace Quillfeather')], DEFAULT_THRESHOLDS);
    await g.resolve('u1', prov, [input('Alan Quillfeather')], DEFAULT_THRESHOLDS);
    expect(s.counts.countEntities).toBe(1);
    await g.resolve('u2', prov, [input('Alan Quillfeather')], DEFAULT_THRESHOLDS);
    expect(s.counts.countEntities).toBe(2);
  });

  it('counts a stale population again off the request path, scoring with the last count until then', async () => {
    const stats = { population: 50_000, others: 3 };
    const s = scripted(stats);
    const g = new GraphResolution(s.storage);
    const probe = input('Ezekiel Okonkwo', { state: 'CA', city: 'Oakland' });
    const record = normaliseRecord(probe).record;
    const scoredWith = (population: number) =>
      resolveOne(record, [{ record: existing, clusterId: 'm-1', clusterIds: {} }], {
        thresholds: DEFAULT_THRESHOLDS,
        freq: () => termFrequency(stats.others, population),
        population: statsPopulation(population),
      }).probability;
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      const [first] = await g.resolve('u1', prov, [probe], DEFAULT_THRESHOLDS);
      expect([first!.probability, s.counts.countEntities, s.sessions(), s.writes()]).toEqual([scoredWith(50_000), 1, 1, 0]);
      // A minute later the namespace holds 200,000: the stale resolve is scored with the last count plus
      // its own insert, and starts one recount in a write of its own; the next is scored with the recount.
      stats.population = 200_000;
      now.mockReturnValue(1_000_000 + 61_000);
      const [stale] = await g.resolve('u1', prov, [probe], DEFAULT_THRESHOLDS);
      expect(stale!.probability).toBe(scoredWith(50_001));
      await new Promise((r) => setImmediate(r));
      // The recount ran beside the stale resolve's transaction and did not see its insert, counted on top.
      const [after] = await g.resolve('u1', prov, [probe], DEFAULT_THRESHOLDS);
      expect(after!.probability).toBe(scoredWith(200_001));
      // Each resolve one session without a transaction; the recount one write of its own.
      expect([s.counts.countEntities, s.sessions(), s.writes()]).toEqual([2, 3, 1]);
      expect(scoredWith(200_001)).not.toBe(scoredWith(50_002));
    } finally {
      now.mockRestore();
    }
  });

  it("scores with the deployment's model when given one (ER_MODEL_FILE)", async () => {
    const same = input('Okonkwo, Ezekiel', { state: 'CA', city: 'Fresno' });
    // A calibration that weighs nothing in favour of a match: the pair the shipped model merges becomes a new entity.
    const cal = DEFAULT_MODEL.calibration!.PERSON!;
    const sceptical: ScoringModel = { ...DEFAULT_MODEL, calibration: { ...DEFAULT_MODEL.calibration, PERSON: { ...cal, bias: cal.bias - 40 } } };
    const [shipped] = await new GraphResolution(scripted({ population: 0, others: 0 }).storage).resolve('u1', prov, [same], DEFAULT_THRESHOLDS);
    const [own] = await new GraphResolution(scripted({ population: 0, others: 0 }).storage, sceptical).resolve('u1', prov, [same], DEFAULT_THRESHOLDS);
    expect(shipped).toMatchObject({ decision: 'auto_merge' });
    expect(own).toMatchObject({ decision: 'create_new' });
  });

  it('stores the mention with its block keys and term-frequency key, and its decision, in one write', async () => {
    const s = scripted({ population: 0, others: 0 });
    const [merged] = await new GraphResolution(s.storage).resolve('u1', prov, [input('Okonkwo, Ezekiel', { state: 'CA', city: 'Fresno' })], DEFAULT_THRESHOLDS);
    expect(merged).toMatchObject({ decision: 'auto_merge', entityId: 'm-1' });
    expect(s.calls.map((c) => c[0])).toEqual(['insertMention']);
    const [, m, decision] = s.calls[0] as [string, { id: string; keys: string[]; record: { recordId: string } }, MentionDecision];
    expect(m.record.recordId).toBe(m.id);
    expect(m.keys).toContain(tfKey(normaliseRecord(input('Okonkwo, Ezekiel')).record));
    // Stored linked under the entity it joins, by the decision logged with it.
    expect(decision.link).toEqual({ parent: 'm-1' });
    expect(decision.review).toBeUndefined();
    expect(decision.log).toMatchObject({ action: 'auto_merge', sourceId: m.id, targetId: 'm-1', link: { child: m.id, parent: 'm-1' }, reversible: true });
    expect(decision.log.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(decision.found).toEqual({
      prov,
      discovery: { type: 'entity_merge', name: 'Okonkwo, Ezekiel', entityType: 'PERSON', entityId: 'm-1', related: 'Ezekiel Okonkwo', confidence: merged!.probability },
    });

    const n = scripted({ population: 0, others: 0 });
    const [created] = await new GraphResolution(n.storage).resolve('u1', prov, [input('Wilhelmina Zabriskie')], DEFAULT_THRESHOLDS);
    expect(created!.decision).toBe('create_new');
    expect(n.calls.map((c) => c[0])).toEqual(['insertMention']);
    const made = n.calls[0]![2] as MentionDecision;
    expect(made.link).toBeUndefined();
    expect(made.review).toBeUndefined();
    expect(made.log).toMatchObject({ action: 'create_new', targetId: null, reversible: false });
    expect(made.found).toMatchObject({ discovery: { type: 'new_entity', name: 'Wilhelmina Zabriskie', entityId: created!.entityId } });
  });

  it('resolves one record without a transaction (its one write is atomic), and more than one, or relationships, in one', async () => {
    const one = scripted({ population: 0, others: 0 });
    await new GraphResolution(one.storage).resolve('u1', prov, [input('Wilhelmina Zabriskie')], DEFAULT_THRESHOLDS);
    expect([one.sessions(), one.writes()]).toEqual([1, 0]);
    const two = scripted({ population: 0, others: 0 });
    await new GraphResolution(two.storage).resolve('u1', prov, [input('Wilhelmina Zabriskie'), input('Okonkwo, Ezekiel')], DEFAULT_THRESHOLDS);
    expect([two.sessions(), two.writes()]).toEqual([0, 1]);
    expect(two.calls.filter((c) => c[0] === 'insertMention')).toHaveLength(2);
    // Only a one-record call asks its write for the entity (its answer); a batch reads the entities once at the end.
    expect(one.calls.filter((c) => c[0] === 'insertMention').map((c) => c[3])).toEqual([true]);
    expect(two.calls.filter((c) => c[0] === 'insertMention').map((c) => c[3])).toEqual([false, false]);
    const related = scripted({ population: 0, others: 0 });
    const works = { type: 'WORKS_FOR', target: { recordId: 'o', entityType: 'ORG' as const, name: 'Summit Literacy Fund' } };
    await new GraphResolution(related.storage).resolve('u1', prov, [input('Wilhelmina Zabriskie', { relationships: [works] })], DEFAULT_THRESHOLDS);
    expect([related.sessions(), related.writes()]).toEqual([0, 1]);
    expect(related.calls.map((c) => c[0]).filter((c) => c !== 'neighbours')).toEqual(['insertMention', 'insertMention', 'relate', 'discover']);
  });

  describe("an action call's receipt", () => {
    const receiptOf = (final = true) => {
      const call = { key: 'run-1:n1:1', action: 'resolve_entities', userId: 'u1', claimed: true, completed: false };
      return { call, final, body: (results: readonly ResolvedOne[]) => ({ results }) };
    };

    it('is written in the one statement of a one-record call, and completes the call once written', async () => {
      const s = scripted({ population: 0, others: 0 });
      const receipt = receiptOf();
      const [one] = await new GraphResolution(s.storage).resolve('u1', prov, [input('Wilhelmina Zabriskie')], DEFAULT_THRESHOLDS, receipt);
      expect(s.calls.map((c) => c[0])).toEqual(['insertMention']);
      expect((s.calls[0]![2] as MentionDecision).receipt).toEqual({ call: receipt.call, body: { results: [one] }, final: true });
      expect(receipt.call.completed).toBe(true);
    });

    it('is written last in the transaction of a call with several records, with all their results; a checkpoint leaves the call running', async () => {
      const s = scripted({ population: 0, others: 0 });
      const receipt = receiptOf(false);
      const out = await new GraphResolution(s.storage).resolve('u1', prov, [input('Wilhelmina Zabriskie'), input('Okonkwo, Ezekiel')], DEFAULT_THRESHOLDS, receipt);
      expect(s.calls.map((c) => c[0])).toEqual(['insertMention', 'insertMention', 'writeReceipt']);
      expect(s.calls[2]).toEqual(['writeReceipt', receipt.call, { results: out }, false]);
      expect(receipt.call.completed).toBe(false);
    });

    it('fails with ReceiptSuperseded when another holder finished the call (its transaction rolls back), leaving the call not completed by this one', async () => {
      for (const inputs of [[input('Wilhelmina Zabriskie')], [input('Wilhelmina Zabriskie'), input('Okonkwo, Ezekiel')]]) {
        const receipt = receiptOf();
        const err = await new GraphResolution(scripted({ population: 0, others: 0 }, { superseded: true }).storage)
          .resolve('u1', prov, inputs, DEFAULT_THRESHOLDS, receipt)
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ReceiptSuperseded);
        expect(receipt.call.completed).toBe(false);
      }
    });

    it('is left to the dispatcher where the storage cannot commit it with the graph', async () => {
      const s = scripted({ population: 0, others: 0 }, { noReceipts: true });
      const receipt = receiptOf();
      await new GraphResolution(s.storage).resolve('u1', prov, [input('Wilhelmina Zabriskie'), input('Okonkwo, Ezekiel')], DEFAULT_THRESHOLDS, receipt);
      expect(s.calls.map((c) => c[0])).toEqual(['insertMention', 'insertMention']);
      expect(s.calls.some((c) => (c[2] as MentionDecision | undefined)?.receipt)).toBe(false);
      expect(receipt.call.completed).toBe(false);
    });
  });

  it('queues the review band with its match details and context', async () => {
    const s = scripted({ population: 0, others: 0 });
    const [out] = await new GraphResolution(s.storage).resolve('u1', prov, [input('E. Okonkwo', { state: 'CA', city: 'Oakland', source: 'fec' })], DEFAULT_THRESHOLDS);
    expect(out!.decision).toBe('flag_review');
    expect(s.calls.map((c) => c[0])).toEqual(['insertMention']);
    const decision = s.calls[0]![2] as MentionDecision;
    expect(decision.link).toBeUndefined();
    expect(decision.log).toMatchObject({ action: 'flag_review', targetId: 'm-1', reversible: false });
    expect(decision.found).toMatchObject({ discovery: { type: 'new_entity', name: 'E. Okonkwo', entityId: out!.entityId } });
    expect(decision.review).toMatchObject({
      id: out!.reviewId,
      sourceId: out!.entityId,
      candidateId: 'm-1',
      candidateName: 'Ezekiel Okonkwo',
      context: { source: 'fec', node_id: 'n1', candidate_record: existing.name },
    });
    expect(decision.review!.details).toHaveProperty('probability', out!.probability);
  });

  it("compares the record's relationships with the neighbours of the candidates' entities, leaving hubs out", async () => {
    const parks = normaliseRecord({ recordId: 'o-1', entityType: 'ORG', name: 'Friends of Fresno Parks Inc' }).record;
    const probe = input('E. Okonkwo', {
      state: 'CA',
      city: 'Oakland',
      relationships: [{ type: 'DONATED_TO', target: { recordId: 'o', entityType: 'ORG', name: 'FRIENDS OF FRESNO PARKS' } }],
    });
    const record = normaliseRecord(probe).record;
    // Twenty other Okonkwos in 50,000: the initial alone leaves the record in the review band.
    const stats = { population: 50_000, others: 20 };
    const opts = { thresholds: DEFAULT_THRESHOLDS, freq: () => termFrequency(stats.others, stats.population), population: statsPopulation(stats.population) };
    const resolved = async (degree: number) => {
      const s = scripted(stats, { neighbours: [{ record: parks, degree }] });
      const [out] = await new GraphResolution(s.storage).resolve('u1', prov, [probe], DEFAULT_THRESHOLDS);
      expect(s.calls.find((c) => c[0] === 'neighbours')).toEqual(['neighbours', 'u1', ['m-1'], NEIGHBOUR_HUB_DEGREE + 1]);
      return out!;
    };
    const target = normaliseRecord(probe.relationships![0]!.target).record;
    const shared = resolveOne(
      withNeighbours(record, [{ record: target }]),
      [{ record: withNeighbours(existing, [{ record: parks, entityId: 'o-1' }]), clusterId: 'm-1', clusterIds: {} }],
      opts,
    );
    const plain = resolveOne(record, [{ record: existing, clusterId: 'm-1', clusterIds: {} }], opts);
    expect(shared.comparison!.levels.context).toBe('one');
    expect([shared.decision, plain.decision]).toEqual(['auto_merge', 'flag_review']);
    expect(await resolved(3)).toMatchObject({ decision: shared.decision, probability: shared.probability });
    expect(await resolved(NEIGHBOUR_HUB_DEGREE)).toMatchObject({ decision: shared.decision });
    expect(await resolved(NEIGHBOUR_HUB_DEGREE + 1)).toMatchObject({ decision: plain.decision, probability: plain.probability });

    // A record without relationships has nothing to share: the neighbours are not read.
    const s = scripted(stats, { neighbours: [{ record: parks, degree: 3 }] });
    const [alone] = await new GraphResolution(s.storage).resolve('u1', prov, [input('E. Okonkwo', { state: 'CA', city: 'Oakland' })], DEFAULT_THRESHOLDS);
    expect(alone!.probability).toBe(plain.probability);
    expect(s.calls.some((c) => c[0] === 'neighbours')).toBe(false);
  });

  it('refuses a relationship type the storage cannot hold, naming the field, before any write', async () => {
    const s = scripted({ population: 0, others: 0 }, { relationshipType: /^[A-Z_]+$/ });
    const rel = input('Ada Quillfeather', { relationships: [{ type: 'works-for', target: { recordId: 't', entityType: 'ORG', name: 'Acme Inc' } }] });
    await expect(new GraphResolution(s.storage).resolve('u1', prov, [rel], DEFAULT_THRESHOLDS)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      violations: [{ field: 'inputs.entities[0].relationships[0].type' }],
    });
    expect(s.writes()).toBe(0);
    // A storage without the restriction takes it.
    const open = scripted({ population: 0, others: 0 });
    await new GraphResolution(open.storage).resolve('u1', prov, [rel], DEFAULT_THRESHOLDS);
    expect(open.calls.find((c) => c[0] === 'relate')).toEqual(['relate', 'u1', expect.any(String), expect.any(String), 'works-for', {}]);
  });

  it('refuses review decisions, reversals and splits of what the storage does not hold', async () => {
    const g = new GraphResolution(scripted({ population: 0, others: 0 }).storage);
    await expect(g.decideReview('u1', 'rv-1', 'approve')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(g.reverse('u1', 'log-1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(g.split('u1', 'm-9')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
