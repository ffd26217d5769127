import { BlockIndex, blockKeys, capPerCluster, keyFamily, rankCandidates, swapInvariant } from './blocking.js';
import { normaliseRecord } from './normalise.js';
import type { ErRecord } from './record.js';

const norm = (r: Partial<ErRecord> & { name: string }) =>
  normaliseRecord({ recordId: 'x', entityType: 'PERSON', ...r }).record;
const shared = (a: string[], b: string[]) => a.filter((k) => b.includes(k));

describe('blockKeys', () => {
  it('files ids under their canonical form', () => {
    const a = blockKeys(norm({ entityType: 'ORG', name: 'Acme', externalIds: { ein: '043568784' } }));
    expect(a).toContain('id:ein:04-3568784');
  });
  it('puts typo and format variants of a person in a shared block', () => {
    const a = blockKeys(norm({ name: 'John Smith', state: 'CA' }));
    expect(shared(a, blockKeys(norm({ name: 'Smith, Jon', state: 'CA' })))).not.toEqual([]);
    expect(shared(a, blockKeys(norm({ name: 'John Smyth' })))).not.toEqual([]);
    // First-letter typo of the surname: the first-name + ending block and the surname's one-deletion block survive.
    expect(shared(a, blockKeys(norm({ name: 'John Xmith' })))).toEqual(['P:fe:john:ith', 'P:ld:j:mith']);
    // A typo in both names: the Soundex block and the surname's one-deletion neighbourhood.
    expect(shared(a, blockKeys(norm({ name: 'Jhon Smiht' })))).toEqual([
      'P:sx:S530:j',
      'P:ld:j:smih',
      'P:ld:j:smit',
    ]);
    // An inserted or deleted letter: the shorter spelling is one of the longer one's deletions.
    expect(shared(a, blockKeys(norm({ name: 'John Smiith' })))).toContain('P:ld:j:smith');
    expect(
      shared(blockKeys(norm({ name: 'Barbara King' })), blockKeys(norm({ name: 'Barbara Kig' }))),
    ).toContain('P:ld:b:kig');
  });
  it('keeps a person in a shared block when the first two letters of the first name are swapped as well as a surname typo', () => {
    expect(swapInvariant('ycnthia')).toBe('cynthia');
    expect(swapInvariant('cynthia')).toBe('cynthia');
    expect(swapInvariant('b')).toBe('b');
    expect(swapInvariant('')).toBe('');
    const keys = (name: string) => blockKeys(norm({ name, state: 'NY' }));
    expect(shared(keys('Ycnthia Holstier'), keys('Cynthia Holster'))).not.toEqual([]);
    expect(shared(keys('Hsirley P. Wright'), keys('Shirley P. Wriht'))).toContain('P:fb:hsirley:rw');
    // Both first two letters swapped, in the first name and in the surname.
    expect(shared(keys('Jackson, Eknneth'), keys('Ajckson, Kenneth'))).toContain('P:fb:eknneth:aj');
  });
  it("files a formal first name under its nicknames' initials too, beside their initials and misspellings", () => {
    const keys = (name: string) => blockKeys(norm({ name, state: 'TN' }));
    // Betty is Elizabeth: `B. Walker` and `Bety Walker` (a misspelt nickname stays as written) meet her.
    expect(shared(keys('Betty Walker'), keys('B. Walker'))).toEqual(['P:sx:W426:b', 'P:sxs:W426:b:tn', 'P:ln:walker']);
    expect(shared(keys('Elizabeth Walker'), keys('Bety Walker'))).toContain('P:sxs:W426:b:tn');
    expect(keys('Elizabeth Walker')).toEqual(expect.arrayContaining(['P:sxs:W426:e:tn', 'P:sxs:W426:l:tn']));
    // Before: only the surname's block, too big to search for a common surname.
    expect(shared(keys('Elizabeth Walker'), keys('B. Walker')).filter((k) => !k.includes(':b'))).toEqual(['P:ln:walker']);
    // A name without nicknames, or whose nicknames share its initial, gets no more keys.
    expect(keys('Zelda Walker').filter((k) => k.startsWith('P:sx:'))).toEqual(['P:sx:W426:z']);
    expect(keys('John Walker').filter((k) => k.startsWith('P:sx:'))).toEqual(['P:sx:W426:j']);
  });
  it('puts an organisation with a typo or an abbreviation in one word beside its other spellings', () => {
    const a = blockKeys(norm({ entityType: 'ORG', name: 'Mielvale Policy League PAC' }));
    const b = blockKeys(norm({ entityType: 'ORG', name: 'Mcielvale Policy League' }));
    expect(shared(a, b)).toContain('O:dr:policy league');
  });
  it('shares a block for a typo in the longest word of a name, a swapped first letter included', () => {
    const wd = (name: string) =>
      blockKeys(norm({ entityType: 'ORG', name })).filter((k) => k.startsWith('O:wd:'));
    // The first two letters swapped: no other key of a two-word family name survives that.
    expect(wd('iMtorhol Family Fund')).toContain('O:wd:imtorhol|family');
    expect(wd('Mitorhol Family')).toContain('O:wd:imtorhol|family');
    // A typo after the third letter of a common word: the prefix with the rest of the core.
    expect(wd('Pioneer Farm Center Fund')).toContain('O:wd:pio|farm center');
    expect(wd('PIONNEER FARM CTR')).toContain('O:wd:pio|farm center');
    // Short words and stopwords make no such keys.
    expect(wd('Abc Family')).toEqual([]);
  });
  it('blocks organisations on rare words, not on stopwords or legal forms', () => {
    const keys = blockKeys(
      norm({ entityType: 'ORG', name: 'The American Foundation for Riverside Health Inc' }),
    );
    expect(keys).toContain('O:tk:riverside');
    expect(keys).toContain('O:tk:health');
    expect(keys.some((k) => k.endsWith(':american') || k.endsWith(':the') || k.endsWith(':inc'))).toBe(false);
  });
  it('gives different types disjoint name blocks', () => {
    const p = blockKeys(norm({ name: 'Jordan Lee' }));
    const o = blockKeys(norm({ entityType: 'ORG', name: 'Jordan Lee' }));
    expect(shared(p, o)).toEqual([]);
  });
});

