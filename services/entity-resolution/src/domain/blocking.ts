/**
 * Blocking: the keys under which a record is filed, so that only records
 * sharing a key are ever scored. Id blocks catch every shared id; phonetic
 * blocks survive typos after the first letter; token blocks catch word-order
 * and legal-form variants of organisations. Oversized blocks (common tokens,
 * common names) are skipped by the index, which bounds candidates per record.
 */
import type { NormalisedRecord } from './normalise.js';
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

export function blockKeys(r: NormalisedRecord): string[] {
  const keys: string[] = [];
  for (const [kind, value] of Object.entries(r.ids)) keys.push(`id:${kind}:${value}`);
  const t = r.entityType === 'PERSON' ? 'P' : 'O';
  if (r.person) {
    const { first, last } = r.person;
    if (last) {
      const f = first.slice(0, 1);
      keys.push(`${t}:sx:${soundex(last)}:${f}`);
      if (r.state) keys.push(`${t}:sxs:${soundex(last)}:${f}:${r.state}`);
      // A typo in the surname's first letter breaks Soundex; the full first name plus the surname's ending does not.
      if (first.length > 1) keys.push(`${t}:fe:${first}:${last.slice(-3)}`);
      // A typo that changes the surname's Soundex code: the first name and the surname's first two letters.
      if (first.length > 1) keys.push(`${t}:fb:${first}:${last.slice(0, 2)}`);
      // Initials and nicknames of the first name: the exact surname (common surnames make oversized blocks, skipped).
      keys.push(`${t}:ln:${last}`);
    }
  } else if (r.org) {
    const core = r.tokens;
    for (const tok of core) if (tok.length > 1 && !ORG_STOPWORDS.has(tok)) keys.push(`${t}:tk:${tok}`);
    if (core.length > 0) keys.push(`${t}:sx:${core.slice(0, 2).map(soundex).join('')}`);
    // A typo in a one-word core: its first two letters with the next word (stopwords included).
    if (core.length > 1) keys.push(`${t}:f2:${(core[0] ?? '').slice(0, 2)}:${core[1]}`);
  }
  return [...new Set(keys)];
}

export interface BlockIndexOptions {
  /** Blocks larger than this are not searched (they hold common names or words). Id blocks are always searched. */
  maxBlockSize: number;
  /** At most this many candidates per record, those sharing the most blocks first. */
  maxCandidates: number;
}

export const DEFAULT_BLOCKING: BlockIndexOptions = { maxBlockSize: 100, maxCandidates: 20 };

/** In-memory block index over record positions (batch and bench; the service keeps the same keys in PostgreSQL). */
export class BlockIndex {
  private readonly blocks = new Map<string, number[]>();

  constructor(private readonly opts: BlockIndexOptions = DEFAULT_BLOCKING) {}

  /** Records sharing a searchable block with `keys`, most shared blocks first, bounded. */
  candidates(keys: readonly string[]): number[] {
    const counts = new Map<number, number>();
    for (const key of keys) {
      const block = this.blocks.get(key);
      if (!block) continue;
      const isId = key.startsWith('id:');
      if (!isId && block.length > this.opts.maxBlockSize) continue;
      // Id agreement outweighs any number of name blocks.
      const w = isId ? 100 : 1;
      for (const pos of block) counts.set(pos, (counts.get(pos) ?? 0) + w);
    }
    const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0]);
    return ranked.slice(0, this.opts.maxCandidates).map(([pos]) => pos);
  }

  add(pos: number, keys: readonly string[]): void {
    for (const key of keys) {
      const block = this.blocks.get(key);
      if (!block) this.blocks.set(key, [pos]);
      // Past the searchable size a block only needs to stay "too big"; stop growing it to bound memory.
      else if (key.startsWith('id:') || block.length <= this.opts.maxBlockSize) block.push(pos);
    }
  }
}
