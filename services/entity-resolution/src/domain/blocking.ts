/**
 * Blocking: the keys under which a record is filed, so that only records
 * sharing a key are ever scored. Id blocks catch every shared id; phonetic
 * blocks survive typos after the first letter; token blocks catch word-order
 * and legal-form variants of organisations. Oversized blocks (common tokens,
 * common names) are skipped by the index, which bounds candidates per record.
 */
import type { NormalisedRecord } from './normalise.js';
import { NICKNAMES_OF } from './lexicon.js';
import { soundex } from './phonetic.js';

const ORG_STOPWORDS = new Set([
  'and',
  'of',
  'for',
  'the',
  'in',
  'on',
  'at',
  'a',
  'to',
  'family',
  'committee',
  'american',
  'national',
  'united',
  'states',
  'association',
  'friends',
  'fund',
  'foundation',
]);

/**
 * The version of `blockKeys`: raise it whenever the keys a record gets
 * change. A stored entity keyed by an older version is keyed again from its
 * stored normalised record when the service starts (GraphResolution.rekeyStale),
 * so new keys find old records too. 2: the organisation typo keys. 3: the first
 * name's (and in `fb` the surname's) first two letters in order. 4: a formal first name's
 * nicknames' initials.
 */
export const BLOCK_KEYS_VERSION = 4;

/** A word with its first two letters in alphabetical order: `ycnthia` and `cynthia` both give `cynthia`. */
export function swapInvariant(word: string): string {
  const [a, b] = [word.charAt(0), word.charAt(1)];
  return b !== '' && b < a ? b + a + word.slice(2) : word;
}

export function blockKeys(r: NormalisedRecord): string[] {
  const keys: string[] = [];
  for (const [kind, value] of Object.entries(r.ids)) keys.push(`id:${kind}:${value}`);
  const t = r.entityType === 'PERSON' ? 'P' : 'O';
  if (r.person) {
    const { first, last } = r.person;
    if (last) {
      const f = first.slice(0, 1);
      const sx = soundex(last);
      keys.push(`${t}:sx:${sx}:${f}`);
      if (r.state) keys.push(`${t}:sxs:${sx}:${f}:${r.state}`);
      // A formal first name is also filed under its nicknames' initials, where a record written
      // with the nickname's initial (`B. Walker` for Betty) or a misspelt nickname (`Bfilly`) is.
      for (const n of NICKNAMES_OF[first] ?? []) {
        const g = n.slice(0, 1);
        if (g === f) continue;
        keys.push(`${t}:sx:${sx}:${g}`);
        if (r.state) keys.push(`${t}:sxs:${sx}:${g}:${r.state}`);
      }
      // A typo in the surname's first letter breaks Soundex; the full first name plus the surname's ending does
      // not. The first name's first two letters in order, so that a swap there (`Ycnthia`) keeps the key.
      const given = swapInvariant(first);
      if (first.length > 1) keys.push(`${t}:fe:${given}:${last.slice(-3)}`);
      // A typo that changes the surname's Soundex code: the first name and the surname's first two letters
      // (in order, for a swap there too).
      if (first.length > 1) keys.push(`${t}:fb:${given}:${swapInvariant(last.slice(0, 2))}`);
      // Initials and nicknames of the first name: the exact surname (common surnames make oversized blocks, skipped).
      keys.push(`${t}:ln:${last}`);
      // Any one typo in the surname (even with a typo or an initial in the first name): its one-deletion
      // neighbourhood plus the surname itself, since two spellings one insertion, deletion or
      // substitution apart always share one of these. Qualified by the first initial (which the
      // typos of the sources keep) so that common surnames still make searchable blocks.
      if (last.length >= 3) {
        keys.push(`${t}:ld:${f}:${last}`);
        for (let i = 0; i < last.length; i++)
          keys.push(`${t}:ld:${f}:${last.slice(0, i)}${last.slice(i + 1)}`);
      }
    }
  } else if (r.org) {
    const core = r.tokens;
    for (const tok of core) if (tok.length > 1 && !ORG_STOPWORDS.has(tok)) keys.push(`${t}:tk:${tok}`);
    if (core.length > 0) keys.push(`${t}:sx:${core.slice(0, 2).map(soundex).join('')}`);
    // A typo in a one-word core: its first two letters with the next word (stopwords included).
    if (core.length > 1) keys.push(`${t}:f2:${(core[0] ?? '').slice(0, 2)}:${core[1]}`);
    // A typo in the core's longest word (mostly its distinctive one: a place or family name), with
    // the rest of the core (so that a common word still makes a small block): its first two letters
    // in either order (a swap there changes the first letter, which most other keys keep), and its
    // first three letters (a typo after them). Two keys, not the word's whole one-deletion
    // neighbourhood, which would double an organisation's keys (the index at 1M records).
    let at = -1;
    for (let i = 0; i < core.length; i++)
      if (!ORG_STOPWORDS.has(core[i]!) && (at < 0 || core[i]!.length > core[at]!.length)) at = i;
    const longest = at >= 0 ? core[at]! : '';
    if (longest.length >= 5) {
      const rest = [...core.slice(0, at), ...core.slice(at + 1)].join(' ');
      const [x, y] = [longest.charAt(0), longest.charAt(1)];
      keys.push(`${t}:wd:${x < y ? x + y : y + x}${longest.slice(2)}|${rest}`);
      keys.push(`${t}:wd:${longest.slice(0, 3)}|${rest}`);
    }
    // A typo (or an abbreviation) in any one word of the core: the core with that word left out.
    if (core.length > 2)
      for (let i = 0; i < core.length; i++)
        keys.push(`${t}:dr:${[...core.slice(0, i), ...core.slice(i + 1)].join(' ')}`);
  }
  return [...new Set(keys)];
}

