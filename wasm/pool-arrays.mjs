// The arrays a pool (pool.mjs) hands its parts and keeps between calls: the previous result's
// arrays a part writes into (`reuse`), the caller's rows of them as views, and what the pool
// keeps of one call for the next, so that a part writes into arrays it had before instead of
// new ones: the workers' parts of rows' scores and weights (recycled), and each part's inputs
// and context of a split attention call (spares).

// The most bytes of the workers' last parts of rows that a pool keeps for their next parts:
// a 4,096-token head's scores and weights of one worker, or of three a quarter each, but not
// an 8,192-token head's half.
const RECYCLED_MAX_BYTES = 128 * 2 ** 20;
// The most bytes of the parts' inputs and contexts of a split attention call that a pool keeps
// for the next: 8 heads × 4,096 on two workers and the caller, or one head of 16,384 on one
// worker and the caller, with 64 columns of q, k and v a head. Kept until the next split
// attention call (or close), whatever calls come between.
const SPARES_MAX_BYTES = 32 * 2 ** 20;

// `into` when it is a Float32Array of `length` values, else a new one: where a pool writes an
// array it may have had before.
export function destination(into, length) {
  return into instanceof Float32Array && into.length === length ? into : new Float32Array(length);
}

// A copy of a matrix, written into `into` when it is a Float32Array of its length.
export function copied({ rows, cols, data }, into) {
  const copy = destination(into, data.length);
  copy.set(data);
  return { rows, cols, data: copy };
}

// Whether a Float32Array may be handed over (to a worker, or back): it is alone in its buffer.
export function transferable(array) {
  return array instanceof Float32Array && array.byteOffset === 0 && array.byteLength > 0 &&
    array.byteLength === array.buffer.byteLength && !(typeof SharedArrayBuffer === 'function' && array.buffer instanceof SharedArrayBuffer);
}

// `reuse` (reuseOption's) without the arrays that share a buffer with one of `inputs` (matrices
// or Float32Arrays, null where absent): the pool writes the caller's part into the reused arrays
// before the workers have answered, and a call whose parts fail runs again, whole, from its
// inputs, which must then be as they were.
export function apartFromInputs(reuse, inputs) {
  const buffers = new Set(inputs.filter(Boolean).map((input) => (input.data ?? input).buffer));
  const apart = (array) => (array && buffers.has(array.buffer) ? null : array);
  return Object.fromEntries(Object.entries(reuse).map(([name, value]) => [name, Array.isArray(value) ? value.map(apart) : apart(value)]));
}

// The previous result's arrays a part writes into, as the reuse option of its worker's call,
// and their buffers, handed over (transferred) to the worker: each head's scores and weights
// of a split by heads, or all of them for a call on one worker. `handed` holds the buffers
// given to earlier parts, so that none goes twice.
export function partReuse(by, part, reuse, handed) {
  const transfer = [];
  const take = (array) => {
    if (!transferable(array) || handed.has(array.buffer)) return null;
    handed.add(array.buffer);
    transfer.push(array.buffer);
    return { data: array };
  };
  const heads = (arrays) => (by === 'rows' ? [] : arrays.slice(...(part?.heads ?? [0, arrays.length])).map(take));
  const own = (name) => (by === 'whole' ? take(reuse[name]) : null);
  return {
    reuse: {
      scores: heads(reuse.scores), weights: heads(reuse.weights),
      context: own('context'), q: own('q'), k: own('k'), v: own('v'), output: own('output'),
    },
    transfer,
  };
}

// For the caller's part of a split by rows, rows [r0, r1) of each head's array of the previous
// result (n·m values, m = its length / n) as a view: the caller's engine writes the part's rows
// in place, and the join leaves them there (pool-join.mjs). null where a head has no such
// array (or an empty one: a previous result's array a split by heads handed to a worker); the
// engine ignores a view of another length than the part's, and allocates.
export function rowViews(arrays, [r0, r1], n) {
  return arrays.map((array) => {
    if (!(array instanceof Float32Array) || array.length === 0 || array.length % n !== 0) return null;
    const m = array.length / n;
    return { data: array.subarray(r0 * m, r1 * m) };
  });
}

// A worker's arrays of its last part of rows (rowArraysToKeep's) as its part's reuse (`given`,
// partReuse's), handed over.
export function offerRecycled(arrays, given) {
  if (!arrays) return;
  given.reuse.scores = arrays.scores.map((data) => ({ data }));
  given.reuse.weights = arrays.weights.map((data) => ({ data }));
  given.transfer.push(...[...arrays.scores, ...arrays.weights].map((data) => data.buffer));
}

// The workers' parts' scores and weights arrays of a call split by rows (the join has copied
// them) to keep for their next parts, per worker: when each is alone in its buffer (as a
// worker's answer holds them), in all at most RECYCLED_MAX_BYTES; else null (the pool keeps
// what it has: another call's, made at the same time).
export function rowArraysToKeep(workerResults) {
  if (workerResults.some((result) => !result.scores)) return null;
  const kept = workerResults.map((result) => ({
    scores: result.scores.map((matrix) => matrix.data), weights: result.weights.map((matrix) => matrix.data),
  }));
  const arrays = kept.flatMap(({ scores, weights }) => [...scores, ...weights]);
  const bytes = arrays.reduce((sum, data) => sum + data.byteLength, 0);
  return arrays.every(transferable) && bytes <= RECYCLED_MAX_BYTES ? kept : null;
}

// Each part's arrays of a split attention call to keep for the next, {q, k, v, context} per
// part: a worker's inputs handed back (`returned`, by part) and every part's context (the join
// has copied it); in all at most SPARES_MAX_BYTES, else null (as rowArraysToKeep).
export function sparesToKeep(results, returned) {
  const kept = results.map((result, p) => {
    const [q, k, v] = returned[p] ?? [];  // null where the worker kept one
    const context = result.context.data;
    return { q, k, v, context: transferable(context) ? context : undefined };
  });
  const bytes = kept.flatMap(Object.values).reduce((sum, array) => sum + (array?.byteLength ?? 0), 0);
  return bytes <= SPARES_MAX_BYTES ? kept : null;
}
