/**
 * HTML through htmlparser2: h1–h6 become headings, tables one table block
 * (rows as `cell | cell` lines), other block elements paragraphs; scripts,
 * styles and templates are dropped. DOCX goes through here too, after
 * mammoth has turned it into HTML.
 */
import { Parser } from 'htmlparser2';
import type { Block, DocumentFormat, ParsedDocument } from '../domain/parsed.js';

const BLOCK = new Set(['p', 'div', 'li', 'section', 'article', 'blockquote', 'pre', 'br', 'tr', 'dd', 'dt', 'main', 'header', 'footer']);
const SKIP = new Set(['script', 'style', 'template', 'noscript', 'head']);

export function parseHtml(html: string, format: DocumentFormat = 'html'): ParsedDocument {
  const blocks: Block[] = [];
  let text = '';
  let skip = 0;
  let heading = 0;
  let table: string[][] | undefined;
  let row: string[] | undefined;
  let cell: string | undefined;
  let title = '';
  let inTitle = false;
  const flush = () => {
    const t = text.replace(/\s+/g, ' ').trim();
    if (t) blocks.push(heading ? { kind: 'heading', text: t, level: heading } : { kind: 'paragraph', text: t });
    text = '';
  };
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'title') inTitle = true;
        if (SKIP.has(name)) skip++;
        if (skip) return;
        if (/^h[1-6]$/.test(name)) {
          flush();
          heading = Number(name[1]);
        } else if (name === 'table') {
          flush();
          table = [];
        } else if (table && name === 'tr') row = [];
        else if (table && (name === 'td' || name === 'th')) cell = '';
        else if (BLOCK.has(name) && !table) flush();
      },
      ontext(data) {
        if (inTitle) title += data;
        if (skip) return;
        if (cell !== undefined) cell += data;
        else if (!table) text += data;
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (SKIP.has(name)) {
          skip = Math.max(0, skip - 1);
          return;
        }
        if (skip) return;
        if (/^h[1-6]$/.test(name)) {
          flush();
          heading = 0;
        } else if (table && (name === 'td' || name === 'th')) {
          row?.push((cell ?? '').replace(/\s+/g, ' ').trim());
          cell = undefined;
        } else if (table && name === 'tr') {
          if (row?.some((c) => c)) table.push(row);
          row = undefined;
        } else if (name === 'table' && table) {
          if (table.length) blocks.push({ kind: 'table', text: table.map((r) => r.join(' | ')).join('\n') });
          table = undefined;
        } else if (BLOCK.has(name) && !table) flush();
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  flush();
  const h1 = blocks.find((b) => b.kind === 'heading' && b.level === 1)?.text;
  const t = title.trim() || h1;
  return { blocks, pageCount: 1, format, ...(t ? { title: t } : {}) };
}
