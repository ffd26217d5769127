import { generateRecords } from './generator.js';
import { normaliseRecord } from './normalise.js';
import { ParallelResolver, resolveThreads } from './parallel-resolve.js';
import { Resolver } from './resolver.js';

// The worker threads themselves run from the build: test/e2e/parallel-resolve.e2e-spec.ts.
describe('ParallelResolver in one thread', () => {
  const raw = [...generateRecords({ records: 2000, seed: 3, corruption: 'medium' })];

  it('resolves each type on its own exactly as one Resolver over every record', async () => {
    const one = new Resolver();
    const recs = raw.map((r) => normaliseRecord(r).record);
    one.primeFrequencies(recs);
    const decisions = recs.map((r) => one.add(r).decision);
    const p = new ParallelResolver({ threads: 1 });
    for (const r of raw) p.prime(r);
    for (const r of raw) p.add(r);
    const res = await p.finish();
    expect(new Set(raw.map((r) => r.entityType))).toEqual(new Set(['PERSON', 'ORG']));
    expect(res.clusters()).toEqual(one.clusters());
    expect(raw.map((_, i) => res.decision(i))).toEqual(decisions);
    expect(res.reviews.map((v) => v.recordId)).toEqual(
      raw.filter((_, i) => decisions[i] === 'flag_review').map((r) => r.recordId),
    );
    const count = (t: string) => raw.filter((r) => r.entityType === t).length;
    expect(Object.fromEntries(res.partitions.map((x) => [x.type, x.records]))).toEqual({
      PERSON: count('PERSON'),
      ORG: count('ORG'),
    });
  });

  it('closes a review item a later bridge answered, and keeps open the ones it did not', async () => {
    const p = new ParallelResolver({ threads: 1 });
    const person = (recordId: string, r: Record<string, string>) =>
      ({ recordId, entityType: 'PERSON', name: r.name!, ...r }) as const;
    // b is queued against a; c merges into b and bridges a: b's question is answered.
    p.add(person('a', { name: 'Okonkwo, Ezekiel Q.', state: 'CA' }));
    p.add(person('b', { name: 'Ezekiel Okonkwo', employer: 'Fresno Water Trust', city: 'Fresno' }));
    p.add(person('c', { name: 'Ezekiel Q. Okonkwo', state: 'CA', employer: 'Fresno Water Trust', city: 'Fresno' }));
    // e is queued against d, and nothing joins them.
    p.add(person('d', { name: 'Okafor, Chidi', state: 'TX' }));
    p.add(person('e', { name: 'Chidi Okafor', employer: 'Austin Rail Fund', city: 'Austin' }));
    const res = await p.finish();
    expect(res.reviews.map((v) => [v.recordId, v.reviewClusterId, v.open])).toEqual([
      ['b', 'a', false],
      ['e', 'd', true],
    ]);
    expect(new Set(res.clusters().filter((c) => 'abc'.includes(c.recordId)).map((c) => c.clusterId)).size).toBe(1);
  });

  it('counts names incrementally when nothing was primed', async () => {
    const one = new Resolver();
    const p = new ParallelResolver({ threads: 1 });
    for (const r of raw.slice(0, 500)) {
      one.add(normaliseRecord(r).record);
      p.add(r);
    }
    expect((await p.finish()).clusters()).toEqual(one.clusters());
  });

  it('reports progress and refuses misuse', async () => {
    const seen: number[] = [];
    const p = new ParallelResolver({ threads: 1, batchSize: 100, onProgress: (d) => seen.push(d) });
    for (const r of raw.slice(0, 300)) p.add(r);
    expect(() => p.prime(raw[0]!)).toThrow('prime() after add()');
    await p.finish();
    expect(seen.at(-1)).toBe(300);
    expect(() => p.add(raw[0]!)).toThrow('add() after finish()');
  });

  it('throws the error of a record it cannot resolve', async () => {
    const p = new ParallelResolver({ threads: 1, batchSize: 1 });
    expect(() => p.add({ recordId: 'x', entityType: 'PERSON', name: null as unknown as string })).toThrow(
      TypeError,
    );
  });
});

describe('resolveThreads', () => {
  const env = process.env['ER_THREADS'];
  afterEach(() => {
    if (env === undefined) delete process.env['ER_THREADS'];
    else process.env['ER_THREADS'] = env;
  });
  it('takes the option, then ER_THREADS, then up to two', () => {
    delete process.env['ER_THREADS'];
    expect(resolveThreads(1)).toBe(1);
    expect([1, 2]).toContain(resolveThreads());
    process.env['ER_THREADS'] = '1';
    expect(resolveThreads()).toBe(1);
    expect(resolveThreads(2)).toBe(2);
    process.env['ER_THREADS'] = 'two';
    expect(() => resolveThreads()).toThrow('threads must be a positive integer');
  });
});