export interface BlockIndexOptions {
  /** Blocks larger than this are not searched (they hold common names or words). Id blocks are always searched. */
  maxBlockSize: number;
  /** At most this many candidates per record, those sharing the most blocks first. */
  maxCandidates: number;
  /**
   * At most this many of those candidates from one cluster (unset: no cap). A big entity's records
   * share the most blocks with a new record of its name and would otherwise fill the list, leaving
   * out the other entities it must be weighed against, or the one it belongs to.
   */
  perCluster?: number;
}

export const DEFAULT_BLOCKING: BlockIndexOptions = { maxBlockSize: 100, maxCandidates: 20, perCluster: 3 };

/** How many ranked records the per-cluster cap draws its candidates from. */
export function rankPool(opts: BlockIndexOptions): number {
  return opts.perCluster ? opts.maxCandidates * 3 : opts.maxCandidates;
}

/**
 * The bounded candidate list from a ranked pool: at most `perCluster` members of one cluster, at
 * most `maxCandidates` in all, in rank order. The in-memory resolver and the service both cap through this.
 */
export function capPerCluster<T>(
  ranked: readonly T[],
  clusterOf: (m: T) => string | number,
  opts: BlockIndexOptions,
): T[] {
  const cap = opts.perCluster;
  if (!cap) return ranked.slice(0, opts.maxCandidates);
  const taken = new Map<string | number, number>();
  const out: T[] = [];
  for (const m of ranked) {
    if (out.length >= opts.maxCandidates) break;
    const c = clusterOf(m);
    const k = taken.get(c) ?? 0;
    if (k >= cap) continue;
    taken.set(c, k + 1);
    out.push(m);
  }
  return out;
}

/** How much sharing one block says: an id block outweighs any number of name blocks; a small block says more than a big one. */
export function blockWeight(key: string, size: number): number {
  return key.startsWith('id:') ? 100 : 1 / Math.log2(1 + size);
}

/**
 * The family of a key that files one name under many neighbouring keys (a surname's one-deletion
 * variants, an organisation's core less each word), or undefined. A record sharing several keys of
 * one family with a candidate says no more than the best of them: summed, they would rank every
 * namesake with the exact surname above a record of the same person with a typo in it (which shares
 * one deletion key) and the state or employer that the namesake lacks.
 */
export function keyFamily(key: string): string | undefined {
  return key.startsWith('P:ld:') ? 'P:ld' : key.startsWith('O:dr:') ? 'O:dr' : undefined;
}

/**
 * The bounded candidate list from the blocks a record shares: oversized name
 * blocks skipped, members ranked by the summed weight of the blocks they
 * share, counting only the best block of each key family (ties: `tieBreak`),
 * at most `limit` of them. The in-memory index and the PostgreSQL store both
 * rank this way.
 */
