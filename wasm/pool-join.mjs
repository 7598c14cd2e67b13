// How the pool (pool.mjs) joins its parts' results into the whole call's, in order: heads side by
// side, blocks of rows one under the other, written into the previous result's arrays when given.
import { destination } from './pool-arrays.mjs';
import { columns } from './pool-split.mjs';

// A matrix written into columns [first, first + its cols) of `data`, rows × cols.
function writeColumns(data, cols, matrix, first) {
  for (let row = 0; row < matrix.rows; ++row) {
    data.set(matrix.data.subarray(row * matrix.cols, (row + 1) * matrix.cols), row * cols + first);
  }
}

// Matrices of equal rows side by side; those whose indices are in `written` are already in
// place (placeContext).
function joinColumns(matrices, into, written = new Set()) {
  const rows = matrices[0].rows;
  const cols = matrices.reduce((sum, matrix) => sum + matrix.cols, 0);
  const data = destination(into, rows * cols);
  let first = 0;
  matrices.forEach((matrix, p) => {
    if (!written.has(p)) writeColumns(data, cols, matrix, first);
    first += matrix.cols;
  });
  return { rows, cols, data };
}

// The context of part p of a split by heads (the caller's, computed while the workers compute
// theirs) written into the joined context (`into`, the previous result's, when its length fits)
// ahead of the join: {data, parts} for join's `placed`.
export function placeContext(split, p, context, into) {
  const [h0, h1] = split.parts[p].heads;
  const width = context.cols / (h1 - h0);  // of a head
  const cols = width * split.parts.at(-1).heads[1];
  const data = destination(into, context.rows * cols);
  writeColumns(data, cols, context, h0 * width);
  return { data, parts: new Set([p]) };
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

// A split by heads' k (or v) from its parts' matrices: each part holds the columns of the
// key/value heads its query heads read, and neighbouring parts may share one (more query heads
// than key/value heads in a group), taken once, from the first part that has it.
function joinKeyValueColumns(split, matrices, into) {
  const taken = [];
  let next = 0;  // the first key/value head not yet taken
  matrices.forEach((matrix, p) => {
    const [g0, g1] = split.kvRanges[p];
    const width = matrix.cols / (g1 - g0);
    const skip = Math.max(0, next - g0) * width;
    if (skip < matrix.cols) taken.push(skip === 0 ? matrix : columns(matrix, skip, matrix.cols - skip));
    next = Math.max(next, g1);
  });
  return joinColumns(taken, into);
}

// The whole call's result from its parts' results, in order; `reuse` as reuseOption gives it;
// `placed`, the parts' context already written (placeContext).
export function join(split, results, reuse, placed = null) {
  if (split.by === 'whole') return results[0];
  const [first] = results;
  const joined = { kernel: first.kernel };
  if (split.by === 'heads') {
    const joinMatrices = (name) => joinColumns(results.map((result) => result[name]), reuse[name]);
    joined.scores = first.scores && results.flatMap((result) => result.scores);
    joined.weights = first.weights && results.flatMap((result) => result.weights);
    joined.context = joinColumns(results.map((result) => result.context), placed?.data ?? reuse.context, placed?.parts);
    const joinKeyValues = (name) => joinKeyValueColumns(split, results.map((result) => result[name]), reuse[name]);
    if (first.q) Object.assign(joined, { q: joinMatrices('q'), k: joinKeyValues('k'), v: joinKeyValues('v'), output: joinMatrices('output') });
  } else {
    const joinMatrices = (name) => joinRows(results.map((result) => result[name]), reuse[name]);
    const joinHeads = (name) => first[name] && first[name].map((_, h) => joinRows(results.map((result) => result[name][h]), reuse[name][h]));
    joined.scores = joinHeads('scores');
    joined.weights = joinHeads('weights');
    joined.context = joinMatrices('context');
    // Every part computes all of k and v.
    if (first.q) Object.assign(joined, { q: joinMatrices('q'), k: first.k, v: first.v, output: joinMatrices('output') });
  }
  return joined;
}
