// Numerical robustness through the JavaScript API: the stable softmax stays finite where
// the naive one overflows (the teaching point, shown as Infinity/NaN and never a crash),
// fully masked rows are zeros, flash equals the materialised kernel on extreme inputs, and
// what float32 cannot hold is an Error that says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import createAttention from '../../dist/wasm/attention.mjs';
import { attentionReference, errorOf, mulberry32, randomMatrix, toRows } from './reference.mjs';

const engine = await createAttention();
const KERNELS = ['materialized', 'flash'];
const FLOAT32_MAX = 3.4028234663852886e38;

const rowSums = (matrix) => toRows(matrix).map((row) => row.reduce((a, b) => a + b, 0));
const filled = (rows, cols, value) => Array.from({ length: rows }, () => new Array(cols).fill(value));

// Largest |a - b| over the largest |b|.
function relativeDifference(a, b) {
  let worst = 0, largest = 0;
  a.data.forEach((value, i) => {
    worst = Math.max(worst, Math.abs(value - b.data[i]));
    largest = Math.max(largest, Math.abs(b.data[i]));
  });
  return worst / (largest || 1);
}


test('softmax is finite for scores of ±1e30 made by the scale, in both kernels', () => {
  const q = [[1, 0]], k = [[1, 0], [-1, 0], [0.5, 0], [1, 0]], v = [[1], [100], [-100], [3]];
  for (const kernel of KERNELS) {
    const result = engine.attention(q, k, v, { scale: 1e30, kernel });
    assert.ok(Math.abs(result.context.data[0] - 2) < 1e-6, `${kernel}: ${result.context.data[0]}`);
    if (kernel === 'materialized') {
      assert.ok(Math.abs(result.scores[0].data[1] + 1e30) < 1e24);
      assert.deepEqual(Array.from(result.weights[0].data), [0.5, 0, 0, 0.5]);
    }
  }
});

test('softmax is finite for inputs around 1e15: rows sum to 1', () => {
  const random = mulberry32(910);
  const q = randomMatrix(random, 5, 4, 0.9e15, 1.1e15), k = randomMatrix(random, 7, 4, -1.1e15, 1.1e15);
  const v = randomMatrix(random, 7, 3);
  for (const kernel of KERNELS) {
    const result = engine.attention(q, k, v, { scale: false, kernel });
    assert.ok(result.context.data.every(Number.isFinite), kernel);
    if (kernel === 'materialized') {
      assert.ok(result.weights[0].data.every(Number.isFinite));
      for (const total of rowSums(result.weights[0])) assert.ok(Math.abs(total - 1) < 1e-6, String(total));
    }
  }
});

test('naive softmax overflows to Infinity and NaN, as the textbook formula does, without throwing', () => {
  const q = [[1]], k = [[100], [0], [-100]], v = [[1], [2], [3]];
  for (const kernel of KERNELS) {
    const result = engine.attention(q, k, v, { scale: false, normalization: 'naive-softmax', kernel });
    assert.ok(Number.isNaN(result.context.data[0]), `${kernel}: exp(100) overflows float32, Infinity / Infinity is NaN`);
    if (kernel === 'materialized') {
      assert.ok(Number.isNaN(result.weights[0].data[0]));
      assert.deepEqual(Array.from(result.weights[0].data.subarray(1)), [0, 0]);
    }
  }
  // The walk-through puts both side by side on scores near 1e30.
  const walk = engine.walkthrough([[1e15, 0], [0.5e15, 0], [0, 1]], { query: 0 });
  assert.ok(Math.abs(walk.scores[0] / 1e30 - 1) < 1e-6);
  assert.ok(Number.isNaN(walk.weights.naiveSoftmax[0]));
  assert.deepEqual(Array.from(walk.weights.softmax), [1, 0, 0]);
});

test('a fully masked row has zero weights and a zero context, in every normalisation and kernel', () => {
  // Causal with m < n: queries 0 and 1 of 4 see none of the 2 keys.
  const q = filled(4, 2, 0.5), k = [[1e15, -1e15], [3, 4]], v = [[1], [-2]];
  for (const kernel of KERNELS) {
    for (const normalization of ['softmax', 'naive-softmax', 'sum']) {
      const result = engine.attention(q, k, v, { scale: false, causal: true, kernel, normalization });
      const label = `${kernel} ${normalization}`;
      assert.deepEqual(Array.from(result.context.data.subarray(0, 2)), [0, 0], label);
      if (kernel === 'materialized') {
        assert.deepEqual(Array.from(result.weights[0].data.subarray(0, 4)), [0, 0, 0, 0], label);
        assert.deepEqual(Array.from(result.scores[0].data.subarray(0, 4)), [-Infinity, -Infinity, -Infinity, -Infinity]);
      }
    }
  }
});

