/**
 * Which format a file is, judged by its name and by its content, and its
 * bytes as text. Both checks apply: a file named `.xml` whose content is a
 * PDF is refused, and so is XML content under a `.pdf` name.
 */
import type { FileFormat } from './file-parser-schema.js';

/** A problem with one file's content or format; the caller decides whose fault it is. */
export class FileProblem extends Error {
  override readonly name = 'FileProblem';
}

const EXTENSIONS: Record<string, FileFormat> = {
  '.xml': 'xml',
  '.csv': 'csv',
  '.tsv': 'csv',
  '.txt': 'csv',
  '.json': 'json',
};

/** File extensions of a format, for default directory patterns and messages. */
export function extensionsOf(format: FileFormat): string[] {
  return Object.keys(EXTENSIONS).filter((ext) => EXTENSIONS[ext] === format);
}

/** Lower-case extension with the dot (`.xml`), or '' when the name has none. */
export function extensionOf(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

export type ContentKind = FileFormat | { binary: string };

const MAGIC: Array<[number[], string]> = [
  [[0x25, 0x50, 0x44, 0x46], 'a PDF'],
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive (or an Office document)'],
  [[0x1f, 0x8b], 'a gzip archive'],
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'a GIF image'],
  [[0xd0, 0xcf, 0x11, 0xe0], 'an old Office document'],
];

/**
 * What the content looks like: XML (first non-blank character `<`), JSON
 * (`{` or `[`), other text (taken for CSV), or binary (a known signature, a
 * NUL byte in the first 8 KB).
 */
export function sniffContent(bytes: Uint8Array): ContentKind {
  for (const [magic, what] of MAGIC) {
    if (magic.every((b, i) => bytes[i] === b)) return { binary: what };
  }
  const head = bytes.subarray(0, 8192);
  const utf16 = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
  if (!utf16 && head.includes(0)) return { binary: 'a binary file' };
  const text = utf16 ? decodeUtf16(head) : Buffer.from(head).toString('utf8');
  const first = text.replace(/^\uFEFF/, '').trimStart()[0];
  if (first === '<') return 'xml';
  if (first === '{' || first === '[') return 'json';
  return 'csv';
}

const NAMES: Record<FileFormat, string> = { xml: 'XML', csv: 'CSV (delimited text)', json: 'JSON' };

/**
 * The file's format, or a FileProblem when the name or content is not
 * acceptable: an extension outside `accepted`, binary content, content that
 * contradicts the extension, or a format the endpoint's parser does not read.
 */
export function checkFormat(
  name: string,
  bytes: Uint8Array,
  parser: FileFormat,
  accepted: readonly FileFormat[] | undefined,
): FileFormat {
  const allowed = accepted ?? [parser];
  if (bytes.length === 0) throw new FileProblem('is empty');
  const ext = extensionOf(name);
  const byName = ext ? EXTENSIONS[ext] : undefined;
  if (ext && (!byName || !allowed.includes(byName))) {
    throw new FileProblem(`is a ${ext} file; accepted formats are ${allowed.join(', ')}`);
  }
  const sniffed = sniffContent(bytes);
  if (typeof sniffed === 'object') {
    throw new FileProblem(`is ${sniffed.binary}, not ${allowed.join(' or ')}`);
  }
  if (byName && byName !== sniffed) {
    throw new FileProblem(`is named ${ext} but its content looks like ${NAMES[sniffed]}`);
  }
  if (!allowed.includes(sniffed)) {
    throw new FileProblem(`looks like ${NAMES[sniffed]}; accepted formats are ${allowed.join(', ')}`);
  }
  if (sniffed !== parser) {
    throw new FileProblem(`looks like ${NAMES[sniffed]}, but this endpoint parses ${NAMES[parser]}`);
  }
  return sniffed;
}

/**
 * The bytes as text: a BOM decides (UTF-8, UTF-16 LE/BE); otherwise XML may
 * name its encoding in the declaration (`<?xml … encoding="ISO-8859-1"?>`),
 * and everything else is UTF-8. Invalid byte sequences are refused rather
 * than replaced, so corrupt files do not yield silently altered values.
 */
export function decodeText(bytes: Uint8Array, format: FileFormat): string {
  let label = 'utf-8';
  let start = 0;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) [label, start] = ['utf-16le', 2];
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) [label, start] = ['utf-16be', 2];
  else if (format === 'xml') {
    const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
    const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1];
    if (declared) label = declared.toLowerCase();
  }
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label, { fatal: true, ignoreBOM: true });
  } catch {
    throw new FileProblem(`declares the encoding "${label}", which is not supported`);
  }
  try {
    return decoder.decode(bytes.subarray(start));
  } catch {
    throw new FileProblem(`is not valid ${label.toUpperCase()} text`);
  }
}

function decodeUtf16(bytes: Uint8Array): string {
  const label = bytes[0] === 0xff ? 'utf-16le' : 'utf-16be';
  return new TextDecoder(label).decode(bytes.subarray(2));
}

/**
 * "is 2.1 MB; files may be at most 2 MB (max_file_size_mb)". Sizes that would
 * print the same are given in bytes, so the message never reads "1 MB > 1 MB".
 */
export function sizeProblem(size: number | undefined, maxBytes: number): string {
  let shown = size === undefined ? 'is larger than that' : `is ${humanSize(size)}`;
  let limit = humanSize(maxBytes);
  if (size !== undefined && humanSize(size) === limit) {
    shown = `is ${size} bytes`;
    limit = `${maxBytes} bytes`;
  }
  return `${shown}; files may be at most ${limit} (max_file_size_mb)`;
}

/** Bytes as KB or MB with at most one decimal. */
export function humanSize(n: number): string {
  const round = (x: number) => Math.round(x * 10) / 10;
  return n < 1024 * 1024 ? `${round(n / 1024)} KB` : `${round(n / (1024 * 1024))} MB`;
}
