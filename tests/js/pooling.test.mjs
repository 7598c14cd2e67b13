// Block pooling (engine.poolBlocks, core/include/attn/block_pooling.hpp) and profiles of big
// matrices (web/shared/heatmap/pooling.js), as the playground's worker runs them, against plain
// reference loops over generated shapes, masks, NaN and regions, in Node.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { columnMeans, meanOf, poolVector } from '../../web/shared/heatmap/pooling.js';

const engine = await createAttention();
const { poolBlocks } = engine;

const CASES = 40;
const MAX_SIDE = 70;
const TOLERANCE = 1e-5;   // sums of float32 in another order

// mulberry32: the same cases every run.
function random(seed) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

// An n×n head: a causal mask (score −Infinity, weight 0) when asked, and now and then a NaN.
function head(next, n, causal) {
  const scores = new Float32Array(n * n);
  const weights = new Float32Array(n * n);
  for (let i = 0; i < n; ++i) {
    for (let j = 0; j < n; ++j) {
      const k = i * n + j;
      if (causal && j > i) {
        scores[k] = -Infinity;
      } else {
        scores[k] = next() * 8 - 4;
        weights[k] = next() < 0.01 ? NaN : next() * 2 - 0.5;  // negative too, as 'sum' normalisation gives
      }
    }
  }
  return { scores, weights };
}

// The reference: each block gathers its visible cells and folds them in one go.
function referenceBlocks({ scores, weights, stride, row0, col0, rows, cols, block, mode }) {
  const cellRows = Math.ceil(rows / block);
  const cellCols = Math.ceil(cols / block);
  const out = { cellRows, cellCols, scores: [], weights: [], masked: [] };
  for (let r = 0; r < cellRows; ++r) {
    for (let c = 0; c < cellCols; ++c) {
      const seen = [];
      for (let i = r * block; i < Math.min(rows, (r + 1) * block); ++i) {
        for (let j = c * block; j < Math.min(cols, (c + 1) * block); ++j) {
          const k = (row0 + i) * stride + col0 + j;
          if (scores[k] !== -Infinity) seen.push([scores[k], weights[k]]);
        }
      }
      const fold = (values) => (mode === 'max' ? Math.max(...values) : values.reduce((a, b) => a + b, 0) / values.length);
      out.masked.push(seen.length === 0 ? 1 : 0);
      out.scores.push(seen.length === 0 ? -Infinity : fold(seen.map(([s]) => s)));
      out.weights.push(seen.length === 0 ? 0 : fold(seen.map(([, w]) => w)));
    }
  }
  return out;
}

// The maximum exactly (Math.max's value as a float32: +0 apart from −0, any NaN for NaN).
function assertSameMaxima(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let k = 0; k < expected.length; ++k) {
    const [a, e] = [actual[k], Math.fround(expected[k])];
    assert.ok(Number.isNaN(e) ? Number.isNaN(a) : Object.is(a, e), `${what}[${k}]: ${a} vs ${e}`);
  }
}

// A mode's values against the reference's: exactly for the maximum, within float rounding for the mean.
const assertPooled = (mode, actual, expected, what) => (mode === 'max' ? assertSameMaxima : assertSameValues)(actual, expected, what);

function assertSameValues(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let k = 0; k < expected.length; ++k) {
    const [a, e] = [actual[k], expected[k]];
    const same = Number.isNaN(e) ? Number.isNaN(a) : !Number.isFinite(e) ? a === e : Math.abs(a - e) <= TOLERANCE * Math.max(1, Math.abs(e));
    assert.ok(same, `${what}[${k}]: ${a} vs ${e}`);
  }
}