test('flash equals materialised and the reference on extreme inputs (1,300 keys: three tiles of 512)', () => {
  const random = mulberry32(911);
  const n = 40, m = 1300, d = 4;
  const v = randomMatrix(random, m, 3);
  const dominant = randomMatrix(random, m, d);
  dominant[m - 7] = [60, 60, 60, 60];  // one key far ahead of the others, in the last tile
  const cases = {
    'large magnitudes (scores to ±1e30)': [randomMatrix(random, n, d, -1e15, 1e15), randomMatrix(random, m, d, -1e15, 1e15)],
    'tiny magnitudes (scores underflow to 0)': [randomMatrix(random, n, d, -1e-30, 1e-30), randomMatrix(random, m, d, -1e-30, 1e-30)],
    'all scores equal': [filled(n, d, 0.25), filled(m, d, 2)],
    'one dominant key': [filled(n, d, 1), dominant],
  };
  for (const [name, [q, k]] of Object.entries(cases)) {
    for (const causal of [false, true]) {
      const options = { scale: false, causal };
      const materialized = engine.attention(q, k, v, { ...options, kernel: 'materialized' });
      const flash = engine.attention(q, k, v, { ...options, kernel: 'flash' });
      assert.ok(flash.context.data.every(Number.isFinite), name);
      assert.ok(relativeDifference(flash.context, materialized.context) <= 1e-5, `${name} causal ${causal}: flash`);
      const reference = attentionReference(q, k, v, options).context.flat();
      assert.ok(relativeDifference(materialized.context, { data: reference }) <= 1e-5, `${name}: reference`);
    }
  }
  const uniform = engine.attention(...cases['all scores equal'], v, { kernel: 'flash' });
  const mean = v.reduce((total, row) => total + row[1], 0) / m;
  assert.ok(Math.abs(uniform.context.data[1] - mean) < 1e-5);
  const one = engine.attention(...cases['one dominant key'], v, { scale: false, kernel: 'flash' });
  assert.ok(Math.abs(one.context.data[5 * 3 + 2] - v[m - 7][2]) < 1e-6);
});

test('flash keeps values near the float32 maximum in range, as the materialised kernel does', () => {
  const k = filled(64, 1, 0), v = filled(64, 2, 3e38);
  for (const kernel of KERNELS) {
    const { context } = engine.attention([[0]], k, v, { kernel });
    assert.ok(Math.abs(context.data[0] / 3e38 - 1) < 1e-6, `${kernel}: ${context.data[0]}`);
  }
});

test('v at ±FLT_MAX gives a context at ±FLT_MAX in both kernels: the sums\' rounding past it is no overflow', () => {
  const random = mulberry32(20261124);
  for (const m of [2, 3, 7, 19, 64, 300]) {
    const small = (rows) => Array.from({ length: rows }, () => [(random() - 0.5) * 2e-3, (random() - 0.5) * 2e-3]);
    const v = Array.from({ length: m }, () => [FLOAT32_MAX, -FLOAT32_MAX]);
    for (const kernel of KERNELS) {
      const { context } = engine.attention(small(5), small(m), v, { scale: false, kernel });
      for (let i = 0; i < 5; ++i) {
        const [plus, minus] = [context.data[2 * i], context.data[2 * i + 1]];
        assert.ok(Math.abs(plus / FLOAT32_MAX - 1) < 1e-6 && Math.abs(minus / FLOAT32_MAX + 1) < 1e-6, `m = ${m}, ${kernel}, query ${i}: ${plus}, ${minus}`);
      }
    }
  }
});

test('scores past float32 fail with an Error that says so, instead of NaN or a row of zeros', () => {
  for (const kernel of KERNELS) {
    const plus = errorOf(() => engine.attention([[1e20]], [[1e20], [1]], [[1], [2]], { scale: false, kernel }));
    assert.ok(plus instanceof Error, kernel);
    assert.match(plus.message, /^softmax attention overflowed float32 in head 0, query 0: .*3\.4028235e\+38/);
    const minus = errorOf(() => engine.attention([[1e20]], [[-1e20], [-3e19]], [[1], [2]], { scale: false, kernel }));
    assert.match(minus.message, /overflowed float32/, kernel);
  }
  assert.match(errorOf(() => engine.attention([[1e20]], [[1e20]], [[1]], { scale: false, kernel: 'materialized' })).message,
    /scores\[0\]\[0\]\[0\] = q·kᵀ·scale, which is Infinity/);
  assert.match(errorOf(() => engine.walkthrough([[1e20, 0], [1, 1]])).message, /^scores\[0\] = x\[0\]·x\[0\]·scale is Infinity/);
  assert.match(errorOf(() => engine.walkthrough([[1], [2]], { scale: FLOAT32_MAX })).message, /scores\[1\]/);
  // The teaching modes return what their arithmetic gives.
  const naive = engine.attention([[1e20]], [[1e20], [1]], [[1], [2]], { scale: false, normalization: 'naive-softmax' });
  assert.equal(naive.scores[0].data[0], Infinity);
  assert.ok(Number.isNaN(naive.weights[0].data[0]));
});

test('RoPE with a subnormal base is an Error; tiny and huge normal bases stay finite', () => {
  const x = [[1, 2, 3, 4], [0.5, -1, 2, 1], [1, 1, 1, 1]];
  for (const base of [1e-300, 0.5, 1e300]) {
    const { context } = engine.attention(x, x, x, { positional: { type: 'rope', base } });
    assert.ok(context.data.every(Number.isFinite), `base ${base}`);
  }
  assert.match(errorOf(() => engine.attention(x, x, x, { positional: { type: 'rope', base: 1e-320 } })).message,
    /^positional\.base must be a finite number > 0/);
});
