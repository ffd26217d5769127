/**
 * Which parser reads a file: decided from the declared content type, the
 * title's extension and the first bytes, so a PDF uploaded as
 * `application/octet-stream` is still read as a PDF and a file that is none
 * of the supported formats is refused by name instead of parsed as garbage.
 */
import type { DocumentFormat } from './parsed.js';

const BY_TYPE: Record<string, DocumentFormat> = {
  'application/pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/csv': 'csv',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
};

const BY_EXT: Record<string, DocumentFormat> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  csv: 'csv',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  html: 'html',
  htm: 'html',
};

export const SUPPORTED_FORMATS = ['pdf', 'docx', 'xlsx', 'csv', 'markdown', 'text', 'html'] as const;

export type FormatDecision = { ok: true; format: DocumentFormat } | { ok: false; reason: string };

const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
const isPdf = (b: Uint8Array) => b.length >= 5 && String.fromCharCode(...b.subarray(0, 5)) === '%PDF-';

/** Printable text: no NUL bytes in the first 4 KiB. */
function looksText(b: Uint8Array): boolean {
  const n = Math.min(b.length, 4096);
  for (let i = 0; i < n; i++) if (b[i] === 0) return false;
  return true;
}

/** The format of a file, or why it cannot be read. */
export function detectFormat(contentType: string, title: string, bytes: Uint8Array): FormatDecision {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const ext = /\.([a-z0-9]+)$/i.exec(title)?.[1]?.toLowerCase() ?? '';
  const declared = BY_TYPE[type] ?? BY_EXT[ext];
  if (isPdf(bytes)) return { ok: true, format: 'pdf' };
  if (declared === 'pdf') return { ok: false, reason: 'declared a PDF but the content does not start with %PDF-' };
  if (declared === 'docx' || declared === 'xlsx') {
    if (!isZip(bytes)) return { ok: false, reason: `declared ${declared.toUpperCase()} but the content is not an Office (zip) file` };
    return { ok: true, format: declared };
  }
  if (declared) {
    if (!looksText(bytes)) return { ok: false, reason: `declared ${type || ext} but the content is binary` };
    return { ok: true, format: declared };
  }
  return {
    ok: false,
    reason: `unsupported file type ${type || '(none)'}${ext ? ` (.${ext})` : ''}: supported are ${SUPPORTED_FORMATS.join(', ')}`,
  };
}
