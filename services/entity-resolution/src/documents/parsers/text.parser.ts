/**
 * Markdown and plain text. Markdown: `#` headings (and setext underlines),
 * pipe tables kept as one table block, fenced code kept whole, paragraphs
 * split on blank lines. Plain text: paragraphs only.
 */
import type { Block, ParsedDocument } from '../domain/parsed.js';

export function parseMarkdown(src: string): ParsedDocument {
  const blocks: Block[] = [];
  const lines = src.replace(/\r\n?/g, '\n').split('\n');
  let para: string[] = [];
  let table: string[] = [];
  const flushPara = () => {
    const t = para.join(' ').replace(/\s+/g, ' ').trim();
    if (t) blocks.push({ kind: 'paragraph', text: t });
    para = [];
  };
  const flushTable = () => {
    const rows = table.filter((l) => !/^\|?\s*:?-{2,}/.test(l.trim()));
    if (rows.length)
      blocks.push({
        kind: 'table',
        text: rows.map((l) => l.trim().replace(/^\||\|$/g, '').split('|').map((c) => c.trim()).join(' | ')).join('\n'),
      });
    table = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (line.trim().startsWith('```')) {
      flushPara();
      flushTable();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trim().startsWith('```'); i++) code.push(lines[i]!);
      if (code.join('').trim()) blocks.push({ kind: 'paragraph', text: code.join('\n') });
      continue;
    }
    if (h) {
      flushPara();
      flushTable();
      blocks.push({ kind: 'heading', text: h[2]!, level: h[1]!.length });
      continue;
    }
    const next = lines[i + 1];
    if (line.trim() && next !== undefined && /^(=+|-+)\s*$/.test(next) && !para.length) {
      flushTable();
      blocks.push({ kind: 'heading', text: line.trim(), level: next.trim().startsWith('=') ? 1 : 2 });
      i++;
      continue;
    }
    if (line.trim().startsWith('|')) {
      flushPara();
      table.push(line);
      continue;
    }
    flushTable();
    if (!line.trim()) flushPara();
    else para.push(line.replace(/^\s*(?:[-*+]|\d+\.)\s+/, ''));
  }
  flushPara();
  flushTable();
  const h1 = blocks.find((b) => b.kind === 'heading' && b.level === 1)?.text;
  return { blocks, pageCount: 1, format: 'markdown', ...(h1 ? { title: h1 } : {}) };
}

export function parsePlainText(src: string): ParsedDocument {
  const blocks: Block[] = src
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .map((text) => ({ kind: 'paragraph' as const, text }));
  return { blocks, pageCount: 1, format: 'text' };
}
