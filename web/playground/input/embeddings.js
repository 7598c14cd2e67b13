// Word vectors for the tokens: GloVe 100-d (a compact asset loaded on first use), the
// tutorial presets, or an editable table. Words a source does not know get a deterministic
// hashed vector and are flagged as unknown. (Random inputs are torch.rand, drawn by the
// engine in the worker.) No DOM here: the tests import this module in Node.
//
// The GloVe asset (written by scripts/embeddings.mjs, little-endian):
//   "AEMB" | uint32 version 1 | uint32 rows R | uint32 dims D | float32 mean row norm |
//   float32 scale[R] | int8 value[R·D]     (vector of row r = value[r·D … r·D+D−1] · scale[r])
// and a vocabulary file with one word per line, line r naming row r, most frequent first.
import { PRESET_DIMS } from '../presets.js';

export const GLOVE_FILES = { vectors: 'embeddings/glove-50k.bin', vocabulary: 'embeddings/glove-50k.txt' };
const MAGIC = 'AEMB';
const FORMAT_VERSION = 1;
const HEADER_BYTES = 20;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Parses the GloVe asset: {rows, dims, meanNorm, lookup(key) → Float32Array | null}. */
export function decodeGlove(buffer, vocabularyText) {
  const view = new DataView(buffer);
  const magic = String.fromCharCode(...new Uint8Array(buffer, 0, MAGIC.length));
  const version = view.getUint32(4, true);
  if (magic !== MAGIC || version !== FORMAT_VERSION) {
    throw new Error(`the GloVe asset is not in format ${MAGIC} ${FORMAT_VERSION} (found ${JSON.stringify(magic)} ${version})`);
  }
  const rows = view.getUint32(8, true);
  const dims = view.getUint32(12, true);
  const meanNorm = view.getFloat32(16, true);
  const expectedBytes = HEADER_BYTES + rows * 4 + rows * dims;
  if (buffer.byteLength !== expectedBytes) {
    throw new Error(`the GloVe asset has ${buffer.byteLength} bytes, expected ${expectedBytes} for ${rows}×${dims}`);
  }
  const scales = new Float32Array(buffer, HEADER_BYTES, rows);
  const values = new Int8Array(buffer, HEADER_BYTES + rows * 4, rows * dims);
  const words = vocabularyText.split('\n', rows);
  if (words.length !== rows) throw new Error(`the GloVe vocabulary has ${words.length} words, expected ${rows}`);
  const index = new Map(words.map((word, row) => [word, row]));
  return {
    rows, dims, meanNorm,
    lookup(key) {
      const row = index.get(key);
      if (row === undefined) return null;
      const vector = new Float32Array(dims);
      for (let c = 0; c < dims; ++c) vector[c] = values[row * dims + c] * scales[row];
      return vector;
    },
  };
}

// Reads a response body, reporting (bytes so far, total bytes or 0 when unknown).
async function readWithProgress(response, onProgress) {
  const total = Number(response.headers.get('Content-Length')) || 0;
  const reader = response.body.getReader();
  const chunks = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    received += value.length;
    onProgress(received, total);
  }
  const bytes = new Uint8Array(received);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes.buffer;
}

async function fetchOk(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname} answered ${response.status} ${response.statusText}`);
  return response;
}

/** Fetches and decodes the GloVe asset below `baseUrl`; onProgress(fraction between 0 and 1). */
export async function loadGlove(baseUrl, onProgress) {
  const [vectors, vocabulary] = await Promise.all([
    fetchOk(new URL(GLOVE_FILES.vectors, baseUrl))
      .then((response) => readWithProgress(response, (received, total) => onProgress(total ? received / total : 0))),
    fetchOk(new URL(GLOVE_FILES.vocabulary, baseUrl)).then((response) => response.text()),
  ]);
  return decodeGlove(vectors, vocabulary);
}

// Deterministic pseudo-random numbers in [0, 1) from a word: FNV-1a of its UTF-16 code
// units seeds mulberry32.
function wordRandom(key) {
  let state = FNV_OFFSET;
  for (let i = 0; i < key.length; ++i) state = Math.imul(state ^ key.charCodeAt(i), FNV_PRIME);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The same vector for the same word every time: uniform in [0, 1), or of length `norm` around 0. */
function hashedVector(key, dims, norm = null) {
  const next = wordRandom(key);
  const vector = Float32Array.from({ length: dims }, next);
  if (norm === null) return vector;
  let length = 0;
  for (let c = 0; c < dims; ++c) {
    vector[c] = 2 * vector[c] - 1;
    length += vector[c] * vector[c];
  }
  const factor = norm / Math.sqrt(length);
  for (let c = 0; c < dims; ++c) vector[c] *= factor;
  return vector;
}

/** The form a token is looked up by: lower case (GloVe 6B is), the typographic apostrophe ’ as '. */
export function lookupKey(text) {
  return text.toLowerCase().replaceAll('’', "'");
}

/**
 * Rows for the tokens ([{text}]) from one source:
 *   {type: 'glove', table}            GloVe; unknown words get a hashed vector of GloVe's mean norm
 *   {type: 'preset', preset}          a tutorial preset; other words get a hashed 3-d vector in [0, 1)
 *   {type: 'table', dims, rows}       the editable table; rows[i] (when it has `dims` numbers) for token i
 * Returns {x: {rows, cols, data}, unknown: boolean[]} (unknown: the vector is a hashed one).
 */
export function embedTokens(tokens, source) {
  const dims = source.type === 'glove' ? source.table.dims : source.type === 'preset' ? PRESET_DIMS : source.dims;
  const data = new Float32Array(tokens.length * dims);
  const unknown = tokens.map((token, i) => {
    const key = lookupKey(token.text);
    let vector = null;
    if (source.type === 'glove') vector = source.table.lookup(key);
    else if (source.type === 'preset') vector = source.preset.vectors[key] ?? null;
    else if (source.rows[i]?.length === dims) vector = source.rows[i];
    const known = vector !== null;
    data.set(known ? vector : hashedVector(key, dims, source.type === 'glove' ? source.table.meanNorm : null), i * dims);
    return !known;
  });
  return { x: { rows: tokens.length, cols: dims, data }, unknown };
}