describe('BlockIndex', () => {
  it('ranks candidates by shared blocks and ids first, bounded', () => {
    const idx = new BlockIndex({ maxBlockSize: 10, maxCandidates: 2 });
    idx.add(0, ['a']);
    idx.add(1, ['a', 'b']);
    idx.add(2, ['id:ein:1']);
    idx.add(3, ['c']);
    expect(idx.candidates(['a', 'b', 'id:ein:1'])).toEqual([2, 1]);
    expect(idx.candidates(['zzz'])).toEqual([]);
  });
  it('skips oversized name blocks but never id blocks', () => {
    const idx = new BlockIndex({ maxBlockSize: 3, maxCandidates: 100 });
    for (let i = 0; i < 10; i++) idx.add(i, ['common', 'id:ein:9']);
    expect(idx.candidates(['common'])).toEqual([]);
    expect(idx.candidates(['id:ein:9'])).toHaveLength(10);
  });
  it('ranks exactly as rankCandidates over the same blocks, and keeps no state between records', () => {
    const opts = { maxBlockSize: 12, maxCandidates: 7 };
    const idx = new BlockIndex(opts);
    // The reference: every block's members in insertion order, ranked by the shared ranking.
    const blocks = new Map<string, number[]>();
    let state = 99;
    const rnd = (n: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) % n;
    };
    // Plain keys, ids, and keys of the two families (a member counts its best key of each family once).
    const keyOf = () => {
      const r = rnd(10);
      return r === 0
        ? `id:ein:${rnd(20)}`
        : r < 3
          ? `P:ld:j:${rnd(25)}`
          : r < 5
            ? `O:dr:${rnd(25)}`
            : `k${rnd(60)}`;
    };
    const keysOf = () => [...new Set(Array.from({ length: 1 + rnd(8) }, keyOf))];
    for (let pos = 0; pos < 3000; pos++) {
      const keys = keysOf();
      const expected = rankCandidates(
        keys.filter((k) => blocks.has(k)).map((k) => [k, blocks.get(k)!] as const),
        opts,
        (a, b) => b - a,
      );
      expect(idx.candidates(keys)).toEqual(expected);
      idx.add(pos, keys);
      for (const k of keys) {
        const b = blocks.get(k) ?? [];
        // The index stops growing a name block once it is past the searchable size (it stays skipped).
        if (k.startsWith('id:') || b.length <= opts.maxBlockSize) b.push(pos);
        blocks.set(k, b);
      }
    }
  });
  it('counts a key family once: namesakes sharing the whole surname do not crowd out a typo of the same person', () => {
    expect(keyFamily('P:ld:j:ramirez')).toBe('P:ld');
    expect(keyFamily('O:dr:harbor network')).toBe('O:dr');
    expect(keyFamily('P:sx:R562:j')).toBeUndefined();
    const idx = new BlockIndex({ maxBlockSize: 100, maxCandidates: 3 });
    // Five James Ramirez of other states share the surname's whole one-deletion neighbourhood with the
    // record; the same person with a surname typo shares one deletion key and the state.
    for (const [pos, state] of ['TX', 'NY', 'CA', 'FL', 'OH'].entries())
      idx.add(pos, blockKeys(norm({ name: 'James Ramirez', state })));
    idx.add(5, blockKeys(norm({ name: 'Ramiroz, James', state: 'AZ' })));
    const keys = blockKeys(norm({ name: 'James Ramirez', state: 'AZ' }));
    expect(idx.candidates(keys)).toContain(5);
    // Summing every deletion key would rank the five namesakes first (the behaviour this replaces).
    const summed = new BlockIndex({ maxBlockSize: 100, maxCandidates: 3 });
    for (const [pos, state] of ['TX', 'NY', 'CA', 'FL', 'OH'].entries())
      summed.add(
        pos,
        blockKeys(norm({ name: 'James Ramirez', state })).map((k) => k.replace('P:ld:', 'P:xd:')),
      );
    summed.add(
      5,
      blockKeys(norm({ name: 'Ramiroz, James', state: 'AZ' })).map((k) => k.replace('P:ld:', 'P:xd:')),
    );
    expect(summed.candidates(keys.map((k) => k.replace('P:ld:', 'P:xd:')))).not.toContain(5);
  });
  it('ranks positions beyond its first scratch size (a graph of many records)', () => {
    const idx = new BlockIndex({ maxBlockSize: 10, maxCandidates: 5 });
    idx.add(5, ['a']);
    idx.add(200_000, ['a', 'b']);
    expect(idx.candidates(['a', 'b'])).toEqual([200_000, 5]);
    expect(idx.candidates(['a'])).toEqual([200_000, 5]);
  });
});

describe('capPerCluster', () => {
  const ranked = ['a1', 'a2', 'a3', 'a4', 'b1', 'c1', 'b2', 'd1'];
  const cluster = (m: string) => m.charAt(0);
  it('keeps at most perCluster members of one cluster and maxCandidates in all, in rank order', () => {
    expect(capPerCluster(ranked, cluster, { maxBlockSize: 10, maxCandidates: 5, perCluster: 2 })).toEqual([
      'a1',
      'a2',
      'b1',
      'c1',
      'b2',
    ]);
    expect(capPerCluster(ranked, cluster, { maxBlockSize: 10, maxCandidates: 3, perCluster: 1 })).toEqual([
      'a1',
      'b1',
      'c1',
    ]);
  });
  it('only bounds the list without a per-cluster cap', () => {
    expect(capPerCluster(ranked, cluster, { maxBlockSize: 10, maxCandidates: 3 })).toEqual([
      'a1',
      'a2',
      'a3',
    ]);
    expect(capPerCluster([], cluster, { maxBlockSize: 10, maxCandidates: 3, perCluster: 1 })).toEqual([]);
  });
});
