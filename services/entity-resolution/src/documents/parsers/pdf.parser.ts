/**
 * PDF through unpdf (a maintained serverless build of PDF.js). Text items
 * carry their font size: lines clearly larger than the page's body text are
 * headings; vertical gaps larger than a line break paragraphs. Encrypted and
 * damaged files become ParseErrors naming the problem.
 */
import { extractTextItems, getDocumentProxy, getMeta } from 'unpdf';
import type { Block, ParsedDocument } from '../domain/parsed.js';
import { ParseError } from './parse-error.js';

interface Line {
  text: string;
  size: number;
  y: number;
}

function linesOf(items: Array<{ str: string; fontSize: number; y: number; hasEOL: boolean }>): Line[] {
  const lines: Line[] = [];
  let cur: Line | undefined;
  for (const it of items) {
    if (!cur) cur = { text: '', size: 0, y: it.y };
    cur.text += it.str;
    if (it.str.trim()) cur.size = Math.max(cur.size, it.fontSize);
    if (it.hasEOL) {
      if (cur.text.trim()) lines.push({ ...cur, text: cur.text.trim() });
      cur = undefined;
    }
  }
  if (cur?.text.trim()) lines.push({ ...cur, text: cur.text.trim() });
  return lines;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

export async function parsePdf(bytes: Uint8Array): Promise<ParsedDocument> {
  let doc;
  try {
    doc = await getDocumentProxy(new Uint8Array(bytes));
  } catch (err) {
    const name = (err as Error)?.name ?? '';
    if (name === 'PasswordException') throw new ParseError('encrypted', 'the PDF is encrypted (password protected)');
    throw new ParseError('corrupt', `the PDF cannot be read: ${(err as Error)?.message ?? String(err)}`);
  }
  try {
    const { items, totalPages } = await extractTextItems(doc);
    const blocks: Block[] = [];
    const allSizes = items.flat().filter((i) => i.str.trim()).map((i) => i.fontSize);
    const body = median(allSizes) || 10;
    items.forEach((pageItems, p) => {
      const page = p + 1;
      let para: Line[] = [];
      const flush = () => {
        if (para.length) blocks.push({ kind: 'paragraph', text: para.map((l) => l.text).join(' '), page });
        para = [];
      };
      for (const line of linesOf(pageItems)) {
        if (line.size >= body * 1.2 && line.text.length <= 120) {
          flush();
          blocks.push({ kind: 'heading', text: line.text, level: line.size >= body * 1.6 ? 1 : 2, page });
          continue;
        }
        const prev = para[para.length - 1];
        if (prev && Math.abs(prev.y - line.y) > Math.max(prev.size, line.size) * 1.8) flush();
        para.push(line);
      }
      flush();
    });
    let title: string | undefined;
    try {
      const meta = await getMeta(doc);
      if (typeof meta.info?.Title === 'string' && meta.info.Title.trim()) title = meta.info.Title.trim();
    } catch {
      // A missing info dictionary is no reason to refuse the text.
    }
    return { blocks, pageCount: totalPages, format: 'pdf', ...(title ? { title } : {}) };
  } catch (err) {
    if (err instanceof ParseError) throw err;
    throw new ParseError('corrupt', `the PDF cannot be read: ${(err as Error)?.message ?? String(err)}`);
  } finally {
    await (doc as unknown as { destroy?: () => Promise<void> }).destroy?.().catch(() => undefined);
  }
}