export function rankCandidates<T>(
  blocks: Iterable<readonly [key: string, members: readonly T[]]>,
  opts: BlockIndexOptions = DEFAULT_BLOCKING,
  tieBreak: (a: T, b: T) => number = () => 0,
  limit = opts.maxCandidates,
): T[] {
  const score = new Map<T, number>();
  const families = new Map<string, Map<T, number>>();
  for (const [key, members] of blocks) {
    if (!key.startsWith('id:') && members.length > opts.maxBlockSize) continue;
    const w = blockWeight(key, members.length);
    const family = keyFamily(key);
    const into = family ? (families.get(family) ?? families.set(family, new Map()).get(family)!) : undefined;
    for (const m of members)
      if (into) into.set(m, Math.max(into.get(m) ?? 0, w));
      else score.set(m, (score.get(m) ?? 0) + w);
  }
  for (const best of families.values()) for (const [m, w] of best) score.set(m, (score.get(m) ?? 0) + w);
  return [...score.entries()]
    .sort((a, b) => b[1] - a[1] || tieBreak(a[0], b[0]))
    .slice(0, limit)
    .map(([m]) => m);
}

/** 32-bit FNV-1a: block keys are held as numbers (a rare collision only adds a candidate, which scoring rejects). */
function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // Id blocks live in the negative half of the space, so they are never capped (and stay small integers).
  return key.startsWith('id:') ? -(h >>> 1) - 1 : h >>> 1;
}
const isIdHash = (h: number) => h < 0;

/**
 * In-memory block index over record positions (batch, CLI and bench; the
 * service keeps the same keys in PostgreSQL). Compact for a million records:
 * keys are hashed to numbers and a block of one is held as a bare number.
 */
export class BlockIndex {
  /** Sharded by the hash's low bits: one Map holds at most 2^24 entries, a million records file ~15 million keys. */
  private readonly shards = Array.from({ length: 16 }, () => new Map<number, number | number[]>());

  constructor(private readonly opts: BlockIndexOptions = DEFAULT_BLOCKING) {}

  /** Summed block weight per record position while one record's candidates are ranked (0: not shared). */
  private score: Float64Array = new Float64Array(1024);
  /** The best weight per position within one key family, while that family is read. */
  private best: Float64Array = new Float64Array(1024);

  /**
   * Records sharing a searchable block with `keys`, ranked and bounded exactly as `rankCandidates`
   * ranks them (ties: the later position first), with the weights summed in reused arrays indexed
   * by position rather than a Map per record.
   */
  candidates(keys: readonly string[], limit = this.opts.maxCandidates): number[] {
    const touched: number[] = [];
    // Keys outside any family first (undefined), then each family's keys together.
    const groups = new Map<string | undefined, string[]>([[undefined, []]]);
    for (const key of keys) {
      const f = keyFamily(key);
      (groups.get(f) ?? groups.set(f, []).get(f)!).push(key);
    }
    for (const [family, group] of groups) {
      const inFamily: number[] = [];
      for (const key of group) {
        const h = hashKey(key);
        const block = this.shards[h & 15]!.get(h);
        if (block === undefined) continue;
        const size = typeof block === 'number' ? 1 : block.length;
        if (!isIdHash(h) && size > this.opts.maxBlockSize) continue;
        const w = blockWeight(key, size);
        for (let i = 0; i < size; i++) {
          const m = typeof block === 'number' ? block : block[i]!;
          if (m >= this.score.length) this.grow(m);
          if (family === undefined) {
            if (this.score[m] === 0) touched.push(m);
            this.score[m] = this.score[m]! + w;
          } else {
            if (this.best[m] === 0) inFamily.push(m);
            if (w > this.best[m]!) this.best[m] = w;
          }
        }
      }
      for (const m of inFamily) {
        if (this.score[m] === 0) touched.push(m);
        this.score[m] = this.score[m]! + this.best[m]!;
        this.best[m] = 0;
      }
    }
    const score = this.score;
    touched.sort((a, b) => score[b]! - score[a]! || b - a);
    const out = touched.length > limit ? touched.slice(0, limit) : touched;
    for (const m of touched) score[m] = 0;
    return out;
  }

  private grow(pos: number): void {
    const size = Math.max(2 * this.score.length, pos + 1);
    const next = new Float64Array(size);
    next.set(this.score);
    this.score = next;
    const best = new Float64Array(size);
    best.set(this.best);
    this.best = best;
  }

  add(pos: number, keys: readonly string[]): void {
    for (const key of keys) {
      const h = hashKey(key);
      const shard = this.shards[h & 15]!;
      const block = shard.get(h);
      if (block === undefined) shard.set(h, pos);
      else if (typeof block === 'number') {
        if (block !== pos) shard.set(h, [block, pos]);
      }
      // Past the searchable size a block only needs to stay "too big"; stop growing it to bound memory.
      else if (isIdHash(h) || block.length <= this.opts.maxBlockSize) {
        if (block[block.length - 1] !== pos) block.push(pos);
      }
    }
  }
}
