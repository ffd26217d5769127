/**
 * Structure-aware chunking. Blocks are grouped into sections by headings;
 * each section becomes a parent chunk (its heading path and opening text,
 * for context) and child chunks of about `targetTokens` that end on
 * paragraph boundaries. A table is never split: it is a child of its own
 * (long tables become one chunk over the target rather than rows torn from
 * their header). Children carry their parent's id, page and section path.
 */
import type { Block } from './parsed.js';
import { estimateTokens } from './text.js';

export interface Chunk {
  /** Position in the document (0-based, parents and children interleaved). */
  ordinal: number;
  kind: 'parent' | 'child';
  /** Ordinal of the parent chunk for children. */
  parentOrdinal?: number;
  text: string;
  /** Heading path, e.g. "Invoices > March". */
  section: string;
  /** First page the chunk covers (1-based), when the format has pages. */
  page?: number;
  /** Last page it covers. */
  pageEnd?: number;
  /** Whether the chunk is (only) a table. */
  table: boolean;
  tokens: number;
}

export interface ChunkOptions {
  /** Target size of a child chunk (default 1024). */
  targetTokens?: number;
  /** Longest parent text kept (default 256 tokens' worth of characters). */
  parentChars?: number;
}

interface Section {
  path: string;
  blocks: Block[];
}

function sections(blocks: Block[]): Section[] {
  const out: Section[] = [];
  const stack: Array<{ level: number; text: string }> = [];
  let current: Section = { path: '', blocks: [] };
  for (const b of blocks) {
    if (b.kind === 'heading') {
      if (current.blocks.length) out.push(current);
      const level = b.level ?? 1;
      while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
      stack.push({ level, text: b.text.trim() });
      current = { path: stack.map((s) => s.text).join(' > '), blocks: [] };
      continue;
    }
    if (b.text.trim()) current.blocks.push(b);
  }
  if (current.blocks.length) out.push(current);
  return out;
}

/** Splits a paragraph longer than the target on sentence ends (a last resort: paragraphs are kept whole otherwise). */
function splitLong(b: Block, target: number): Block[] {
  if (b.kind === 'table' || estimateTokens(b.text) <= target) return [b];
  const parts: Block[] = [];
  let buf = '';
  for (const s of b.text.match(/[^.!?]+[.!?]*\s*/g) ?? [b.text]) {
    if (buf && estimateTokens(buf + s) > target) {
      parts.push({ ...b, text: buf.trim() });
      buf = '';
    }
    buf += s;
  }
  if (buf.trim()) parts.push({ ...b, text: buf.trim() });
  return parts;
}

export function chunkDocument(blocks: Block[], options: ChunkOptions = {}): Chunk[] {
  const target = options.targetTokens ?? 1024;
  const parentChars = options.parentChars ?? 1200;
  const out: Chunk[] = [];
  for (const sec of sections(blocks)) {
    const parentOrdinal = out.length;
    const opening = sec.blocks.map((b) => b.text).join('\n').slice(0, parentChars);
    const parentText = sec.path ? `${sec.path}\n${opening}` : opening;
    const pages = sec.blocks.map((b) => b.page).filter((p): p is number => p !== undefined);
    out.push({
      ordinal: parentOrdinal,
      kind: 'parent',
      text: parentText,
      section: sec.path,
      ...(pages.length ? { page: Math.min(...pages), pageEnd: Math.max(...pages) } : {}),
      table: false,
      tokens: estimateTokens(parentText),
    });
    let buf: Block[] = [];
    const flush = () => {
      if (!buf.length) return;
      const body = buf.map((b) => b.text).join('\n\n');
      // The heading path leads each child so a chunk read alone still says where it is.
      const text = sec.path ? `${sec.path}\n${body}` : body;
      const ps = buf.map((b) => b.page).filter((p): p is number => p !== undefined);
      out.push({
        ordinal: out.length,
        kind: 'child',
        parentOrdinal,
        text,
        section: sec.path,
        ...(ps.length ? { page: Math.min(...ps), pageEnd: Math.max(...ps) } : {}),
        table: buf.every((b) => b.kind === 'table'),
        tokens: estimateTokens(text),
      });
      buf = [];
    };
    for (const block of sec.blocks.flatMap((b) => splitLong(b, target))) {
      if (block.kind === 'table') {
        flush();
        buf = [block];
        flush();
        continue;
      }
      const size = estimateTokens(buf.map((b) => b.text).join('\n\n'));
      if (buf.length && size + estimateTokens(block.text) > target) flush();
      buf.push(block);
    }
    flush();
  }
  return out;
}
