/** One entry point: bytes + declared type + title → ParsedDocument, or a ParseError saying why not. */
import mammoth from 'mammoth';
import { detectFormat } from '../domain/file-type.js';
import type { ParsedDocument } from '../domain/parsed.js';
import { parseHtml } from './html.parser.js';
import { ParseError } from './parse-error.js';
import { parsePdf } from './pdf.parser.js';
import { parseSpreadsheet } from './sheet.parser.js';
import { parseMarkdown, parsePlainText } from './text.parser.js';

export async function parseDocument(bytes: Uint8Array, contentType: string, title: string): Promise<ParsedDocument> {
  if (bytes.byteLength === 0) throw new ParseError('empty', 'the file is empty');
  const decision = detectFormat(contentType, title, bytes);
  if (!decision.ok) throw new ParseError('unsupported_type', decision.reason);
  const text = () => Buffer.from(bytes).toString('utf8');
  let parsed: ParsedDocument;
  switch (decision.format) {
    case 'pdf':
      parsed = await parsePdf(bytes);
      break;
    case 'docx': {
      let html: string;
      try {
        html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes) })).value;
      } catch (err) {
        throw new ParseError('corrupt', `the DOCX file cannot be read: ${(err as Error)?.message ?? String(err)}`);
      }
      parsed = parseHtml(html, 'docx');
      break;
    }
    case 'xlsx':
    case 'csv':
      parsed = await parseSpreadsheet(bytes, decision.format);
      break;
    case 'html':
      parsed = parseHtml(text());
      break;
    case 'markdown':
      parsed = parseMarkdown(text());
      break;
    default:
      parsed = parsePlainText(text());
  }
  if (!parsed.blocks.some((b) => b.kind !== 'heading' && b.text.trim()))
    throw new ParseError('empty', `the ${decision.format} file has no text to index`);
  return parsed;
}