describe('pooling', () => {
  test('poolBlocks: max and mean of every block equal the reference, masks and NaN included', () => {
    const next = random(20240601);
    for (let c = 0; c < CASES; ++c) {
      const n = 1 + Math.floor(next() * MAX_SIDE);
      const { scores, weights } = head(next, n, c % 2 === 0);
      const size = 1 + Math.floor(next() * n);
      const row0 = Math.floor(next() * (n - size + 1));
      const col0 = Math.floor(next() * (n - size + 1));
      const drawn = 1 + Math.floor(next() * 9);
      const block = c % 4 === 0 ? 1 : drawn;  // blocks of one cell (a fast path) in every fourth case
      for (const mode of ['max', 'mean']) {
        const options = { scores, weights, stride: n, row0, col0, rows: size, cols: size, block, mode };
        const actual = poolBlocks(options);
        const expected = referenceBlocks(options);
        const what = `n=${n} rows ${row0}+${size} cols ${col0}+${size} block ${block} ${mode}`;
        assert.deepEqual([actual.cellRows, actual.cellCols], [expected.cellRows, expected.cellCols], what);
        assert.deepEqual(Array.from(actual.masked), expected.masked, `${what}: masked`);
        assertPooled(mode, actual.scores, expected.scores, `${what}: scores`);
        assertPooled(mode, actual.weights, expected.weights, `${what}: weights`);
      }
    }
  });

  test('poolBlocks with blocks of one cell: the cells themselves in both modes, NaN and infinities kept, a masked cell\'s weight 0', () => {
    const scores = Float32Array.from([1, -Infinity, NaN, Infinity, 0.25, -2]);
    const weights = Float32Array.from([0.5, 0.7, 0.2, NaN, 0.1, 0.3]);
    for (const mode of ['max', 'mean']) {
      // rows 0–1, columns 1–2 of a 2×3 matrix
      const region = { scores, weights, stride: 3, row0: 0, col0: 1, rows: 2, cols: 2, block: 1, mode };
      const pooled = poolBlocks(region);
      assert.deepEqual([pooled.cellRows, pooled.cellCols], [2, 2]);
      assert.deepEqual(Array.from(pooled.scores), [-Infinity, NaN, 0.25, -2], mode);
      assert.deepEqual(Array.from(pooled.weights), [0, Math.fround(0.2), Math.fround(0.1), Math.fround(0.3)], mode);
      assert.deepEqual(Array.from(pooled.masked), [1, 0, 0, 0], mode);
      const expected = referenceBlocks(region);
      assert.deepEqual(Array.from(pooled.masked), expected.masked);
      assertSameValues(pooled.weights, expected.weights, `${mode}: weights against the reference`);
    }
    const whole = poolBlocks({ scores, weights, stride: 3, row0: 0, col0: 0, rows: 2, cols: 3, block: 1, mode: 'max' });
    assert.ok(Number.isNaN(whole.weights[3]), 'a NaN weight stays NaN');
    assert.equal(whole.scores[3], Infinity);
  });

  test('poolBlocks over regions of many rows, read in stripes: the reference\'s blocks', () => {
    const next = random(20261126);
    for (const [n, cols, stride, block] of [[600, 400, 401, 3], [300, 2048, 2048, 8], [130, 130, 130, 2]]) {
      const scores = Float32Array.from({ length: n * stride }, () => next() * 8 - 4);
      const weights = Float32Array.from({ length: n * stride }, () => next());
      for (let i = 0; i < n; ++i) {
        for (let j = 0; j < stride; ++j) if (j > i + 50) scores[i * stride + j] = -Infinity;
      }
      scores[(n - 1) * stride + 1] = NaN;  // in the last stripe
      for (const mode of ['max', 'mean']) {
        const region = { scores, weights, stride, row0: 1, col0: stride - cols, rows: n - 1, cols, block, mode };
        const actual = poolBlocks(region);
        const expected = referenceBlocks(region);
        const what = `${n - 1}×${cols} of stride ${stride}, block ${block}, ${mode}`;
        assert.deepEqual(Array.from(actual.masked), expected.masked, `${what}: masked`);
        assertPooled(mode, actual.scores, expected.scores, `${what}: scores`);
        assertPooled(mode, actual.weights, expected.weights, `${what}: weights`);
      }
    }
  });

  test('poolBlocks holds a stripe of a long input\'s rows in the engine\'s memory, not its matrices', async () => {
    const fresh = await createAttention();  // a heap no other test has grown
    const n = 2048;
    const scores = new Float32Array(n * n).fill(0.5);
    const weights = new Float32Array(n * n).fill(0.25);
    fresh.poolBlocks({ scores, weights, stride: 8, rows: 8, cols: 8, block: 8 });  // its first call
    const before = fresh.memoryBytes;
    const pooled = fresh.poolBlocks({ scores, weights, stride: n, rows: n, cols: n, block: 8, mode: 'max' });
    assert.deepEqual([pooled.cellRows, pooled.cellCols, pooled.scores[0], pooled.weights.at(-1)], [256, 256, 0.5, 0.25]);
    const grown = fresh.memoryBytes - before;
    // the two matrices are 32 MiB; a stripe of each and the blocks, under 2 MiB
    assert.ok(grown <= 4 * 2 ** 20, `the engine's memory grew by ${grown} bytes`);
  });

  test('poolBlocks: a block larger than the region is its one cell, however large', () => {
    const scores = new Float32Array(65536).fill(1);
    scores[7] = 2;
    const weights = new Float32Array(65536).fill(0.5);
    for (const [stride, rows, block] of [[65536, 1, 65536], [65536, 1, 2 ** 31 - 1], [256, 256, 2 ** 31 - 1]]) {
      const pooled = poolBlocks({ scores, weights, stride, rows, cols: stride, block, mode: 'max' });
      assert.deepEqual([pooled.cellRows, pooled.cellCols, pooled.scores[0], pooled.weights[0]], [1, 1, 2, 0.5], `block ${block}`);
    }
  });

  test('poolBlocks: the maximum is Math.max\'s, +0 above −0 and a NaN of either sign NaN', () => {
    const negativeNaN = new Float32Array(new Uint32Array([0xffc00000]).buffer)[0];
    const scores = Float32Array.from([-0, 0, 1, negativeNaN]);
    const weights = Float32Array.from([0, -0, negativeNaN, 0.5]);
    const pooled = poolBlocks({ scores, weights, stride: 4, rows: 1, cols: 4, block: 2, mode: 'max' });
    assert.ok(Object.is(pooled.scores[0], 0), `max(−0, +0): ${pooled.scores[0]}`);
    assert.ok(Object.is(pooled.weights[0], 0));
    assert.ok(Number.isNaN(pooled.scores[1]) && Number.isNaN(pooled.weights[1]));
    const mean = poolBlocks({ scores, weights, stride: 4, rows: 1, cols: 4, block: 2, mode: 'mean' });
    assert.ok(Number.isNaN(mean.scores[1]));
  });

  test('poolBlocks: a block with no visible cell is masked, one visible cell keeps it unmasked', () => {
    // 4×4 causal: with 2×2 blocks the top-right block sees nothing, the diagonal ones see some.
    const { scores, weights } = head(random(7), 4, true);
    const pooled = poolBlocks({ scores, weights, stride: 4, row0: 0, col0: 0, rows: 4, cols: 4, block: 2, mode: 'max' });
    assert.deepEqual(Array.from(pooled.masked), [0, 1, 0, 0]);
    assert.equal(pooled.scores[1], -Infinity);
    assert.equal(pooled.weights[1], 0);
  });

  test('poolVector: stretches of at most `points` points, max or mean', () => {
    const values = Float32Array.from([1, 5, 2, 2, 9, 0, 3]);
    assert.deepEqual(poolVector(values, 1, 6, 3, 'max'), { stretch: 2, values: Float32Array.from([5, 9, 3]) });
    assert.deepEqual(poolVector(values, 1, 6, 3, 'mean'), { stretch: 2, values: Float32Array.from([3.5, 5.5, 1.5]) });
    assert.deepEqual(poolVector(values, 0, 7, 3, 'max'), { stretch: 3, values: Float32Array.from([5, 9, 3]) },
      'the last stretch holds what is left');
  });

  test('columnMeans and meanOf: the mean weight each key receives, averaged over heads', () => {
    const weights = Float32Array.from([0.5, 0.5, 0, 1, 0.25, 0.75]);  // 3 queries × 2 keys
    assertSameValues(columnMeans(weights, 3, 2), [0.25, 0.75], 'column means');
    assertSameValues(meanOf([Float32Array.from([1, 2]), Float32Array.from([3, 6])]), [2, 4], 'mean of heads');
  });
});
