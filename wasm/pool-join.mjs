// How the pool (pool.mjs) joins its parts' results into the whole call's, in order: heads side by
// side, blocks of rows one under the other, written into the previous result's arrays when given.
import { destination } from './pool-arrays.mjs';

// The widest rows writeColumns copies value by value; wider ones by Float32Array.set, whose
// call costs more than a short copy. In a Chromium worker here, 512 rows took 6 µs by value and
// 28 by set() at 8 columns, 19 and 27 at 32, 34 and 25 at 64.
const COPIED_BY_VALUE = 32;

// A matrix written into columns [first, first + its cols) of `data`, rows × cols.
function writeColumns(data, cols, matrix, first) {
  const { rows, cols: width, data: from } = matrix;
  if (width > COPIED_BY_VALUE) {
    for (let row = 0; row < rows; ++row) data.set(from.subarray(row * width, (row + 1) * width), row * cols + first);
    return;
  }
  for (let row = 0, source = 0; row < rows; ++row, source += width) {
    const target = row * cols + first;
    for (let col = 0; col < width; ++col) data[target + col] = from[source + col];
  }
}

// The matrices a split by heads joins side by side, each part holding its heads' columns:
// of its query heads, or (k and v) of the key/value heads they read.
const QUERY_HEAD_MATRICES = ['context', 'q', 'output'];
const KEY_VALUE_MATRICES = ['k', 'v'];

// Where part p's matrix `name` of a split by heads goes in the joined one: {first, cols}, its
// heads' first column among cols. Neighbouring parts may read the same key/value head (more
// query heads than key/value heads in a group): both hold its columns, the same numbers, and
// both write them.
function headColumns(split, name, p, matrix) {
  const ranges = KEY_VALUE_MATRICES.includes(name) ? split.kvRanges : split.parts.map((part) => part.heads);
  const [h0, h1] = ranges[p];
  const width = matrix.cols / (h1 - h0);  // of a head
  return { first: h0 * width, cols: width * ranges.at(-1)[1] };
}

// Part p's matrix `name` written into its heads' columns of the joined one (`into`, the
// previous result's, when its length fits): the data of that joined matrix.
function placeHeads(split, name, p, matrix, into) {
  const { first, cols } = headColumns(split, name, p, matrix);
  const data = destination(into, matrix.rows * cols);
  writeColumns(data, cols, matrix, first);
  return data;
}

// The matrices of part p of a split by heads (the caller's, computed while the workers compute
// theirs) written into the joined ones (`reuse`'s, where their lengths fit) ahead of the join:
// {part: p, data: {name: joined data}} for join's `placed`.
export function placePart(split, p, result, reuse) {
  const data = {};
  for (const name of [...QUERY_HEAD_MATRICES, ...KEY_VALUE_MATRICES]) {
    if (result[name]) data[name] = placeHeads(split, name, p, result[name], reuse[name]);
  }
  return { part: p, data };
}

// The parts' matrices `name` of a split by heads side by side, into `into` when its length
// fits; the one of part placed.part is already there (placePart).
function joinHeads(split, results, name, into, placed) {
  const matrices = results.map((result) => result[name]);
  const { rows } = matrices[0];
  const { cols } = headColumns(split, name, 0, matrices[0]);
  const data = placed?.data[name] ?? destination(into, rows * cols);
  matrices.forEach((matrix, p) => {
    if (p !== placed?.part || !placed.data[name]) writeColumns(data, cols, matrix, headColumns(split, name, p, matrix).first);
  });
  return { rows, cols, data };
}

// Matrices of equal columns one under the other; a matrix already in its place (the caller's
// part of rows, written into a view of the destination: pool.mjs rowViews) is left there.
function joinRows(matrices, into) {
  const cols = matrices[0].cols;
  const rows = matrices.reduce((sum, matrix) => sum + matrix.rows, 0);
  const data = destination(into, rows * cols);
  let offset = 0;
  for (const matrix of matrices) {
    const inPlace = matrix.data.buffer === data.buffer && matrix.data.byteOffset === data.byteOffset + offset * data.BYTES_PER_ELEMENT;
    if (!inPlace) data.set(matrix.data, offset);
    offset += matrix.data.length;
  }
  return { rows, cols, data };
}

// The whole call's result from its parts' results, in order; `reuse` as reuseOption gives it;
// `placed`, the caller's part's matrices already written (placePart).
export function join(split, results, reuse, placed = null) {
  if (split.by === 'whole') return results[0];
  const [first] = results;
  const joined = { kernel: first.kernel };
  if (split.by === 'heads') {
    const joinMatrix = (name) => joinHeads(split, results, name, reuse[name], placed);
    joined.scores = first.scores && results.flatMap((result) => result.scores);
    joined.weights = first.weights && results.flatMap((result) => result.weights);
    joined.context = joinMatrix('context');
    if (first.q) Object.assign(joined, { q: joinMatrix('q'), k: joinMatrix('k'), v: joinMatrix('v'), output: joinMatrix('output') });
  } else {
    const joinMatrices = (name) => joinRows(results.map((result) => result[name]), reuse[name]);
    const joinEachHead = (name) => first[name] && first[name].map((_, h) => joinRows(results.map((result) => result[name][h]), reuse[name][h]));
    joined.scores = joinEachHead('scores');
    joined.weights = joinEachHead('weights');
    joined.context = joinMatrices('context');
    // Every part computes all of k and v.
    if (first.q) Object.assign(joined, { q: joinMatrices('q'), k: first.k, v: first.v, output: joinMatrices('output') });
  }
  return joined;
}
