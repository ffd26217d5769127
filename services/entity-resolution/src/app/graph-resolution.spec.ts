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
import type { GraphStorage, GraphWrites, InputEntity, LogRow } from './ports.js';

const prov = { executionId: 'run-1', nodeId: 'n1', connector: 'fixture', endpoint: 'people' };
const existing = normaliseRecord({ recordId: 'm-1', entityType: 'PERSON', name: 'Ezekiel Okonkwo', state: 'CA', city: 'Fresno' }).record;

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
    /** What the stored mention is related to, with the degree of each neighbour's entity. */
    neighbours?: Array<{ record: NormalisedRecord; degree: number }>;
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
    candidateMentions: async () => ({
      mentions: [{ id: 'm-1', rootId: 'm-1', record: stored }],
      rootNames: new Map([['m-1', 'Ezekiel Okonkwo']]),
      clusterIds: [],
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
    insertMention: rec('insertMention', undefined),
    relate: rec('relate', undefined),
    link: rec('link', undefined),
    lockPendingReviewsWithin: rec('lockPendingReviewsWithin', []),
    lockReviewsClosedBy: rec('lockReviewsClosedBy', []),
    unlink: rec('unlink', undefined),
    rootOf: async (_o, id) => id,
    nameOf: async () => 'Ezekiel Okonkwo',
    lockEntity: async () => undefined,
    insertReview: rec('insertReview', undefined),
    lockReview: async () => undefined,
    setReviewStatus: rec('setReviewStatus', undefined as never),
    log: async (e, found) => {
      calls.push(['log', e, ...(found ? [found] : [])]);
      return { id: e.id ?? 'log', action: e.action, confidence: e.confidence } as LogRow;
    },
    lockDecision: async () => undefined,
    markReversed: rec('markReversed', undefined as never),
    discover: rec('discover', undefined),
    staleKeyed: rec('staleKeyed', [{ owner: 'u7', id: 'm-1', record: existing }]),
    rekey: rec('rekey', undefined),
  };
  let writes = 0;
  const storage = {
    kind: 'scripted',
    ...(opts.relationshipType ? { relationshipType: opts.relationshipType } : {}),
    write: async <T>(work: (t: GraphWrites) => Promise<T>) => {
      writes++;
      return work(tx);
    },
  } as unknown as GraphStorage;
  return { storage, calls, counts, counted, writes: () => writes };
}

const input = (name: string, extra: Partial<InputEntity> = {}): InputEntity => ({ recordId: 'r', entityType: 'PERSON', name, ...extra });

describe('GraphResolution', () => {
  it('keys stale entities again, in one write: the current block keys plus the term-frequency key, at the current version', async () => {
    const { storage, calls, writes } = scripted({ population: 10, others: 0 });
    expect(await new GraphResolution(storage).rekeyStale(250)).toBe(1);
    expect(writes()).toBe(1);
    expect(calls).toEqual([
      ['staleKeyed', BLOCK_KEYS_VERSION, 250],
      ['rekey', 'u7', 'm-1', [...blockKeys(existing), tfKey(existing)], BLOCK_KEYS_VERSION],
    ]);
    expect(blockKeys(existing).length).toBeGreaterThan(2);
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
      expect([first!.probability, s.counts.countEntities, s.writes()]).toEqual([scoredWith(50_000), 1, 1]);
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
      expect([s.counts.countEntities, s.writes()]).toEqual([2, 4]);
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

  it('stores the mention with its block keys and term-frequency key, then applies the decision', async () => {
    const s = scripted({ population: 0, others: 0 });
    const [merged] = await new GraphResolution(s.storage).resolve('u1', prov, [input('Okonkwo, Ezekiel', { state: 'CA', city: 'Fresno' })], DEFAULT_THRESHOLDS);
    expect(merged).toMatchObject({ decision: 'auto_merge', entityId: 'm-1' });
    const [insert] = s.calls.filter((c) => c[0] === 'insertMention');
    const m = insert![1] as { id: string; keys: string[]; record: { recordId: string } };
    expect(m.record.recordId).toBe(m.id);
    expect(m.keys).toContain(tfKey(normaliseRecord(input('Okonkwo, Ezekiel')).record));
    expect(s.calls.map((c) => c[0])).toEqual(['insertMention', 'link', 'log']);
    expect(s.calls[1]).toEqual(['link', 'u1', m.id, 'm-1', 'm-1', (s.calls[2]![1] as { id: string }).id]);
    expect(s.calls[2]![1]).toMatchObject({ action: 'auto_merge', sourceId: m.id, targetId: 'm-1', link: { child: m.id, parent: 'm-1' }, reversible: true });
    // The discovery goes with the log entry (one statement in PostgreSQL).
    expect(s.calls[2]![2]).toEqual({
      prov,
      discovery: { type: 'entity_merge', name: 'Okonkwo, Ezekiel', entityType: 'PERSON', entityId: 'm-1', related: 'Ezekiel Okonkwo', confidence: merged!.probability },
    });

    const n = scripted({ population: 0, others: 0 });
    const [created] = await new GraphResolution(n.storage).resolve('u1', prov, [input('Wilhelmina Zabriskie')], DEFAULT_THRESHOLDS);
    expect(created!.decision).toBe('create_new');
    expect(n.calls.map((c) => c[0])).toEqual(['insertMention', 'log']);
    expect(n.calls[1]![1]).toMatchObject({ action: 'create_new', targetId: null, reversible: false });
    expect(n.calls[1]![2]).toMatchObject({ discovery: { type: 'new_entity', name: 'Wilhelmina Zabriskie', entityId: created!.entityId } });
  });

  it('queues the review band with its match details and context', async () => {
    const s = scripted({ population: 0, others: 0 });
    const [out] = await new GraphResolution(s.storage).resolve('u1', prov, [input('E. Okonkwo', { state: 'CA', city: 'Oakland', source: 'fec' })], DEFAULT_THRESHOLDS);
    expect(out!.decision).toBe('flag_review');
    expect(s.calls.map((c) => c[0])).toEqual(['insertMention', 'insertReview', 'log']);
    expect(s.calls[2]![2]).toMatchObject({ discovery: { type: 'new_entity', name: 'E. Okonkwo', entityId: out!.entityId } });
    expect(s.calls[1]![1]).toMatchObject({
      id: out!.reviewId,
      candidateId: 'm-1',
      candidateName: 'Ezekiel Okonkwo',
      context: { source: 'fec', node_id: 'n1', candidate_record: existing.name },
    });
    expect((s.calls[1]![1] as { details: Record<string, unknown> }).details).toHaveProperty('probability', out!.probability);
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
